// Two-thread cache-line ping-pong (see pingpong_floor.hpp).
#include "pingpong_floor.hpp"

#include <pthread.h>
#include <sched.h>

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

inline void park_until(Line& line, uint32_t want) {
  for (uint32_t cur = line.v.load(std::memory_order_acquire); cur != want; cur = line.v.load(std::memory_order_acquire))
    line.v.wait(cur, std::memory_order_acquire);
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
// affinity stays as it was.
template <bool kPark>
double pingpong(int trips, int cpu_a, int cpu_b) {
  Line line;
  double ns = 0;
  std::thread b([&] {
    pin_self(cpu_b);
    for (int i = 0; i < trips; ++i) {
      const uint32_t odd = 2u * uint32_t(i) + 1u;
      if constexpr (kPark) {
        park_until(line, odd);
        line.v.store(odd + 1, std::memory_order_release);
        line.v.notify_one();
      } else {
        spin_until(line, odd);
        line.v.store(odd + 1, std::memory_order_release);
      }
    }
  });
  std::thread a([&] {
    pin_self(cpu_a);
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < trips; ++i) {
      const uint32_t odd = 2u * uint32_t(i) + 1u;
      line.v.store(odd, std::memory_order_release);
      if constexpr (kPark) {
        line.v.notify_one();
        park_until(line, odd + 1);
      } else {
        spin_until(line, odd + 1);
      }
    }
    ns = double(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  });
  a.join();
  b.join();
  return ns / trips;
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
    out->futex_ns.push_back(pingpong<true>(std::max(trips / 10, 1), cpu_a, cpu_b));
  }
}

}  // namespace sched_bench
