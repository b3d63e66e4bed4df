// Scheduler: one per open device. Owns the device's streams, keeps each stream in order, resolves
// event dependencies, and hands ready stream heads to the SchedulerPolicy, which picks what each
// free execution unit runs next.
//
// Threading: one mutex guards all queue state of the device. Enqueue and completion hold it only
// for queue bookkeeping; device launches and host wake-ups happen after it is released. A unit that
// finishes a task picks its next task in the same critical section, so a busy device runs
// back-to-back tasks without any thread hand-off.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "arun/core/status.hpp"
#include "arun/plugin/device.hpp"
#include "arun/plugin/profiler.hpp"
#include "runtime/event.hpp"
#include "runtime/stream.hpp"
#include "sched/notifier.hpp"
#include "sched/replay.hpp"
#include "sched/scheduler_policy.hpp"
#include "sched/wait_timer.hpp"

namespace arun {

// What the scheduler reports when a task fails (exception info, spec 2.8).
struct TaskFailure {
  uint32_t task_id = 0;  // the task's position in its stream
  int32_t stream_id = 0;
  uint32_t thread_id = 0;  // the host thread that submitted it
  int32_t device_id = 0;
  int code = 0;  // ACL code the device reported
  // A kernel launch (arunLaunchKernel, an operator): its argument block and size (0: unknown);
  // valid while the failure listener runs (aclrtGetArgsFromExceptionInfo).
  bool kernel = false;
  const void* args = nullptr;
  uint32_t args_bytes = 0;
  // The kernel binary (aclrtBinHandle) the kernel came from; nullptr for every task until the binary
  // family exists. Selects the aclrtBinarySetExceptionCallback hook.
  const void* binary = nullptr;
};
// Called on the thread that completed the task, with no scheduler lock held.
using FailureListener = void (*)(const TaskFailure& failure);

class Scheduler {
 public:
  // `queue_depth`: how many submitted, not yet completed tasks a stream may hold (at least 1).
  Scheduler(plugin::Device* device, std::unique_ptr<SchedulerPolicy> policy, int32_t device_id = 0,
            uint32_t queue_depth = 1024);
  int32_t device_id() const { return device_id_; }

  // Process-wide: who hears about failed tasks (the C API's exception callbacks).
  static void set_failure_listener(FailureListener listener);
  ~Scheduler();

  plugin::Device* device() const { return device_; }
  const SchedulerPolicy& policy() const { return *policy_; }

  void add_stream(const std::shared_ptr<Stream>& stream);
  // Removes the stream. Without discard, first waits for its tasks. With discard, drops the tasks
  // that have not started and returns at once; a running task finishes on its own, and the scheduler
  // keeps the stream alive until then.
  void remove_stream(const std::shared_ptr<Stream>& stream, bool discard);

  // Takes ownership of `task` (allocated with new) and appends it to task->stream. If the stream
  // already holds queue_depth() tasks, first blocks until one completes or is dropped, or until the
  // stream is stopped or aborted (then the task is refused as below). Returns the task's position in its stream
  // (wait_for(stream, seq) waits for it), or 0 if the task was not enqueued: a stream stopped by a failure
  // (ACL_STOP_ON_FAILURE) refuses it (*refused gets the failure's code), a stream being aborted drops it (*refused
  // stays Ok). Either way the task is freed.
  uint64_t submit(Task* task, Status* refused = nullptr);
  // A replayed graph (runtime/graph.hpp): takes ownership of every task and enqueues them in order
  // under one lock acquisition, as submit() would one by one (blocking on a full stream the same
  // way). A refused task is freed; the first refusal's code is returned, the rest still go.
  Status submit_batch(const std::vector<Task*>& tasks);
  // Drops the stream's tasks that have not started; a running task finishes (nothing is preempted).
  void discard_pending(Stream& stream);
  // aclrtStreamAbort: asks the running task to stop, drops the rest, waits for the running task,
  // and clears a stop-on-failure state. Synchronizes in progress return ACL_ERROR_RT_STREAM_ABORT.
  void abort(Stream& stream);
  // aclrtStreamStop (spec part 2, R3): if something of the stream runs (a task on a unit, a blocking
  // host call, or a device-side wait blocking its head), asks it to stop, drops the tasks queued
  // behind it and marks the stream abnormal (Stream::abnormal). False, and nothing changes, if
  // nothing runs.
  bool stop_running(Stream& stream);
  // Waits until the stream has completed everything submitted before the call. A stream whose head
  // is a blocked wait (notify, value, or an event behind one) that nothing on the device can
  // satisfy any more (no unit busy, no host call running, no wait timeout pending) is not waited
  // for: its remaining tasks are dropped, with a warning, so destroying a stream, resetting a
  // device and aclFinalize stay bounded. False if `deadline_ns` passed first.
  bool drain(Stream& stream, int64_t deadline_ns);
  // Host-side aclrtNotifyBatchReset and synchronous device writes (aclrtMemcpy, aclrtMemset): the
  // device-side waits are checked again.
  void poke_device_waits();
  // A blocking host call has returned (or was skipped): its stream may go on.
  void host_call_done(Task* task);
  uint32_t queue_depth() const { return queue_depth_; }
  // Host threads blocked in submit() on a full stream (for tests and the report).
  uint32_t blocked_submitters(const Stream& stream) const;
  // Units of `kind` running a task right now.
  uint32_t busy_units(plugin::UnitKind kind) const;

