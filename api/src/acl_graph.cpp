// Spec part 2, 4.12: model runtime instances captured from streams (aclmdlRI*). Argument checks in
// the spec's order, with its per-function codes (some NULLs are 107000, not 100000); capture and
// replay live behind the front door (arun/runtime/graphs.hpp).
#include <string>

#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

namespace {
constexpr uint32_t kMaxCaptureMode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
// Branches of one conditional task: more is refused before anything is allocated (our choice).
constexpr uint32_t kMaxCondBranches = 1024;
}  // namespace

extern "C" {

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode) {
  return api_call("aclmdlRICaptureBegin", [&] {
    if (stream == nullptr) return invalid_param("stream is NULL (the default stream cannot be captured)");
    const auto m = static_cast<uint32_t>(raw(mode));
    if (m > kMaxCaptureMode) return rt_param_invalid("capture mode " + std::to_string(m) + " is not 0..2");
    return rt::capture_begin(stream, m);
  });
}

aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI* modelRI) {
  return api_call("aclmdlRICaptureEnd", [&] {
    if (stream == nullptr) return invalid_param("stream is NULL");
    // modelRI may be NULL when the capture fills a sub-graph; the front door checks root captures.
    return rt::capture_end(stream, modelRI);
  });
}

aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus* status, aclmdlRI* modelRI) {
  return api_call("aclmdlRICaptureGetInfo", [&] {
    if (stream == nullptr) return invalid_param("stream is NULL");
    if (status == nullptr && modelRI == nullptr) return invalid_param("status and modelRI are both NULL");
    return rt::capture_get_info(stream, status, modelRI);
  });
}

aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode* mode) {
  return api_call("aclmdlRICaptureThreadExchangeMode", [&] {
    if (mode == nullptr) return invalid_param("mode is NULL");
    auto m = static_cast<uint32_t>(raw(*mode));
    if (m > kMaxCaptureMode) return rt_param_invalid("capture mode " + std::to_string(m) + " is not 0..2");
    ARUN_RETURN_IF_ERROR(rt::capture_exchange_mode(&m));
    *mode = static_cast<aclmdlRICaptureMode>(m);
    return Status::Ok();
  });
}

aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream) {
  return api_call("aclmdlRIExecuteAsync", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    return rt::graph_execute_async(modelRI, stream);
  });
}

aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout) {
  return api_call("aclmdlRIExecute", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    if (timeout == 0 || timeout < -1) {
      return rt_param_invalid("timeout " + std::to_string(timeout) + " ms is neither -1 nor positive");
    }
    return rt::graph_execute(modelRI, timeout);
  });
}

aclError aclmdlRIDestroy(aclmdlRI modelRI) {
  return api_call("aclmdlRIDestroy", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    return rt::graph_destroy(modelRI);
  });
}

aclError aclmdlRIAbort(aclmdlRI modelRI) {
  return api_call("aclmdlRIAbort", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    return rt::graph_abort(modelRI);
  });
}

aclError aclmdlRISetName(aclmdlRI modelRI, const char* name) {
  return api_call("aclmdlRISetName", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    if (name == nullptr) return invalid_param("name is NULL");
    return rt::graph_set_name(modelRI, name);
  });
}

aclError aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char* name) {
  return api_call("aclmdlRIGetName", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    if (name == nullptr) return invalid_param("name is NULL");
    if (maxLen == 0) return rt_param_invalid("maxLen is 0");
    return rt::graph_get_name(modelRI, maxLen, name);
  });
}

aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t* modelRIId) {
  return api_call("aclmdlRIGetId", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    if (modelRIId == nullptr) return invalid_param("modelRIId is NULL");
    return rt::graph_get_id(modelRI, modelRIId);
  });
}

aclError aclmdlRIDebugPrint(aclmdlRI modelRI) {
  return api_call("aclmdlRIDebugPrint", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    return rt::graph_debug_print(modelRI);
  });
}

aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char* path, uint32_t flags) {
  return api_call("aclmdlRIDebugJsonPrint", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    if (path == nullptr) return invalid_param("path is NULL");
    if (flags > ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE) {
      return rt_param_invalid("flags " + std::to_string(flags) + " is not ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY/VERBOSE");
    }
    return rt::graph_debug_json_print(modelRI, path, flags);
  });
}

aclError aclmdlRIDestroyRegisterCallback(aclmdlRI modelRI, aclrtCallback func, void* userData) {
  return api_call("aclmdlRIDestroyRegisterCallback", [&] {
    if (modelRI == nullptr) return rt_param_invalid("modelRI is NULL");
    if (func == nullptr) return rt_param_invalid("func is NULL");
    return rt::graph_register_destroy_callback(modelRI, func, userData);
  });
}

