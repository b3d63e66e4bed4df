// (4) Events: record + synchronize on an idle stream, and cross-stream dependencies through an
// event (stream A records, stream B waits on it and then runs a tiny task; the host synchronizes
// stream B). Every benchmark reports the mean per iteration (Time) and per-iteration p50/p90/p99.
#include "bench_common.hpp"

namespace bench {
namespace {

constexpr int64_t kIters = 2000;

inline void memset_tiny(aclrtStream stream, void* dev) {
  BENCH_CHECK(aclrtMemsetAsync(dev, kTinyBytes, 0, kTinyBytes, stream));
}

// aclrtRecordEvent on an idle stream + aclrtSynchronizeEvent.
void BM_EventRecordSync(benchmark::State& state) {
  Globals& s = g();
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  LatencySamples samples(kIters);
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    BENCH_CHECK(aclrtRecordEvent(s.event, s.stream));
    BENCH_CHECK(aclrtSynchronizeEvent(s.event));
    samples.add(now_ns() - t0);
  }
  samples.report(state);
}

// Tiny memset, aclrtRecordEvent after it, aclrtSynchronizeEvent: the event round trip of real
// work (compare with RoundTrip/memset64B, which synchronizes the stream instead).
void BM_EventAfterTaskSync(benchmark::State& state) {
  Globals& s = g();
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  LatencySamples samples(kIters);
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    memset_tiny(s.stream, s.dev_tiny);
    BENCH_CHECK(aclrtRecordEvent(s.event, s.stream));
    BENCH_CHECK(aclrtSynchronizeEvent(s.event));
    samples.add(now_ns() - t0);
  }
  samples.report(state);
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
}

// Stream A records (nothing before it), stream B waits on the event and runs a tiny memset; the
// host synchronizes B. Measures the cross-stream wait machinery with an already-satisfiable event.
void BM_CrossStreamWait(benchmark::State& state) {
  Globals& s = g();
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  BENCH_CHECK(aclrtSynchronizeStream(s.stream_b));
  LatencySamples samples(kIters);
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    BENCH_CHECK(aclrtRecordEvent(s.event, s.stream));
    BENCH_CHECK(aclrtStreamWaitEvent(s.stream_b, s.event));
    memset_tiny(s.stream_b, s.dev_tiny_b);
    BENCH_CHECK(aclrtSynchronizeStream(s.stream_b));
    samples.add(now_ns() - t0);
  }
  samples.report(state);
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
}

// As the PoCL crossqueue_event_dep baseline: a tiny task on A, A records, B waits and runs a tiny
// task, the host synchronizes B. B's task can start only after A's task completed.
void BM_CrossStreamDep(benchmark::State& state) {
  Globals& s = g();
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  BENCH_CHECK(aclrtSynchronizeStream(s.stream_b));
  LatencySamples samples(kIters);
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    memset_tiny(s.stream, s.dev_tiny);
    BENCH_CHECK(aclrtRecordEvent(s.event, s.stream));
    BENCH_CHECK(aclrtStreamWaitEvent(s.stream_b, s.event));
    memset_tiny(s.stream_b, s.dev_tiny_b);
    BENCH_CHECK(aclrtSynchronizeStream(s.stream_b));
    samples.add(now_ns() - t0);
  }
  samples.report(state);
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
}

// Baseline for CrossStreamDep: the same two tiny tasks on one stream + synchronize
// (PoCL samequeue_2kernels_finish).
void BM_SameStream2Tasks(benchmark::State& state) {
  Globals& s = g();
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  LatencySamples samples(kIters);
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    memset_tiny(s.stream, s.dev_tiny);
    memset_tiny(s.stream, s.dev_tiny);
    BENCH_CHECK(aclrtSynchronizeStream(s.stream));
    samples.add(now_ns() - t0);
  }
  samples.report(state);
}

BENCHMARK(BM_EventRecordSync)->Name("Event/record_sync_idle")->UseRealTime()->Iterations(kIters)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_EventAfterTaskSync)->Name("Event/memset64B_record_sync")->UseRealTime()->Iterations(kIters)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CrossStreamWait)->Name("Event/cross_stream_wait_memset64B")->UseRealTime()->Iterations(kIters)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CrossStreamDep)->Name("Event/cross_stream_dep_2x_memset64B")->UseRealTime()->Iterations(kIters)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SameStream2Tasks)->Name("Event/same_stream_2x_memset64B")->UseRealTime()->Iterations(kIters)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace bench
