// Front door: notifies, counting notifies (spec part 2, 4.5) and stream-ordered value write / wait
// (4.6); see front_door.hpp for the conventions. The C API checks the ACL-level NULL pointers
// (ACL_ERROR_INVALID_PARAM) first; everything here is a runtime check, in the spec's order.
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "arun/core/status.hpp"
#include "arun/runtime/call.hpp"

namespace arun::rt {

// ---- notifies. A handle that is not a live notify is rt_invalid_handle before any other check.
// aclrtCreateNotify: rt_param_invalid (flag bits other than ACL_NOTIFY_DEVICE_USE_ONLY),
// rt_context_null, rt_no_notify_resource (8192 live notifies on the device).
Status create_notify(uint64_t flag, aclrtNotify* out);
// The handle dies now; queued records and waits keep the notify until they ran.
Status destroy_notify(aclrtNotify notify);
// Enqueue "set" / "wait until set, then clear" on `stream` (nullptr: the default stream). The
// stream's errors; rt_stream_context for a stream of another device than the notify's.
// `timeout_s`: 0 and UINT32_MAX wait forever, else a blocked wait fails with rt_task_timeout after
// that many seconds (reported by the next synchronize).
Status record_notify(aclrtNotify notify, aclrtStream stream);
Status wait_and_reset_notify(aclrtNotify notify, aclrtStream stream, uint32_t timeout_s);
Status notify_id(aclrtNotify notify, uint32_t* id);
// aclrtNotifyBatchReset: clears from the host, in order, stopping at the first bad element
// (rt_param_invalid for num 0 or > UINT32_MAX and NULL elements, rt_invalid_handle).
Status reset_notifies(aclrtNotify* notifies, size_t num);
// aclrtNotifyGetExportKey: rt_param_invalid (len < 65, flags not 0 or DISABLE_PID_VALIDATION).
Status notify_export_key(aclrtNotify notify, char* key, size_t len, uint64_t flags);
// aclrtNotifyImportByKey (within this process): rt_param_invalid (flags > 3, unknown key),
// rt_context_null, rt_no_permission (pid not allowed), rt_feature_not_support (another device).
Status notify_import(aclrtNotify* out, const char* key, uint64_t flags);
// aclrtNotifySetImportPid: rt_param_invalid (num 0 or negative as a signed count, not exported).
Status notify_set_import_pids(aclrtNotify notify, int32_t* pids, size_t num);
// aclrtNotifySetImportPidInterServer: every argument check is rt_param_invalid; then
// rt_feature_not_support (no A3 super-node here).
Status notify_set_import_pids_inter_server(aclrtNotify notify, aclrtServerPid* server_pids, size_t num);
// Counting notifies exist on Ascend 950 only: after the caller's argument checks, every CntNotify
// function is rt_feature_not_support on the SoCs this runtime models (`need_context`: creation
// first requires a current context, rt_context_null).
Status cnt_notify_unsupported(bool need_context);

// ---- value write / wait (4.6). `addr` must be 8-byte aligned, inside a live device allocation of
// the stream's device (rt_param_invalid otherwise); then the stream's errors.
Status value_write(void* addr, uint64_t value, aclrtStream stream);
// `flag`: ACL_STREAM_WAIT_VALUE_GEQ / EQ / AND / NOR (checked by the caller). No timeout.
Status value_wait(void* addr, uint64_t value, uint32_t flag, aclrtStream stream);

}  // namespace arun::rt
