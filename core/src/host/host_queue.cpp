#include "host/host_queue.hpp"

#include <algorithm>
#include <chrono>

#include <pthread.h>

#include "arun/runtime/recorder.hpp"
#include "runtime/task.hpp"
#include "sched/scheduler.hpp"

namespace arun {

void HostQueue::subscribe(const Stream* stream) {
  std::lock_guard lock(mu_);
  streams_.insert(stream);
}

std::vector<HostCall> HostQueue::unsubscribe(const Stream* stream) {
  std::vector<HostCall> left;
  std::lock_guard lock(mu_);
  auto it = streams_.find(stream);
  if (it != streams_.end()) streams_.erase(it);
  if (streams_.count(stream) > 0) return left;
  auto keep =
      std::stable_partition(calls_.begin(), calls_.end(), [&](const HostCall& c) { return c.stream != stream; });
  left.assign(keep, calls_.end());
  calls_.erase(keep, calls_.end());
  return left;
}

bool HostQueue::serves(const Stream* stream) const {
  std::lock_guard lock(mu_);
  return accept_all_ || streams_.count(stream) > 0;
}

bool HostQueue::empty_subscription() const {
  std::lock_guard lock(mu_);
  return streams_.empty();
}

bool HostQueue::post(const HostCall& call) {
  {
    std::lock_guard lock(mu_);
    if (closed_ || (!accept_all_ && streams_.count(call.stream) == 0)) return false;
    calls_.push_back(call);
  }
  cv_.notify_one();
  return true;
}

bool HostQueue::take(HostCall* out, int64_t deadline_ns) {
  std::unique_lock lock(mu_);
  auto ready = [&] { return !calls_.empty() || closed_; };
  if (deadline_ns < 0) {
    cv_.wait(lock, ready);
  } else {
    auto deadline = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(deadline_ns));
    if (!cv_.wait_until(lock, deadline, ready)) return false;
  }
  if (calls_.empty()) return false;
  *out = calls_.front();
  calls_.pop_front();
  return true;
}

void HostQueue::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

namespace {
thread_local const Stream* t_running = nullptr;

// Marks the calling thread as running `stream`'s host call for its lifetime (nests: a host call
// that runs another, via aclrtProcessReport, restores the outer one).
class RunningScope {
 public:
  explicit RunningScope(const Stream* stream) : outer_(t_running) { t_running = stream; }
  ~RunningScope() { t_running = outer_; }
  RunningScope(const RunningScope&) = delete;
  RunningScope& operator=(const RunningScope&) = delete;

 private:
  const Stream* outer_;
};
}  // namespace

const Stream* HostQueue::running() {
  return t_running;
}

void HostQueue::run(const HostCall& call) {
  RunningScope scope(call.stream);
  san::HostCallScope san_scope(call.san);
  if (call.prof_enqueue != 0 && prof::on(prof::kTasks)) [[unlikely]] {
    const uint64_t start = prof::ticks();
    call.fn(call.user);
    const uint64_t end = prof::ticks();
    plugin::Record r = prof::make_record(plugin::RecordKind::Task);
    r.subkind = static_cast<uint16_t>(plugin::TaskType::HostCall);
    r.name = call.prof_name != 0 ? call.prof_name : prof::intern_static("host_call");
    r.thread = call.submitter_tid;
    r.device = call.device;
    r.stream = call.stream_id;
    r.unit = plugin::kHostUnit;
    r.correlation = call.correlation;
    r.t0 = prof::ticks_to_ns(call.prof_enqueue);
    r.t1 = prof::ticks_to_ns(call.prof_posted);
    r.t2 = prof::ticks_to_ns(start);
    r.t3 = prof::ticks_to_ns(end);
    r.value0 = prof::thread_id();
    r.value3 = call.prof_depth;
    prof::emit(r);
  } else {
    call.fn(call.user);
  }
  if (call.task != nullptr) call.task->scheduler->host_call_done(call.task);
}

void HostQueue::skip(const HostCall& call) {
  if (call.task != nullptr) call.task->scheduler->host_call_done(call.task);
}

HostWorker::HostWorker() : queue_(std::make_shared<HostQueue>(true)) {
  thread_ = std::thread([q = queue_] {
    pthread_setname_np(pthread_self(), "arun-hostfunc");
    HostCall call;
    while (q->take(&call, -1)) HostQueue::run(call);
  });
}

HostWorker::~HostWorker() {
  queue_->close();
  thread_.join();
}

}  // namespace arun
