// Front door: device and host memory, copies and fills (see front_door.hpp for the conventions).
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"
#include "arun/core/status.hpp"
#include "arun/runtime/call.hpp"

namespace arun::rt {

// ---- contract used by model/ (the executor); the memory helper implements these and adds the rest
// aclrtMalloc on the current context's device: `policy` is the aclrtMemMallocPolicy value, `site`
// the program's call site (leak report).
Status device_malloc(void** out, size_t size, uint32_t policy, const void* site);
// aclrtFree.
Status device_free(void* ptr);
// aclrtMemcpy (synchronous); `kind` is the aclrtMemcpyKind value.
Status memcpy_sync(void* dst, size_t dest_max, const void* src, size_t count, int kind);

}  // namespace arun::rt
