// The peer runtimes arun_sched_bench measures beside ascend-run. Each peer registers benchmarks
// named "<peer>/host_cost", "/throughput", "/round_trip", "/cross_stream" with the same counters as
// ours, so the summary can print ratios. A peer whose library was not found at configure time is
// not compiled in (ARUN_HAVE_OPENCL / ARUN_HAVE_STARPU).
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

// Same sizes as the ascend-run benchmarks.
inline constexpr int64_t kPeerHostBatch = 1000;
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
