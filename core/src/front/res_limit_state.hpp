// Shared by res_limits.cpp and launch.cpp: the core limit a kernel launch gets.
#pragma once

#include <cstdint>

namespace arun {
class Runtime;
class Stream;
}  // namespace arun

namespace arun::rt::detail {

// The most AI cores a kernel the calling thread launches on `stream` may occupy at once (the value
// for plugin::Work::max_compute_units): the thread's selected stream's cube limit, else the
// device's, else 0 (no limit).
uint32_t kernel_core_limit(Runtime& rt, const Stream& stream);

}  // namespace arun::rt::detail
