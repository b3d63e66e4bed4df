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

// aclrtTaskUpdateAsync (`info` non-NULL): patches a task of a model-bound (captured) stream. No
// stream can be model-bound yet (stream capture and aclmdlRI* are not implemented), so after the
// argument checks every target is refused as CANN refuses a non-captured one: RANDOM -> unknown task
// (rt_param_invalid), AIC_AIV -> not model-bound (107005).
Status task_update_async(aclrtStream task_stream, uint32_t task_id, const aclrtTaskUpdateInfo* info,
                         aclrtStream exec_stream);

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): the block
// of four 32-bit words for `counter` (c[0] least significant) under `key`. Exposed for tests.
void philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);

}  // namespace arun::rt
