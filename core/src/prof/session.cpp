#include "prof/session.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "arun/runtime/recorder.hpp"
#include "base/logging.hpp"
#include "prof/trace_rings.hpp"

namespace arun {

namespace {
constexpr auto kCollectInterval = std::chrono::milliseconds(2);

void stop_at_exit() {
  Profiler::instance().stop();
}

int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

void prof::kick_collector() {
  Profiler::instance().kick();
}

void Profiler::kick() {
  kicked_.store(true, std::memory_order_relaxed);
  wake_.notify_one();  // no system call unless the collector is asleep
}

Profiler& Profiler::instance() {
  // Never destroyed: the exit handler and late writers may use it after static destructors ran.
  static Profiler* p = [] {
    auto* created = new Profiler();
    std::atexit(stop_at_exit);
    return created;
  }();
  return *p;
}

bool Profiler::running() const {
  std::lock_guard lock(state_mu_);
  return running_;
}

std::string Profiler::source() const {
  std::lock_guard lock(state_mu_);
  return running_ ? source_ : std::string();
}

ProfilerTotals Profiler::last_totals() const {
  std::lock_guard lock(state_mu_);
  return last_totals_;
}

Status Profiler::start(ProfilerSession session) {
  std::lock_guard control(control_mu_);
  {
    std::lock_guard lock(state_mu_);
    if (running_) {
      return Status(Errc::prof_already_run, "profiling is already running (started by " + source_ + ")");
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(session.output_dir, ec);
  if (ec || !std::filesystem::is_directory(session.output_dir, ec)) {
    return Status(Errc::write_file, "cannot create the profiling output folder " + session.output_dir + ": " +
                                        (ec ? ec.message() : std::string("not a folder")));
  }
  if (session.buffer_bytes != 0) prof::TraceRings::set_buffer_bytes(session.buffer_bytes);
  prof::TraceRings::discard();  // anything a late writer left from an earlier session

  std::lock_guard deliver(deliver_mu_);
  session_ = std::move(session);
  device_infos_.clear();
  for (const auto& d : session_.devices) device_infos_.push_back({d.id, d.name.c_str(), d.compute_units, d.copy_units});
  prof::calibrate_clock();  // before any record of this session is timed
  base_ns_ = prof::now_ns();
  plugin::SessionInfo info{};
  info.output_dir = session_.output_dir.c_str();
  info.base_ns = base_ns_;
  info.base_unix_ns = unix_now_ns();
  info.pid = static_cast<uint32_t>(::getpid());
  info.categories = session_.categories;
  info.devices = device_infos_.data();
  info.device_count = static_cast<uint32_t>(device_infos_.size());
  info.strings = &prof::strings();
  std::vector<ProfilerSinkHandle> started;
  for (auto& s : session_.sinks) {
    char error[512] = {0};
    bool ok = false;
    try {
      ok = s.sink->begin(info, error, sizeof error - 1);  // the last byte stays NUL
    } catch (...) {
      ok = false;
    }
    if (ok) {
      started.push_back(std::move(s));
    } else {
      log().warn("profiler sink {} did not start: {}; profiling goes on without it", s.name,
                 error[0] ? error : "no reason given");
    }
  }
  session_.sinks = std::move(started);
  totals_ = {};
  {
    std::lock_guard lock(state_mu_);
    running_ = true;
    stopping_ = false;
    source_ = session_.source;
  }
  if (session_.start_after_ms == 0) prof::g_active.store(session_.categories, std::memory_order_seq_cst);
  collector_ = std::thread([this] { collector_loop(); });
  log().info("profiling started ({}): output in {}", session_.source, session_.output_dir);
  return Status::Ok();
}

void Profiler::collector_loop() {
  const auto began = std::chrono::steady_clock::now();
  const auto open_at = began + std::chrono::milliseconds(session_.start_after_ms);
  bool opened = session_.start_after_ms == 0;
  bool closed = false;
  std::unique_lock lock(state_mu_);
  while (!stopping_) {
    wake_.wait_for(lock, kCollectInterval, [this] { return stopping_ || kicked_.load(std::memory_order_relaxed); });
    kicked_.store(false, std::memory_order_relaxed);
    if (stopping_) break;
    lock.unlock();
    const auto now = std::chrono::steady_clock::now();
    if (!opened && now >= open_at) {
      opened = true;
      prof::g_active.store(session_.categories, std::memory_order_seq_cst);
    }
    if (opened && !closed && session_.duration_ms != 0 &&
        now >= open_at + std::chrono::milliseconds(session_.duration_ms)) {
      closed = true;
      prof::g_active.store(0, std::memory_order_seq_cst);
    }
    {
      std::lock_guard deliver(deliver_mu_);
      deliver_locked();
    }
    lock.lock();
  }
}

void Profiler::deliver_locked() {
  batch_.clear();
  uint64_t dropped = 0;
  prof::TraceRings::drain(&batch_, &dropped);
  totals_.dropped += dropped;
  // Records from before the session (a task enqueued earlier that finished now) are not ours.
  size_t kept = 0;
  for (const auto& r : batch_) {
    uint64_t last = std::max(std::max(r.t0, r.t1), std::max(r.t2, r.t3));
    if (r.kind != plugin::RecordKind::Dropped && last < base_ns_) continue;
    batch_[kept++] = r;
  }
  batch_.resize(kept);
  if (batch_.empty()) return;
  totals_.records += batch_.size();
  for (auto& s : session_.sinks) {
    try {
      s.sink->consume(batch_.data(), batch_.size());
    } catch (...) {
      log().error("profiler sink {} threw while consuming records", s.name);
    }
  }
}

void Profiler::flush() {
  std::lock_guard deliver(deliver_mu_);
  if (running()) deliver_locked();
}

ProfilerTotals Profiler::stop() {
  std::lock_guard control(control_mu_);
  bool was_running = false;
  {
    std::lock_guard lock(state_mu_);
    was_running = running_;
    if (running_) stopping_ = true;
  }
  if (!was_running) {
    // aclFinalize without a session: free the rings of threads that exited since (and whatever a
    // late writer left in the others).
    std::lock_guard deliver(deliver_mu_);
    prof::TraceRings::discard();
    return {};
  }
  prof::g_active.store(0, std::memory_order_seq_cst);
  wake_.notify_all();
  if (collector_.joinable()) collector_.join();
  std::lock_guard deliver(deliver_mu_);
  deliver_locked();
  plugin::SessionTotals totals{totals_.records, totals_.dropped, prof::now_ns()};
  for (auto& s : session_.sinks) {
    try {
      s.sink->end(totals);
    } catch (...) {
      log().error("profiler sink {} threw while finishing", s.name);
    }
  }
  if (totals_.dropped != 0) {
    log().warn("profiling dropped {} records (per-thread buffers were full; raise [profiler] buffer_size)",
               totals_.dropped);
  }
  log().info("profiling stopped: {} records, {} dropped, output in {}", totals_.records, totals_.dropped,
             session_.output_dir);
  session_.sinks.clear();  // unloads sink plugins no one else holds
  ProfilerTotals result = totals_;
  std::lock_guard lock(state_mu_);
  running_ = false;
  stopping_ = false;
  source_.clear();
  last_totals_ = result;
  return result;
}

}  // namespace arun
