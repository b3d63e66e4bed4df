// Front door: core-count resource limits (spec part 2, 4.2: aclrt*ResLimit,
// aclrt(Un)UseStreamResInCurrentThread, aclrtGetResInCurrentThread). See front_door.hpp for the
// conventions. `type` is the raw aclrtDevResLimitType; every function checks it (rt_param_invalid
// unless 0 = cube / AI cores or 1 = vector cores).
//
// Precedence for a kernel launch: the limit of the stream the launching thread selected (if that
// stream has one and is on the launch's device) > the device's process-level limit > the hardware
// count. The cube limit bounds how many AI cores run a launch's blocks at once (the device reads
// plugin::Work::max_compute_units); the vector limit is kept and reported only (kernels here run on
// AI cores).
#pragma once

#include <cstdint>

#include "acl/acl_rt.h"
#include "arun/core/status.hpp"

namespace arun::rt {

// aclrtGetDeviceResLimit / aclrtSetDeviceResLimit / aclrtResetDeviceResLimit. Errors in the spec's
// order: rt_invalid_device_id, rt_param_invalid (type; set: value 0 or above the hardware count),
// rt_dev_setup_error (the device is not open in this process).
Status device_res_limit(int32_t device, int64_t type, uint32_t* value);
Status set_device_res_limit(int32_t device, int64_t type, uint32_t value);
Status reset_device_res_limit(int32_t device);

// aclrtGetStreamResLimit / aclrtSetStreamResLimit / aclrtResetStreamResLimit (NULL stream: the
// current context's default stream). Errors: rt_param_invalid (type; set: value 0 or above the
// hardware count), rt_context_null, rt_invalid_handle, rt_stream_context.
Status stream_res_limit(aclrtStream stream, int64_t type, uint32_t* value);
Status set_stream_res_limit(aclrtStream stream, int64_t type, uint32_t value);
Status reset_stream_res_limit(aclrtStream stream);

// aclrtUseStreamResInCurrentThread / aclrtUnuseStreamResInCurrentThread: the calling thread's
// selection (a handle, not a reference: a destroyed stream is no longer selected). Unuse clears it
// only if `stream` is the selected one. Errors: rt_context_null, rt_invalid_handle, rt_stream_context.
Status use_stream_res(aclrtStream stream);
Status unuse_stream_res(aclrtStream stream);

// aclrtGetResInCurrentThread: the limit in force for kernels the calling thread launches on its
// current device. Errors: rt_context_null, rt_param_invalid (type).
Status res_limit_in_current_thread(int64_t type, uint32_t* value);

}  // namespace arun::rt
