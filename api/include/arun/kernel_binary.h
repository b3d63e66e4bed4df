/*
 * ascend-run extension: the kernel binary format of the simulated NPU (not part of CANN).
 *
 * A kernel binary is an ELF shared object whose kernels are ordinary host-compiled functions
 * (arunKernelFn), each exported under its kernel name, plus one exported descriptor table,
 * ARUN_KERNEL_BINARY_SYMBOL, that says which kernels it holds and how their arguments are laid out.
 * aclrtBinaryLoadFromFile / aclrtBinaryLoadFromData load it; docs/kernel-binaries.md describes the
 * format and arun/kernel_binary.hpp writes the descriptors for C++ kernels.
 *
 * Argument block (what a kernel's `args` points to): the user parameters in declaration order,
 * each in its own slot of its size rounded up to 8 bytes, slot i at the sum of the earlier slots.
 * A placeholder parameter is a pointer-sized slot that holds, at launch, the address of its data
 * region, which travels with the arguments (readable by the kernel without a device map).
 */
#ifndef ARUN_KERNEL_BINARY_H_
#define ARUN_KERNEL_BINARY_H_

#include <stddef.h>
#include <stdint.h>

#include "arun/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ARUN_KERNEL_BINARY_MAGIC 0x41524B42u /* "ARKB" */
#define ARUN_KERNEL_BINARY_ABI_VERSION 1u
#define ARUN_KERNEL_BINARY_SYMBOL "arun_kernel_binary"
#define ARUN_KERNEL_MAX_PARAMS 128u

/* One kernel of a binary. */
typedef struct arunKernelDesc {
  const char* name;           /* the exported symbol of its arunKernelFn entry, and the kernel's name */
  uint64_t funcEntry;         /* the key of aclrtBinaryGetFunctionByEntry (a tiling key); unique */
  uint32_t paramCount;        /* user parameters, <= ARUN_KERNEL_MAX_PARAMS */
  uint32_t defaultBlockDim;   /* a launcher's default (kernel-info prints it); >= 1 */
  uint32_t kernelType;        /* an aclrtKernelType value (ACL_FUNC_ATTR_KERNEL_TYPE) */
  uint32_t schedMode;         /* 0 normal, 1 batch (ACL_FUNC_ATTR_KERNEL_SCHED_MODE) */
  const uint32_t* paramSizes; /* paramCount sizes in bytes (each >= 1); NULL when paramCount is 0 */
  uint64_t reserved;
} arunKernelDesc;

/* The table a binary exports as ARUN_KERNEL_BINARY_SYMBOL: pointers to the descriptors in
   [begin, end) (pointers, not the descriptors themselves, so a compiler's padding between
   section entries cannot break the table). */
typedef struct arunKernelBinaryHeader {
  uint32_t magic;      /* ARUN_KERNEL_BINARY_MAGIC */
  uint32_t abiVersion; /* ARUN_KERNEL_BINARY_ABI_VERSION */
  const arunKernelDesc* const* begin;
  const arunKernelDesc* const* end;
} arunKernelBinaryHeader;

/*
 * Checks the kernel binary at `path` exactly as aclrtBinaryLoadFromFile would (needs no aclInit and
 * registers nothing). ACL_SUCCESS, or ACL_ERROR_INVALID_PARAM for a NULL path, or
 * ACL_ERROR_RT_PARAM_INVALID with a message (aclGetRecentErrMsg) naming the file and the kernel.
 * `ascend-run kernel-info FILE` uses it before listing the descriptor table.
 */
ACL_FUNC_VISIBILITY aclError arunKernelBinaryCheck(const char* path);

#ifdef __cplusplus
}
#endif

#endif /* ARUN_KERNEL_BINARY_H_ */
