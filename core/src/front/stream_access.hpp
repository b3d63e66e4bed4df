// Shared by the front-door files: the live runtime and the objects behind stream and event handles.
#pragma once

#include <memory>

#include "arun/core/status.hpp"
#include "base/status_helpers.hpp"
#include "runtime/runtime.hpp"

namespace arun::rt::detail {

// The live runtime; uninitialized if aclFinalize raced the call.
inline Status live_runtime(Runtime** out) {
  *out = Runtime::instance();
  if (*out == nullptr) return no_runtime();
  return Status::Ok();
}

// The runtime, where api_call already checked aclInit and nothing can finalize concurrently.
inline Runtime& runtime() {
  return *Runtime::instance();
}

// The stream behind `handle` (NULL: the current context's default stream).
inline Status find_stream(Runtime** rt, void* handle, std::shared_ptr<Stream>* out) {
  ARUN_RETURN_IF_ERROR(live_runtime(rt));
  return (*rt)->resolve_stream(handle, out);
}

// The event behind `handle`; a NULL handle is invalid_param.
inline Status find_event(Runtime* rt, void* handle, std::shared_ptr<Event>* out) {
  if (handle == nullptr) return Status(Errc::invalid_param, "event is NULL");
  return rt->resolve_event(handle, out);
}

}  // namespace arun::rt::detail
