// Front door: devices, contexts and the calling thread's current context (spec 2.2, 2.3); see
// front_door.hpp for the conventions. Device ids are checked here (rt_invalid_device_id); a call
// that needs the thread's current context fails with rt_context_null when the thread has none (or
// it was destroyed) before anything else it checks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "arun/core/status.hpp"
#include "arun/runtime/call.hpp"

namespace arun::rt {

// ---- devices ----
// aclrtSetDevice / aclrtResetDevice(Force): opens (reference-counted) or releases a device and
// makes its default context current. Errors: rt_invalid_device_id, and the device's own.
Status set_device(int32_t device);
Status reset_device(int32_t device, bool force);
// The device of the thread's current context.
Status current_device(int32_t* device);
// Number of devices the loaded plugins provide; rt_no_device when there is none.
Status device_count(uint32_t* count);
// Waits for every stream of the current context's device (`timeout_ms` -1: forever; the caller
// checked it is >= -1). Errors: the context's, rt_stream_sync_timeout, a task's failure.
Status synchronize_device(int32_t timeout_ms);
// rt_invalid_device_id unless `device` names a device (aclrtQueryDeviceStatus).
Status check_device(int32_t device);
// aclrtGetDeviceInfo: `attr` is the raw aclrtDevAttr value. Errors: rt_invalid_device_id,
// rt_feature_not_support (an attribute the device does not model), rt_param_invalid (unknown).
Status device_attribute(int32_t device, int64_t attr, int64_t* value);
// Instantaneous utilisation in percent; -1 where it is not modelled.
struct DeviceUtilization {
  int32_t cube = 0, vector = 0, aicpu = -1, memory = -1;
};
// Errors: rt_invalid_device_id.
Status device_utilization(int32_t device, DeviceUtilization* out);
// aclGetDeviceCapability (`value` non-NULL; `info` the raw aclDeviceInfo): the number aclrtGetDeviceInfo
// reports for the matching attribute, without opening the device. Errors: device_count's,
// invalid_param (device >= count, then info not 0/1/2).
Status device_capability(uint32_t device, int64_t info, int64_t* value);
// aclrtDeviceSetLimit / aclrtDeviceGetLimit: the process-wide values (`limit` the raw
// aclrtDeviceLimit, `value` <= UINT32_MAX, both checked by the caller), stored rounded as the spec
// says. Errors: invalid_param (limit not 0..4), rt_param_invalid (value out of range, both SIMT
// stack sizes 0), rt_feature_not_support (a SIMT limit on a chip without SIMT: all but Ascend950*).
// The simulated devices run no SIMT/SIMD stacks or printf FIFOs: the values are kept, not used.
Status set_device_limit(uint32_t limit, size_t value);
Status device_limit(uint32_t limit, size_t* value);
// The SoC name of device 0, or nullptr before aclInit / without devices. The string stays valid
// until the thread's next call (it outlives aclFinalize).
const char* soc_name();

// ---- peer access ----
// Whether `device` may access `peer` (same backend). Errors: rt_invalid_device_id (either),
// rt_param_invalid (the same device twice).
Status can_access_peer(int32_t device, int32_t peer, bool* can);
// Grants / revokes the current device's access to `peer`. Errors: the context's,
// rt_invalid_device_id, rt_param_invalid (peer is the current device; disable: not enabled),
// rt_feature_not_support (enable: a device of another backend).
Status enable_peer_access(int32_t peer);
Status disable_peer_access(int32_t peer);

// ---- overflow mode (aclrtSetDeviceSatMode) ----
// Sets the current device's mode (`mode`: the raw aclrtFloatOverflowMode value, checked after the
// context: rt_param_invalid unless SATURATION or INFNAN).
Status set_overflow_mode(int64_t mode);
Status overflow_mode(aclrtFloatOverflowMode* mode);

// ---- contexts ----
// aclrtCreateContext: a new context on `device`, made current. Errors: rt_invalid_device_id, the
// device's.
Status create_context(int32_t device, aclrtContext* out);
// Errors: rt_invalid_handle (not a live context); destroy: rt_context_release_error (a device's
// default context).
Status destroy_context(aclrtContext context);
Status set_current_context(aclrtContext context);
// The thread's current context and its default stream.
Status get_current_context(aclrtContext* out);
Status current_default_stream(aclrtStream* out);
// aclrtGetResInCurrentThread: the limit for `type` (ACL_RT_DEV_RES_CUBE_CORE or _VECTOR_CORE,
// checked by the caller) in force for the calling thread on the current device (res_limits.hpp).
Status resource_limit_in_current_thread(aclrtDevResLimitType type, uint32_t* value);

}  // namespace arun::rt
