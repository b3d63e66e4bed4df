// Front door implementation: devices, contexts, peer access (arun/runtime/devices.hpp).
#include "arun/runtime/devices.hpp"

#include <mutex>
#include <string>

#include "arun/runtime/res_limits.hpp"
#include "base/status_helpers.hpp"
#include "front/stream_access.hpp"
#include "runtime/runtime.hpp"
#include "sched/scheduler.hpp"

namespace arun::rt {
namespace {

// The front door is reached only through api_call, which checked that aclInit has run.
}  // namespace

// ---------------------------------------------------------------- devices

Status set_device(int32_t device) {
  return detail::runtime().set_device(device);
}

Status reset_device(int32_t device, bool force) {
  return detail::runtime().reset_device(device, force);
}

Status current_device(int32_t* device) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(detail::runtime().require_context(&ctx));
  *device = ctx->slot()->id();
  return Status::Ok();
}

Status device_count(uint32_t* count) {
  Runtime& rt = detail::runtime();
  if (rt.device_count() == 0) return Status(Errc::rt_no_device, "no device plugin provides a device");
  *count = rt.device_count();
  return Status::Ok();
}

Status synchronize_device(int32_t timeout_ms) {
  return detail::runtime().synchronize_device(timeout_ms);
}

Status check_device(int32_t device) {
  return detail::runtime().check_device_id(device);
}

Status device_attribute(int32_t device, int64_t attr, int64_t* value) {
  Runtime& rt = detail::runtime();
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
      return param_invalid("unknown device attribute " + std::to_string(attr));
  }
  return Status::Ok();
}

