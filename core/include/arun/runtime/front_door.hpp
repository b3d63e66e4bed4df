// The core's front door: the one interface through which api/, ops/, model/ and tools/ reach the
// runtime. Everything behind it (core/src) is private to the core; the build refuses a reach past it.
//
// Conventions of every header in arun/runtime/:
// - Functions live in namespace arun::rt and return a Status whose code is the ACL error code the C
//   API reports (the api/ layer maps it and records it as the thread's last error). They assume the
//   caller checked its own arguments (NULL outputs, ranges the spec states), but never trust a
//   handle: streams, events and contexts are the ACL handle values (aclrtStream, ...) and an unknown
//   or destroyed one is a specific error, never a dereference.
// - Runtime state (models, profiling sessions, host registrations, exception hooks, ...) is owned by
//   the core, never by the caller; aclFinalize resets what belongs to a runtime.
// - Launch attributes travel as fields of the call (LaunchAttrs), not in thread-locals.
#pragma once

#include "arun/runtime/aclprof.hpp"
#include "arun/runtime/builtin_tasks.hpp"
#include "arun/runtime/call.hpp"
#include "arun/runtime/capabilities.hpp"
#include "arun/runtime/devices.hpp"
#include "arun/runtime/extensions.hpp"
#include "arun/runtime/graphs.hpp"
#include "arun/runtime/hooks.hpp"
#include "arun/runtime/kernel_binaries.hpp"
#include "arun/runtime/launch.hpp"
#include "arun/runtime/lifecycle.hpp"
#include "arun/runtime/managed_memory.hpp"
#include "arun/runtime/memory.hpp"
#include "arun/runtime/models.hpp"
#include "arun/runtime/overflow.hpp"
#include "arun/runtime/notifies.hpp"
#include "arun/runtime/recorder.hpp"
#include "arun/runtime/res_limits.hpp"
#include "arun/runtime/streams.hpp"
#include "arun/runtime/task_observer.hpp"
#include "arun/runtime/ipc.hpp"
#include "arun/runtime/virtual_memory.hpp"
#include "arun/runtime/stream_sanitizer.hpp"
