// Context: a device binding plus its streams. Each device has one default context, shared by every
// thread that sets the device; aclrtCreateContext makes further ones. A context owns a default
// stream and the streams created while it was current.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/stream.hpp"

namespace arun {

class DeviceSlot;
class Event;

class Context {
 public:
  Context(DeviceSlot* slot, bool is_default) : slot_(slot), is_default_(is_default) {}

  DeviceSlot* slot() const { return slot_; }
  bool is_default() const { return is_default_; }
  void* handle() const { return handle_; }
  void set_handle(void* h) { handle_ = h; }
  bool alive() const { return alive_.load(std::memory_order_acquire); }
  void retire() { alive_.store(false, std::memory_order_release); }

  std::shared_ptr<Stream> default_stream;

  // Set once any stream of the context chose ACL_STOP_ON_FAILURE: the spec makes stop-on-failure
  // apply to every stream of the context that did not choose a mode of its own.
  std::atomic<bool> stop_on_failure{false};
  // Spec part 2, R3: once stop_on_failure is set, the first task failure in any stream of the
  // context; every later synchronize of any of its streams reports it. Gone with the context.
  std::atomic<int> sticky_error{0};

  // Streams and events created in this context, released with it.
  std::mutex mu;
  std::vector<std::shared_ptr<Stream>> streams;
  std::vector<std::shared_ptr<Event>> events;
  // aclrtCtxGetFloatOverflowAddr: the context's 8-byte overflow word (0 until first asked for),
  // guarded by mu and freed with the context.
  uint64_t overflow_addr = 0;

 private:
  DeviceSlot* slot_;
  bool is_default_;
  void* handle_ = nullptr;
  std::atomic<bool> alive_{true};
};

}  // namespace arun
