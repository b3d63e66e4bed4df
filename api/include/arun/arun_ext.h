/*
 * ascend-run extensions to the ACL C API. Not part of CANN: programs that use them build only
 * against ascend-run. Exported from libascendcl.so like the ACL functions.
 */
#ifndef ARUN_ARUN_EXT_H_
#define ARUN_ARUN_EXT_H_

#include <stdint.h>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A host function run as a device task. */
typedef void (*arunDeviceTaskFn)(void *userData);

/*
 * Enqueues fn(userData) on `stream` (NULL = default stream of the current context) as a compute
 * task: it runs on one of the device's AI cores, in stream order, like a kernel launch. The call
 * returns without waiting. Errors: fn NULL -> ACL_ERROR_INVALID_PARAM; no current context ->
 * ACL_ERROR_RT_CONTEXT_NULL; stream not live -> ACL_ERROR_RT_INVALID_HANDLE; stream of another
 * context -> ACL_ERROR_RT_STREAM_CONTEXT.
 */
ACL_FUNC_VISIBILITY aclError arunLaunchDeviceTask(arunDeviceTaskFn fn, void *userData, aclrtStream stream);

/*
 * A readable report of the runtime: the configuration in use and where it came from, the plugins
 * loaded (path, kind, version, ABI), every plugin library found in the plugin folders with the reason
 * any was rejected, and every device (SoC, memory, AI cores, copy engines). Works before aclInit
 * too (then it lists the plugin libraries only). The string stays valid until the next call.
 */
ACL_FUNC_VISIBILITY const char *arunRuntimeReport(void);

/* A statistic over the device's lifetime (since it was opened): its value now, its peak, and the
 * total ever added. */
typedef struct arunMemGauge {
  uint64_t current;
  uint64_t peak;
  uint64_t total;
} arunMemGauge;

/*
 * Device-memory statistics of one device's allocator. `requested` is what the program asked for,
 * `allocated` what it was handed (after rounding), `active` adds blocks freed but not yet reusable,
 * `reserved` what the allocator holds from the device. fragmentation = 1 - largestFree / cachedFree.
 */
typedef struct arunMemStats {
  arunMemGauge requested, allocated, active, reserved;
  uint64_t cachedFree, largestFree;
  uint64_t allocations, frees, liveBlocks;
  uint64_t chunkAcquires, chunkReleases, cacheHits, ooms, pendingFrees;
  double fragmentation;
  char policy[32]; /* allocator policy name, NUL-terminated */
} arunMemStats;

/*
 * Fills *stats for device `deviceId`. A device that is not open (no aclrtSetDevice or context on it)
 * reports zeros. Errors: stats NULL -> ACL_ERROR_INVALID_PARAM; bad id -> ACL_ERROR_RT_INVALID_DEVICEID.
 */
ACL_FUNC_VISIBILITY aclError arunGetMemStats(int32_t deviceId, arunMemStats *stats);

/* The same statistics as a readable table (valid until the next call on this thread; NULL on error). */
ACL_FUNC_VISIBILITY const char *arunMemReport(int32_t deviceId);

/*
 * Gives cached device memory of `deviceId` back to the device until at most `keepBytes` stay
 * reserved (blocks the program holds, and freed blocks whose streams have not caught up, stay).
 * `released` (may be NULL) receives the bytes given back. A device that is not open releases 0.
 * Errors: bad id -> ACL_ERROR_RT_INVALID_DEVICEID.
 */
ACL_FUNC_VISIBILITY aclError arunMemTrim(int32_t deviceId, size_t keepBytes, size_t *released);

/* One block of the allocator policy, for snapshots. */
typedef enum arunMemBlockState {
  ARUN_MEM_BLOCK_LIVE = 0,    /* the program holds it */
  ARUN_MEM_BLOCK_FREE = 1,    /* cached, ready for reuse */
  ARUN_MEM_BLOCK_PENDING = 2, /* freed, waiting for the streams that used it */
} arunMemBlockState;
typedef struct arunMemBlock {
  uint64_t addr, size;   /* the block (size after the policy's rounding) */
  uint64_t chunk;        /* base of the device chunk it was carved from */
  uint64_t stream;       /* the stream whose cache or work it belongs to (a process-wide id; 0: any) */
  arunMemBlockState state;
} arunMemBlock;

