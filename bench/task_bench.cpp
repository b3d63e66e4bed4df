// Per-task costs on one stream: (1) host time to enqueue a tiny task, (2) enqueue + synchronize
// round trip of one tiny task. The tiny tasks do nothing useful: a 64-byte aclrtMemsetAsync on
// device memory (runs on a copy engine) and arunLaunchDeviceTask with an empty function (runs on
// an AI core).
#include <sched.h>
#include <unistd.h>

#include "bench_common.hpp"

namespace bench {
namespace {

enum class Tiny { Memset64B, EmptyDeviceTask };

inline void enqueue_tiny(Tiny kind, aclrtStream stream, void* dev) {
  if (kind == Tiny::Memset64B) {
    BENCH_CHECK(aclrtMemsetAsync(dev, kTinyBytes, 0, kTinyBytes, stream));
  } else {
    BENCH_CHECK(arunLaunchDeviceTask(&empty_task, nullptr, stream));
  }
}

// (1) N enqueues back to back, timed; then one synchronize, not timed (manual time), so the queue
// never holds more than N tasks. Counters:
//   ns_per_enqueue: host time per enqueue call
//   drain_us:       how long the synchronize still waited after the last enqueue returned
//   tasks_per_s:    N / (enqueue time + drain), i.e. end-to-end throughput of the stream
// The *_drain_by_query variants (diagnostic) wait for the drain by polling aclrtStreamQuery every
// 200 us instead of blocking in aclrtSynchronizeStream: a drain that is much faster that way means
// the blocked synchronize slows the device down (its wake-ups cost the completing unit threads).
enum class Drain { Synchronize, QuerySleep };

template <Tiny kKind, Drain kDrain = Drain::Synchronize>
void BM_Enqueue(benchmark::State& state) {
  const int64_t n = state.range(0);
  Globals& s = g();
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  int64_t enqueue_ns = 0;
  int64_t drain_ns = 0;
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    for (int64_t i = 0; i < n; ++i) enqueue_tiny(kKind, s.stream, s.dev_tiny);
    const int64_t t1 = now_ns();
    if (kDrain == Drain::QuerySleep) {
      // No thread waits inside the runtime while the stream drains.
      aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
      for (;;) {
        BENCH_CHECK(aclrtStreamQuery(s.stream, &st));
        if (st == ACL_STREAM_STATUS_COMPLETE) break;
        usleep(200);
      }
    }
    BENCH_CHECK(aclrtSynchronizeStream(s.stream));
    const int64_t t2 = now_ns();
    state.SetIterationTime(double(t1 - t0) / 1e9);
    enqueue_ns += t1 - t0;
    drain_ns += t2 - t1;
  }
  const double iters = double(state.iterations());
  state.counters["ns_per_enqueue"] = double(enqueue_ns) / (iters * double(n));
  state.counters["drain_us"] = double(drain_ns) / iters / 1e3;
  state.counters["tasks_per_s"] = iters * double(n) / (double(enqueue_ns + drain_ns) / 1e9);
  state.SetItemsProcessed(state.iterations() * n);
}

// (2) One tiny task + aclrtSynchronizeStream per iteration on an idle stream. Time = mean per
// iteration; p50_us / p90_us / p99_us = per-iteration quantiles of this repetition.
template <Tiny kKind>
void BM_RoundTrip(benchmark::State& state) {
  Globals& s = g();
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  LatencySamples samples(size_t(state.max_iterations));
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    enqueue_tiny(kKind, s.stream, s.dev_tiny);
    BENCH_CHECK(aclrtSynchronizeStream(s.stream));
    samples.add(now_ns() - t0);
  }
  samples.report(state);
}

// Diagnostic: the same round trip, but the host waits by polling aclrtStreamQuery with
// sched_yield() in between instead of aclrtSynchronizeStream (which spins, then sleeps on a futex).
// If this is much faster than RoundTrip/memset64B in the tail, the synchronize's spin is keeping
// the device's unit thread off the CPU (on 2 cores the woken unit can land behind the spinner).
void BM_RoundTripQueryYield(benchmark::State& state) {
  Globals& s = g();
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  LatencySamples samples(size_t(state.max_iterations));
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    enqueue_tiny(Tiny::Memset64B, s.stream, s.dev_tiny);
    aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
    for (;;) {
      BENCH_CHECK(aclrtStreamQuery(s.stream, &st));
      if (st == ACL_STREAM_STATUS_COMPLETE) break;
      sched_yield();
    }
    samples.add(now_ns() - t0);
  }
  samples.report(state);
}

// Reference: aclrtSynchronizeStream on a stream that is already idle (the floor of every round
// trip above: API entry, handle lookup, the completed-counter check).
void BM_SyncIdleStream(benchmark::State& state) {
  Globals& s = g();
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  for (auto _ : state) BENCH_CHECK(aclrtSynchronizeStream(s.stream));
}


BENCHMARK(BM_Enqueue<Tiny::Memset64B>)->Name("Enqueue/memset64B")->Arg(kEnqueueBatch)->UseManualTime()
    ->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Enqueue<Tiny::EmptyDeviceTask>)->Name("Enqueue/empty_device_task")->Arg(kEnqueueBatch)->UseManualTime()
    ->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Enqueue<Tiny::Memset64B, Drain::QuerySleep>)->Name("Enqueue/memset64B_drain_by_query")
    ->Arg(kEnqueueBatch)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Enqueue<Tiny::EmptyDeviceTask, Drain::QuerySleep>)->Name("Enqueue/empty_device_task_drain_by_query")
    ->Arg(kEnqueueBatch)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RoundTrip<Tiny::Memset64B>)->Name("RoundTrip/memset64B")->UseRealTime()
    ->Iterations(kRoundTripIters)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RoundTrip<Tiny::EmptyDeviceTask>)->Name("RoundTrip/empty_device_task")->UseRealTime()
    ->Iterations(kRoundTripIters)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RoundTripQueryYield)->Name("RoundTrip/memset64B_query_yield")->UseRealTime()
    ->Iterations(kRoundTripIters)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SyncIdleStream)->Name("RoundTrip/sync_idle_stream")->UseRealTime()->MinTime(0.05);

}  // namespace
}  // namespace bench