  // Waits until the stream has completed `seq`, or, given `abort_epoch`, until the stream is
  // aborted (its epoch differs). False on timeout.
  bool wait_for(const Stream& stream, uint64_t seq, int64_t deadline_ns, const uint32_t* abort_epoch = nullptr);
  // Waits until every task submitted to the device before the call has completed. False on timeout.
  bool wait_all(int64_t deadline_ns);
  // Returns and clears the stream's first failure since it was last reported (0 if none).
  // The failure's code (0: none) and, into `message` when given, the device's explanation of it.
  int take_error(Stream& stream, std::string* message = nullptr);
  int take_any_error(std::string* message = nullptr);
  // The device's plugin fills WorkResult::message (plugin ABI minor 10 or later).
  void set_failure_messages(bool on) { failure_messages_ = on; }

  // Direct submission (issue 16). A copy (1-D or 2-D) or memset of at most `max_bytes` bytes that
  // submit() appends to an idle stream, and that the policy hands a free unit in the same critical
  // section, runs on the submitting thread (Device::execute_now) instead of being posted to the unit:
  // no hand-off to a device thread and none back to a synchronize. The task keeps its stream slot and
  // its unit while it runs, and completes through complete() as if the device had called back, so
  // stream order, events, profiling, observers and failure reporting are those of the posted path.
  // Never for a sanitized task, a graph replay (submit_batch) or a task that has to queue. 0 = off.
  void set_direct_submit(uint64_t max_bytes) { direct_max_bytes_.store(max_bytes, std::memory_order_relaxed); }
  uint64_t direct_submit() const { return direct_max_bytes_.load(std::memory_order_relaxed); }
  // What schedulers created from now on start with (the Runtime sets it at aclInit from
  // ASCEND_RUN_DIRECT_SUBMIT and puts 0 back at teardown; 0 before, so bare schedulers are off).
  static void set_direct_submit_default(uint64_t max_bytes);
  static uint64_t direct_submit_default();
  // The threshold the Runtime uses unless ASCEND_RUN_DIRECT_SUBMIT says otherwise; measured with
  // arun_bench's Copy/* and Direct/* benchmarks (bench/README.md, "Direct submission").
  static constexpr uint64_t kDirectSubmitBytes = 256u << 10;
  // Tasks this scheduler ran on their submitting thread (tests and the report).
  uint64_t direct_runs() const { return direct_runs_.load(std::memory_order_relaxed); }

  // Event operations (under the scheduler mutex).
  bool record_done(const EventRecord& record) const { return record.done.load(std::memory_order_acquire); }
  std::shared_ptr<EventRecord> latest_record(const Event& event);
  bool waits_pending(const Event& event);
  bool wait_record(const EventRecord& record, int64_t deadline_ns);

  // Waits until no host-call thread is inside host_call_done (call before closing the device).
  void quiesce() const;

  // Number of tasks submitted and not yet completed, over all streams.
  uint64_t outstanding() const;

