// Notifier: how host threads wait for device progress. A waiter first spins for a few
// microseconds (a cache-line hand-off costs ~45 ns on this kind of machine), then parks on a futex
// (a wake-up costs ~30 us), so short waits stay fast and long waits cost no CPU.
//
// Wake-ups are targeted: a waiter first says what it waits for (Scheduler registers the stream
// position or the event record), and the completion path calls notify() only when that is reached.
// notify() itself costs one atomic increment plus, only when somebody is parked, one futex wake.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace arun {

class Notifier {
 public:
  // Spins until pred() holds or the spin budget is used up. Returns pred()'s last value.
  template <class Pred>
  static bool spin(Pred pred) {
    const int64_t until = now_ns() + kSpinNs;
    for (int i = 0;; ++i) {
      if (pred()) return true;
      cpu_relax();
      if ((i & 63) == 63 && now_ns() >= until) return pred();
    }
  }

  // Park protocol: e = begin_park(); <publish interest; re-check the condition>; park(e, deadline)
  // or cancel_park(). park() returns at once if notify() ran after begin_park().
  uint32_t begin_park() {
    waiters_.fetch_add(1, std::memory_order_seq_cst);
    return epoch_.load(std::memory_order_seq_cst);
  }
  void cancel_park() { waiters_.fetch_sub(1, std::memory_order_relaxed); }
  // Returns false if the deadline (steady_clock ns; < 0 = none) has passed.
  bool park(uint32_t seen, int64_t deadline_ns);

  void notify() {
    epoch_.fetch_add(1, std::memory_order_seq_cst);
    if (waiters_.load(std::memory_order_seq_cst) > 0) wake_all();
  }

  static int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  // Deadline for a timeout in milliseconds; -1 stays -1 (forever).
  static int64_t deadline_after_ms(int32_t timeout_ms) {
    return timeout_ms < 0 ? -1 : now_ns() + int64_t(timeout_ms) * 1'000'000;
  }

 private:
  static constexpr int64_t kSpinNs = 4'000;
  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
  void wake_all();

  std::atomic<uint32_t> epoch_{0};
  std::atomic<int32_t> waiters_{0};
};

}  // namespace arun
