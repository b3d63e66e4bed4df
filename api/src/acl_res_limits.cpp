// Spec part 2, 4.2: core-count resource limits (device level, stream level, the thread's selected
// stream). The checks that need a device or a stream are the core's (arun/runtime/res_limits.hpp).
#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

extern "C" {

aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t* value) {
  return api_call("aclrtGetDeviceResLimit", [&] {
    if (value == nullptr) return invalid_param("value is NULL");
    return rt::device_res_limit(deviceId, raw(type), value);
  });
}

aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value) {
  return api_call("aclrtSetDeviceResLimit", [&] { return rt::set_device_res_limit(deviceId, raw(type), value); });
}

aclError aclrtResetDeviceResLimit(int32_t deviceId) {
  return api_call("aclrtResetDeviceResLimit", [&] { return rt::reset_device_res_limit(deviceId); });
}

aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t* value) {
  return api_call("aclrtGetStreamResLimit", [&] {
    if (value == nullptr) return invalid_param("value is NULL");
    return rt::stream_res_limit(stream, raw(type), value);
  });
}

aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value) {
  return api_call("aclrtSetStreamResLimit", [&] { return rt::set_stream_res_limit(stream, raw(type), value); });
}

aclError aclrtResetStreamResLimit(aclrtStream stream) {
  return api_call("aclrtResetStreamResLimit", [&] { return rt::reset_stream_res_limit(stream); });
}

aclError aclrtUseStreamResInCurrentThread(aclrtStream stream) {
  return api_call("aclrtUseStreamResInCurrentThread", [&] { return rt::use_stream_res(stream); });
}

aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream) {
  return api_call("aclrtUnuseStreamResInCurrentThread", [&] { return rt::unuse_stream_res(stream); });
}

}  // extern "C"
