#include "host/host_calls.hpp"

#include <string>
#include <vector>

#include "base/logging.hpp"
#include "runtime/context.hpp"
#include "runtime/device_slot.hpp"

namespace arun {

namespace {
const char* kind_name(HostCallKind kind) {
  return kind == HostCallKind::Callback ? "report" : "host function";
}

int32_t device_of(const Stream& stream) {
  return stream.context()->slot()->id();
}

void skip_unrun(const std::vector<HostCall>& calls, const Stream& stream) {
  if (!calls.empty()) {
    log().warn("{} host call(s) of stream {} were never run: its thread unsubscribed first", calls.size(), stream.id());
  }
  for (const HostCall& c : calls) HostQueue::skip(c);
}
}  // namespace

HostCalls::~HostCalls() {
  shutdown();
}

Status HostCalls::subscribe(HostCallKind kind, uint64_t thread, Stream& stream) {
  std::lock_guard lock(mu_);
  int k = static_cast<int>(kind);
  if (auto it = streams_.find({k, &stream}); it != streams_.end()) {
    return Status(Errc::rt_stream_subscribe, "stream " + std::to_string(stream.id()) + " is already subscribed (" +
                                                 kind_name(kind) + ") by thread " + std::to_string(it->second));
  }
  auto it = threads_.find({k, thread});
  if (it == threads_.end()) {
    if (threads_.size() >= kMaxThreads) {
      return Status(Errc::rt_stream_subscribe,
                    "too many subscribed threads (at most " + std::to_string(kMaxThreads) + " per process)");
    }
    it = threads_.emplace(Key{k, thread}, Subscriber{}).first;
    it->second.device = device_of(stream);
  } else if (it->second.device != device_of(stream)) {
    return Status(Errc::rt_stream_subscribe, "thread " + std::to_string(thread) + " already serves device " +
                                                 std::to_string(it->second.device) + "; a thread serves one device");
  }
  it->second.queue->subscribe(&stream);
  ++it->second.streams;
  streams_[{k, &stream}] = thread;
  return Status::Ok();
}

Status HostCalls::unsubscribe(HostCallKind kind, uint64_t thread, Stream& stream) {
  std::vector<HostCall> left;
  {
    std::lock_guard lock(mu_);
    int k = static_cast<int>(kind);
    auto s = streams_.find({k, &stream});
    if (s == streams_.end() || s->second != thread) {
      return Status(Errc::rt_stream_subscribe, "stream " + std::to_string(stream.id()) + " is not subscribed (" +
                                                   kind_name(kind) + ") by thread " + std::to_string(thread));
    }
    streams_.erase(s);
    auto t = threads_.find({k, thread});
    left = t->second.queue->unsubscribe(&stream);
    if (--t->second.streams == 0) threads_.erase(t);
  }
  skip_unrun(left, stream);
  return Status::Ok();
}

std::shared_ptr<HostQueue> HostCalls::queue_for(HostCallKind kind, Stream& stream) {
  std::lock_guard lock(mu_);
  int k = static_cast<int>(kind);
  if (auto s = streams_.find({k, &stream}); s != streams_.end()) return threads_.at({k, s->second}).queue;
  if (kind == HostCallKind::Callback) return nullptr;
  auto& worker = workers_[device_of(stream)];
  if (!worker) worker = std::make_unique<HostWorker>();
  return worker->queue();
}

std::shared_ptr<HostQueue> HostCalls::queue_of_thread(HostCallKind kind, uint64_t thread) {
  std::lock_guard lock(mu_);
  auto it = threads_.find({static_cast<int>(kind), thread});
  return it == threads_.end() ? nullptr : it->second.queue;
}

void HostCalls::forget(Stream& stream) {
  for (HostCallKind kind : {HostCallKind::Callback, HostCallKind::HostFunc}) {
    uint64_t thread = 0;
    {
      std::lock_guard lock(mu_);
      auto s = streams_.find({static_cast<int>(kind), &stream});
      if (s == streams_.end()) continue;
      thread = s->second;
    }
    (void)unsubscribe(kind, thread, stream);
  }
}

void HostCalls::shutdown() {
  std::map<int32_t, std::unique_ptr<HostWorker>> workers;
  {
    std::lock_guard lock(mu_);
    workers.swap(workers_);
  }
  workers.clear();  // each runs what it has queued, then joins
}

}  // namespace arun
