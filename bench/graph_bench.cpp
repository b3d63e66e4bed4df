// Captured task graphs (spec part 2, 4.12): host cost per node of replaying a captured graph of N
// tiny nodes (aclmdlRIExecuteAsync, one call) against launching the same N empty kernels one by one
// (arun::launch), for N = 10, 100, 1000. Both time only the host calls (manual time); the
// synchronize that follows is untimed but reported as end_to_end_ns_per_node (submission to
// completion), so "the device finishes no later" can be read off too.
#include <map>

#include "arun/kernel.hpp"
#include "bench_common.hpp"

namespace bench {
namespace {

void empty_kernel(arun::Block) {}

// One instance per node count, captured on first use on stream B (replays go to stream A).
aclmdlRI graph_of(int64_t nodes) {
  static std::map<int64_t, aclmdlRI> graphs;
  aclmdlRI& g = graphs[nodes];
  if (g == nullptr) {
    aclrtStream s = bench::g().stream_b;
    BENCH_CHECK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    for (int64_t i = 0; i < nodes; ++i) BENCH_CHECK(arun::launch(s, 1, empty_kernel));
    BENCH_CHECK(aclmdlRICaptureEnd(s, &g));
  }
  return g;
}

template <bool kReplay>
void BM_GraphNodes(benchmark::State& state) {
  const int64_t n = state.range(0);
  Globals& s = g();
  aclmdlRI graph = kReplay ? graph_of(n) : nullptr;
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  int64_t host_ns = 0, total_ns = 0;
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    if constexpr (kReplay) {
      BENCH_CHECK(aclmdlRIExecuteAsync(graph, s.stream));
    } else {
      for (int64_t i = 0; i < n; ++i) BENCH_CHECK(arun::launch(s.stream, 1, empty_kernel));
    }
    const int64_t t1 = now_ns();
    BENCH_CHECK(aclrtSynchronizeStream(s.stream));
    const int64_t t2 = now_ns();
    state.SetIterationTime(double(t1 - t0) / 1e9);
    host_ns += t1 - t0;
    total_ns += t2 - t0;
  }
  const double per = double(state.iterations()) * double(n);
  state.counters["host_ns_per_node"] = double(host_ns) / per;
  state.counters["end_to_end_ns_per_node"] = double(total_ns) / per;
  state.SetItemsProcessed(state.iterations() * n);
}

BENCHMARK_TEMPLATE(BM_GraphNodes, true)
    ->Name("Graph/replay")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->UseManualTime()
    ->MinTime(0.2);
BENCHMARK_TEMPLATE(BM_GraphNodes, false)
    ->Name("Graph/launch_one_by_one")
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->UseManualTime()
    ->MinTime(0.2);

}  // namespace
}  // namespace bench