aclError aclmdlRIDestroyUnregisterCallback(aclmdlRI modelRI, aclrtCallback func) {
  return api_call("aclmdlRIDestroyUnregisterCallback", [&] {
    if (modelRI == nullptr) return rt_param_invalid("modelRI is NULL");
    if (func == nullptr) return rt_param_invalid("func is NULL");
    return rt::graph_unregister_destroy_callback(modelRI, func);
  });
}

aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI, aclmdlRICaptureMode mode) {
  return api_call("aclmdlRICaptureToModelRIBegin", [&] {
    if (stream == nullptr) return invalid_param("stream is NULL");
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    const auto m = static_cast<uint32_t>(raw(mode));
    if (m > kMaxCaptureMode) return rt_param_invalid("capture mode " + std::to_string(m) + " is not 0..2");
    return rt::capture_to_subgraph_begin(stream, modelRI, m);
  });
}

aclError aclmdlRIBuildBegin(aclmdlRI* modelRI, uint32_t flag) {
  return api_call("aclmdlRIBuildBegin", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    if (flag != 0) return rt_param_invalid("flag " + std::to_string(flag) + " is reserved and must be 0");
    return rt::graph_build_begin(modelRI);
  });
}

aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag) {
  return api_call("aclmdlRIBindStream", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    if (flag != ACL_MODEL_STREAM_FLAG_HEAD && flag != ACL_MODEL_STREAM_FLAG_DEFAULT) {
      return rt_param_invalid("flag " + std::to_string(flag) +
                              " is neither ACL_MODEL_STREAM_FLAG_HEAD (0) nor ACL_MODEL_STREAM_FLAG_DEFAULT");
    }
    if (stream == nullptr) return rt_param_invalid("stream is NULL (the default stream cannot be bound)");
    return rt::graph_bind_stream(modelRI, stream, flag);
  });
}

aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream) {
  return api_call("aclmdlRIEndTask", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    if (stream == nullptr) return invalid_param("stream is NULL");
    return rt::graph_end_task(modelRI, stream);
  });
}

aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void* reserve) {
  return api_call("aclmdlRIBuildEnd", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    if (reserve != nullptr) return invalid_param("reserve must be NULL");
    return rt::graph_build_end(modelRI);
  });
}

aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream) {
  return api_call("aclmdlRIUnbindStream", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    if (stream == nullptr) return invalid_param("stream is NULL");
    return rt::graph_unbind_stream(modelRI, stream);
  });
}

aclError aclrtPersistentTaskClean(aclrtStream stream) {
  return api_call("aclrtPersistentTaskClean", [&] {
    if (stream == nullptr) return rt_param_invalid("stream is NULL");
    return rt::persistent_task_clean(stream);
  });
}

aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream) {
  return api_call("aclmdlRICaptureTaskGrpBegin", [&] {
    if (stream == nullptr) return invalid_param("stream is NULL");
    return rt::task_group_begin(stream);
  });
}

aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp* handle) {
  return api_call("aclmdlRICaptureTaskGrpEnd", [&] {
    if (stream == nullptr) return invalid_param("stream is NULL");
    if (handle == nullptr) return invalid_param("handle is NULL");
    return rt::task_group_end(stream, handle);
  });
}

aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle) {
  return api_call("aclmdlRICaptureTaskUpdateBegin", [&] {
    if (stream == nullptr) return invalid_param("stream is NULL");
    if (handle == nullptr) return invalid_param("handle is NULL");
    return rt::task_update_begin(stream, handle);
  });
}

aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream) {
  return api_call("aclmdlRICaptureTaskUpdateEnd", [&] {
    if (stream == nullptr) return invalid_param("stream is NULL");
    return rt::task_update_end(stream);
  });
}

aclError aclmdlRIUpdate(aclmdlRI modelRI) {
  return api_call("aclmdlRIUpdate", [&] {
    if (modelRI == nullptr) return rt_param_invalid("modelRI is NULL");
    return rt::graph_update(modelRI);
  });
}

aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream* streams, uint32_t* numStreams) {
  return api_call("aclmdlRIGetStreams", [&] {
    if (modelRI == nullptr) return rt_param_invalid("modelRI is NULL");
    if (numStreams == nullptr) return rt_param_invalid("numStreams is NULL");
    return rt::graph_get_streams(modelRI, streams, numStreams);
  });
}

aclError aclmdlRIGetTasksByStream(aclrtStream stream, aclmdlRITask* tasks, uint32_t* numTasks) {
  return api_call("aclmdlRIGetTasksByStream", [&] {
    if (stream == nullptr) return rt_param_invalid("stream is NULL");
    if (numTasks == nullptr) return rt_param_invalid("numTasks is NULL");
    return rt::graph_tasks_by_stream(stream, tasks, numTasks);
  });
}

