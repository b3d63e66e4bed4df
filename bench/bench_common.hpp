// Shared state of the arun_bench benchmarks: one aclInit per process, device 0, and the streams,
// events and buffers every benchmark reuses. main() creates it after aclInit and destroys it
// before aclFinalize; benchmarks reach it through bench::g().
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include "acl/acl.h"
#include "arun/arun_ext.h"

#define BENCH_CHECK(call)                                                                                    \
  do {                                                                                                       \
    aclError rc_ = (call);                                                                                   \
    if (rc_ != ACL_SUCCESS) {                                                                                \
      const char* msg_ = aclGetRecentErrMsg();                                                               \
      std::fprintf(stderr, "%s:%d: %s failed: %d (%s)\n", __FILE__, __LINE__, #call, rc_, msg_ ? msg_ : ""); \
      std::exit(2);                                                                                          \
    }                                                                                                        \
  } while (0)

namespace bench {

constexpr size_t kTinyBytes = 64;              // the "does nothing" memset
constexpr size_t kMaxCopyBytes = 64ull << 20;  // largest copy size measured
constexpr int64_t kEnqueueBatch = 10000;       // tasks per timed enqueue loop
constexpr int64_t kRoundTripIters = 2000;      // as the PoCL baseline (2000 iterations per repetition)

struct Globals {
  aclrtStream stream = nullptr;    // stream A: every single-stream benchmark
  aclrtStream stream_b = nullptr;  // stream B: the cross-stream benchmarks
  aclrtEvent event = nullptr;
  void* dev_tiny = nullptr;    // 64 B target of the tiny memsets (stream A)
  void* dev_tiny_b = nullptr;  // 64 B target of the tiny memsets (stream B)
  // Copy buffers, kMaxCopyBytes each, all touched before any measurement.
  void* pinned_a = nullptr;  // aclrtMallocHost
  void* pinned_b = nullptr;  // aclrtMallocHost
  void* dev_a = nullptr;     // aclrtMalloc
  void* dev_b = nullptr;     // aclrtMalloc
  void* host_a = nullptr;    // plain aligned_alloc (host memcpy floor)
  void* host_b = nullptr;
};

Globals& g();
void setup();     // after aclInit + aclrtSetDevice(0)
void teardown();  // before aclFinalize

// The device task that does nothing.
inline void empty_task(void*) {}

inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Per-iteration latency samples of one repetition -> p50 / p90 / p99 counters in microseconds.
// Google Benchmark's own Time column is the mean over the iterations; the median is what the
// peer baselines quote, so both are reported.
class LatencySamples {
 public:
  explicit LatencySamples(size_t expected) { ns_.reserve(expected); }
  void add(int64_t ns) { ns_.push_back(ns); }
  void report(benchmark::State& state) {
    if (ns_.empty()) return;
    std::sort(ns_.begin(), ns_.end());
    auto q = [&](double p) { return double(ns_[size_t(p * double(ns_.size() - 1))]) / 1e3; };
    state.counters["p50_us"] = q(0.50);
    state.counters["p90_us"] = q(0.90);
    state.counters["p99_us"] = q(0.99);
  }

 private:
  std::vector<int64_t> ns_;
};

// The console reporter of arun_bench; it keeps the copies' x_memcpy_p50 and prints them as one
// table at the end (copy_bench.cpp).
class CopyTable : public benchmark::ConsoleReporter {
 public:
  // Colour only on a terminal, as Google Benchmark's own default (--benchmark_color=auto).
  CopyTable() : ConsoleReporter(isatty(STDOUT_FILENO) ? OO_Color : OO_None) {}
  void ReportRuns(const std::vector<Run>& runs) override;
  void print() const;

 private:
  struct Cell {
    bool from_median = false;
    double x = 0;
  };
  std::map<std::string, std::map<std::string, Cell>> cells_;  // size -> column -> cell
};

}  // namespace bench
