// ascend-run kernel-info FILE: what a kernel binary holds (docs/kernel-binaries.md). The runtime
// checks the file first (arunKernelBinaryCheck, the loader's own rules); the listing then reads the
// descriptor table the format makes public (arun/kernel_binary.h).
#include "kernel_info.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "arun/kernel_binary.h"

namespace {
const char* type_name(uint32_t t) {
  switch (t) {
    case ACL_KERNEL_TYPE_AICORE:
      return "aicore";
    case ACL_KERNEL_TYPE_CUBE:
      return "cube";
    case ACL_KERNEL_TYPE_VECTOR:
      return "vector";
    case ACL_KERNEL_TYPE_MIX:
      return "mix";
    case ACL_KERNEL_TYPE_AICPU:
      return "aicpu";
    default:
      return "?";
  }
}
}  // namespace

int kernel_info(const char* path) {
  // A bare name would make dlopen search the library path; the file named is the one listed.
  std::string file = path;
  if (file.find('/') == std::string::npos) file = "./" + file;
  if (arunKernelBinaryCheck(file.c_str()) != ACL_SUCCESS) {
    std::fprintf(stderr, "ascend-run kernel-info: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  void* dl = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  const auto* table = dl ? static_cast<const arunKernelBinaryHeader*>(dlsym(dl, ARUN_KERNEL_BINARY_SYMBOL)) : nullptr;
  if (table == nullptr) {
    std::fprintf(stderr, "ascend-run kernel-info: %s: cannot read the descriptor table\n", path);
    return 1;
  }
  const size_t count = size_t(table->end - table->begin);
  std::printf("%s: ascend-run kernel binary, ABI %u, %zu kernel%s\n", path, table->abiVersion, count,
              count == 1 ? "" : "s");
  std::printf("%-24s %10s %6s %-7s %5s %6s  %s\n", "kernel", "entry", "blocks", "type", "sched", "bytes",
              "parameters (offset:size)");
  // By function entry: the section's order is the linker's, not the program's.
  std::vector<const arunKernelDesc*> kernels(table->begin, table->end);
  std::sort(kernels.begin(), kernels.end(),
            [](const arunKernelDesc* a, const arunKernelDesc* b) { return a->funcEntry < b->funcEntry; });
  for (const arunKernelDesc* d : kernels) {
    std::string params;
    uint32_t offset = 0;
    for (uint32_t i = 0; i < d->paramCount; ++i) {
      params += (i ? " " : "") + std::to_string(offset) + ":" + std::to_string(d->paramSizes[i]);
      offset += (d->paramSizes[i] + 7) / 8 * 8;
    }
    std::printf("%-24s %10" PRIu64 " %6u %-7s %5s %6u  %s\n", d->name, d->funcEntry, d->defaultBlockDim,
                type_name(d->kernelType), d->schedMode ? "batch" : "normal", offset,
                params.empty() ? "-" : params.c_str());
  }
  dlclose(dl);
  return 0;
}
