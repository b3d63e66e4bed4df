// Front door implementation: core-count resource limits (arun/runtime/res_limits.hpp).
#include "arun/runtime/res_limits.hpp"

#include <memory>
#include <string>

#include "front/res_limit_state.hpp"
#include "front/stream_access.hpp"
#include "runtime/context.hpp"
#include "runtime/device_slot.hpp"
#include "runtime/runtime.hpp"
#include "runtime/stream.hpp"

namespace arun::rt {
namespace {

// The stream the calling thread selected with aclrtUseStreamResInCurrentThread: its handle (never
// reused, so a destroyed stream simply stops resolving) and the runtime it belongs to.
struct Selection {
  void* handle = nullptr;
  const Runtime* runtime = nullptr;
};
thread_local Selection t_selection;

Status check_type(int64_t type) {
  if (type != ACL_RT_DEV_RES_CUBE_CORE && type != ACL_RT_DEV_RES_VECTOR_CORE) {
    return Status(Errc::rt_param_invalid, "type " + std::to_string(type) +
                                              " is neither ACL_RT_DEV_RES_CUBE_CORE nor ACL_RT_DEV_RES_VECTOR_CORE");
  }
  return Status::Ok();
}

uint32_t hardware_count(const DeviceSlot& slot, int64_t type) {
  const auto& p = slot.device()->properties();
  return type == ACL_RT_DEV_RES_CUBE_CORE ? p.compute_units : p.vector_units;
}

const char* type_name(int64_t type) {
  return type == ACL_RT_DEV_RES_CUBE_CORE ? "cube (AI) cores" : "vector cores";
}

Status check_value(const DeviceSlot& slot, int64_t type, uint32_t value) {
  const uint32_t hw = hardware_count(slot, type);
  if (value == 0 || value > hw) {
    return Status(Errc::rt_param_invalid, "a limit of " + std::to_string(value) + " " + type_name(type) +
                                              " is outside 1.." + std::to_string(hw) + " (device " +
                                              std::to_string(slot.id()) + "'s count)");
  }
  return Status::Ok();
}

// Device checks of the device-level functions, in the spec's order up to the type.
Status open_device(int32_t device, DeviceSlot** out) {
  Runtime& rt = detail::runtime();
  ARUN_RETURN_IF_ERROR(rt.check_device_id(device));
  *out = rt.device(device);
  return Status::Ok();
}

Status require_open(const DeviceSlot& slot) {
  if (!slot.is_open()) {
    return Status(Errc::rt_dev_setup_error,
                  "device " + std::to_string(slot.id()) + " is not open in this process (call aclrtSetDevice first)");
  }
  return Status::Ok();
}

// The limit a stream reports: its own, else its device's, else the hardware count.
uint32_t effective(const Stream& s, int64_t type) {
  const DeviceSlot& slot = *s.context()->slot();
  if (uint32_t v = s.res_limit[type].load(std::memory_order_relaxed)) return v;
  if (uint32_t v = slot.res_limit[type].load(std::memory_order_relaxed)) return v;
  return hardware_count(slot, type);
}

// The thread's selected stream if it is still alive and on `slot`'s device.
std::shared_ptr<Stream> selected_on(const Runtime& rt, const DeviceSlot* slot) {
  if (t_selection.handle == nullptr || t_selection.runtime != &rt) return nullptr;
  auto s = rt.find_stream(t_selection.handle);
  if (!s || s->context()->slot() != slot) return nullptr;
  return s;
}

}  // namespace

// ---------------------------------------------------------------- device level

Status device_res_limit(int32_t device, int64_t type, uint32_t* value) {
  DeviceSlot* slot = nullptr;
  ARUN_RETURN_IF_ERROR(open_device(device, &slot));
  ARUN_RETURN_IF_ERROR(check_type(type));
  ARUN_RETURN_IF_ERROR(require_open(*slot));
  const uint32_t v = slot->res_limit[type].load(std::memory_order_relaxed);
  *value = v != 0 ? v : hardware_count(*slot, type);
  return Status::Ok();
}

Status set_device_res_limit(int32_t device, int64_t type, uint32_t value) {
  DeviceSlot* slot = nullptr;
  ARUN_RETURN_IF_ERROR(open_device(device, &slot));
  ARUN_RETURN_IF_ERROR(check_type(type));
  ARUN_RETURN_IF_ERROR(check_value(*slot, type, value));
  ARUN_RETURN_IF_ERROR(require_open(*slot));
  slot->res_limit[type].store(value, std::memory_order_relaxed);
  return Status::Ok();
}

Status reset_device_res_limit(int32_t device) {
  DeviceSlot* slot = nullptr;
  ARUN_RETURN_IF_ERROR(open_device(device, &slot));
  ARUN_RETURN_IF_ERROR(require_open(*slot));
  for (auto& limit : slot->res_limit) limit.store(0, std::memory_order_relaxed);
  return Status::Ok();
}

// ---------------------------------------------------------------- stream level

Status stream_res_limit(aclrtStream stream, int64_t type, uint32_t* value) {
  ARUN_RETURN_IF_ERROR(check_type(type));
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(detail::runtime().resolve_stream(stream, &s));
  *value = effective(*s, type);
  return Status::Ok();
}

Status set_stream_res_limit(aclrtStream stream, int64_t type, uint32_t value) {
  ARUN_RETURN_IF_ERROR(check_type(type));
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(detail::runtime().resolve_stream(stream, &s));
  ARUN_RETURN_IF_ERROR(check_value(*s->context()->slot(), type, value));
  s->res_limit[type].store(value, std::memory_order_relaxed);
  return Status::Ok();
}

Status reset_stream_res_limit(aclrtStream stream) {
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(detail::runtime().resolve_stream(stream, &s));
  for (auto& limit : s->res_limit) limit.store(0, std::memory_order_relaxed);
  return Status::Ok();
}

Status use_stream_res(aclrtStream stream) {
  Runtime& rt = detail::runtime();
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
  t_selection = Selection{s->handle(), &rt};
  return Status::Ok();
}

Status unuse_stream_res(aclrtStream stream) {
  Runtime& rt = detail::runtime();
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
  if (t_selection.runtime == &rt && t_selection.handle == s->handle()) t_selection = Selection{};
  return Status::Ok();
}

Status res_limit_in_current_thread(int64_t type, uint32_t* value) {
  Runtime& rt = detail::runtime();
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt.require_context(&ctx));
  ARUN_RETURN_IF_ERROR(check_type(type));
  DeviceSlot* slot = ctx->slot();
  if (auto s = selected_on(rt, slot)) {
    if (uint32_t v = s->res_limit[type].load(std::memory_order_relaxed)) {
      *value = v;
      return Status::Ok();
    }
  }
  const uint32_t v = slot->res_limit[type].load(std::memory_order_relaxed);
  *value = v != 0 ? v : hardware_count(*slot, type);
  return Status::Ok();
}

namespace detail {

uint32_t kernel_core_limit(Runtime& rt, const Stream& stream) {
  const DeviceSlot* slot = stream.context()->slot();
  if (t_selection.handle != nullptr) [[unlikely]] {
    if (auto s = selected_on(rt, slot)) {
      if (uint32_t v = s->res_limit[ACL_RT_DEV_RES_CUBE_CORE].load(std::memory_order_relaxed)) return v;
    }
  }
  return slot->res_limit[ACL_RT_DEV_RES_CUBE_CORE].load(std::memory_order_relaxed);
}

}  // namespace detail
}  // namespace arun::rt
