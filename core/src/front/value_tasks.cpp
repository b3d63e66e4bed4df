// Front door implementation: stream-ordered value write / wait (arun/runtime/notifies.hpp, spec
// part 2, 4.6). Both are scheduler markers (sched/device_waits.cpp).
#include <string>

#include "arun/runtime/notifies.hpp"
#include "front/stream_access.hpp"
#include "runtime/context.hpp"
#include "runtime/device_slot.hpp"
#include "runtime/stream.hpp"
#include "runtime/task.hpp"

namespace arun::rt {

namespace {

Status enqueue_value_task(TaskKind kind, void* addr, uint64_t value, uint32_t flag, aclrtStream stream) {
  Runtime* rt = nullptr;
  ARUN_RETURN_IF_ERROR(detail::live_runtime(&rt));
  const PointerInfo p = rt->classify(addr, sizeof(uint64_t));
  if (p.kind != PointerInfo::Kind::Device || !p.in_allocation) {
    return Status(Errc::rt_param_invalid, "devAddr is not inside a live device allocation (8 bytes from it)");
  }
  if (reinterpret_cast<uintptr_t>(addr) % sizeof(uint64_t) != 0) {
    return Status(Errc::rt_param_invalid, "devAddr is not 8-byte aligned");
  }
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  if (p.slot != s->context()->slot()) {
    return Status(Errc::rt_param_invalid, "devAddr is memory of device " + std::to_string(p.slot->id()) +
                                              ", the stream runs on device " +
                                              std::to_string(s->context()->slot()->id()));
  }
  auto* task = new Task();
  task->task_kind = kind;
  task->stream = s.get();
  task->value_addr = reinterpret_cast<uint64_t>(addr);
  task->value = value;
  task->value_flag = flag;
  return rt->submit(task);
}

}  // namespace

Status value_write(void* addr, uint64_t value, aclrtStream stream) {
  return enqueue_value_task(TaskKind::ValueWrite, addr, value, 0, stream);
}

Status value_wait(void* addr, uint64_t value, uint32_t flag, aclrtStream stream) {
  return enqueue_value_task(TaskKind::ValueWait, addr, value, flag, stream);
}

}  // namespace arun::rt
