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

}  // namespace arun::rt
