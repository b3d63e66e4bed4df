#include "sched/notifier.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <ctime>

namespace arun {

bool Notifier::park(uint32_t seen, int64_t deadline_ns) {
  timespec ts{};
  timespec* tsp = nullptr;
  if (deadline_ns >= 0) {
    int64_t left = deadline_ns - now_ns();
    if (left <= 0) {
      cancel_park();
      return false;
    }
    ts.tv_sec = left / 1'000'000'000;
    ts.tv_nsec = left % 1'000'000'000;
    tsp = &ts;
  }
  // Returns at once if the epoch moved since `seen` (EAGAIN), on a wake, on timeout or on a signal;
  // the caller re-checks its condition in every case.
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&epoch_), FUTEX_WAIT_PRIVATE, seen, tsp, nullptr, 0);
  cancel_park();
  return deadline_ns < 0 || now_ns() < deadline_ns;
}

void Notifier::wake_all() {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&epoch_), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace arun
