// HostQueue: host calls (aclrtLaunchCallback, aclrtLaunchHostFunc) that have reached the head of
// their stream and wait for the host thread that runs them: a user thread looping on
// aclrtProcessReport / aclrtProcessHostFunc, or the runtime's own host-function worker.
//
// Calls are kept in the order they were posted; the scheduler posts with its mutex held, so the
// calls of one stream are posted (and run) in stream order. Only streams that are subscribed to the
// queue are accepted: a call of a stream that was unsubscribed meanwhile is refused at post(), and
// unsubscribe() hands back the calls it leaves unrun so the caller can complete their tasks.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "sanitizer/stream_sanitizer.hpp"

namespace arun {

class Stream;
struct Task;

struct HostCall {
  void (*fn)(void*) = nullptr;
  void* user = nullptr;
  const Stream* stream = nullptr;
  Task* task = nullptr;  // a blocking call: its task completes once fn has returned
  // Profiling (set when the task was profiled; prof_enqueue != 0): run() times the call and writes
  // its Task record (TaskType::HostCall). Copied here because a non-blocking call's task is gone.
  uint64_t prof_enqueue = 0;  // prof::ticks()
  uint64_t prof_posted = 0;   // prof::ticks()
  uint64_t correlation = 0;
  uint32_t prof_name = 0;
  uint32_t submitter_tid = 0;
  int32_t device = -1;
  int32_t stream_id = -1;
  uint32_t prof_depth = 0;
  std::shared_ptr<san::TaskState> san = nullptr;  // stream sanitizer: the call runs with its task's clock
};

class HostQueue {
 public:
  // accept_all: every stream may post (the runtime's worker); otherwise only subscribed ones.
  explicit HostQueue(bool accept_all = false) : accept_all_(accept_all) {}

  void subscribe(const Stream* stream);
  // Stops accepting the stream's calls and returns those still queued.
  std::vector<HostCall> unsubscribe(const Stream* stream);
  bool serves(const Stream* stream) const;
  bool empty_subscription() const;

  // False (nothing queued) if the stream is not subscribed or the queue is closed.
  bool post(const HostCall& call);
  // Waits for a call until deadline_ns (steady clock, < 0 = forever). False on timeout, or once the
  // queue is closed and empty.
  bool take(HostCall* out, int64_t deadline_ns);
  // Refuses further posts and wakes the takers; queued calls can still be taken.
  void close();

  // Runs a taken call and reports a blocking one back to its scheduler.
  static void run(const HostCall& call);
  // The stream whose host call the calling thread is running now, or null outside host calls. The
  // spec forbids calls that synchronise or tear down from inside a host call; the runtime uses this
  // to refuse those that would wait for the call itself (and so never return).
  static const Stream* running();
  // Completes a blocking call's task without running it (its subscription went away).
  static void skip(const HostCall& call);

 private:
  const bool accept_all_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<HostCall> calls_;
  std::multiset<const Stream*> streams_;
  bool closed_ = false;
};

// A thread of the runtime serving one HostQueue (aclrtLaunchHostFunc without a subscribed thread).
class HostWorker {
 public:
  HostWorker();
  ~HostWorker();  // runs what is queued, then joins
  HostWorker(const HostWorker&) = delete;
  HostWorker& operator=(const HostWorker&) = delete;
  const std::shared_ptr<HostQueue>& queue() const { return queue_; }

 private:
  std::shared_ptr<HostQueue> queue_;
  std::thread thread_;
};

}  // namespace arun
