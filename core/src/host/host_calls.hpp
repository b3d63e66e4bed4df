// HostCalls: who runs the host calls of each stream (spec 2.7).
//
// aclrtSubscribeReport binds a stream to a user thread for aclrtLaunchCallback; aclrtSubscribeHostFunc
// does the same for aclrtLaunchHostFunc. Each subscribed thread has one HostQueue per kind, fed by
// all its streams. Host functions of a stream nobody subscribed run on the runtime's own worker
// thread, one per device, created on first use.
//
// Rules (spec): a stream has at most one thread per kind; a thread serves streams of one device
// only; at most kMaxThreads threads are subscribed at once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "arun/core/status.hpp"
#include "host/host_queue.hpp"

namespace arun {

enum class HostCallKind { Callback = 0, HostFunc = 1 };

class HostCalls {
 public:
  static constexpr size_t kMaxThreads = 1024;

  HostCalls() = default;
  ~HostCalls();

  Status subscribe(HostCallKind kind, uint64_t thread, Stream& stream);
  Status unsubscribe(HostCallKind kind, uint64_t thread, Stream& stream);
  // The queue that runs `stream`'s calls of `kind`: its subscribed thread's, or for host functions
  // without one, the device's worker. Null for a callback stream nobody subscribed.
  std::shared_ptr<HostQueue> queue_for(HostCallKind kind, Stream& stream);
  // The queue the calling thread serves for `kind`, or null if it serves none.
  std::shared_ptr<HostQueue> queue_of_thread(HostCallKind kind, uint64_t thread);
  // A stream is going away: drops its subscriptions; unrun blocking calls complete unrun.
  void forget(Stream& stream);
  // Stops the workers (after what they have queued) — call once every stream is drained.
  void shutdown();

 private:
  struct Subscriber {
    int32_t device = -1;
    std::shared_ptr<HostQueue> queue = std::make_shared<HostQueue>();
    size_t streams = 0;
  };
  using Key = std::pair<int, uint64_t>;  // kind, thread

  std::mutex mu_;
  std::map<Key, Subscriber> threads_;
  std::map<std::pair<int, const Stream*>, uint64_t> streams_;  // (kind, stream) -> thread
  std::map<int32_t, std::unique_ptr<HostWorker>> workers_;     // device -> host-function worker
};

}  // namespace arun
