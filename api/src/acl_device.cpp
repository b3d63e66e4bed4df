// Spec 2.2: device management.
#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

namespace {

Status check_timeout(int32_t timeout) {
  if (timeout < -1) return rt_param_invalid("timeout " + std::to_string(timeout) + " ms is below -1");
  return Status::Ok();
}

}  // namespace

extern "C" {

aclError aclrtSetDevice(int32_t deviceId) {
  return api_call("aclrtSetDevice", [&] { return rt::set_device(deviceId); });
}

aclError aclrtResetDevice(int32_t deviceId) {
  return api_call("aclrtResetDevice", [&] { return rt::reset_device(deviceId, false); });
}

aclError aclrtResetDeviceForce(int32_t deviceId) {
  return api_call("aclrtResetDeviceForce", [&] { return rt::reset_device(deviceId, true); });
}

aclError aclrtGetDevice(int32_t* deviceId) {
  return api_call("aclrtGetDevice", [&] {
    if (deviceId == nullptr) return invalid_param("deviceId is NULL");
    return rt::current_device(deviceId);
  });
}

aclError aclrtGetDeviceCount(uint32_t* count) {
  return api_call("aclrtGetDeviceCount", [&] {
    if (count == nullptr) return invalid_param("count is NULL");
    return rt::device_count(count);
  });
}

aclError aclrtSynchronizeDevice(void) {
  return api_call("aclrtSynchronizeDevice", [&] { return rt::synchronize_device(-1); });
}

aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout) {
  return api_call("aclrtSynchronizeDeviceWithTimeout", [&] {
    ARUN_RETURN_IF_ERROR(check_timeout(timeout));
    return rt::synchronize_device(timeout);
  });
}

aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t* value) {
  return api_call("aclrtGetDeviceInfo", [&] {
    if (value == nullptr) return invalid_param("value is NULL");
    if (deviceId > static_cast<uint32_t>(INT32_MAX)) {
      return Status(Errc::rt_invalid_device_id, "device id " + std::to_string(deviceId) + " is out of range");
    }
    return rt::device_attribute(static_cast<int32_t>(deviceId), raw(attr), value);
  });
}

aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus* deviceStatus) {
  return api_call("aclrtQueryDeviceStatus", [&] {
    if (deviceStatus == nullptr) return invalid_param("deviceStatus is NULL");
    ARUN_RETURN_IF_ERROR(rt::check_device(deviceId));
    *deviceStatus = ACL_RT_DEVICE_STATUS_NORMAL;
    return Status::Ok();
  });
}

aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo* utilizationInfo) {
  return api_call("aclrtGetDeviceUtilizationRate", [&] {
    if (utilizationInfo == nullptr) return invalid_param("utilizationInfo is NULL");
    if (utilizationInfo->utilizationExtend != nullptr) return invalid_param("utilizationExtend must be NULL");
    rt::DeviceUtilization u;
    ARUN_RETURN_IF_ERROR(rt::device_utilization(deviceId, &u));
    utilizationInfo->cubeUtilization = u.cube;
    utilizationInfo->vectorUtilization = u.vector;
    utilizationInfo->aicpuUtilization = u.aicpu;
    utilizationInfo->memoryUtilization = u.memory;
    return Status::Ok();
  });
}

aclError aclrtDeviceCanAccessPeer(int32_t* canAccessPeer, int32_t deviceId, int32_t peerDeviceId) {
  return api_call("aclrtDeviceCanAccessPeer", [&] {
    if (canAccessPeer == nullptr) return invalid_param("canAccessPeer is NULL");
    bool can = false;
    ARUN_RETURN_IF_ERROR(rt::can_access_peer(deviceId, peerDeviceId, &can));
    *canAccessPeer = can ? 1 : 0;
    return Status::Ok();
  });
}

aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags) {
  return api_call("aclrtDeviceEnablePeerAccess", [&] {
    if (flags != 0) return rt_param_invalid("flags must be 0");
    return rt::enable_peer_access(peerDeviceId);
  });
}

aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId) {
  return api_call("aclrtDeviceDisablePeerAccess", [&] { return rt::disable_peer_access(peerDeviceId); });
}

aclError aclrtDeviceGetStreamPriorityRange(int32_t* leastPriority, int32_t* greatestPriority) {
  if (leastPriority != nullptr) *leastPriority = 7;
  if (greatestPriority != nullptr) *greatestPriority = 0;
  return ACL_SUCCESS;
}

aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode) {
  // The mode is checked after the current context (the reference's order), so by the core.
  return api_call("aclrtSetDeviceSatMode", [&] { return rt::set_overflow_mode(raw(mode)); });
}

aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode* mode) {
  return api_call("aclrtGetDeviceSatMode", [&] {
    if (mode == nullptr) return invalid_param("mode is NULL");
    return rt::overflow_mode(mode);
  });
}

// Needs no context and opens no device: the numbers are the device's static properties.
aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t* value) {
  return api_call("aclGetDeviceCapability", [&] {
    if (value == nullptr) return invalid_param("value is NULL");
    return rt::device_capability(deviceId, raw(deviceInfo), value);
  });
}

aclError aclrtDeviceSetLimit(aclrtDeviceLimit limit, size_t value) {
  return api_call("aclrtDeviceSetLimit", [&] {
    const auto l = raw(limit);
    if (l < ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE || l > ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE) {
      return invalid_param("limit " + std::to_string(l) + " is not an aclrtDeviceLimit");
    }
    if (value > UINT32_MAX) return invalid_param("value " + std::to_string(value) + " exceeds UINT32_MAX");
    return rt::set_device_limit(static_cast<uint32_t>(l), value);
  });
}

aclError aclrtDeviceGetLimit(aclrtDeviceLimit limit, size_t* value) {
  return api_call("aclrtDeviceGetLimit", [&] {
    if (value == nullptr) return invalid_param("value is NULL");
    const auto l = raw(limit);
    if (l < ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE || l > ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE) {
      return invalid_param("limit " + std::to_string(l) + " is not an aclrtDeviceLimit");
    }
    return rt::device_limit(static_cast<uint32_t>(l), value);
  });
}

aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType, int32_t* value) {
  return api_call("aclrtGetDeviceCapability", [&] {
    if (value == nullptr) return invalid_param("value is NULL");
    return rt::device_feature(deviceId, raw(devFeatureType), value);
  });
}

// Both NULL checks are the runtime core's in CANN (107000, not 100000).
aclError aclrtCheckArchCompatibility(const char* socVersion, int32_t* canCompatible) {
  return api_call("aclrtCheckArchCompatibility", [&] {
    if (socVersion == nullptr) return rt_param_invalid("socVersion is NULL");
    if (canCompatible == nullptr) return rt_param_invalid("canCompatible is NULL");
    return rt::check_arch_compatibility(socVersion, canCompatible);
  });
}

}  // extern "C"