/*
 * Copies up to `capacity` blocks of device `deviceId`'s allocator, by chunk and address, into
 * `blocks` and the total number into *count (call with capacity 0 to size the array). A device
 * that is not open has none. Errors: count NULL, or blocks NULL with capacity > 0 ->
 * ACL_ERROR_INVALID_PARAM; bad id -> ACL_ERROR_RT_INVALID_DEVICEID.
 */
ACL_FUNC_VISIBILITY aclError arunMemSnapshot(int32_t deviceId, arunMemBlock *blocks, size_t capacity, size_t *count);

/*
 * Stream-ordered device memory. aclrtMalloc / aclrtFree know no stream, so a caching allocator must
 * assume a freed block may still be in use by any stream and reuses it only once the whole device
 * has completed the work submitted before the free. These calls let a program say more:
 *  - arunMallocAsync: the block will be used on `stream` (NULL = the current context's default);
 *  - arunFreeAsync: only work on `stream` (and streams named with arunMemRecordStream) used it, so
 *    `stream` may reuse the block at once and other streams once `stream` has caught up;
 *  - arunMemRecordStream: the block is also used on `stream`.
 * Under the `direct` policy they behave as aclrtMalloc / aclrtFree. Errors as aclrtMalloc /
 * aclrtFree, plus the stream's (ACL_ERROR_RT_INVALID_HANDLE, ACL_ERROR_RT_STREAM_CONTEXT).
 */
ACL_FUNC_VISIBILITY aclError arunMallocAsync(void **devPtr, size_t size, aclrtMemMallocPolicy policy, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError arunFreeAsync(void *devPtr, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError arunMemRecordStream(void *devPtr, aclrtStream stream);
/*
 * Chooses the scheduling policy of the next aclInit, over ASCEND_RUN_SCHED and the config's
 * [scheduler] table: spec is "NAME[:key=value,...]" as ASCEND_RUN_SCHED takes it, e.g. "fair",
 * "priority:aging_us=500", "wrr:weights=8,4,2,1,queue_depth=256". NULL or "" clears the choice.
 * A runtime that is already initialised keeps its policy; the choice applies from the next aclInit.
 * Only the syntax is checked here (malformed -> ACL_ERROR_INVALID_PARAM); an unknown name or option
 * makes that aclInit fail with ACL_ERROR_INVALID_PARAM and a message listing the valid ones.
 */
ACL_FUNC_VISIBILITY aclError arunSetSchedulerPolicy(const char *spec);

/*
 * Tasks of `stream` (NULL = default stream) submitted and not yet completed: queued, waiting for an
 * event, or running. `capacity` (may be NULL) receives the bound of the queue ([scheduler]
 * queue_depth): a launch onto a stream that holds that many tasks blocks until one completes.
 * Errors: depth NULL -> ACL_ERROR_INVALID_PARAM; stream not live -> ACL_ERROR_RT_INVALID_HANDLE.
 */
ACL_FUNC_VISIBILITY aclError arunStreamGetQueueDepth(aclrtStream stream, uint32_t *depth, uint32_t *capacity);

/*
 * The stream-order sanitizer ([runtime] stream_sanitizer = off | report | abort, or
 * ASCEND_RUN_STREAM_SANITIZER): unique races reported since the last aclInit (each is one pair of
 * call sites, however often it occurred), readable after aclFinalize too.
 * arunStreamSanitizerGetReport copies report `index`'s text (NUL-terminated, truncated to bufLen - 1)
 * and how many times it occurred (occurrences may be NULL).
 * Errors: count / buf NULL or bufLen 0 -> ACL_ERROR_INVALID_PARAM; index >= count -> ACL_ERROR_INVALID_PARAM.
 */
ACL_FUNC_VISIBILITY aclError arunStreamSanitizerReportCount(uint32_t *count);
ACL_FUNC_VISIBILITY aclError arunStreamSanitizerGetReport(uint32_t index, char *buf, size_t bufLen,
                                                          uint64_t *occurrences);

/* Version string of the ascend-run runtime ("0.1.0"). */
ACL_FUNC_VISIBILITY const char *arunGetVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* ARUN_ARUN_EXT_H_ */
