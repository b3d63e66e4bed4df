// Front door implementation: devices, contexts, peer access (arun/runtime/devices.hpp).
#include "arun/runtime/devices.hpp"

#include <mutex>
#include <string>

#include "runtime/runtime.hpp"
#include "sched/scheduler.hpp"

namespace arun::rt {
namespace {

// The front door is reached only through api_call, which checked that aclInit has run.
Runtime& runtime() {
  return *Runtime::instance();
}

Status rt_param_invalid(const std::string& what) {
  return Status(Errc::rt_param_invalid, what);
}

}  // namespace

// ---------------------------------------------------------------- devices

Status set_device(int32_t device) {
  return runtime().set_device(device);
}

Status reset_device(int32_t device, bool force) {
  return runtime().reset_device(device, force);
}

Status current_device(int32_t* device) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(runtime().require_context(&ctx));
  *device = ctx->slot()->id();
  return Status::Ok();
}

Status device_count(uint32_t* count) {
  Runtime& rt = runtime();
  if (rt.device_count() == 0) return Status(Errc::rt_no_device, "no device plugin provides a device");
  *count = rt.device_count();
  return Status::Ok();
}

Status synchronize_device(int32_t timeout_ms) {
  return runtime().synchronize_device(timeout_ms);
}

Status check_device(int32_t device) {
  return runtime().check_device_id(device);
}

Status device_attribute(int32_t device, int64_t attr, int64_t* value) {
  Runtime& rt = runtime();
  ARUN_RETURN_IF_ERROR(rt.check_device_id(device));
  const auto& p = rt.device(device)->device()->properties();
  switch (attr) {
    case ACL_DEV_ATTR_AICORE_CORE_NUM:
    case ACL_DEV_ATTR_CUBE_CORE_NUM:
      *value = p.compute_units;
      break;
    case ACL_DEV_ATTR_VECTOR_CORE_NUM:
      *value = p.vector_units;
      break;
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE:
      *value = static_cast<int64_t>(p.memory_bytes);
      break;
    case ACL_DEV_ATTR_L2_CACHE_SIZE:
      *value = static_cast<int64_t>(p.l2_bytes);
      break;
    case ACL_DEV_ATTR_PHY_CHIP_ID:
      *value = device;
      break;
    case ACL_DEV_ATTR_IS_VIRTUAL:
      *value = 0;
      break;
    case ACL_DEV_ATTR_HD_CONNECT_TYPE:
      *value = ACL_HOST_DEVICE_CONNECT_TYPE_PCIE;
      break;
    case ACL_DEV_ATTR_DEVICE_FORM_FACTOR:
      *value = ACL_DEVICE_FORM_FACTOR_PCIE_CARD;
      break;
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
      return Status(Errc::rt_feature_not_support, "attribute " + std::to_string(attr) + " is not modelled by the " +
                                                      rt.device(device)->backend() + " device");
    default:
      return rt_param_invalid("unknown device attribute " + std::to_string(attr));
  }
  return Status::Ok();
}

Status device_utilization(int32_t device, DeviceUtilization* out) {
  Runtime& rt = runtime();
  ARUN_RETURN_IF_ERROR(rt.check_device_id(device));
  DeviceSlot* slot = rt.device(device);
  // Instantaneous share of busy AI cores; AI CPU and memory utilisation are not modelled.
  int32_t cube = 0;
  if (Scheduler* sched = slot->is_open() ? slot->scheduler() : nullptr) {
    uint32_t units = slot->device()->unit_count(plugin::UnitKind::Compute);
    if (units > 0) cube = static_cast<int32_t>(100 * sched->busy_units(plugin::UnitKind::Compute) / units);
  }
  *out = DeviceUtilization{cube, cube, -1, -1};
  return Status::Ok();
}

const char* soc_name() {
  // A copy: the pointer must outlive the device's properties (aclFinalize).
  static thread_local std::string name;
  Runtime* rt = Runtime::instance();
  if (rt == nullptr || rt->device_count() == 0) return nullptr;
  name = rt->device(0)->device()->properties().soc_name;
  return name.c_str();
}

// ---------------------------------------------------------------- peer access

Status can_access_peer(int32_t device, int32_t peer, bool* can) {
  Runtime& rt = runtime();
  ARUN_RETURN_IF_ERROR(rt.check_device_id(device));
  ARUN_RETURN_IF_ERROR(rt.check_device_id(peer));
  if (device == peer) return rt_param_invalid("deviceId and peerDeviceId are both " + std::to_string(device));
  // Devices of one backend share a (simulated) interconnect; devices of different backends do not.
  *can = rt.device(device)->backend() == rt.device(peer)->backend();
  return Status::Ok();
}

Status enable_peer_access(int32_t peer) {
  Runtime& rt = runtime();
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
  ARUN_RETURN_IF_ERROR(rt.check_device_id(peer));
  DeviceSlot* self = ctx->slot();
  if (peer == self->id()) return rt_param_invalid("peer device is the current device");
  if (rt.device(peer)->backend() != self->backend()) {
    return Status(Errc::rt_feature_not_support, "devices of different backends cannot access each other");
  }
  self->add_peer(peer);
  return Status::Ok();
}

Status disable_peer_access(int32_t peer) {
  Runtime& rt = runtime();
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
  ARUN_RETURN_IF_ERROR(rt.check_device_id(peer));
  DeviceSlot* self = ctx->slot();
  if (peer == self->id()) return rt_param_invalid("peer device is the current device");
  if (!self->remove_peer(peer)) {
    return rt_param_invalid("peer access from device " + std::to_string(self->id()) + " to device " +
                            std::to_string(peer) + " was not enabled");
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- overflow mode

Status set_overflow_mode(int64_t mode) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(runtime().require_context(&ctx));
  if (mode != ACL_RT_OVERFLOW_MODE_SATURATION && mode != ACL_RT_OVERFLOW_MODE_INFNAN) {
    return rt_param_invalid("overflow mode " + std::to_string(mode) + " is not SATURATION or INFNAN");
  }
  std::lock_guard lock(ctx->slot()->mu);
  ctx->slot()->overflow_mode = static_cast<int>(mode);
  return Status::Ok();
}

Status overflow_mode(aclrtFloatOverflowMode* mode) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(runtime().require_context(&ctx));
  std::lock_guard lock(ctx->slot()->mu);
  *mode = static_cast<aclrtFloatOverflowMode>(ctx->slot()->overflow_mode);
  return Status::Ok();
}

// ---------------------------------------------------------------- contexts

Status create_context(int32_t device, aclrtContext* out) {
  return runtime().create_context(device, out);
}

Status destroy_context(aclrtContext context) {
  return runtime().destroy_context(context);
}

Status set_current_context(aclrtContext context) {
  return runtime().set_current_context(context);
}

Status get_current_context(aclrtContext* out) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(runtime().require_context(&ctx));
  *out = ctx->handle();
  return Status::Ok();
}

Status current_default_stream(aclrtStream* out) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(runtime().require_context(&ctx));
  *out = ctx->default_stream->handle();
  return Status::Ok();
}

Status resource_limit_in_current_thread(aclrtDevResLimitType type, uint32_t* value) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(runtime().require_context(&ctx));
  // No per-stream or per-process limits are set in this version: the hardware default applies.
  const auto& p = ctx->slot()->device()->properties();
  *value = type == ACL_RT_DEV_RES_CUBE_CORE ? p.compute_units : p.vector_units;
  return Status::Ok();
}

}  // namespace arun::rt
