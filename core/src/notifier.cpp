#include "notifier.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <ctime>

namespace arun {

void Notifier::park(uint32_t seen, int64_t timeout_ns) {
  timespec ts{};
  timespec* tsp = nullptr;
  if (timeout_ns >= 0) {
    ts.tv_sec = timeout_ns / 1'000'000'000;
    ts.tv_nsec = timeout_ns % 1'000'000'000;
    tsp = &ts;
  }
  // Returns at once if the epoch moved since `seen` (EAGAIN), on a wake, on timeout or on a signal;
  // the caller re-checks its predicate in every case.
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&epoch_), FUTEX_WAIT_PRIVATE, seen, tsp, nullptr, 0);
}

void Notifier::wake_all() {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&epoch_), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace arun
