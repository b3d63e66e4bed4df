// Profiling overhead on the host enqueue path: 100k tiny device tasks (arunLaunchDeviceTask with an
// empty function) enqueued round-robin on 4 streams, timed from the first enqueue to the last
// (the drain is not timed). Three configurations of the same build, run back to back in every
// round (the order rotates) so that they see the same machine state:
//   none:     no [profiler] section;
//   off:      [profiler] enabled = false (profiling compiled in, switched off);
//   timeline: [profiler] enabled = true, sinks = ["timeline"].
// Each round is a fresh aclInit .. aclFinalize (the timeline file is written in aclFinalize,
// outside the timed part). Counters are medians over the rounds of this repetition:
//   off_vs_none, timeline_vs_none: enqueue time ratios, taken per round;
//   ns_per_task_<mode>:            host enqueue time per task;
//   dropped:                       records the timeline sessions dropped (sum over rounds).
// The queue bound is raised to 65536 so no enqueue waits for the device (the host cost alone).
//   build/bin/arun_prof_bench --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "arun/arun_ext.h"

namespace {

namespace fs = std::filesystem;

#define PROF_BENCH_CHECK(call)                                                                       \
  do {                                                                                               \
    aclError rc_ = (call);                                                                           \
    if (rc_ != ACL_SUCCESS) {                                                                        \
      const char* msg_ = aclGetRecentErrMsg();                                                       \
      std::fprintf(stderr, "%s:%d: %s failed: %d (%s)\n", __FILE__, __LINE__, #call, rc_, msg_ ? msg_ : ""); \
      std::exit(2);                                                                                  \
    }                                                                                                \
  } while (0)

constexpr int kTasks = 100000;
constexpr int kStreams = 4;

enum Mode { kNone = 0, kOff = 1, kTimeline = 2, kModes = 3 };
const char* const kModeNames[kModes] = {"none", "off", "timeline"};

fs::path work_dir() {
  static fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("arun-prof-bench-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::string config_for(Mode mode) {
  fs::path file = work_dir() / (std::string(kModeNames[mode]) + ".toml");
  if (!fs::exists(file)) {
    std::ofstream out(file);
    out << "[[plugin]]\nkind = \"device\"\nname = \"ascend\"\n\n[scheduler]\nqueue_depth = 65536\n";
    if (mode == kOff) out << "\n[profiler]\nenabled = false\n";
    if (mode == kTimeline) {
      out << "\n[profiler]\nenabled = true\nsinks = [\"timeline\"]\noutput_dir = \"" << (work_dir() / "out").string()
          << "\"\n";
    }
  }
  return file.string();
}

void empty_task(void*) {}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The dropped count the timeline wrote, then the output removed.
uint64_t take_dropped() {
  uint64_t dropped = 0;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(work_dir() / "out", ec)) {
    std::ifstream in(e.path());
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    auto pos = head.find("\"dropped\":");
    if (pos != std::string::npos) dropped += std::strtoull(head.c_str() + pos + 10, nullptr, 10);
  }
  fs::remove_all(work_dir() / "out", ec);
  return dropped;
}

// One aclInit .. aclFinalize; returns the timed enqueue nanoseconds.
int64_t run_once(Mode mode) {
  PROF_BENCH_CHECK(aclInit(config_for(mode).c_str()));
  PROF_BENCH_CHECK(aclrtSetDevice(0));
  aclrtStream streams[kStreams];
  for (auto& s : streams) PROF_BENCH_CHECK(aclrtCreateStream(&s));
  for (int i = 0; i < 1000; ++i) PROF_BENCH_CHECK(arunLaunchDeviceTask(&empty_task, nullptr, streams[i % kStreams]));
  for (auto& s : streams) PROF_BENCH_CHECK(aclrtSynchronizeStream(s));
  const int64_t t0 = now_ns();
  for (int i = 0; i < kTasks; ++i) PROF_BENCH_CHECK(arunLaunchDeviceTask(&empty_task, nullptr, streams[i % kStreams]));
  const int64_t t1 = now_ns();
  for (auto& s : streams) PROF_BENCH_CHECK(aclrtSynchronizeStream(s));
  for (auto& s : streams) PROF_BENCH_CHECK(aclrtDestroyStream(s));
  PROF_BENCH_CHECK(aclrtResetDevice(0));
  PROF_BENCH_CHECK(aclFinalize());
  return t1 - t0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

void BM_ProfilingOverhead(benchmark::State& state) {
  std::vector<double> ns[kModes], off_ratio, on_ratio;
  uint64_t dropped = 0;
  int round = 0;
  for (auto _ : state) {
    int64_t t[kModes] = {};
    for (int k = 0; k < kModes; ++k) {
      const Mode mode = static_cast<Mode>((k + round) % kModes);
      t[mode] = run_once(mode);
      if (mode == kTimeline) dropped += take_dropped();
    }
    ++round;
    for (int m = 0; m < kModes; ++m) ns[m].push_back(double(t[m]) / kTasks);
    off_ratio.push_back(double(t[kOff]) / double(t[kNone]));
    on_ratio.push_back(double(t[kTimeline]) / double(t[kNone]));
    state.SetIterationTime(double(t[kNone] + t[kOff] + t[kTimeline]) / 1e9);
  }
  for (int m = 0; m < kModes; ++m) state.counters[std::string("ns_per_task_") + kModeNames[m]] = median(ns[m]);
  state.counters["off_vs_none"] = median(off_ratio);
  state.counters["timeline_vs_none"] = median(on_ratio);
  state.counters["dropped"] = double(dropped);
}
BENCHMARK(BM_ProfilingOverhead)->Iterations(5)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
