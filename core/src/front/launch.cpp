// Front door implementation: launch (arun/runtime/launch.hpp).
#include "arun/runtime/launch.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "arun/runtime/recorder.hpp"
#include "base/status_helpers.hpp"
#include "front/res_limit_state.hpp"
#include "runtime/context.hpp"
#include "runtime/device_slot.hpp"
#include "runtime/runtime.hpp"
#include "runtime/stream.hpp"
#include "runtime/task.hpp"
#include "sanitizer/stream_sanitizer.hpp"

namespace arun::rt {

namespace {

// The launch whose block this thread is running (a device unit runs one block at a time), so that
// block_report_overflow and block_cancelled find the task without widening arunBlock or the
// plugin's KernelContext: every device plugin supports them with no ABI change. (The device itself
// still checks Work::cancel between blocks.)
constinit thread_local Task* t_running = nullptr;

// The device calls this once per block; the block context is what the kernel sees as arunBlock.
void run_user_kernel(plugin::KernelContext& ctx, void* args) {
  auto* task = static_cast<Task*>(args);
  struct Running {  // restored however the kernel returns; a block run inside another nests right
    Task* outer = t_running;
    explicit Running(Task* t) { t_running = t; }
    ~Running() { t_running = outer; }
  } running(task);
  task->user_kernel(reinterpret_cast<arunBlock*>(&ctx), task->user_args);
}

// Frees the argument block on every path on which no task took it over.
struct ArgsGuard {
  void* args;
  arunFreeArgsFn free;
  ~ArgsGuard() {
    if (free != nullptr) free(args);
  }
};

}  // namespace

Status launch_kernel(aclrtStream stream, uint32_t block_dim, arunKernelFn fn, void* args, arunFreeArgsFn free_args,
                     const LaunchAttrs& attrs) {
  ArgsGuard guard{args, free_args};
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) [[unlikely]]
    return no_runtime();
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  auto* task = new Task();
  task->kind = plugin::WorkKind::Kernel;
  task->kernel = &run_user_kernel;
  task->args = task;
  task->block_dim = block_dim;
  task->user_kernel = fn;
  task->user_args = args;
  task->free_user_args = guard.free;  // the task owns the arguments from here on
  guard.free = nullptr;
  task->user_args_bytes = attrs.args_bytes;
  task->unit_kind = plugin::UnitKind::Compute;
  task->stream = s.get();
  // Overflow detection applies to launches submitted while the switch is on (spec part 2, 4.8).
  if (s->overflow_switch.load(std::memory_order_relaxed) != 0) [[unlikely]]
    task->overflow_sink = &s->context()->slot()->overflow_status;
  task->max_compute_units = detail::kernel_core_limit(*rt, *s);
  if (attrs.op_name != nullptr) [[unlikely]] {
    if (prof::on(prof::kTasks)) {
      task->prof_name = prof::intern(attrs.op_name);
      if (attrs.op_detail != nullptr) task->prof_detail = prof::intern(attrs.op_detail);
      task->prof_model = attrs.model_tag;
    }
    if (san::on()) san::name_task(task, attrs.op_name);
  }
  return rt->submit(task);
}

void block_report_overflow(arunBlock* block) {
  (void)block;
  Task* task = t_running;
  if (task != nullptr && task->overflow_sink != nullptr) task->overflow_sink->store(1, std::memory_order_relaxed);
}

void sanitizer_block_access(arunBlock* block, const void* dev_ptr, uint64_t bytes, bool write, bool mapped) {
  (void)block;
  Task* task = t_running;
  if (task == nullptr || !task->san) return;
  // The memory's own space: the launching device's, a peer's, or host memory the device reaches.
  const void* space = nullptr;
  if (Runtime* rt = Runtime::instance()) {
    if (DeviceSlot* slot = rt->device_owning(dev_ptr)) space = slot->device();
  }
  san::kernel_access(task, space, reinterpret_cast<uint64_t>(dev_ptr), bytes, write, mapped);
}

void sanitizer_sync(arunBlock* block, const void* object, uint64_t value, bool release) {
  Task* task = nullptr;
  if (block != nullptr) {
    task = t_running;
    if (task == nullptr || !task->san) return;  // not inside a launch the sanitizer follows
  }
  if (release) {
    san::sync_release(task, object, value);
  } else {
    san::sync_acquire(task, object, value);
  }
}

bool block_cancelled() {
  const Task* task = t_running;
  return task != nullptr && task->cancel_requested.load(std::memory_order_acquire);
}

Status launch_target(aclrtStream stream, LaunchTarget* out) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return no_runtime();
  std::shared_ptr<Stream> s;
  ARUN_RETURN_IF_ERROR(rt->resolve_stream(stream, &s));
  static const uint32_t cpus = std::max(1u, std::thread::hardware_concurrency());
  out->cores = std::max<uint32_t>(1, s->context()->slot()->device()->properties().compute_units);
  out->host_cpus = cpus;
  return Status::Ok();
}

}  // namespace arun::rt
