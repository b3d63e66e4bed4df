// Front door: floating-point overflow detection (spec part 2, 4.8). See front_door.hpp for the
// conventions.
//
// Model (an A2-class part): each device keeps one process-level overflow status word. A launch
// submitted to a stream whose overflow switch is on carries a pointer to it, and a block that
// reports an overflow (arunBlockReportOverflow, arun::Block::check_finite; the operator library's
// output check) sets it. The status is read and cleared by tasks in stream order.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "arun/core/status.hpp"

namespace arun::rt {

// The size of the status record aclrtGetOverflowStatus writes.
inline constexpr uint64_t kOverflowStatusBytes = 64;

// aclrtSetStreamOverflowSwitch (`flag` 0 or 1, checked by the caller) / aclrtGetStreamOverflowSwitch.
// Errors: the stream's (rt_context_null, rt_invalid_handle).
Status set_stream_overflow_switch(aclrtStream stream, uint32_t flag);
Status stream_overflow_switch(aclrtStream stream, uint32_t* flag);

// aclrtGetOverflowStatus / aclrtGetFloatOverflowStatus (`out` not NULL): enqueues on `stream` a task
// that writes the 64-byte status record (word 0: non-zero after an overflow; the rest zero) to the
// device buffer `out`. Errors: rt_param_invalid (size not 64, `out` not memory of the stream's
// device), the stream's.
Status get_overflow_status(void* out, uint64_t size, aclrtStream stream);
// aclrtResetOverflowStatus / aclrtResetFloatOverflowStatus: enqueues a task that clears the status.
Status reset_overflow_status(aclrtStream stream);
// aclrtNpuGetFloatOverFlowStatus / aclrtNpuClearFloatOverFlowStatus: the older parts' float-status
// registers, which an A2-class part lacks: after the argument and stream checks, rt_feature_not_support.
Status npu_get_float_status(void* out, uint64_t size, aclrtStream stream);
Status npu_clear_float_status(aclrtStream stream);
// aclrtCtxGetFloatOverflowAddr (`out` not NULL): the current context's 8-byte overflow word in
// device memory, zeroed and allocated on the first request, freed with the context. Errors:
// rt_context_null, rt_feature_not_support (device not in saturation mode), rt_memory_allocation.
Status context_overflow_addr(void** out);

}  // namespace arun::rt
