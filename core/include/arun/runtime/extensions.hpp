// Front door: the ascend-run extensions (arun/arun_ext.h) that are not launches of user kernels:
// device tasks, the scheduler override, queue depths, allocator statistics and the runtime report
// of `ascend-run info`. See front_door.hpp for the conventions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "acl/acl_base.h"
#include "arun/collective.h"
#include "arun/core/status.hpp"
#include "arun/plugin/allocator.hpp"

namespace arun::rt {

// arunLaunchDeviceTask: queues fn(user) on `stream` (NULL: the current context's default stream)
// as a one-block kernel on a compute unit. Errors: the stream's (rt_context_null,
// rt_stream_context, invalid handle), a stopped stream's.
Status launch_device_task(void (*fn)(void*), void* user, aclrtStream stream);

// arunSetSchedulerPolicy: the "NAME[:key=value,...]" spec the next aclInit uses (NULL or "":
// none). May run before aclInit (the override is process-scope); while a runtime is live it is
// logged that the spec applies from the next aclInit. Errors: invalid_param (bad syntax).
Status set_scheduler_override(const char* spec);

// The tasks queued on `stream` and, when `capacity` is not NULL, its queue's capacity.
// Errors: the stream's, as launch_device_task.
Status stream_queue_depth(aclrtStream stream, uint32_t* depth, uint32_t* capacity);

// The text of `ascend-run info` (config, scheduler, allocator, loaded and installable plugins,
// devices, streams with work pending); it works before aclInit too. The string stays valid until
// the thread's next call.
const char* runtime_report();

// A device's allocator: its statistics and blocks. `open` is false while the device is not open
// (stats then zero, policy the one it would get).
struct AllocatorState {
  bool open = false;
  plugin::AllocatorStats stats;
  uint64_t live_blocks = 0;
  std::string policy;
};
// Errors (all four): rt_invalid_device_id.
Status allocator_state(int32_t device, AllocatorState* out);
// Returns cached memory to the device until at most `keep_bytes` stay reserved (0 released when
// the device is not open).
Status allocator_trim(int32_t device, uint64_t keep_bytes, uint64_t* released);
// Every block of the device's allocator (none when the device is not open).
Status allocator_snapshot(int32_t device, std::vector<plugin::BlockInfo>* out);
// The allocator's report (arunMemReport); the string stays valid until the thread's next call.
Status allocator_report(int32_t device, const char** out);

// arunGetCollectiveOps: the table of the configured collective plugin (the first [[plugin]] of
// kind "collective"), loaded on the first call and kept until the process exits (its
// communicators outlive aclFinalize's teardown; their code must stay mapped). Errors:
// rt_feature_not_support (no collective plugin configured), the loader's (file, options, factory).
Status collective_ops(const arunCollectiveOps** out);

}  // namespace arun::rt
