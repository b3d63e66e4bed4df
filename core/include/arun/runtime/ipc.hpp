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

}  // namespace arun::rt
