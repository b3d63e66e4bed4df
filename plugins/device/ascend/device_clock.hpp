// DeviceClock: the device's time base, steady-clock nanoseconds since the device first booted.
//
// The epoch is fixed at the first start() and kept across close()/open(), so timestamps taken
// before and after a device reset still order correctly (events never go backwards). Before the
// first start() the clock reads 0. Lock-free: unit threads read it for every work item.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace arun::ascend {

class DeviceClock {
 public:
  void start() {
    int64_t expected = 0;
    epoch_.compare_exchange_strong(expected, host_now(), std::memory_order_acq_rel);
  }
  uint64_t now_ns() const {
    const int64_t epoch = epoch_.load(std::memory_order_acquire);
    if (epoch == 0) return 0;
    const int64_t now = host_now();
    return now > epoch ? static_cast<uint64_t>(now - epoch) : 0;
  }

 private:
  static int64_t host_now() {
    // +1 keeps a (theoretical) steady-clock reading of 0 distinct from "not started".
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
               .count() +
           1;
  }
  std::atomic<int64_t> epoch_{0};
};

}  // namespace arun::ascend
