// Front door: device and host memory, copies and fills, host registration and user allocators (see
// front_door.hpp for the conventions). The caller checks NULL outputs and the ranges the spec states
// (count > destMax, 2-D width/height limits); what needs to know the memory (which device a pointer
// belongs to, whether a range lies inside one allocation, copy kinds against the pointers) is checked
// here, with the codes and messages the C API reports.
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "acl/acl_rt_allocator.h"
#include "arun/core/status.hpp"
#include "arun/runtime/call.hpp"

namespace arun::rt {

// ---- contract used by model/ (the executor)
// aclrtMalloc on the current context's device: `policy` is the aclrtMemMallocPolicy value, `site`
// the program's call site (leak report). `out` non-NULL and `size` > 0 (the caller checks).
// Errors: ACL_ERROR_INVALID_PARAM (size overflows when padded), ACL_ERROR_RT_CONTEXT_NULL,
// ACL_ERROR_RT_MEMORY_ALLOCATION (out of device memory).
Status device_malloc(void** out, size_t size, uint32_t policy, const void* site);
// aclrtMallocAlign32: as device_malloc, but the size is only rounded up to 32 bytes (no tail pad).
Status device_malloc_align32(void** out, size_t size, uint32_t policy, const void* site);
// aclrtMallocWithCfg (`out` non-NULL, `size` > 0, `cfg` NULL or with attrs when numAttrs > 0: the
// caller checks). Errors: ACL_ERROR_RT_PARAM_INVALID (cfg->attrs NULL, VA_FLAG, an unknown
// attribute, an invalid policy combination, DEVICE_ID other than the current device),
// ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_MEMORY_ALLOCATION.
Status device_malloc_with_cfg(void** out, size_t size, uint32_t policy, const aclrtMallocConfig* cfg, const void* site);
// aclrtMallocForTaskScheduler: as device_malloc_with_cfg (the simulated device's task scheduler
// reaches all of its memory).
Status device_malloc_for_task_scheduler(void** out, size_t size, uint32_t policy, const aclrtMallocConfig* cfg,
                                        const void* site);
// aclrtFreeWithDevSync: synchronises the current device, then frees. Errors:
// ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_RT_PARAM_INVALID (not device memory of this runtime), the
// synchronisation's (the block stays allocated), device_free's.
Status device_free_with_sync(void* ptr);
// aclrtFree. Errors: ACL_ERROR_INVALID_PARAM (NULL), ACL_ERROR_RT_MEMORY_FREE (not a live block).
Status device_free(void* ptr);
// aclrtMemcpy (synchronous); `kind` is the aclrtMemcpyKind value. count 0 is a no-op. Errors:
// ACL_ERROR_INVALID_PARAM (NULL, kind), ACL_ERROR_RT_PARAM_INVALID (count > dest_max, kind against
// the pointers, range outside an allocation), ACL_ERROR_RT_FEATURE_NOT_SUPPORT (peer access), a
// device fault.
Status memcpy_sync(void* dst, size_t dest_max, const void* src, size_t count, int kind);

// ---- device memory, stream-ordered (arun_ext.h)
// arunMallocAsync: as device_malloc, the block belongs to `stream` until freed. Errors: the stream's
// (ACL_ERROR_RT_STREAM_* / ACL_ERROR_RT_CONTEXT_NULL) first, then device_malloc's.
Status device_malloc_async(void** out, size_t size, uint32_t policy, const void* site, aclrtStream stream);
// arunFreeAsync: the block becomes reusable once `stream`'s work queued so far is done. Errors: the
// stream's, then device_free's.
Status device_free_async(void* ptr, aclrtStream stream);
// arunMemRecordStream: `ptr` (non-NULL) is in use by `stream` too. Errors: the stream's,
// ACL_ERROR_INVALID_PARAM (not device memory), ACL_ERROR_RT_MEMORY_FREE (device closed).
Status record_stream_use(void* ptr, aclrtStream stream);

// ---- pinned host memory
// aclrtMallocHost (`out` non-NULL, `size` > 0): page-aligned, resident, freed at aclFinalize if
// leaked. Errors: ACL_ERROR_RT_MEMORY_ALLOCATION.
Status host_malloc(void** out, size_t size, const void* site);
// aclrtFreeHost (`ptr` non-NULL). Errors: ACL_ERROR_RT_MEMORY_FREE (not from aclrtMallocHost).
Status host_free(void* ptr);
// aclrtMallocHostWithCfg (`out` non-NULL, `size` > 0): host_malloc with options; needs no context.
// Errors: ACL_ERROR_RT_PARAM_INVALID (cfg->attrs NULL, VA_FLAG, an unknown attribute; DEVICE_ID
// and MODULE_ID are accepted and ignored), ACL_ERROR_RT_MEMORY_ALLOCATION.
Status host_malloc_with_cfg(void** out, uint64_t size, const aclrtMallocConfig* cfg, const void* site);
// aclrtFreeHostWithDevSync (`ptr` non-NULL): synchronises the current device, then host_free.
// Errors: ACL_ERROR_RT_CONTEXT_NULL, the synchronisation's (the block stays allocated),
// ACL_ERROR_RT_PARAM_INVALID (not the base of a block from aclrtMallocHost*).
Status host_free_with_sync(void* ptr);

// ---- copies and fills (the caller checked NULLs, count <= dest_max and count > 0)
// aclrtMemcpyAsync. Errors: memcpy_sync's, the stream's, ACL_ERROR_RT_FEATURE_NOT_SUPPORT
// (host-to-host), ACL_ERROR_RT_PARAM_INVALID (memory of another device than the stream's).
Status memcpy_async(void* dst, const void* src, size_t count, int kind, aclrtStream stream);
// A 2-D copy: `height` rows of `width` bytes, rows `dpitch` / `spitch` apart. The caller checked
// NULLs, width <= both pitches and width, height > 0.
struct Copy2D {
  void* dst;
  size_t dpitch;
  const void* src;
  size_t spitch;
  size_t width, height;
};
// aclrtMemcpy2d. Errors: ACL_ERROR_INVALID_PARAM (kind, no device side), memcpy_sync's.
Status memcpy_2d_sync(const Copy2D& copy, int kind);
// aclrtMemcpy2dAsync. Errors: memcpy_2d_sync's, then memcpy_async's stream errors.
Status memcpy_2d_async(const Copy2D& copy, int kind, aclrtStream stream);
// aclrtMemset (`ptr` non-NULL, count <= max_count checked by the caller): device memory or
// aclrtMallocHost memory. Errors: ACL_ERROR_RT_PARAM_INVALID (other memory, range), a device fault.
Status memset_sync(void* ptr, int32_t value, size_t count);
// aclrtMemsetAsync: as memset_sync, in `stream`'s order. Errors: memset_sync's, the stream's.
Status memset_async(void* ptr, int32_t value, size_t count, aclrtStream stream);

// ---- queries
// aclrtGetMemInfo for the aclrtMemAttr value `attr` on the current context's device. Errors:
// ACL_ERROR_RT_CONTEXT_NULL, then ACL_ERROR_RT_PARAM_INVALID (attr out of range).
struct MemInfo {
  size_t free = 0, total = 0;
};
Status mem_info(int attr, MemInfo* out);
// aclrtPointerGetAttributes: where `ptr` lives. No error of its own.
struct PointerAttributes {
  enum class Location { Unregistered, Host, Device } location = Location::Unregistered;
  uint32_t device = 0;     // Device
  uint64_t page_size = 0;  // bytes
};
Status pointer_attributes(const void* ptr, PointerAttributes* out);

// ---- host registration (aclrtHostRegister / aclrtHostUnregister), reset at aclFinalize
// Registers [ptr, ptr + size) (mapped; checked by the caller) and returns its device alias.
// Errors: ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED (overlap).
Status host_register(void* ptr, uint64_t size, void** dev_ptr);
// Errors: ACL_ERROR_HOST_MEMORY_NOT_REGISTERED (`ptr` is not the start of a registered range).
Status host_unregister(void* ptr);

// ---- user allocators (spec 2.9). Descriptors are process-scope: they need no aclInit.
// aclrtAllocatorCreateDesc: nullptr when out of host memory.
aclrtAllocatorDesc create_allocator_desc() noexcept;
// aclrtAllocatorDestroyDesc. Errors: ACL_ERROR_INVALID_PARAM (NULL, not a live descriptor).
Status destroy_allocator_desc(aclrtAllocatorDesc desc);
// aclrtAllocatorSet*ToDesc (the value is non-NULL, checked by the caller). Errors:
// ACL_ERROR_INVALID_PARAM (NULL or not a live descriptor).
Status set_allocator_object(aclrtAllocatorDesc desc, aclrtAllocator allocator);
Status set_allocator_alloc_func(aclrtAllocatorDesc desc, aclrtAllocatorAllocFunc func);
Status set_allocator_free_func(aclrtAllocatorDesc desc, aclrtAllocatorFreeFunc func);
Status set_allocator_advise_func(aclrtAllocatorDesc desc, aclrtAllocatorAllocAdviseFunc func);
Status set_allocator_get_addr_func(aclrtAllocatorDesc desc, aclrtAllocatorGetAddrFromBlockFunc func);
// aclrtAllocatorRegister (`stream` non-NULL): binds a copy of the descriptor's fields to the stream.
// Errors: ACL_ERROR_INVALID_PARAM (descriptor NULL, not live or incomplete), then the stream's.
Status register_allocator(aclrtStream stream, aclrtAllocatorDesc desc);
// aclrtAllocatorUnregister (`stream` non-NULL). Errors: the stream's.
Status unregister_allocator(aclrtStream stream);
// aclrtAllocatorGetByStream (`stream` non-NULL): the fields bound to the stream. Errors: the
// stream's, ACL_ERROR_INVALID_PARAM (none registered).
struct StreamAllocator {
  aclrtAllocatorDesc desc = nullptr;
  aclrtAllocator object = nullptr;
  aclrtAllocatorAllocFunc alloc = nullptr;
  aclrtAllocatorFreeFunc free = nullptr;
  aclrtAllocatorAllocAdviseFunc advise = nullptr;
  aclrtAllocatorGetAddrFromBlockFunc get_addr = nullptr;
};
Status stream_allocator(aclrtStream stream, StreamAllocator* out);

}  // namespace arun::rt
