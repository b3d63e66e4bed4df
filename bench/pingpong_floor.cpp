// Two-thread cache-line ping-pong (see pingpong_floor.hpp).
#include "pingpong_floor.hpp"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace sched_bench {
namespace {

struct alignas(64) Line {
  std::atomic<uint32_t> v{0};
  char pad[64 - sizeof(std::atomic<uint32_t>)];
};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until `line` holds `want`. On a loaded 2-vCPU machine the partner may be descheduled: after
// a long spin, yield, so that two threads sharing one CPU still make progress (the figure is then
// no floor, which the spread between repeats shows).
inline void spin_until(const Line& line, uint32_t want) {
  for (uint32_t n = 1; line.v.load(std::memory_order_acquire) != want; ++n) {
    cpu_relax();
    if ((n & 0xffff) == 0) sched_yield();
  }
}

// A raw futex wait, no spinning first (std::atomic::wait spins before it parks): the cost of
// waking a parked thread, which is what a runtime pays when its worker has gone to sleep.
inline void park_until(Line& line, uint32_t want) {
  for (uint32_t cur = line.v.load(std::memory_order_acquire); cur != want; cur = line.v.load(std::memory_order_acquire))
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&line.v), FUTEX_WAIT_PRIVATE, cur, nullptr, nullptr, 0);
}

inline void wake(Line& line) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&line.v), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

// CPUs this process may run on, so the two sides can sit on different ones.
std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

void pin_self(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// ns per round trip: A writes 2i+1, B answers 2i+2. Both run on new threads so the caller's
// affinity stays as it was. A times chunks of kChunk round trips and returns the median chunk per
// round trip: on a shared machine a chunk in which either thread lost its CPU is an outlier that
// would move a mean over all trips, not the median.
constexpr int kChunk = 64;

template <bool kPark>
double pingpong(int trips, int cpu_a, int cpu_b) {
  Line line;
  trips = std::max(trips / kChunk, 1) * kChunk;
  std::vector<double> chunks;
  chunks.reserve(size_t(trips / kChunk));
  std::thread b([&] {
    pin_self(cpu_b);
    for (int i = 0; i < trips; ++i) {
      const uint32_t odd = 2u * uint32_t(i) + 1u;
      if constexpr (kPark) {
        park_until(line, odd);
        line.v.store(odd + 1, std::memory_order_release);
        wake(line);
      } else {
        spin_until(line, odd);
        line.v.store(odd + 1, std::memory_order_release);
      }
    }
  });
  std::thread a([&] {
    pin_self(cpu_a);
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < trips; ++i) {
      const uint32_t odd = 2u * uint32_t(i) + 1u;
      line.v.store(odd, std::memory_order_release);
      if constexpr (kPark) {
        wake(line);
        park_until(line, odd + 1);
      } else {
        spin_until(line, odd + 1);
      }
      if ((i + 1) % kChunk == 0) {
        const auto t1 = std::chrono::steady_clock::now();
        chunks.push_back(double(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()) / kChunk);
        t0 = t1;
      }
    }
  });
  a.join();
  b.join();
  return median_of(std::move(chunks));
}

}  // namespace

double median_of(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void measure_pingpong(PingPongFloor* out, int repeats, int trips) {
  const std::vector<int> cpus = allowed_cpus();
  const int cpu_a = cpus.size() >= 2 ? cpus[0] : -1;
  const int cpu_b = cpus.size() >= 2 ? cpus[1] : -1;
  pingpong<false>(trips / 10, cpu_a, cpu_b);  // warm-up: thread creation, page faults, frequency
  for (int r = 0; r < repeats; ++r) {
    out->spin_ns.push_back(pingpong<false>(trips, cpu_a, cpu_b));
    // Not pinned: a woken thread pinned to a busy CPU would wait for that CPU's time slice; the
    // runtime's own threads may run anywhere too.
    out->futex_ns.push_back(pingpong<true>(std::max(trips / 40, 1), -1, -1));
  }
}

}  // namespace sched_bench
