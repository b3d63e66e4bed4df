// Spec part 2, 4.12: model runtime instances captured from streams (aclmdlRI*). Argument checks in
// the spec's order, with its per-function codes (some NULLs are 107000, not 100000); capture and
// replay live behind the front door (arun/runtime/graphs.hpp).
#include <string>

#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

namespace {
constexpr uint32_t kMaxCaptureMode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
}

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
    if (modelRI == nullptr) return rt_param_invalid("modelRI is NULL");
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

}  // extern "C"
