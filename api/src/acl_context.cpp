// Spec 2.3: context management.
#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

extern "C" {

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId) {
  return api_call("aclrtCreateContext", [&](Runtime& rt) {
    if (context == nullptr) return invalid_param("context is NULL");
    return rt.create_context(deviceId, context);
  });
}

aclError aclrtDestroyContext(aclrtContext context) {
  return api_call("aclrtDestroyContext", [&](Runtime& rt) {
    if (context == nullptr) return invalid_param("context is NULL");
    return rt.destroy_context(context);
  });
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  return api_call("aclrtSetCurrentContext", [&](Runtime& rt) {
    if (context == nullptr) return invalid_param("context is NULL");
    return rt.set_current_context(context);
  });
}

aclError aclrtGetCurrentContext(aclrtContext *context) {
  return api_call("aclrtGetCurrentContext", [&](Runtime& rt) {
    if (context == nullptr) return invalid_param("context is NULL");
    Context* ctx = nullptr;
    ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
    *context = ctx->handle();
    return Status::Ok();
  });
}

aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream) {
  return api_call("aclrtCtxGetCurrentDefaultStream", [&](Runtime& rt) {
    if (stream == nullptr) return invalid_param("stream is NULL");
    Context* ctx = nullptr;
    ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
    *stream = ctx->default_stream->handle();
    return Status::Ok();
  });
}

aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value) {
  return api_call("aclrtGetResInCurrentThread", [&](Runtime& rt) {
    if (value == nullptr) return invalid_param("value is NULL");
    if (raw(type) != ACL_RT_DEV_RES_CUBE_CORE && raw(type) != ACL_RT_DEV_RES_VECTOR_CORE) {
      return rt_param_invalid("unknown resource type " + std::to_string(raw(type)));
    }
    Context* ctx = nullptr;
    ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
    // No per-stream or per-process limits are set in this version: the hardware default applies.
    const auto& p = ctx->slot()->device()->properties();
    *value = type == ACL_RT_DEV_RES_CUBE_CORE ? p.compute_units : p.vector_units;
    return Status::Ok();
  });
}

}  // extern "C"
