// Core-private: what the model-runtime-instance code (runtime/graph_build.cpp) needs of the kernel
// binary launches (front/kernel_binaries.cpp) to give a captured kernel task new parameters
// (aclmdlRITaskSetParams): a fresh argument block for a function, packed as a launch packs it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_rt.h"
#include "arun/core/status.hpp"
#include "arun/kernel.h"

namespace arun::rt {

struct GraphKernelBlock {
  arunKernelFn trampoline = nullptr;
  void* block = nullptr;  // owned by the caller: free it with `free`
  void (*free)(void*) = nullptr;
  uint32_t args_bytes = 0;          // the function's declared argument block size
  const void* args_view = nullptr;  // the packed bytes inside `block`, or the device address
};

// Checks `function`, `cfg` and the argument size as the launches do. `host_args`: `args` is a host
// block that is copied; otherwise a device address that the kernel reads at run time.
Status graph_kernel_block(void* function, const void* args, size_t size, bool host_args,
                          const aclrtLaunchKernelCfg* cfg, GraphKernelBlock* out);

}  // namespace arun::rt
