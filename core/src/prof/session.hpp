// Profiler: profiling sessions and the collector thread that feeds the sinks.
//
// One session at a time, process-wide. start() is given the sink objects (loaded by the Runtime
// from profiler plugins), creates the output folder, calls every sink's begin() and turns the
// record categories on; the collector then empties the per-thread rings every couple of
// milliseconds and hands each batch to every sink. stop() turns collection off, delivers what is
// left, and calls end(), so the sinks write their files. A session still running when the process
// exits is stopped by an exit handler, so the output is complete even without aclFinalize.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "arun/core/status.hpp"
#include "arun/plugin/profiler.hpp"

namespace arun {

struct ProfilerSinkHandle {
  std::string name;
  std::shared_ptr<plugin::ProfilerSink> sink;  // holds the plugin's library
};

struct ProfilerSession {
  std::vector<ProfilerSinkHandle> sinks;
  std::string output_dir;
  uint64_t categories = 0;      // prof::k* bits
  uint64_t buffer_bytes = 0;    // per-thread ring size (0: keep the current one)
  uint64_t start_after_ms = 0;  // capture window: collection begins this long after start()
  uint64_t duration_ms = 0;     // ... and ends this long after it began (0: until stop())
  std::string source;           // "config", "ASCEND_RUN_PROFILING", "aclprofStart"
  struct Device {
    int32_t id;
    std::string name;
    uint32_t compute_units, copy_units;
  };
  std::vector<Device> devices;
};

struct ProfilerTotals {
  uint64_t records = 0;
  uint64_t dropped = 0;
};

class Profiler {
 public:
  static Profiler& instance();

  // Errors: Errc::prof_already_run when a session runs; Errc::write_file when the output folder
  // cannot be created.
  Status start(ProfilerSession session);
  // Ends the running session (no-op when none); returns what it collected.
  ProfilerTotals stop();
  bool running() const;
  std::string source() const;  // of the running session ("" when none)
  // Delivers what is buffered now (tests use it to look at a sink mid-session).
  void flush();
  // A ring is filling up: deliver before the next tick.
  void kick();
  // Totals of the last session that ended.
  ProfilerTotals last_totals() const;

 private:
  Profiler() = default;
  void collector_loop();
  void deliver_locked();   // with deliver_mu_ held
  std::mutex control_mu_;  // start / stop
  mutable std::mutex state_mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::atomic<bool> kicked_{false};
  bool running_ = false;
  std::string source_;
  std::thread collector_;
  std::mutex deliver_mu_;  // one delivery at a time (collector, flush, stop)
  ProfilerSession session_;
  std::vector<plugin::DeviceInfo> device_infos_;
  std::vector<plugin::Record> batch_;
  uint64_t base_ns_ = 0;
  ProfilerTotals totals_, last_totals_;
};

}  // namespace arun