 private:
  struct Batch;
  void prepare(Task* task);
  void enqueue_locked(Task* task, Batch& batch);
  // Admission of one task to `s`, mu_ held (submit and submit_batch): waits for room in its queue,
  // first launching what `pending` made ready (the full stream may drain only through it). Returns
  // 0 to enqueue, -1 for a stream being aborted (the task is dropped silently), else the refusal
  // code: the stop-on-failure error, or ACL_ERROR_RT_INTERNAL_ERROR for an abnormal stream.
  int admit_locked(std::unique_lock<std::mutex>& lock, Stream* s, Batch* pending);
  bool discard_locked(Stream* stream, Batch& batch);
  void advance(Stream* stream, Batch& batch);
  void dispatch(Batch& batch);
  void finish(Stream* stream, Task* task, Batch& batch);
  // `direct`: a task of batch.launches that runs here, on the calling thread, after the others were
  // posted (submit() only).
  void flush(Batch& batch, Task* direct = nullptr);
  bool direct_candidate_locked(const Task& task) const;
  void run_direct(Task* task);
  static void on_complete(plugin::Work* work, const plugin::WorkResult& result);
  void complete(Task* task, const plugin::WorkResult& result);
  void emit_task_record(const Task& task, const plugin::WorkResult& result);
  void emit_marker_record(const Task& task, plugin::RecordKind kind);
  // RecordKind::GraphLaunch: one execution of a model runtime instance, ended now.
  void emit_graph_record(const GraphLaunchProf& p, uint32_t thread, int32_t stream, uint64_t correlation,
                         uint64_t enqueue_ticks);
  uint64_t prof_clock_offset();  // record clock minus device clock (measured on first use)
  // Device-side waits (sched/device_waits.cpp), all under mu_.
  int check_device_wait_locked(Task* task, bool* satisfied);  // 0, or the code the wait fails with
  void run_device_marker_locked(Stream* s, Task* task, Batch& batch);
  void recheck_device_waits_locked(Batch& batch);
  void fail_marker_locked(Stream* s, Task* task, int code, Batch& batch);
  void drop_device_wait_locked(Task* task);
  void unwatch_locked(Task* task);  // a wait leaves device_waits_: the IpcWatcher forgets it
  bool stuck_locked(const Stream& s) const;
  void note_failure_locked(Stream* s, int code, const char* message = nullptr);
  // Graph replays (sched/replay.hpp), all under mu_.
  void start_replay_locked(Stream* s, Task* launch, Batch& batch);
  void feed_locked(Stream* lane_stream, Batch& batch);  // the lane's queue is empty: next task, or the lane ends
  void end_replay_locked(Replay& r, Batch& batch);
  void drop_launch_locked(Stream* s, Task* launch);                   // a GraphLaunch marker discarded from its stream
  void recycle_marker_locked(Task* launch, Batch& batch);             // a pooled marker retired or dropped
  void drop_lane_locked(Stream* s, std::vector<Stream*>& unblocked);  // a lane discarded: its unfed records complete

  plugin::Device* device_;
  std::unique_ptr<SchedulerPolicy> policy_;
  int32_t device_id_;
  std::atomic<int> host_flushes_{0};
  mutable std::mutex mu_;
  std::map<const Stream*, std::shared_ptr<Stream>> streams_;
  std::vector<uint32_t> free_units_[plugin::kUnitKindCount];
  Notifier notifier_;
  uint32_t queue_depth_;
  bool failure_messages_ = false;
  std::atomic<uint64_t> direct_max_bytes_{0};
  std::atomic<uint64_t> direct_runs_{0};
  std::condition_variable room_;  // a full stream got room, or was stopped / aborted
  // Stream heads blocked in a device-side wait (NotifyWait, ValueWait), oldest first.
  std::vector<Task*> device_waits_;
  // Profiling: record clock minus device clock, measured once (the device clock only counts from
  // a fixed epoch on the same steady clock, so the difference is constant); 0 = not measured yet.
  std::atomic<uint64_t> prof_clock_offset_{0};
  // Timed waits (Task::wait_timeout_ns: event, notify and value waits). Last member: destroyed
  // (its thread joined) first.
  void expire_wait(Stream* stream, uint64_t stream_uid, uint64_t seq);
  WaitTimer wait_timer_{[this](Stream* s, uint64_t uid, uint64_t seq) { expire_wait(s, uid, seq); }};
};

}  // namespace arun
