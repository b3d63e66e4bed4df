// Broken test kernel binaries: built with ARUN_KERNEL_BINARY_TABLE_MAGIC / _ABI overridden (bad
// magic, bad ABI), or with KB_MISSING_SYMBOL, which adds a descriptor whose entry is not exported.
#include "arun/kernel_binary.hpp"

namespace {
void noop(arun::Block) {}
}  // namespace

ARUN_BINARY_KERNEL(kb_fine, noop, 1, 1)

#ifdef KB_MISSING_SYMBOL
// A descriptor whose entry symbol the binary does not define.
static const arunKernelDesc kb_ghost_desc = {"kb_ghost", 2, 0, 1, 0, 0, nullptr, 0};
__attribute__((used, section("arun_kernels"))) static const arunKernelDesc* const kb_ghost_ptr = &kb_ghost_desc;
#endif
