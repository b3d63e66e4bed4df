// The peer runtimes arun_sched_bench measures beside ascend-run. Each peer registers benchmarks
// named "<peer>/host_cost", "/host_cost_held", "/host_cost_draining", "/throughput", "/round_trip",
// "/cross_stream" with the same counters as ours, so the summary can print ratios. A peer whose library was not found
// at configure time is not compiled in (ARUN_HAVE_OPENCL / ARUN_HAVE_STARPU).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sched_bench {

struct Peer {
  const char* name;
  bool (*setup)(std::string* why);
  void (*register_all)();
  void (*teardown)();
};

int64_t now_ns();
void report_quantiles(benchmark::State& state, std::vector<int64_t>& ns);

// The measurements every runtime gets, each runtime supplying its own enqueue and wait.
// Host cost: `batch` enqueues timed (manual time), the drain after them untimed; counter ns_per_task.
template <class Enqueue, class Drain>
void measure_host_cost(benchmark::State& state, int64_t batch, Enqueue enqueue, Drain drain) {
  int64_t ns = 0;
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    for (int64_t i = 0; i < batch; ++i) enqueue();
    const int64_t t1 = now_ns();
    state.SetIterationTime(double(t1 - t0) / 1e9);
    ns += t1 - t0;
    drain();
  }
  state.counters["ns_per_task"] = double(ns) / double(state.iterations() * batch);
}

// Host cost while the device holds the work: hold() blocks the device (a gate ahead of the work),
// `batch` enqueues are timed, release() opens the gate and drains, untimed; counter ns_per_task.
template <class Hold, class Enqueue, class Release>
void measure_host_cost_held(benchmark::State& state, int64_t batch, Hold hold, Enqueue enqueue, Release release) {
  int64_t ns = 0;
  for (auto _ : state) {
    hold();
    const int64_t t0 = now_ns();
    for (int64_t i = 0; i < batch; ++i) enqueue();
    const int64_t t1 = now_ns();
    state.SetIterationTime(double(t1 - t0) / 1e9);
    ns += t1 - t0;
    release();
  }
  state.counters["ns_per_task"] = double(ns) / double(state.iterations() * batch);
}

// Throughput: `tasks` enqueues and the drain, all timed; counter tasks_per_s.
template <class Enqueue, class Drain>
void measure_throughput(benchmark::State& state, int64_t tasks, Enqueue enqueue, Drain drain) {
  int64_t ns = 0;
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    for (int64_t i = 0; i < tasks; ++i) enqueue();
    drain();
    const int64_t t1 = now_ns();
    state.SetIterationTime(double(t1 - t0) / 1e9);
    ns += t1 - t0;
  }
  state.counters["tasks_per_s"] = double(state.iterations() * tasks) / (double(ns) / 1e9);
}

// Latency: once() per iteration, timed on its own; p50/p90/p99 counters.
template <class Once>
void measure_latency(benchmark::State& state, Once once) {
  std::vector<int64_t> lat;
  lat.reserve(static_cast<size_t>(state.max_iterations));
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    once();
    lat.push_back(now_ns() - t0);
  }
  report_quantiles(state, lat);
}

// Same sizes as the ascend-run benchmarks.
inline constexpr int64_t kPeerHostBatch = 1000;
inline constexpr int64_t kPeerDrainBatch = 10000;
inline constexpr int64_t kPeerThroughputTasks = 100000;
inline constexpr int kPeerLatencyIters = 2000;

#ifdef ARUN_HAVE_OPENCL
Peer pocl_peer();
#endif
#ifdef ARUN_HAVE_STARPU
Peer starpu_peer();
#endif

inline std::vector<Peer> peer_benchmarks() {
  std::vector<Peer> peers;
#ifdef ARUN_HAVE_OPENCL
  peers.push_back(pocl_peer());
#endif
#ifdef ARUN_HAVE_STARPU
  peers.push_back(starpu_peer());
#endif
  return peers;
}

}  // namespace sched_bench