Status device_utilization(int32_t device, DeviceUtilization* out) {
  Runtime& rt = detail::runtime();
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

Status device_capability(uint32_t device, int64_t info, int64_t* value) {
  uint32_t count = 0;
  ARUN_RETURN_IF_ERROR(device_count(&count));
  if (device >= count) {
    return Status(Errc::invalid_param,
                  "deviceId " + std::to_string(device) + " is not below the device count " + std::to_string(count));
  }
  int64_t attr = 0;
  switch (info) {
    case ACL_DEVICE_INFO_AI_CORE_NUM:
      attr = ACL_DEV_ATTR_AICORE_CORE_NUM;
      break;
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM:
      attr = ACL_DEV_ATTR_VECTOR_CORE_NUM;
      break;
    case ACL_DEVICE_INFO_L2_SIZE:
      attr = ACL_DEV_ATTR_L2_CACHE_SIZE;
      break;
    default:
      return Status(Errc::invalid_param, "deviceInfo " + std::to_string(info) + " is not 0, 1 or 2");
  }
  // The same numbers aclrtGetDeviceInfo reports; they come from the device's static properties, so
  // the device is not opened.
  return device_attribute(static_cast<int32_t>(device), attr, value);
}

// ---------------------------------------------------------------- device limits

namespace {

// The process-wide aclrtDeviceSetLimit values, indexed by aclrtDeviceLimit.
constexpr size_t kLimitCount = 5;
std::mutex g_limits_mu;
size_t g_limits[kLimitCount] = {1152, 1024, 32768, 32768, 2097152};  // the defaults

bool is_simt_limit(uint32_t limit) {
  return limit == ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE || limit == ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE ||
         limit == ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE;
}

// SIMT (and its limits) exists on the Ascend 950 parts only.
bool chip_has_simt() {
  const char* soc = soc_name();
  return soc != nullptr && std::string(soc).rfind("Ascend950", 0) == 0;
}

size_t round_up(size_t v, size_t to) {
  return (v + to - 1) / to * to;
}

Status unsupported_limit(uint32_t limit) {
  return Status(Errc::rt_feature_not_support, "device limit " + std::to_string(limit) +
                                                  " needs a SIMT-capable chip (Ascend 950); this one is " +
                                                  std::string(soc_name() ? soc_name() : "unknown"));
}

Status out_of_range(uint32_t limit, size_t value, const char* range) {
  return param_invalid("value " + std::to_string(value) + " for device limit " + std::to_string(limit) +
                       " is outside " + range);
}

}  // namespace

Status set_device_limit(uint32_t limit, size_t value) {
  std::lock_guard lock(g_limits_mu);
  size_t stored = value;
  switch (limit) {
    case ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE:
    case ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE: {
      const uint32_t other = limit == ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE ? ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE
                                                                       : ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE;
      if (value == 0 && g_limits[other] == 0) {
        return param_invalid("the SIMT stack size and the SIMT divergent-warp stack size cannot both be 0");
      }
      stored = round_up(value, 128);
      break;
    }
    case ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE: {
      const size_t max = chip_has_simt() ? 131072 : 196608;
      stored = value <= 32768 ? 32768 : round_up(value, 16384);
      if (stored > max) return out_of_range(limit, value, chip_has_simt() ? "(0, 131072]" : "(0, 196608]");
      break;
    }
    case ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE:
      if (value < 1024 || value > 67108864) return out_of_range(limit, value, "[1024, 67108864]");
      stored = round_up(value, 8);
      break;
    case ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE:
      if (value < 1048576 || value > 67108864) return out_of_range(limit, value, "[1048576, 67108864]");
      stored = round_up(value, 8);
      break;
    default:
      return Status(Errc::invalid_param, "limit " + std::to_string(limit) + " is not an aclrtDeviceLimit");
  }
  if (is_simt_limit(limit) && !chip_has_simt()) return unsupported_limit(limit);
  // Nothing on the simulated device consumes these sizes: they are kept and reported only.
  g_limits[limit] = stored;
  return Status::Ok();
}

Status device_limit(uint32_t limit, size_t* value) {
  if (limit >= kLimitCount) {
    return Status(Errc::invalid_param, "limit " + std::to_string(limit) + " is not an aclrtDeviceLimit");
  }
  if (is_simt_limit(limit) && !chip_has_simt()) return unsupported_limit(limit);
  std::lock_guard lock(g_limits_mu);
  *value = g_limits[limit];
  return Status::Ok();
}

// ---------------------------------------------------------------- peer access

Status can_access_peer(int32_t device, int32_t peer, bool* can) {
  Runtime& rt = detail::runtime();
  ARUN_RETURN_IF_ERROR(rt.check_device_id(device));
  ARUN_RETURN_IF_ERROR(rt.check_device_id(peer));
  if (device == peer) return param_invalid("deviceId and peerDeviceId are both " + std::to_string(device));
  // Devices of one backend share a (simulated) interconnect; devices of different backends do not.
  *can = rt.device(device)->backend() == rt.device(peer)->backend();
  return Status::Ok();
}

Status enable_peer_access(int32_t peer) {
  Runtime& rt = detail::runtime();
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
  ARUN_RETURN_IF_ERROR(rt.check_device_id(peer));
  DeviceSlot* self = ctx->slot();
  if (peer == self->id()) return param_invalid("peer device is the current device");
  if (rt.device(peer)->backend() != self->backend()) {
    return Status(Errc::rt_feature_not_support, "devices of different backends cannot access each other");
  }
  self->add_peer(peer);
  return Status::Ok();
}

Status disable_peer_access(int32_t peer) {
  Runtime& rt = detail::runtime();
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
  ARUN_RETURN_IF_ERROR(rt.check_device_id(peer));
  DeviceSlot* self = ctx->slot();
  if (peer == self->id()) return param_invalid("peer device is the current device");
  if (!self->remove_peer(peer)) {
    return param_invalid("peer access from device " + std::to_string(self->id()) + " to device " +
                         std::to_string(peer) + " was not enabled");
  }
  return Status::Ok();
}

// ---------------------------------------------------------------- overflow mode

Status set_overflow_mode(int64_t mode) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(detail::runtime().require_context(&ctx));
  if (mode != ACL_RT_OVERFLOW_MODE_SATURATION && mode != ACL_RT_OVERFLOW_MODE_INFNAN) {
    return param_invalid("overflow mode " + std::to_string(mode) + " is not SATURATION or INFNAN");
  }
  std::lock_guard lock(ctx->slot()->mu);
  ctx->slot()->overflow_mode = static_cast<int>(mode);
  return Status::Ok();
}

Status overflow_mode(aclrtFloatOverflowMode* mode) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(detail::runtime().require_context(&ctx));
  std::lock_guard lock(ctx->slot()->mu);
  *mode = static_cast<aclrtFloatOverflowMode>(ctx->slot()->overflow_mode);
  return Status::Ok();
}

// ---------------------------------------------------------------- contexts

Status create_context(int32_t device, aclrtContext* out) {
  return detail::runtime().create_context(device, out);
}

Status destroy_context(aclrtContext context) {
  return detail::runtime().destroy_context(context);
}

Status set_current_context(aclrtContext context) {
  return detail::runtime().set_current_context(context);
}

Status get_current_context(aclrtContext* out) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(detail::runtime().require_context(&ctx));
  *out = ctx->handle();
  return Status::Ok();
}

Status current_default_stream(aclrtStream* out) {
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(detail::runtime().require_context(&ctx));
  *out = ctx->default_stream->handle();
  return Status::Ok();
}

Status resource_limit_in_current_thread(aclrtDevResLimitType type, uint32_t* value) {
  return res_limit_in_current_thread(type, value);  // the resource-limit area (res_limits.cpp)
}

}  // namespace arun::rt
