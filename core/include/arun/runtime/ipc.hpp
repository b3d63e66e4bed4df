// Front door: device memory shared across processes — IPC memory keys (spec part 2, 4.14) and
// shareable handles of physical memory (4.13). See front_door.hpp for the conventions; the caller
// checks NULL pointers and flag words. Names are unguessable; an importer must be on the export's
// allow-list (checked by the exporter against the pid the kernel reports) unless the export
// disabled validation. Design: plugins/device/ascend/README.md, "Memory shared across processes".
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_rt.h"
#include "arun/core/status.hpp"

namespace arun::rt {

// aclrtIpcMemGetExportKey (`len` >= 65 and `flags` <= 1 checked by the caller).
// ACL_ERROR_RT_PARAM_INVALID: [ptr, ptr+size) is not inside one live device allocation of this
// process; ACL_ERROR_RT_FEATURE_NOT_SUPPORT: its device cannot share memory.
Status ipc_export_key(void* ptr, uint64_t size, bool pid_check, char* key, size_t len);
// aclrtIpcMemSetImportPid: ACL_ERROR_RT_PARAM_INVALID for a key this process did not export.
Status ipc_set_import_pid(const char* key, const int32_t* pids, size_t count);
// aclrtIpcMemImportByKey onto the current device: ACL_ERROR_RT_CONTEXT_NULL,
// ACL_ERROR_RT_PARAM_INVALID (unknown key, exporter gone), ACL_ERROR_RT_NO_PERMISSION.
Status ipc_import_key(const char* key, void** out);
// aclrtIpcMemClose: an import (unmapped when its last import is closed) or an export (withdrawn).
// ACL_ERROR_RT_PARAM_INVALID for a key that is neither.
Status ipc_close(const char* key);

// aclrtMemExportToShareableHandle (`flags` <= 1 checked by the caller): ACL_ERROR_RT_INVALID_HANDLE,
// ACL_ERROR_RT_PARAM_INVALID (host memory, already exported).
Status vmm_export(aclrtDrvMemHandle handle, bool pid_check, uint64_t* shareable);
// aclrtMemSetPidToShareableHandle: ACL_ERROR_RT_PARAM_INVALID unless this process exported it.
Status vmm_set_pids(uint64_t shareable, const int32_t* pids, size_t count);
// aclrtMemImportFromShareableHandle: ACL_ERROR_RT_INVALID_DEVICEID; ACL_ERROR_RT_PARAM_INVALID
// (unknown, not allowed, exported by this very process, exporter gone).
Status vmm_import(uint64_t shareable, int32_t device, aclrtDrvMemHandle* handle);

// aclrtIpcMemSetAttr (`key` not NULL, `type` 0, `attr` <= 3 checked by the caller):
// ACL_ERROR_RT_PARAM_INVALID for a key this process does not export; the default link (SIO, 0) is
// accepted and ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED answers the others (the model has one path).
Status ipc_set_attr(const char* key, uint64_t attr);

// aclrtIpcGetEventHandle: ACL_ERROR_RT_PARAM_INVALID unless the event came from
// aclrtCreateEventExWithFlag(ACL_EVENT_IPC); exporting the same event again writes the same handle.
Status ipc_get_event_handle(aclrtEvent event, aclrtIpcEventHandle* handle);
// aclrtIpcOpenEventHandle: a new local event on the current device that sees the exporter's
// records. ACL_ERROR_RT_CONTEXT_NULL; ACL_ERROR_RT_PARAM_INVALID (malformed handle, event destroyed,
// exporter gone).
Status ipc_open_event_handle(const aclrtIpcEventHandle& handle, aclrtEvent* event);

}  // namespace arun::rt
