// The boundary between the C API and the core: every exported function runs its body through
// api_call(), which checks that aclInit has run, turns a non-ok Status into its aclError, records
// it as the thread's last error and its message for aclGetRecentErrMsg (rt::record_failure), and
// makes sure no C++ exception ever reaches C code. Bodies check their arguments in the spec's order
// and call the core's front door (arun/runtime/); they hold no state and build no task.
#pragma once

#include <cstring>
#include <new>
#include <string>
#include <type_traits>

#include "acl/acl.h"
#include "arun/core/status.hpp"
#include "arun/runtime/front_door.hpp"

namespace arun::api {

using rt::last_error;
using rt::record_failure;
using rt::take_recent_messages;

// Reads an enum argument as its underlying integer. C callers may pass any int, and reading such a
// value as the enum type is undefined behaviour when it lies outside the enum's range.
template <class E>
auto raw(const E& e) {
  std::underlying_type_t<E> v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}

inline Status invalid_param(const std::string& what) {
  return Status(Errc::invalid_param, what);
}
inline Status rt_param_invalid(const std::string& what) {
  return Status(Errc::rt_param_invalid, what);
}

template <class Body>
aclError api_call_body(const char* function, Body&& body);

// Runs body() -> Status for an API function that needs an initialised runtime. While a profiling
// session collects API spans, the call is timed and given a correlation id its tasks carry.
template <class Body>
aclError api_call(const char* function, Body&& body) {
  if (prof::on(prof::kApi)) [[unlikely]] {
    prof::ApiSpan span(function);
    return api_call_body(function, body);
  }
  return api_call_body(function, body);
}

template <class Body>
aclError api_call_body(const char* function, Body&& body) {
  try {
    if (!rt::initialized()) {
      return record_failure(function, Status(Errc::uninitialized, "aclInit has not been called (or aclFinalize was)"));
    }
    Status st = body();
    return st.ok() ? ACL_SUCCESS : record_failure(function, st);
  } catch (const std::bad_alloc&) {
    return record_failure(function, Status(Errc::rt_memory_allocation, "out of host memory"));
  } catch (const std::exception& e) {
    return record_failure(function, Status(Errc::internal_error, std::string("internal error: ") + e.what()));
  } catch (...) {
    return record_failure(function, Status(Errc::internal_error, "internal error"));
  }
}

// The same for functions that do not need the runtime (argument checks only).
template <class Body>
aclError api_call_no_runtime(const char* function, Body&& body) {
  try {
    Status st = body();
    return st.ok() ? ACL_SUCCESS : record_failure(function, st);
  } catch (const std::bad_alloc&) {
    return record_failure(function, Status(Errc::rt_memory_allocation, "out of host memory"));
  } catch (...) {
    return record_failure(function, Status(Errc::internal_error, "internal error"));
  }
}

}  // namespace arun::api
