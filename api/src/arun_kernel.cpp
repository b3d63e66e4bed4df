// Kernels written as host functions (arun/kernel.h, arun/kernel.hpp): the launch entry point and
// what a block can ask of the device while it runs.
#include "arun/kernel.h"

#include "api_call.hpp"
#include "arun/runtime/stream_sanitizer.hpp"

using namespace arun;
using namespace arun::api;

namespace {

// Frees the argument block on every path on which the core did not take it over.
struct ArgsGuard {
  void* args;
  arunFreeArgsFn free;
  ~ArgsGuard() {
    if (free != nullptr) free(args);
  }
};

}  // namespace

extern "C" aclError arunLaunchKernel(aclrtStream stream, uint32_t blockDim, arunKernelFn fn, void* args,
                                     arunFreeArgsFn freeArgs) {
  ArgsGuard guard{args, freeArgs};
  return api_call("arunLaunchKernel", [&] {
    if (fn == nullptr) return invalid_param("fn is NULL");
    if (blockDim == 0) return invalid_param("blockDim is 0; a launch needs at least one block");
    const arunFreeArgsFn free_args = guard.free;
    guard.free = nullptr;  // launch_kernel owns the arguments from here on
    return rt::launch_kernel(stream, blockDim, fn, args, free_args, rt::LaunchAttrs{});
  });
}

extern "C" uint32_t arunBlockIdx(const arunBlock* block) {
  return block == nullptr ? 0 : rt::block_index(block);
}

extern "C" uint32_t arunBlockDim(const arunBlock* block) {
  return block == nullptr ? 0 : rt::block_count(block);
}

extern "C" void* arunBlockMap(arunBlock* block, const void* devPtr, size_t bytes) {
  if (block == nullptr) return nullptr;
  return rt::block_map(block, devPtr, bytes);
}

extern "C" const void* arunBlockMapRead(arunBlock* block, const void* devPtr, size_t bytes) {
  if (block == nullptr) return nullptr;
  return rt::block_map(block, devPtr, bytes, false);
}

extern "C" void arunBlockFault(arunBlock* block, aclError code, const char* message) {
  if (block == nullptr) return;
  rt::block_fault(block, code, message != nullptr ? message : "kernel reported a fault");
}

extern "C" void arunBlockReportOverflow(arunBlock* block) {
  if (block == nullptr) return;
  rt::block_report_overflow(block);
}

extern "C" int arunBlockCancelled(const arunBlock* block) {
  return block != nullptr && rt::block_cancelled() ? 1 : 0;
}

// Hints for the stream-order sanitizer: nothing to check or report, and one relaxed load when off.
extern "C" void arunSyncRelease(arunBlock* block, const void* object, uint64_t value) {
  if (rt::stream_sanitizer_on() && object != nullptr) [[unlikely]]
    rt::sanitizer_sync(block, object, value, true);
}

extern "C" void arunSyncAcquire(arunBlock* block, const void* object, uint64_t value) {
  if (rt::stream_sanitizer_on() && object != nullptr) [[unlikely]]
    rt::sanitizer_sync(block, object, value, false);
}
