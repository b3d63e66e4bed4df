// arun_alloc_bench: device-memory allocation through aclrtMalloc / aclrtFree under each allocator
// policy, side by side in one process with host allocators (glibc malloc, and mimalloc when found)
// on the same workloads, as a floor.
//
//  (1) Alloc/random/<policy>/<N>/<max MiB>: RMM's random_allocations: N allocations of sizes
//      uniform in [1 B, max], each step an allocation with probability 0.73 or else the free of a
//      random live block, live bytes capped at 4 GiB (a full cap frees first); everything freed at
//      the end. Time per operation.
//  (2) Alloc/mixed/<allocator>: allocate+free pairs of log-uniform sizes 64 B..4 MiB with at most
//      10 000 live blocks (the host allocator baseline of ../shared/research/peer-baselines.md),
//      after an untimed warm-up. ns_per_pair is the mean time of one allocate+free; p50_ns / p99_ns
//      are quantiles of the individually timed pairs.
//  (3) Alloc/train/<policy>: 12 steps of a training-step-like program (bench/training_step.cpp: a
//      small transformer's forward and backward on a compute stream, inputs on a copy stream,
//      gradient buckets on a reduce stream, variable sequence lengths) run directly under the
//      policy: time per step. Alloc/replay/<policy>: the same program's allocation trace, recorded
//      once (ASCEND_RUN_ALLOC_TRACE), replayed under the policy (tools/ascend-run/trace_replay.cpp):
//      ns per allocation call and peak reserved / peak requested.
// The policy is switched by re-initialising the runtime with ASCEND_RUN_ALLOC (outside the timing).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "arun/arun_ext.h"
#include "trace_replay.hpp"
#include "training_step.hpp"
#ifdef ARUN_HAVE_MIMALLOC
#include <mimalloc.h>
#endif

