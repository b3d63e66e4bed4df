// Front door implementation: floating-point overflow detection (arun/runtime/overflow.hpp).
#include "arun/runtime/overflow.hpp"

#include <cstring>
#include <memory>
#include <string>

#include "arun/runtime/launch.hpp"
#include "front/stream_access.hpp"
#include "runtime/context.hpp"
#include "runtime/device_slot.hpp"
#include "runtime/stream.hpp"

namespace arun::rt {

using detail::find_stream;

namespace {

// What the status tasks carry: the device's status word and, for a read, where the record goes.
struct StatusTask {
  std::atomic<uint32_t>* status;
  void* out;
};

void free_status_task(void* p) {
  delete static_cast<StatusTask*>(p);
}

void run_read_status(arunBlock* block, void* p) {
  const auto& t = *static_cast<const StatusTask*>(p);
  auto* record = static_cast<unsigned char*>(block_map(block, t.out, kOverflowStatusBytes));
  if (record == nullptr) return;  // the launch has been faulted
  std::memset(record, 0, kOverflowStatusBytes);
  const uint32_t word = t.status->load(std::memory_order_relaxed);
  std::memcpy(record, &word, sizeof word);
}

void run_clear_status(arunBlock* block, void* p) {
  (void)block;
  static_cast<const StatusTask*>(p)->status->store(0, std::memory_order_relaxed);
}

Status launch_status_task(aclrtStream stream, arunKernelFn fn, StatusTask task, const char* name) {
  auto* args = new StatusTask(task);
  LaunchAttrs attrs;
  attrs.op_name = name;
  return launch_kernel(stream, 1, fn, args, &free_status_task, attrs);
}

}  // namespace

Status set_stream_overflow_switch(aclrtStream stream, uint32_t flag) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  s->overflow_switch.store(flag, std::memory_order_relaxed);
  return Status::Ok();
}

Status stream_overflow_switch(aclrtStream stream, uint32_t* flag) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  *flag = s->overflow_switch.load(std::memory_order_relaxed);
  return Status::Ok();
}

Status get_overflow_status(void* out, uint64_t size, aclrtStream stream) {
  if (size != kOverflowStatusBytes) {
    return Status(Errc::rt_param_invalid,
                  "outputSize is " + std::to_string(size) + "; the overflow status record is 64 bytes");
  }
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  DeviceSlot* slot = s->context()->slot();
  if (rt->device_owning(out) != slot) {
    return Status(Errc::rt_param_invalid,
                  "outputAddr is not device memory of the stream's device " + std::to_string(slot->id()));
  }
  return launch_status_task(stream, &run_read_status, StatusTask{&slot->overflow_status, out}, "GetOverflowStatus");
}

Status reset_overflow_status(aclrtStream stream) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  return launch_status_task(stream, &run_clear_status, StatusTask{&s->context()->slot()->overflow_status, nullptr},
                            "ResetOverflowStatus");
}

namespace {
Status no_float_status_registers() {
  return Status(Errc::rt_feature_not_support,
                "the simulated device is an A2-class part: it has no per-task-scheduler float status registers "
                "(use aclrtGetFloatOverflowStatus / aclrtResetFloatOverflowStatus)");
}
}  // namespace

Status npu_get_float_status(void* out, uint64_t size, aclrtStream stream) {
  if (out == nullptr) return Status(Errc::rt_param_invalid, "outputAddr is NULL");
  if (size != kOverflowStatusBytes) {
    return Status(Errc::rt_param_invalid,
                  "outputSize is " + std::to_string(size) + "; the float status record is 64 bytes");
  }
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  return no_float_status_registers();
}

Status npu_clear_float_status(aclrtStream stream) {
  Runtime* rt = nullptr;
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(find_stream(&rt, stream, &s));
  return no_float_status_registers();
}

Status context_overflow_addr(void** out) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  Context* ctx = nullptr;
  ARUN_RETURN_IF_ERROR(rt->require_context(&ctx));
  DeviceSlot* slot = ctx->slot();
  {
    std::lock_guard lock(slot->mu);
    if (slot->overflow_mode != ACL_RT_OVERFLOW_MODE_SATURATION) {
      return Status(Errc::rt_feature_not_support,
                    "the context's overflow address exists only in saturation mode "
                    "(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION)); device " +
                        std::to_string(slot->id()) + " is in INF/NAN mode");
    }
  }
  std::lock_guard lock(ctx->mu);
  if (ctx->overflow_addr == 0) {
    plugin::DevAddr addr = 0;
    ARUN_RETURN_IF_ERROR(slot->allocator()->allocate(8, plugin::PageKind::Normal, nullptr, &addr));
    void* view = slot->device()->map(addr, 8);
    if (view != nullptr) std::memset(view, 0, 8);
    ctx->overflow_addr = addr;
  }
  *out = reinterpret_cast<void*>(static_cast<uintptr_t>(ctx->overflow_addr));
  return Status::Ok();
}

}  // namespace arun::rt
