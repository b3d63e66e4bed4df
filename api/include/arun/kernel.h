/*
 * ascend-run extension: device kernels written as ordinary host-compiled functions (not part of
 * CANN). A kernel launch is one task in stream order; the device runs its `blockDim` blocks in
 * parallel over its AI cores, calling the kernel once per block.
 *
 * Device memory (aclrtMalloc) cannot be dereferenced on the host, kernels included: a kernel gets a
 * host view of device memory with arunBlockMap, which checks that the range lies inside one live
 * allocation of the device and, if not, faults the launch (ACL_ERROR_RT_AICORE_EXCEPTION) and
 * returns NULL instead of letting the access corrupt memory.
 *
 * C++ programs should prefer arun/kernel.hpp: typed arguments, checked views, and no void*.
 */
#ifndef ARUN_KERNEL_H_
#define ARUN_KERNEL_H_

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one block of a running kernel sees; valid only during that call of the kernel. */
typedef struct arunBlock arunBlock;

typedef void (*arunKernelFn)(arunBlock *block, void *args);
typedef void (*arunFreeArgsFn)(void *args);

/*
 * Enqueues fn on `stream` (NULL = default stream of the current context) as one task of blockDim
 * blocks. `args` is passed to every block unchanged. freeArgs (may be NULL) is called with args
 * exactly once: after the last block finished, or when the task is dropped (stream aborted or
 * destroyed), or at once if the launch is refused — so the caller never has to free args itself.
 * Errors: fn NULL or blockDim 0 -> ACL_ERROR_INVALID_PARAM; no current context ->
 * ACL_ERROR_RT_CONTEXT_NULL; stream not live -> ACL_ERROR_RT_INVALID_HANDLE; stream of another
 * context -> ACL_ERROR_RT_STREAM_CONTEXT; a stream stopped by an earlier failure -> that failure's
 * code. Faults inside the kernel are reported by the next synchronize, like any device fault.
 */
ACL_FUNC_VISIBILITY aclError arunLaunchKernel(aclrtStream stream, uint32_t blockDim, arunKernelFn fn, void *args,
                                              arunFreeArgsFn freeArgs);

/* The block's index in [0, blockDim) and the launch's block count. */
ACL_FUNC_VISIBILITY uint32_t arunBlockIdx(const arunBlock *block);
ACL_FUNC_VISIBILITY uint32_t arunBlockDim(const arunBlock *block);

/*
 * A host view of [devPtr, devPtr + bytes) of the launching device's memory, or NULL (and the launch
 * fails with ACL_ERROR_RT_AICORE_EXCEPTION) if the range is not inside one live allocation.
 */
ACL_FUNC_VISIBILITY void *arunBlockMap(arunBlock *block, const void *devPtr, size_t bytes);
/*
 * As arunBlockMap, for a view the block only reads: the stream-order sanitizer counts it as a read
 * (arunBlockMap's views count as writes). arun::Block::map of a const type uses it.
 */
ACL_FUNC_VISIBILITY const void *arunBlockMapRead(arunBlock *block, const void *devPtr, size_t bytes);

/*
 * Fails the launch with `code` (e.g. ACL_ERROR_RT_AICORE_TRAP_EXCEPTION for a trap; 0 means
 * ACL_ERROR_RT_AICORE_EXCEPTION) and logs `message`. Blocks not yet started are skipped; the block
 * that calls it should return. Only the first fault of a launch counts.
 */
ACL_FUNC_VISIBILITY void arunBlockFault(arunBlock *block, aclError code, const char *message);

/*
 * Floating-point overflow detection (spec part 2, 4.8): records that this launch produced an
 * overflow, Inf or NaN. When the launch's stream had its overflow switch on at submission
 * (aclrtSetStreamOverflowSwitch), the device's overflow status becomes non-zero (read with
 * aclrtGetOverflowStatus); otherwise nothing is recorded. The launch itself does not fail.
 */
ACL_FUNC_VISIBILITY void arunBlockReportOverflow(arunBlock *block);

/*
 * 1 once aclrtStreamStop or aclrtStreamAbort asked the launch to halt, else 0. The device stops a
 * launch between blocks by itself; a block that runs long (a loop over much data) polls this and
 * returns early so the stop takes effect within one poll interval instead of at the block's end.
 */
ACL_FUNC_VISIBILITY int arunBlockCancelled(const arunBlock *block);

/*
 * Ordering the stream-order sanitizer cannot see: streams (or host threads) that synchronise through
 * a flag in memory, as HCCL's sync points do (a kernel publishes a count, another stream's kernel
 * spins until it sees it). arunSyncRelease publishes under (object, value) everything before it:
 * called by a running block, its stream's work up to and including this launch; with block NULL,
 * the calling host thread's. arunSyncAcquire orders what comes after it (the block's stream's later
 * tasks, or the calling thread) after everything published under `object` with a value <= `value`,
 * and consumes those (one acquirer per object, as for a point-to-point flag). Call the release
 * before the flag is set and the acquire after the wait saw it. No effect unless the sanitizer is on.
 */
ACL_FUNC_VISIBILITY void arunSyncRelease(arunBlock *block, const void *object, uint64_t value);
ACL_FUNC_VISIBILITY void arunSyncAcquire(arunBlock *block, const void *object, uint64_t value);

#ifdef __cplusplus
}
#endif

#endif /* ARUN_KERNEL_H_ */
