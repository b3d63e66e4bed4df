// Custom allocator registration (spec 2.9): descriptors that gather a user allocator and its
// callbacks, and their binding to streams. The descriptors live in the core, process-wide (no aclInit
// needed; a destroyed or foreign descriptor is ACL_ERROR_INVALID_PARAM, never a dereference); a
// registration copies the descriptor's fields onto the stream (arun/runtime/memory.hpp).
#include <string>

#include "acl/acl_rt_allocator.h"
#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

namespace {

template <class Fn>
aclError set_field(const char* function, aclrtAllocatorDesc desc, Fn value, Status (*set)(aclrtAllocatorDesc, Fn),
                   const char* what) {
  return api_call_no_runtime(function, [&] {
    if (value == nullptr) return invalid_param(std::string(what) + " is NULL");
    return set(desc, value);
  });
}

}  // namespace

aclrtAllocatorDesc aclrtAllocatorCreateDesc() {
  return rt::create_allocator_desc();
}

aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc) {
  return api_call_no_runtime("aclrtAllocatorDestroyDesc", [&] {
    if (allocatorDesc == nullptr) return invalid_param("allocatorDesc is NULL");
    return rt::destroy_allocator_desc(allocatorDesc);
  });
}

aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator) {
  return set_field("aclrtAllocatorSetObjToDesc", allocatorDesc, allocator, &rt::set_allocator_object, "allocator");
}

aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorAllocFunc func) {
  return set_field("aclrtAllocatorSetAllocFuncToDesc", allocatorDesc, func, &rt::set_allocator_alloc_func, "func");
}

aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorFreeFunc func) {
  return set_field("aclrtAllocatorSetFreeFuncToDesc", allocatorDesc, func, &rt::set_allocator_free_func, "func");
}

aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorAllocAdviseFunc func) {
  return set_field("aclrtAllocatorSetAllocAdviseFuncToDesc", allocatorDesc, func, &rt::set_allocator_advise_func,
                   "func");
}

aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                     aclrtAllocatorGetAddrFromBlockFunc func) {
  return set_field("aclrtAllocatorSetGetAddrFromBlockFuncToDesc", allocatorDesc, func, &rt::set_allocator_get_addr_func,
                   "func");
}

aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc) {
  return api_call("aclrtAllocatorRegister", [&] {
    if (stream == nullptr) return invalid_param("stream is NULL (a user allocator binds to a created stream)");
    return rt::register_allocator(stream, allocatorDesc);
  });
}

aclError aclrtAllocatorUnregister(aclrtStream stream) {
  return api_call("aclrtAllocatorUnregister", [&] {
    if (stream == nullptr) return invalid_param("stream is NULL");
    return rt::unregister_allocator(stream);
  });
}

aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc* allocatorDesc, aclrtAllocator* allocator,
                                   aclrtAllocatorAllocFunc* allocFunc, aclrtAllocatorFreeFunc* freeFunc,
                                   aclrtAllocatorAllocAdviseFunc* allocAdviseFunc,
                                   aclrtAllocatorGetAddrFromBlockFunc* getAddrFromBlockFunc) {
  return api_call("aclrtAllocatorGetByStream", [&] {
    if (allocatorDesc == nullptr) return invalid_param("allocatorDesc is NULL");
    if (stream == nullptr) return invalid_param("stream is NULL");
    rt::StreamAllocator a;
    ARUN_RETURN_IF_ERROR(rt::stream_allocator(stream, &a));
    *allocatorDesc = a.desc;
    if (allocator != nullptr) *allocator = a.object;
    if (allocFunc != nullptr) *allocFunc = a.alloc;
    if (freeFunc != nullptr) *freeFunc = a.free;
    if (allocAdviseFunc != nullptr) *allocAdviseFunc = a.advise;
    if (getAddrFromBlockFunc != nullptr) *getAddrFromBlockFunc = a.get_addr;
    return Status::Ok();
  });
}
