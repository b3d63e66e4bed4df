// Stream: an in-order queue of tasks on one device. The queue and the head state are guarded by
// the device scheduler's mutex; the submitted / completed counters are atomics so that host
// threads can wait for a position without taking that mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

#include "runtime/task.hpp"

namespace arun {

struct Replay;

class Context;
class Graph;
struct GraphTaskGroup;

// A user allocator bound to a stream (aclrtAllocatorRegister): a copy of the descriptor's fields,
// so the descriptor may be destroyed afterwards. Callbacks are kept type-erased; the C API layer
// knows their types.
struct UserAllocator {
  using Fn = void (*)();
  void* descriptor = nullptr;
  void* object = nullptr;
  Fn alloc = nullptr, free = nullptr, alloc_advise = nullptr, get_addr = nullptr;
};

class Stream {
 public:
  Stream(Context* context, Scheduler* scheduler, int32_t id, uint32_t priority, uint32_t flags, bool is_default)
      : context_(context),
        scheduler_(scheduler),
        id_(id),
        priority_(priority),
        flags_(flags),
        is_default_(is_default),
        uid_(next_uid()) {}

  Context* context() const { return context_; }
  Scheduler* scheduler() const { return scheduler_; }
  int32_t id() const { return id_; }
  uint32_t priority() const { return priority_; }
  uint32_t flags() const { return flags_; }
  bool is_default() const { return is_default_; }
  // Process-wide and never reused (allocator policies key per-stream state by it); ids restart per device.
  uint64_t uid() const { return uid_; }
  void* handle() const { return handle_; }
  void set_handle(void* h) { handle_ = h; }

  uint64_t submitted() const { return submitted_.load(std::memory_order_acquire); }
  uint64_t completed() const { return completed_.load(std::memory_order_acquire); }
  bool idle() const { return completed() >= submitted(); }
  // Tasks submitted and not yet completed (queued, blocked on an event, or running).
  uint64_t depth() const {
    uint64_t done = completed();
    uint64_t sub = submitted();
    return sub > done ? sub - done : 0;
  }

  // aclrtSetStreamFailureMode (ACL_CONTINUE_ON_FAILURE / ACL_STOP_ON_FAILURE), set at most once.
  // A stream that never set it follows its context (see Context::stop_on_failure).
  std::atomic<uint64_t> failure_mode{0};
  std::atomic<bool> failure_mode_set{false};
  // aclrtSetStreamAttribute's switches that the simulated device has no hardware behind (float
  // overflow checking, op-info caching) and the user's tag: kept and reported, nothing more.
  std::atomic<uint32_t> overflow_switch{0};
  std::atomic<uint32_t> cache_op_info_switch{0};
  std::atomic<uint32_t> user_custom_tag{0};
  // aclrtSetStreamResLimit: core limits per aclrtDevResLimitType (cube, vector); 0 = none. They
  // apply to kernels launched by threads that selected this stream (aclrtUseStreamResInCurrentThread).
  std::atomic<uint32_t> res_limit[2] = {0, 0};
  // Stream capture (runtime/graph.hpp): the graph this stream records into, guarded by the
  // GraphTable's mutex; `capturing` mirrors it for Runtime::submit's fast path.
  std::atomic<bool> capturing{false};
  std::shared_ptr<Graph> capture_graph;
  // Explicit build (aclmdlRIBindStream): the instance this persistent stream is bound to; and a
  // task-group update (aclmdlRICaptureTaskUpdateBegin) whose replacement tasks it collects. Both
  // guarded by the GraphTable's mutex; `routed` mirrors "either is set" for Runtime::submit.
  std::shared_ptr<Graph> bound_graph;
  std::shared_ptr<GraphTaskGroup> update_group;
  std::atomic<bool> routed{false};

  void set_user_allocator(std::optional<UserAllocator> a) {
    std::lock_guard lock(user_allocator_mu_);
    user_allocator_ = a;
  }
  std::optional<UserAllocator> user_allocator() const {
    std::lock_guard lock(user_allocator_mu_);
    return user_allocator_;
  }

  // aclrtStreamStop halted something that ran (spec part 2, R3): every later synchronize returns
  // ACL_ERROR_RT_INTERNAL_ERROR and new work is refused, until aclrtStreamAbort or destruction.
  bool abnormal() const { return abnormal_.load(std::memory_order_acquire); }

  // Bumped by every aclrtStreamAbort: a synchronize that saw it change returns ACL_ERROR_RT_STREAM_ABORT.
  uint32_t abort_epoch() const { return abort_epoch_.load(std::memory_order_acquire); }

 private:
  friend class Scheduler;
  Context* context_;
  Scheduler* scheduler_;
  int32_t id_;
  uint32_t priority_;
  uint32_t flags_;
  bool is_default_;
  uint64_t uid_;
  void* handle_ = nullptr;

  static uint64_t next_uid() {
    static std::atomic<uint64_t> counter{0};
    return ++counter;
  }

  // Guarded by the scheduler mutex.
  std::deque<Task*> queue_;
  bool head_busy_ = false;           // head handed to the policy, running, or blocked on an event
  int first_error_ = 0;              // first failure since the last synchronize reported one
  std::string first_error_message_;  // the device's explanation of it, if it gave one
  bool detached_ = false;            // force-destroyed while a task ran: dropped when that task completes
  bool aborting_ = false;            // aclrtStreamAbort in progress: new submissions are dropped
  int stop_error_ = 0;               // stopped by a failure under ACL_STOP_ON_FAILURE: submissions refused
  uint32_t room_waiters_ = 0;        // submitters blocked because the queue is full
  // A hidden lane of a running graph execution (sched/replay.hpp): fed one task at a time.
  Replay* replay_ = nullptr;
  uint32_t replay_lane_ = 0;

  std::atomic<uint64_t> submitted_{0};
  std::atomic<uint64_t> completed_{0};
  // Lowest position a parked host thread waits for; completions below it wake nobody.
  std::atomic<uint64_t> notify_at_{UINT64_MAX};
  std::atomic<uint32_t> abort_epoch_{0};
  std::atomic<bool> abnormal_{false};  // written under the scheduler mutex

  mutable std::mutex user_allocator_mu_;
  std::optional<UserAllocator> user_allocator_;
};

}  // namespace arun
