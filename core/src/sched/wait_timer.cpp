#include "sched/wait_timer.hpp"

#include <chrono>

namespace arun {

uint64_t WaitTimer::now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

WaitTimer::~WaitTimer() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void WaitTimer::arm(uint64_t deadline_ns, Stream* stream, uint64_t stream_uid, uint64_t seq) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    due_.push({deadline_ns, stream, stream_uid, seq});
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  cv_.notify_all();
}

void WaitTimer::run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (due_.empty()) {
      cv_.wait(lock);
      continue;
    }
    const Entry next = due_.top();
    const uint64_t now = now_ns();
    if (next.deadline_ns > now) {
      cv_.wait_for(lock, std::chrono::nanoseconds(next.deadline_ns - now));
      continue;
    }
    due_.pop();
    lock.unlock();
    fire_(next.stream, next.uid, next.seq);
    lock.lock();
  }
}

}  // namespace arun
