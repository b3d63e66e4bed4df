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
  return api_call("aclrtSetDevice", [&](Runtime& rt) { return rt.set_device(deviceId); });
}

aclError aclrtResetDevice(int32_t deviceId) {
  return api_call("aclrtResetDevice", [&](Runtime& rt) { return rt.reset_device(deviceId, false); });
}

aclError aclrtResetDeviceForce(int32_t deviceId) {
  return api_call("aclrtResetDeviceForce", [&](Runtime& rt) { return rt.reset_device(deviceId, true); });
}

aclError aclrtGetDevice(int32_t *deviceId) {
  return api_call("aclrtGetDevice", [&](Runtime& rt) {
    if (deviceId == nullptr) return invalid_param("deviceId is NULL");
    Context* ctx = nullptr;
    ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
    *deviceId = ctx->slot()->id();
    return Status::Ok();
  });
}

aclError aclrtGetDeviceCount(uint32_t *count) {
  return api_call("aclrtGetDeviceCount", [&](Runtime& rt) {
    if (count == nullptr) return invalid_param("count is NULL");
    if (rt.device_count() == 0) return Status(Errc::rt_no_device, "no device plugin provides a device");
    *count = rt.device_count();
    return Status::Ok();
  });
}

aclError aclrtSynchronizeDevice(void) {
  return api_call("aclrtSynchronizeDevice", [&](Runtime& rt) { return rt.synchronize_device(-1); });
}

aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout) {
  return api_call("aclrtSynchronizeDeviceWithTimeout", [&](Runtime& rt) {
    ARUN_RETURN_IF_ERROR(check_timeout(timeout));
    return rt.synchronize_device(timeout);
  });
}

aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value) {
  return api_call("aclrtGetDeviceInfo", [&](Runtime& rt) {
    if (value == nullptr) return invalid_param("value is NULL");
    if (deviceId > static_cast<uint32_t>(INT32_MAX)) {
      return Status(Errc::rt_invalid_device_id, "device id " + std::to_string(deviceId) + " is out of range");
    }
    ARUN_RETURN_IF_ERROR(rt.check_device_id(static_cast<int32_t>(deviceId)));
    const auto& p = rt.device(static_cast<int32_t>(deviceId))->device()->properties();
    switch (raw(attr)) {
      case ACL_DEV_ATTR_AICORE_CORE_NUM:
      case ACL_DEV_ATTR_CUBE_CORE_NUM: *value = p.compute_units; break;
      case ACL_DEV_ATTR_VECTOR_CORE_NUM: *value = p.vector_units; break;
      case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: *value = static_cast<int64_t>(p.memory_bytes); break;
      case ACL_DEV_ATTR_L2_CACHE_SIZE: *value = static_cast<int64_t>(p.l2_bytes); break;
      case ACL_DEV_ATTR_PHY_CHIP_ID: *value = deviceId; break;
      case ACL_DEV_ATTR_IS_VIRTUAL: *value = 0; break;
      case ACL_DEV_ATTR_HD_CONNECT_TYPE: *value = ACL_HOST_DEVICE_CONNECT_TYPE_PCIE; break;
      case ACL_DEV_ATTR_DEVICE_FORM_FACTOR: *value = ACL_DEVICE_FORM_FACTOR_PCIE_CARD; break;
      case ACL_DEV_ATTR_AICPU_CORE_NUM:
      case ACL_DEV_ATTR_WARP_SIZE:
      case ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE:
      case ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE:
      case ACL_DEV_ATTR_MAX_GRID_DIM_X:
      case ACL_DEV_ATTR_MAX_GRID_DIM_Y:
      case ACL_DEV_ATTR_MAX_GRID_DIM_Z:
      case ACL_DEV_ATTR_MAX_BLOCK_PER_GRID:
      case ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK:
      case ACL_DEV_ATTR_MAX_BLOCK_DIM_X:
      case ACL_DEV_ATTR_MAX_BLOCK_DIM_Y:
      case ACL_DEV_ATTR_MAX_BLOCK_DIM_Z:
      case ACL_DEV_ATTR_SMP_ID:
      case ACL_DEV_ATTR_SUPER_POD_DEVICE_ID:
      case ACL_DEV_ATTR_SUPER_POD_SERVER_ID:
      case ACL_DEV_ATTR_SUPER_POD_ID:
      case ACL_DEV_ATTR_CUST_OP_PRIVILEGE:
      case ACL_DEV_ATTR_MAINBOARD_ID:
      case ACL_DEV_ATTR_NPU_ARCH:
        return Status(Errc::rt_feature_not_support,
                      "attribute " + std::to_string(raw(attr)) + " is not modelled by the " +
                          rt.device(static_cast<int32_t>(deviceId))->backend() + " device");
      default:
        return rt_param_invalid("unknown device attribute " + std::to_string(raw(attr)));
    }
    return Status::Ok();
  });
}

aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus) {
  return api_call("aclrtQueryDeviceStatus", [&](Runtime& rt) {
    if (deviceStatus == nullptr) return invalid_param("deviceStatus is NULL");
    ARUN_RETURN_IF_ERROR(rt.check_device_id(deviceId));
    *deviceStatus = ACL_RT_DEVICE_STATUS_NORMAL;
    return Status::Ok();
  });
}

aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo) {
  return api_call("aclrtGetDeviceUtilizationRate", [&](Runtime& rt) {
    if (utilizationInfo == nullptr) return invalid_param("utilizationInfo is NULL");
    if (utilizationInfo->utilizationExtend != nullptr) return invalid_param("utilizationExtend must be NULL");
    ARUN_RETURN_IF_ERROR(rt.check_device_id(deviceId));
    DeviceSlot* slot = rt.device(deviceId);
    // Instantaneous share of busy AI cores; AI CPU and memory utilisation are not modelled.
    int32_t cube = 0;
    if (Scheduler* sched = slot->is_open() ? slot->scheduler() : nullptr) {
      uint32_t units = slot->device()->unit_count(plugin::UnitKind::Compute);
      if (units > 0) cube = static_cast<int32_t>(100 * sched->busy_units(plugin::UnitKind::Compute) / units);
    }
    utilizationInfo->cubeUtilization = cube;
    utilizationInfo->vectorUtilization = cube;
    utilizationInfo->aicpuUtilization = -1;
    utilizationInfo->memoryUtilization = -1;
    return Status::Ok();
  });
}

aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId) {
  return api_call("aclrtDeviceCanAccessPeer", [&](Runtime& rt) {
    if (canAccessPeer == nullptr) return invalid_param("canAccessPeer is NULL");
    ARUN_RETURN_IF_ERROR(rt.check_device_id(deviceId));
    ARUN_RETURN_IF_ERROR(rt.check_device_id(peerDeviceId));
    if (deviceId == peerDeviceId) return rt_param_invalid("deviceId and peerDeviceId are both " + std::to_string(deviceId));
    // Devices of one backend share a (simulated) interconnect; devices of different backends do not.
    *canAccessPeer = rt.device(deviceId)->backend() == rt.device(peerDeviceId)->backend() ? 1 : 0;
    return Status::Ok();
  });
}

aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags) {
  return api_call("aclrtDeviceEnablePeerAccess", [&](Runtime& rt) {
    if (flags != 0) return rt_param_invalid("flags must be 0");
    Context* ctx = nullptr;
    ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
    ARUN_RETURN_IF_ERROR(rt.check_device_id(peerDeviceId));
    DeviceSlot* self = ctx->slot();
    if (peerDeviceId == self->id()) return rt_param_invalid("peer device is the current device");
    if (rt.device(peerDeviceId)->backend() != self->backend()) {
      return Status(Errc::rt_feature_not_support, "devices of different backends cannot access each other");
    }
    std::lock_guard lock(self->mu);
    self->peers.insert(peerDeviceId);
    return Status::Ok();
  });
}

aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId) {
  return api_call("aclrtDeviceDisablePeerAccess", [&](Runtime& rt) {
    Context* ctx = nullptr;
    ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
    ARUN_RETURN_IF_ERROR(rt.check_device_id(peerDeviceId));
    DeviceSlot* self = ctx->slot();
    if (peerDeviceId == self->id()) return rt_param_invalid("peer device is the current device");
    std::lock_guard lock(self->mu);
    if (self->peers.erase(peerDeviceId) == 0) {
      return rt_param_invalid("peer access from device " + std::to_string(self->id()) + " to device " +
                              std::to_string(peerDeviceId) + " was not enabled");
    }
    return Status::Ok();
  });
}

aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority) {
  if (leastPriority != nullptr) *leastPriority = 7;
  if (greatestPriority != nullptr) *greatestPriority = 0;
  return ACL_SUCCESS;
}

aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode) {
  return api_call("aclrtSetDeviceSatMode", [&](Runtime& rt) {
    Context* ctx = nullptr;
    ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
    if (raw(mode) != ACL_RT_OVERFLOW_MODE_SATURATION && raw(mode) != ACL_RT_OVERFLOW_MODE_INFNAN) {
      return rt_param_invalid("overflow mode " + std::to_string(raw(mode)) + " is not SATURATION or INFNAN");
    }
    std::lock_guard lock(ctx->slot()->mu);
    ctx->slot()->overflow_mode = mode;
    return Status::Ok();
  });
}

aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode) {
  return api_call("aclrtGetDeviceSatMode", [&](Runtime& rt) {
    if (mode == nullptr) return invalid_param("mode is NULL");
    Context* ctx = nullptr;
    ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
    std::lock_guard lock(ctx->slot()->mu);
    *mode = static_cast<aclrtFloatOverflowMode>(ctx->slot()->overflow_mode);
    return Status::Ok();
  });
}

}  // extern "C"