aclError aclmdlRITaskGetType(aclmdlRITask task, aclmdlRITaskType* type) {
  return api_call("aclmdlRITaskGetType", [&] {
    if (task == nullptr) return rt_param_invalid("task is NULL");
    if (type == nullptr) return rt_param_invalid("type is NULL");
    return rt::graph_task_type(task, type);
  });
}

aclError aclmdlRITaskGetSeqId(aclmdlRITask task, uint32_t* id) {
  return api_call("aclmdlRITaskGetSeqId", [&] {
    if (task == nullptr) return rt_param_invalid("task is NULL");
    if (id == nullptr) return rt_param_invalid("id is NULL");
    return rt::graph_task_seq(task, id);
  });
}

aclError aclmdlRITaskGetParams(aclmdlRITask task, aclmdlRITaskParams* params) {
  return api_call("aclmdlRITaskGetParams", [&] {
    if (task == nullptr) return rt_param_invalid("task is NULL");
    if (params == nullptr) return rt_param_invalid("params is NULL");
    return rt::graph_task_get_params(task, params);
  });
}

aclError aclmdlRITaskSetParams(aclmdlRITask task, aclmdlRITaskParams* params) {
  return api_call("aclmdlRITaskSetParams", [&] {
    if (task == nullptr) return rt_param_invalid("task is NULL");
    if (params == nullptr) return rt_param_invalid("params is NULL");
    return rt::graph_task_set_params(task, params);
  });
}

aclError aclmdlRITaskDisable(aclmdlRITask task) {
  return api_call("aclmdlRITaskDisable", [&] {
    if (task == nullptr) return rt_param_invalid("task is NULL");
    return rt::graph_task_disable(task);
  });
}

aclError aclmdlRIKernelTaskGetAttribute(aclmdlRITask task, aclrtLaunchKernelAttrId attrId,
                                        aclrtLaunchKernelAttrValue* attrValue) {
  return api_call("aclmdlRIKernelTaskGetAttribute", [&] {
    if (task == nullptr) return invalid_param("task is NULL");
    if (attrValue == nullptr) return invalid_param("attrValue is NULL");
    return rt::graph_kernel_task_attribute(task, static_cast<int32_t>(raw(attrId)), attrValue);
  });
}

aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue, aclmdlRICondHandleFlag flag,
                                  aclmdlRICondHandle* handle) {
  return api_call("aclmdlRICondHandleCreate", [&] {
    if (modelRI == nullptr) return invalid_param("modelRI is NULL");
    if (handle == nullptr) return invalid_param("handle is NULL");
    const auto f = static_cast<uint32_t>(raw(flag));
    if (f > ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT) {
      return rt_param_invalid("flag " + std::to_string(f) +
                              " is neither 0 nor ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT");
    }
    return rt::cond_handle_create(modelRI, defaultLaunchValue, f, handle);
  });
}

aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t** ptr) {
  return api_call("aclmdlRICondHandleGetCondPtr", [&] {
    if (handle == nullptr) return invalid_param("handle is NULL");
    if (ptr == nullptr) return invalid_param("ptr is NULL");
    return rt::cond_handle_ptr(handle, ptr);
  });
}

aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream, uint32_t flags) {
  return api_call("aclmdlRIAddCondTask", [&] {
    if (stream == nullptr) return invalid_param("stream is NULL");
    const auto type = static_cast<uint32_t>(raw(params.type));
    if (type > ACL_MODEL_RI_COND_TYPE_SWITCH)
      return rt_param_invalid("params.type " + std::to_string(type) + " is not 0..2");
    if (flags != 0) return rt_param_invalid("flags " + std::to_string(flags) + " is reserved and must be 0");
    if (params.handle == nullptr) return rt_param_invalid("params.handle is NULL");
    if (params.modelRIArray == nullptr) return rt_param_invalid("params.modelRIArray is NULL");
    const uint32_t n = params.size;
    const bool ok = type == ACL_MODEL_RI_COND_TYPE_IF      ? (n == 1 || n == 2)
                    : type == ACL_MODEL_RI_COND_TYPE_WHILE ? n == 1
                                                           : (n >= 1 && n <= kMaxCondBranches);
    if (!ok) {
      return rt_param_invalid("params.size " + std::to_string(n) +
                              " is not allowed for the type (IF: 1 or 2, WHILE: 1, SWITCH: 1.." +
                              std::to_string(kMaxCondBranches) + ")");
    }
    return rt::add_cond_task(params.handle, type, n, params.modelRIArray, stream);
  });
}

}  // extern "C"
