// Front door: built-in device tasks (spec part 2, 4.9) — element-wise reduction of device buffers,
// random-number generation and task update. See front_door.hpp for the conventions.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "arun/core/status.hpp"

namespace arun::rt {

// aclrtReduceAsync (dst, src non-NULL, `type` one of the ACL-level types: checked by the caller).
// Enqueues on `stream` a task doing dst[i] = op(dst[i], src[i]) over `count` bytes; EQUAL copies.
// Errors: rt_param_invalid (count 0 or not a multiple of the element size, kind outside 10..13,
// SUM over more than 4 GiB, a pointer that is not memory of the stream's device),
// rt_feature_not_support (a type an A2-class part cannot reduce: INT4, UINT8, UINT16, UINT32),
// the stream's.
Status reduce_async(void* dst, const void* src, uint64_t count, int64_t kind, int64_t type, aclrtStream stream);

// aclrtRandomNumAsync (`info` non-NULL with an ACL-level data type, checked by the caller):
// enqueues a Philox4x32-10 generation task (docs/random-numbers.md). `*info` is not modified.
// Errors: rt_param_invalid (every field check of the spec, listed there), the stream's.
Status random_num_async(const aclrtRandomNumTaskInfo* info, aclrtStream stream);

// aclrtTaskUpdateAsync (`info` non-NULL): enqueues on `exec_stream` a task that, when it runs,
// patches task `task_id` of model-bound `task_stream` (a random-number task: its seed, count,
// result, counter and parameter addresses from the aclrtRandomNumTaskInfo at srcAddr; a
// kernel-binary launch: the function of `binHandle` with the entry, and the block count, read from
// device memory), so executions started after it use the new values. Errors: rt_param_invalid
// (the spec's NULL and size rules, an unknown task or one of the wrong kind, an address that is not
// device memory), rt_invalid_handle (dead streams or binary), 107005 (`task_stream` not bound);
// what the task reads is checked when it runs, which faults it with rt_param_invalid.
Status task_update_async(aclrtStream task_stream, uint32_t task_id, const aclrtTaskUpdateInfo* info,
                         aclrtStream exec_stream);

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): the block
// of four 32-bit words for `counter` (c[0] least significant) under `key`. Exposed for tests.
void philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);

}  // namespace arun::rt
