// Scheduler: one per open device. Owns the device's streams, keeps each stream in order, resolves
// event dependencies, and hands ready stream heads to the SchedulerPolicy, which picks what each
// free execution unit runs next.
//
// Threading: one mutex guards all queue state of the device. Enqueue and completion hold it only
// for queue bookkeeping; device launches and host wake-ups happen after it is released. A unit that
// finishes a task picks its next task in the same critical section, so a busy device runs
// back-to-back tasks without any thread hand-off.
#pragma once

#include <memory>
#include <mutex>
#include <map>
#include <vector>

#include "arun/plugin/device.hpp"
#include "event.hpp"
#include "notifier.hpp"
#include "scheduler_policy.hpp"
#include "stream.hpp"

namespace arun {

class Scheduler {
 public:
  Scheduler(plugin::Device* device, std::unique_ptr<SchedulerPolicy> policy);
  ~Scheduler();

  plugin::Device* device() const { return device_; }
  const SchedulerPolicy& policy() const { return *policy_; }

  void add_stream(const std::shared_ptr<Stream>& stream);
  // Removes the stream. Without discard, first waits for its tasks. With discard, drops the tasks
  // that have not started and returns at once; a running task finishes on its own, and the scheduler
  // keeps the stream alive until then.
  void remove_stream(const std::shared_ptr<Stream>& stream, bool discard);

  // Takes ownership of `task` (allocated with new) and appends it to task->stream. Never blocks.
  // Returns the task's position in its stream (wait_for(stream, seq) waits for it).
  uint64_t submit(Task* task);
  // Drops the stream's tasks that have not started; a running task finishes (nothing is preempted).
  void discard_pending(Stream& stream);
  // Units of `kind` running a task right now.
  uint32_t busy_units(plugin::UnitKind kind) const;

  // Waits until the stream has completed `seq`. False on timeout.
  bool wait_for(const Stream& stream, uint64_t seq, int64_t deadline_ns);
  // Waits until every task submitted to the device before the call has completed. False on timeout.
  bool wait_all(int64_t deadline_ns);
  // Returns and clears the stream's first failure since it was last reported (0 if none).
  int take_error(Stream& stream);
  int take_any_error();

  // Event operations (under the scheduler mutex).
  bool record_done(const EventRecord& record) const { return record.done.load(std::memory_order_acquire); }
  std::shared_ptr<EventRecord> latest_record(const Event& event);
  bool waits_pending(const Event& event);
  bool wait_record(const EventRecord& record, int64_t deadline_ns);

  // Number of tasks submitted and not yet completed, over all streams.
  uint64_t outstanding() const;

 private:
  struct Batch;
  void advance(Stream* stream, Batch& batch);
  void dispatch(Batch& batch);
  void finish(Stream* stream, Task* task, Batch& batch);
  void flush(Batch& batch);
  static void on_complete(plugin::Work* work, const plugin::WorkResult& result);
  void complete(Task* task, const plugin::WorkResult& result);

  plugin::Device* device_;
  std::unique_ptr<SchedulerPolicy> policy_;
  mutable std::mutex mu_;
  std::map<const Stream*, std::shared_ptr<Stream>> streams_;
  std::vector<uint32_t> free_units_[plugin::kUnitKindCount];
  Notifier notifier_;
};

}  // namespace arun
