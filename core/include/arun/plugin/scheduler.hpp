// Scheduler plugins (kind Scheduler): a scheduling policy built as a shared object.
//
// The contract is the core's own policy interface, expressed without core types. The core keeps
// each stream in order and resolves event dependencies; a policy only ever sees ready stream heads
// (at most one per stream), and picks the next one for a free unit of a kind. Every call for one
// device is made with that device's scheduler lock held, so a policy needs no locking, and must
// not block, call back into the runtime, or throw. Nothing is preempted.
//
// Selecting one: [scheduler] policy = "<name>" (or ASCEND_RUN_SCHED=<name>) loads
// libarun_scheduler_<name>.so from the plugin folders; the plugin's own options go in a
// [[plugin]] entry with kind = "scheduler" and the same name.
#pragma once

#include <cstdint>

#include "arun/plugin/device.hpp"
#include "arun/plugin/plugin_descriptor.hpp"

namespace arun::plugin {

// A ready stream head, as a policy sees it. `token` identifies it to the core: pick() must return
// a ReadyTask it was given by ready(), unchanged.
struct ReadyTask {
  void* token;
  int32_t stream_id;  // unique on its device while the stream lives
  uint32_t priority;  // 0 (most urgent) .. 7
  UnitKind kind;      // the unit kind it needs
  uint64_t seq;       // position in its stream, from 1
};

struct StreamInfo {
  int32_t stream_id;
  uint32_t priority;
  // The stream's share weight from its priority, as the built-in fair policy uses it: 1024 at
  // level 7, 1.25x per level more urgent (CFS's nice-0 weight and step).
  uint32_t weight;
};

// One per open device; created by SchedulerPlugin::create_policy, destroyed with the device.
class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  virtual void stream_added(const StreamInfo& stream) {}
  // A removed stream may still have a running task; its finished() comes later.
  virtual void stream_removed(int32_t stream_id) {}
  virtual void ready(const ReadyTask& task) = 0;
  // The next task for a free unit of `kind`, removed from the policy; false if it holds none.
  virtual bool pick(UnitKind kind, ReadyTask* out) = 0;
  // Drops the ready task of the stream, if held (the stream is aborted or destroyed).
  virtual bool discard(int32_t stream_id) = 0;
  virtual void started(const ReadyTask& task) {}
  // `run_ns`: execution time as the device measured it.
  virtual void finished(const ReadyTask& task, uint64_t run_ns) {}
};

// The object a scheduler plugin's factory returns.
class SchedulerPlugin : public PluginObject {
 public:
  // A new policy for a device that opens; nullptr with a reason in `error` on failure.
  virtual SchedulingPolicy* create_policy(const DeviceProperties& device, char* error, size_t error_size) = 0;
};

}  // namespace arun::plugin