namespace {

#define ALLOC_CHECK(expr)                                                                      \
  do {                                                                                         \
    aclError rc_ = (expr);                                                                     \
    if (rc_ != ACL_SUCCESS) {                                                                  \
      std::fprintf(stderr, "%s failed: %d %s\n", #expr, rc_, aclGetRecentErrMsg());            \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

std::string g_policy;  // the policy the runtime runs with now ("" = not initialised)

void use_policy(const std::string& policy) {
  if (g_policy == policy) return;
  if (!g_policy.empty()) {
    ALLOC_CHECK(aclrtResetDevice(0));
    ALLOC_CHECK(aclFinalize());
  }
  setenv("ASCEND_RUN_ALLOC", policy.c_str(), 1);
  ALLOC_CHECK(aclInit(nullptr));
  ALLOC_CHECK(aclrtSetDevice(0));
  g_policy = policy;
}

// The allocator under test: the runtime's aclrtMalloc, or a host allocator.
struct Allocator {
  void* (*alloc)(size_t);
  void (*free)(void*);
};

void* device_alloc(size_t n) {
  void* p = nullptr;
  aclError rc = aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST);
  return rc == ACL_SUCCESS ? p : nullptr;
}
void device_free(void* p) { ALLOC_CHECK(aclrtFree(p)); }
void* glibc_alloc(size_t n) { return std::malloc(n); }
void glibc_free(void* p) { std::free(p); }
#ifdef ARUN_HAVE_MIMALLOC
void* mi_alloc(size_t n) { return mi_malloc(n); }
void mi_release(void* p) { mi_free(p); }
#endif

void BM_Random(benchmark::State& state, std::string policy) {
  use_policy(policy);
  const auto n = static_cast<size_t>(state.range(0));
  const uint64_t max_bytes = uint64_t(state.range(1)) << 20;
  constexpr uint64_t kCap = 4ull << 30;
  uint64_t ops = 0;
  for (auto _ : state) {
    std::mt19937_64 rng(42);
    std::uniform_int_distribution<uint64_t> size_of(1, max_bytes);
    std::vector<std::pair<void*, uint64_t>> live;
    uint64_t live_bytes = 0;
    size_t made = 0;
    bool failed = false;
    while (made < n && !failed) {
      if (live.empty() || rng() % 100 < 73) {
        const uint64_t bytes = size_of(rng);
        while (live_bytes + bytes > kCap && !live.empty()) {
          const size_t i = rng() % live.size();
          device_free(live[i].first);
          live_bytes -= live[i].second;
          live[i] = live.back();
          live.pop_back();
          ++ops;
        }
        void* p = device_alloc(bytes);
        if (p == nullptr) {
          state.SkipWithError("device out of memory");
          failed = true;
          break;
        }
        live.emplace_back(p, bytes);
        live_bytes += bytes;
        ++made;
      } else {
        const size_t i = rng() % live.size();
        device_free(live[i].first);
        live_bytes -= live[i].second;
        live[i] = live.back();
        live.pop_back();
      }
      ++ops;
    }
    for (auto& [p, bytes] : live) device_free(p);
    ops += live.size();
  }
  state.counters["ns_per_op"] =
      benchmark::Counter(double(ops), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  arunMemStats st{};
  ALLOC_CHECK(arunGetMemStats(0, &st));
  state.counters["peak_reserved_MiB"] = double(st.reserved.peak) / (1 << 20);
  state.counters["peak_requested_MiB"] = double(st.requested.peak) / (1 << 20);
}

void BM_Mixed(benchmark::State& state, Allocator a, std::string policy) {
  if (!policy.empty()) use_policy(policy);
  constexpr size_t kLive = 10000;
  std::mt19937_64 rng(7);
  // log-uniform 64 B .. 4 MiB
  std::uniform_real_distribution<double> log_size(std::log(64.0), std::log(4.0 * 1024 * 1024));
  std::vector<void*> live(kLive, nullptr);
  auto step = [&] {
    const size_t slot = rng() % kLive;
    if (live[slot] != nullptr) a.free(live[slot]);
    live[slot] = a.alloc(static_cast<size_t>(std::exp(log_size(rng))));
    benchmark::DoNotOptimize(live[slot]);
  };
  // Untimed warm-up to the steady state: every slot filled, then as many replacements again, so
  // the timed pairs measure reuse, not the first touch of the memory (the simulated device commits
  // its pages when a chunk is allocated, as HBM is physically there).
  for (size_t i = 0; i < 3 * kLive; ++i) step();
  uint64_t acquires_before = 0;
  if (!policy.empty()) {
    arunMemStats st{};
    ALLOC_CHECK(arunGetMemStats(0, &st));
    acquires_before = st.chunkAcquires;
  }
  // Each pair is timed on its own: the median is the cost of the common case, the mean includes the
  // rare pair that has to take a new chunk from the device.
  std::vector<int64_t> ns;
  ns.reserve(static_cast<size_t>(state.max_iterations));
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ns.begin(), ns.end());
  if (!ns.empty()) {
    state.counters["p50_ns"] = double(ns[ns.size() / 2]);
    state.counters["p99_ns"] = double(ns[ns.size() * 99 / 100]);
  }
  for (void* p : live)
    if (p != nullptr) a.free(p);
  state.counters["ns_per_pair"] =
      benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  if (!policy.empty()) {
    arunMemStats st{};
    ALLOC_CHECK(arunGetMemStats(0, &st));
    state.counters["chunk_acquires"] = double(st.chunkAcquires - acquires_before);  // during the timed pairs
    state.counters["peak_reserved_MiB"] = double(st.reserved.peak) / (1 << 20);
    state.counters["peak_requested_MiB"] = double(st.requested.peak) / (1 << 20);
  }
}

constexpr int kTrainSteps = 12;

// Finalises the runtime of the other benchmarks, so the next one starts from a closed device.
void leave_policy() {
  if (g_policy.empty()) return;
  ALLOC_CHECK(aclrtResetDevice(0));
  ALLOC_CHECK(aclFinalize());
  g_policy.clear();
}

void BM_Train(benchmark::State& state, std::string policy) {
  leave_policy();
  setenv("ASCEND_RUN_ALLOC", policy.c_str(), 1);
  ALLOC_CHECK(aclInit(nullptr));
  ALLOC_CHECK(aclrtSetDevice(0));
  if (training::run(2, 1) != 0) state.SkipWithError("training step failed");  // warm-up
  double seconds = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    if (training::run(kTrainSteps, 2) != 0) state.SkipWithError("training step failed");
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  state.counters["ms_per_step"] = seconds * 1e3 / double(state.iterations() * kTrainSteps);
  arunMemStats st{};
  ALLOC_CHECK(arunGetMemStats(0, &st));
  state.counters["reserved/requested"] = double(st.reserved.peak) / double(std::max<uint64_t>(st.requested.peak, 1));
  ALLOC_CHECK(aclrtResetDevice(0));
  ALLOC_CHECK(aclFinalize());
}

// The training program's trace, recorded once per process.
const replay::Trace& training_trace() {
  static const replay::Trace trace = [] {
    leave_policy();
    char path[] = "/tmp/arun-train-trace-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) std::exit(1);
    close(fd);
    setenv("ASCEND_RUN_ALLOC_TRACE", path, 1);
    setenv("ASCEND_RUN_ALLOC", "caching", 1);
    ALLOC_CHECK(aclInit(nullptr));
    unsetenv("ASCEND_RUN_ALLOC_TRACE");
    ALLOC_CHECK(aclrtSetDevice(0));
    if (training::run(kTrainSteps, 2) != 0) std::exit(1);
    ALLOC_CHECK(aclrtResetDevice(0));
    ALLOC_CHECK(aclFinalize());
    replay::Trace t;
    std::string error;
    if (!replay::load(path, &t, &error)) {
      std::fprintf(stderr, "trace: %s\n", error.c_str());
      std::exit(1);
    }
    std::remove(path);
    return t;
  }();
  return trace;
}

void BM_Replay(benchmark::State& state, std::string policy) {
  const replay::Trace& trace = training_trace();
  replay::Result r;
  double call_seconds = 0;
  uint64_t calls = 0;
  for (auto _ : state) {
    state.PauseTiming();
    setenv("ASCEND_RUN_ALLOC", policy.c_str(), 1);
    ALLOC_CHECK(aclInit(nullptr));
    state.ResumeTiming();
    std::string error;
    if (!replay::run(trace, &r, &error)) state.SkipWithError(error.c_str());
    state.PauseTiming();
    ALLOC_CHECK(aclFinalize());
    state.ResumeTiming();
    call_seconds += r.call_seconds;
    calls += r.calls;
  }
  state.counters["ns_per_call"] = calls == 0 ? 0.0 : call_seconds * 1e9 / double(calls);
  state.counters["calls"] = double(r.calls);
  state.counters["peak_requested_MiB"] = double(r.peak_requested) / (1 << 20);
  state.counters["peak_reserved_MiB"] = double(r.peak_reserved) / (1 << 20);
  state.counters["reserved/requested"] = double(r.peak_reserved) / double(std::max<uint64_t>(r.peak_requested, 1));
  state.counters["chunk_acquires"] = double(r.chunk_acquires);
}

void register_all() {
  const Allocator device{&device_alloc, &device_free};
  for (const char* policy : {"direct", "caching", "bins"}) {
    for (auto [n, mib] : {std::pair{1000, 1}, std::pair{10000, 1}, std::pair{100000, 1}, std::pair{1000, 64},
                          std::pair{10000, 64}, std::pair{100, 1024}}) {
      benchmark::RegisterBenchmark(("Alloc/random/" + std::string(policy)).c_str(), BM_Random, std::string(policy))
          ->Args({n, mib})
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
  }
  for (const char* policy : {"direct", "caching", "caching:expandable_segments=true", "bins"}) {
    benchmark::RegisterBenchmark(("Alloc/mixed/" + std::string(policy)).c_str(), BM_Mixed, device, std::string(policy))
        ->Iterations(std::string(policy) == "direct" ? 20000 : 200000);
  }
  benchmark::RegisterBenchmark("Alloc/mixed/glibc_malloc", BM_Mixed, Allocator{&glibc_alloc, &glibc_free},
                               std::string())
      ->Iterations(200000);
#ifdef ARUN_HAVE_MIMALLOC
  benchmark::RegisterBenchmark("Alloc/mixed/mimalloc", BM_Mixed, Allocator{&mi_alloc, &mi_release}, std::string())
      ->Iterations(200000);
#endif
  for (const char* policy : {"direct", "caching", "caching:expandable_segments=true", "bins"}) {
    benchmark::RegisterBenchmark(("Alloc/train/" + std::string(policy)).c_str(), BM_Train, std::string(policy))
        ->Iterations(1)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  // caching:small_size=512KiB: 1 MiB blocks (gradients here) share large chunks with activations
  // instead of filling small chunks while their streams catch up. expandable_segments: large blocks
  // from one growing range, so no chunk tail is stranded.
  for (const char* policy : {"direct", "caching", "caching:small_size=512KiB", "caching:expandable_segments=true",
                             "caching:expandable_segments=true,small_size=512KiB", "bins"}) {
    benchmark::RegisterBenchmark(("Alloc/replay/" + std::string(policy)).c_str(), BM_Replay, std::string(policy))
        ->Iterations(3)
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!g_policy.empty()) {
    (void)aclrtResetDevice(0);
    (void)aclFinalize();
  }
  return 0;
}
