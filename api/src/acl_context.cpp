// Spec 2.3: context management.
#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

extern "C" {

aclError aclrtCreateContext(aclrtContext* context, int32_t deviceId) {
  return api_call("aclrtCreateContext", [&] {
    if (context == nullptr) return invalid_param("context is NULL");
    return rt::create_context(deviceId, context);
  });
}

aclError aclrtDestroyContext(aclrtContext context) {
  return api_call("aclrtDestroyContext", [&] {
    if (context == nullptr) return invalid_param("context is NULL");
    return rt::destroy_context(context);
  });
}

aclError aclrtSetCurrentContext(aclrtContext context) {
  return api_call("aclrtSetCurrentContext", [&] {
    if (context == nullptr) return invalid_param("context is NULL");
    return rt::set_current_context(context);
  });
}

aclError aclrtGetCurrentContext(aclrtContext* context) {
  return api_call("aclrtGetCurrentContext", [&] {
    if (context == nullptr) return invalid_param("context is NULL");
    return rt::get_current_context(context);
  });
}

aclError aclrtCtxGetCurrentDefaultStream(aclrtStream* stream) {
  return api_call("aclrtCtxGetCurrentDefaultStream", [&] {
    if (stream == nullptr) return invalid_param("stream is NULL");
    return rt::current_default_stream(stream);
  });
}

aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t* value) {
  return api_call("aclrtGetResInCurrentThread", [&] {
    if (value == nullptr) return invalid_param("value is NULL");
    if (raw(type) != ACL_RT_DEV_RES_CUBE_CORE && raw(type) != ACL_RT_DEV_RES_VECTOR_CORE) {
      return rt_param_invalid("unknown resource type " + std::to_string(raw(type)));
    }
    return rt::resource_limit_in_current_thread(type, value);
  });
}

}  // extern "C"
