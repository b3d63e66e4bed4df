// Notifier: how host threads wait for device progress. A waiter spins briefly (a cache-line
// hand-off costs ~45 ns on this kind of machine) and then parks on a futex (a wake-up costs
// ~30 us), so short waits stay fast and long waits cost no CPU. notify() is one atomic
// increment plus, only when somebody is parked, one futex wake: the completion path pays
// nothing for waiters that do not exist.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace arun {

class Notifier {
 public:
  // Waits until pred() is true or the deadline passes. Returns pred()'s final value.
  // deadline_ns < 0 means wait forever; otherwise it is a steady_clock time point in ns.
  template <class Pred>
  bool wait(Pred pred, int64_t deadline_ns = -1) {
    for (int i = 0; i < kSpinIterations; ++i) {
      if (pred()) return true;
      cpu_relax();
    }
    for (;;) {
      uint32_t seen = epoch_.load(std::memory_order_acquire);
      if (pred()) return true;
      int64_t timeout_ns = -1;
      if (deadline_ns >= 0) {
        timeout_ns = deadline_ns - now_ns();
        if (timeout_ns <= 0) return pred();
      }
      waiters_.fetch_add(1, std::memory_order_seq_cst);
      if (!pred()) park(seen, timeout_ns);
      waiters_.fetch_sub(1, std::memory_order_relaxed);
    }
  }

  void notify() {
    epoch_.fetch_add(1, std::memory_order_seq_cst);
    if (waiters_.load(std::memory_order_seq_cst) > 0) wake_all();
  }

  static int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  // Deadline for a timeout in milliseconds; -1 stays -1 (forever).
  static int64_t deadline_after_ms(int32_t timeout_ms) {
    return timeout_ms < 0 ? -1 : now_ns() + int64_t(timeout_ms) * 1'000'000;
  }

 private:
  static constexpr int kSpinIterations = 2000;  // roughly 5-20 us depending on the pause latency
  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }
  void park(uint32_t seen, int64_t timeout_ns);
  void wake_all();

  std::atomic<uint32_t> epoch_{0};
  std::atomic<int32_t> waiters_{0};
};

}  // namespace arun
