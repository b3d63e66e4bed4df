// Kernels written as host functions (arun/kernel.h, arun/kernel.hpp): the launch entry point and
// what a block can ask of the device while it runs.
#include "arun/kernel.h"

#include <string>

#include "api_call.hpp"
#include "arun/runtime/recorder.hpp"

using namespace arun;
using namespace arun::api;

namespace {

// The device calls this once per block; the block context is what the kernel sees as arunBlock.
void run_user_kernel(plugin::KernelContext& ctx, void* args) {
  auto* task = static_cast<Task*>(args);
  task->user_kernel(reinterpret_cast<arunBlock*>(&ctx), task->user_args);
}

plugin::KernelContext& context_of(const arunBlock* block) {
  return *reinterpret_cast<plugin::KernelContext*>(const_cast<arunBlock*>(block));
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

extern "C" aclError arunLaunchKernel(aclrtStream stream, uint32_t blockDim, arunKernelFn fn, void *args,
                                     arunFreeArgsFn freeArgs) {
  ArgsGuard guard{args, freeArgs};
  return api_call("arunLaunchKernel", [&](Runtime& rt) {
    if (fn == nullptr) return invalid_param("fn is NULL");
    if (blockDim == 0) return invalid_param("blockDim is 0; a launch needs at least one block");
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    auto* task = new Task();
    task->kind = plugin::WorkKind::Kernel;
    task->kernel = &run_user_kernel;
    task->args = task;
    task->block_dim = blockDim;
    task->user_kernel = fn;
    task->user_args = args;
    task->free_user_args = guard.free;  // the task owns the arguments from here on
    guard.free = nullptr;
    task->unit_kind = plugin::UnitKind::Compute;
    task->stream = s.get();
    if (prof::on(prof::kTasks)) task->prof_name = prof::take_task_name();
    return rt.submit(task);
  });
}

extern "C" uint32_t arunBlockIdx(const arunBlock *block) { return block == nullptr ? 0 : context_of(block).block_idx(); }

extern "C" uint32_t arunBlockDim(const arunBlock *block) { return block == nullptr ? 0 : context_of(block).block_dim(); }

extern "C" void *arunBlockMap(arunBlock *block, const void *devPtr, size_t bytes) {
  if (block == nullptr) return nullptr;
  return context_of(block).map(static_cast<plugin::DevAddr>(reinterpret_cast<uintptr_t>(devPtr)), bytes);
}

extern "C" void arunBlockFault(arunBlock *block, aclError code, const char *message) {
  if (block == nullptr) return;
  context_of(block).fault(code, message != nullptr ? message : "kernel reported a fault");
}
