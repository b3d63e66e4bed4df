// Custom allocator registration (spec 2.9): descriptors that gather a user allocator and its
// callbacks, and their binding to streams.
//
// Descriptors are runtime-independent (no aclInit needed) and tracked in a set, so a destroyed or
// foreign descriptor pointer is ACL_ERROR_INVALID_PARAM, never a dereference. A registration copies
// the descriptor's fields onto the stream, so the descriptor may be destroyed afterwards; the
// stream's registration goes with the stream.
#include <memory>
#include <mutex>
#include <unordered_set>

#include "acl/acl_rt_allocator.h"
#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

namespace {

struct Descriptor {
  aclrtAllocator object = nullptr;
  aclrtAllocatorAllocFunc alloc = nullptr;
  aclrtAllocatorFreeFunc free = nullptr;
  aclrtAllocatorAllocAdviseFunc advise = nullptr;
  aclrtAllocatorGetAddrFromBlockFunc get_addr = nullptr;
};

std::mutex g_mu;
std::unordered_set<Descriptor*>& live() {
  static std::unordered_set<Descriptor*> set;
  return set;
}

// Runs f(Descriptor&) on a live descriptor, under the registry lock.
template <class F>
Status with_descriptor(aclrtAllocatorDesc desc, F&& f) {
  if (desc == nullptr) return invalid_param("allocatorDesc is NULL");
  std::lock_guard lock(g_mu);
  auto it = live().find(static_cast<Descriptor*>(desc));
  if (it == live().end()) return invalid_param("allocatorDesc is not a live descriptor from aclrtAllocatorCreateDesc");
  return f(**it);
}

template <class Fn>
aclError set_field(const char* function, aclrtAllocatorDesc desc, Fn value, Fn Descriptor::*field, const char* what) {
  return api_call_no_runtime(function, [&] {
    if (value == nullptr) return invalid_param(std::string(what) + " is NULL");
    return with_descriptor(desc, [&](Descriptor& d) {
      d.*field = value;
      return Status::Ok();
    });
  });
}

template <class T>
UserAllocator::Fn erase(T fn) {
  return reinterpret_cast<UserAllocator::Fn>(fn);
}
template <class T>
T restore(UserAllocator::Fn fn) {
  return reinterpret_cast<T>(fn);
}

}  // namespace

aclrtAllocatorDesc aclrtAllocatorCreateDesc() {
  auto* d = new (std::nothrow) Descriptor();
  if (d == nullptr) return nullptr;
  try {
    std::lock_guard lock(g_mu);
    live().insert(d);
  } catch (...) {
    delete d;
    return nullptr;
  }
  return d;
}

aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc) {
  return api_call_no_runtime("aclrtAllocatorDestroyDesc", [&] {
    if (allocatorDesc == nullptr) return invalid_param("allocatorDesc is NULL");
    std::lock_guard lock(g_mu);
    if (live().erase(static_cast<Descriptor*>(allocatorDesc)) == 0) {
      return invalid_param("allocatorDesc is not a live descriptor (destroyed already?)");
    }
    delete static_cast<Descriptor*>(allocatorDesc);
    return Status::Ok();
  });
}

aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator) {
  return set_field("aclrtAllocatorSetObjToDesc", allocatorDesc, allocator, &Descriptor::object, "allocator");
}

aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorAllocFunc func) {
  return set_field("aclrtAllocatorSetAllocFuncToDesc", allocatorDesc, func, &Descriptor::alloc, "func");
}

aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorFreeFunc func) {
  return set_field("aclrtAllocatorSetFreeFuncToDesc", allocatorDesc, func, &Descriptor::free, "func");
}

aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorAllocAdviseFunc func) {
  return set_field("aclrtAllocatorSetAllocAdviseFuncToDesc", allocatorDesc, func, &Descriptor::advise, "func");
}

aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                     aclrtAllocatorGetAddrFromBlockFunc func) {
  return set_field("aclrtAllocatorSetGetAddrFromBlockFuncToDesc", allocatorDesc, func, &Descriptor::get_addr, "func");
}

aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc) {
  return api_call("aclrtAllocatorRegister", [&](Runtime& rt) {
    if (stream == nullptr) return invalid_param("stream is NULL (a user allocator binds to a created stream)");
    UserAllocator a;
    ARUN_RETURN_IF_ERROR(with_descriptor(allocatorDesc, [&](Descriptor& d) {
      const char* missing = d.object == nullptr     ? "the allocator object (aclrtAllocatorSetObjToDesc)"
                             : d.alloc == nullptr    ? "the alloc callback (aclrtAllocatorSetAllocFuncToDesc)"
                             : d.free == nullptr     ? "the free callback (aclrtAllocatorSetFreeFuncToDesc)"
                             : d.get_addr == nullptr ? "the get-address callback "
                                                       "(aclrtAllocatorSetGetAddrFromBlockFuncToDesc)"
                                                     : nullptr;
      if (missing != nullptr) return invalid_param(std::string("the descriptor lacks ") + missing);
      a = UserAllocator{allocatorDesc, d.object, erase(d.alloc), erase(d.free), erase(d.advise), erase(d.get_addr)};
      return Status::Ok();
    }));
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    s->set_user_allocator(a);
    return Status::Ok();
  });
}

aclError aclrtAllocatorUnregister(aclrtStream stream) {
  return api_call("aclrtAllocatorUnregister", [&](Runtime& rt) {
    if (stream == nullptr) return invalid_param("stream is NULL");
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    s->set_user_allocator(std::nullopt);
    return Status::Ok();
  });
}

aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc, aclrtAllocator *allocator,
                                   aclrtAllocatorAllocFunc *allocFunc, aclrtAllocatorFreeFunc *freeFunc,
                                   aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                   aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc) {
  return api_call("aclrtAllocatorGetByStream", [&](Runtime& rt) {
    if (allocatorDesc == nullptr) return invalid_param("allocatorDesc is NULL");
    if (stream == nullptr) return invalid_param("stream is NULL");
    std::shared_ptr<Stream> s;
    ARUN_RETURN_IF_ERROR(rt.resolve_stream(stream, &s));
    std::optional<UserAllocator> a = s->user_allocator();
    if (!a) return invalid_param("no allocator is registered for stream " + std::to_string(s->id()));
    *allocatorDesc = a->descriptor;
    if (allocator != nullptr) *allocator = a->object;
    if (allocFunc != nullptr) *allocFunc = restore<aclrtAllocatorAllocFunc>(a->alloc);
    if (freeFunc != nullptr) *freeFunc = restore<aclrtAllocatorFreeFunc>(a->free);
    if (allocAdviseFunc != nullptr) *allocAdviseFunc = restore<aclrtAllocatorAllocAdviseFunc>(a->alloc_advise);
    if (getAddrFromBlockFunc != nullptr) *getAddrFromBlockFunc = restore<aclrtAllocatorGetAddrFromBlockFunc>(a->get_addr);
    return Status::Ok();
  });
}
