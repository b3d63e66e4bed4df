// Front door: kernel launch and what a running block asks of its device (see front_door.hpp for
// the conventions).
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "arun/core/status.hpp"
#include "arun/plugin/device.hpp"
#include "arun/runtime/call.hpp"
#include "arun/runtime/stream_sanitizer.hpp"

// The kernel types of arun/kernel.h (the C API's extension header), repeated here so that this
// header stays self-contained; identical typedefs may be declared twice.
extern "C" {
typedef struct arunBlock arunBlock;
typedef void (*arunKernelFn)(arunBlock* block, void* args);
typedef void (*arunFreeArgsFn)(void* args);
}

namespace arun::rt {

// What a launch carries besides its kernel: plain fields, filled by the layer that knows them.
struct LaunchAttrs {
  // Name of the task in profiling records (an operator's type, "MatMul"); nullptr: "kernel". Read
  // (and interned) during the call only while a session collects tasks.
  const char* op_name = nullptr;
  // Size of the argument block in bytes when the launcher knows it (arun::launch / launch_op: the
  // packed callable and arguments); 0 when it does not (arunLaunchKernel's C callers). Reported by
  // aclrtGetArgsFromExceptionInfo.
  uint32_t args_bytes = 0;
  // Operator details for profiling (plugin::OpDetailField: the detail text, interned during the
  // call) and the model execution tag ((model id << 32) | inference index); both only while a
  // session collects tasks (prof::on(prof::kTasks)): the operator library builds them only then.
  const char* op_detail = nullptr;
  uint64_t model_tag = 0;
};

// Enqueues `fn` as one kernel task of `block_dim` (> 0) blocks on `stream` (nullptr: the current
// context's default stream). Takes ownership of `args` on every path: `free_args` (may be nullptr)
// runs once the task is done or dropped, or before this returns if the launch is refused.
// Errors: ACL_ERROR_RT_CONTEXT_NULL (no current context), ACL_ERROR_RT_INVALID_HANDLE (stream not
// live), ACL_ERROR_RT_STREAM_CONTEXT (stream of another context), or the failure code of a stream
// stopped by an earlier failure.
Status launch_kernel(aclrtStream stream, uint32_t block_dim, arunKernelFn fn, void* args, arunFreeArgsFn free_args,
                     const LaunchAttrs& attrs);

// Where the work queued on a stream runs, as kernels size their launches.
struct LaunchTarget {
  uint32_t cores = 1;      // AI cores of the stream's device (at least 1)
  uint32_t host_cpus = 1;  // host CPUs the simulated cores' threads share (at least 1)
};
// The target of `stream` (nullptr: the current context's default stream). Errors as launch_kernel's
// stream errors (ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_INVALID_HANDLE, ACL_ERROR_RT_STREAM_CONTEXT).
Status launch_target(aclrtStream stream, LaunchTarget* out);

// ---- a running block: arunBlock* is the plugin::KernelContext the device passes to the kernel
// (inline: kernels ask these per block and per view).
inline plugin::KernelContext& block_context(const arunBlock* block) {
  return *reinterpret_cast<plugin::KernelContext*>(const_cast<arunBlock*>(block));
}
// Its index in [0, block_dim) and the launch's block count.
inline uint32_t block_index(const arunBlock* block) {
  return block_context(block).block_idx();
}
inline uint32_t block_count(const arunBlock* block) {
  return block_context(block).block_dim();
}
// True once aclrtStreamStop / aclrtStreamAbort asked the launch that runs on the calling thread to
// halt (a long block polls it; the device itself stops between blocks). False outside a block.
bool block_cancelled();
// A host view of [dev_ptr, dev_ptr + bytes) of device memory, or nullptr after faulting the launch
// (ACL_ERROR_RT_AICORE_EXCEPTION) when the range is not inside one live allocation. `write`: the
// block may write through the view (what the stream sanitizer records).
inline void* block_map(arunBlock* block, const void* dev_ptr, size_t bytes, bool write = true) {
  void* host = block_context(block).map(static_cast<plugin::DevAddr>(reinterpret_cast<uintptr_t>(dev_ptr)), bytes);
  if (stream_sanitizer_on()) [[unlikely]]
    sanitizer_block_access(block, dev_ptr, bytes, write, host != nullptr);
  return host;
}
// Fails the launch with `code` and `message` (never nullptr).
inline void block_fault(arunBlock* block, aclError code, const char* message) {
  block_context(block).fault(code, message);
}

// Records an overflow / Inf / NaN for the running launch (arunBlockReportOverflow): the device's
// overflow status is set if the launch's stream had its overflow switch on when it was submitted
// (arun/runtime/overflow.hpp); otherwise nothing happens.
void block_report_overflow(arunBlock* block);

}  // namespace arun::rt
