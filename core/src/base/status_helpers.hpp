// Shorthands for the errors many of the core's files return, so each has one wording, and small
// helpers those files shared as private copies.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "arun/core/status.hpp"

namespace arun {

// The runtime is gone or was never there (a racing aclFinalize, or a caller inside the library).
inline Status no_runtime() {
  return Status(Errc::uninitialized, "aclInit has not been called (or aclFinalize was)");
}
inline Status invalid_param(const std::string& what) {  // ACL_ERROR_INVALID_PARAM (100000)
  return Status(Errc::invalid_param, what);
}
inline Status param_invalid(const std::string& what) {  // ACL_ERROR_RT_PARAM_INVALID (107000)
  return Status(Errc::rt_param_invalid, what);
}

inline std::string hex(const void* p) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

inline int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace arun
