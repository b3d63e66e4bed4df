// Front door: captured task graphs, model runtime instances (aclmdlRI*, spec part 2, 4.12).
// Conventions in front_door.hpp. Streams and instances are their ACL handles; a destroyed or
// unknown instance is rt_invalid_handle. The caller has checked NULL arguments and the ranges the
// spec assigns to the ACL layer (capture modes, flags, timeouts).
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "arun/core/status.hpp"

namespace arun::rt {

// aclmdlRICaptureBegin: `mode` 0..2. Streams that wait on events recorded in the capture join it.
Status capture_begin(aclrtStream stream, uint32_t mode);
// aclmdlRICaptureEnd: the origin stream's capture becomes an executable instance.
Status capture_end(aclrtStream stream, aclmdlRI* out);
// aclmdlRICaptureGetInfo; either output may be NULL.
Status capture_get_info(aclrtStream stream, aclmdlRICaptureStatus* status, aclmdlRI* out);
// aclmdlRICaptureThreadExchangeMode: `*mode` 0..2 becomes the thread's mode; the old one is written back.
Status capture_exchange_mode(uint32_t* mode);
// aclmdlRIExecuteAsync: one execution on `stream` (NULL: the default stream).
Status graph_execute_async(aclmdlRI graph, aclrtStream stream);
// aclmdlRIExecute / aclmdlRIAbort: for built instances; a captured one is refused as the spec says.
Status graph_execute(aclmdlRI graph, int32_t timeout_ms);
Status graph_abort(aclmdlRI graph);
// aclmdlRIDestroy: runs the destroy callbacks, waits for pending executions.
Status graph_destroy(aclmdlRI graph);
Status graph_set_name(aclmdlRI graph, const char* name);
Status graph_get_name(aclmdlRI graph, uint32_t max_len, char* name);
Status graph_get_id(aclmdlRI graph, uint32_t* id);
Status graph_debug_print(aclmdlRI graph);
// `flags`: ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY or _VERBOSE (checked by the caller).
Status graph_debug_json_print(aclmdlRI graph, const char* path, uint32_t flags);
Status graph_register_destroy_callback(aclmdlRI graph, aclrtCallback fn, void* user);
Status graph_unregister_destroy_callback(aclmdlRI graph, aclrtCallback fn);

// aclmdlRICaptureToModelRIBegin: fills the sub-graph `sub` (aclmdlRIAddCondTask) from `stream`.
Status capture_to_subgraph_begin(aclrtStream stream, aclmdlRI sub, uint32_t mode);
// Explicit build. `flag` of BindStream is ACL_MODEL_STREAM_FLAG_HEAD or _DEFAULT (checked by the caller).
Status graph_build_begin(aclmdlRI* out);
Status graph_bind_stream(aclmdlRI graph, aclrtStream stream, uint32_t flag);
Status graph_end_task(aclmdlRI graph, aclrtStream stream);
Status graph_build_end(aclmdlRI graph);
Status graph_unbind_stream(aclmdlRI graph, aclrtStream stream);
// aclrtPersistentTaskClean: empties a bound stream of a built instance, which must be built again.
Status persistent_task_clean(aclrtStream stream);
// Task groups (capturing stream) and their update (non-capturing stream).
Status task_group_begin(aclrtStream stream);
Status task_group_end(aclrtStream stream, aclrtTaskGrp* out);
Status task_update_begin(aclrtStream stream, aclrtTaskGrp group);
Status task_update_end(aclrtStream stream);
// Per-task inspection and update; `count` is the capacity in and the count out.
Status graph_update(aclmdlRI graph);
Status graph_get_streams(aclmdlRI graph, aclrtStream* streams, uint32_t* count);
Status graph_tasks_by_stream(aclrtStream stream, aclmdlRITask* tasks, uint32_t* count);
Status graph_task_type(aclmdlRITask task, aclmdlRITaskType* type);
Status graph_task_seq(aclmdlRITask task, uint32_t* id);
Status graph_task_get_params(aclmdlRITask task, aclmdlRITaskParams* params);
Status graph_task_set_params(aclmdlRITask task, const aclmdlRITaskParams* params);
Status graph_task_disable(aclmdlRITask task);
Status graph_kernel_task_attribute(aclmdlRITask task, int32_t attr, aclrtLaunchKernelAttrValue* value);
// Conditions: `flag` 0..1, `type` 0..2 and the branch count are checked by the caller.
Status cond_handle_create(aclmdlRI graph, uint32_t default_value, uint32_t flag, aclmdlRICondHandle* out);
Status cond_handle_ptr(aclmdlRICondHandle handle, uint64_t** ptr);
Status add_cond_task(aclmdlRICondHandle handle, uint32_t type, uint32_t size, aclmdlRI* branches, aclrtStream stream);

}  // namespace arun::rt
