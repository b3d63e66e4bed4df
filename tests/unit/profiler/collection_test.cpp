// The collection layer under the sinks, without a runtime: per-thread rings (a thread's ring is
// freed by the first drain after the thread exits), the TSC record clock, and the raw API-span
// records that drain() completes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <thread>
#include <vector>

#include "arun/runtime/recorder.hpp"
#include "prof/trace_rings.hpp"

namespace arun::prof {
namespace {

using plugin::Record;
using plugin::RecordKind;

std::vector<Record> drain_all() {
  std::vector<Record> out;
  uint64_t dropped = 0;
  TraceRings::drain(&out, &dropped);
  EXPECT_EQ(dropped, 0u);
  return out;
}

void emit_marks(int n) {
  for (int i = 0; i < n; ++i) {
    Record r = make_record(RecordKind::Mark);
    r.t0 = r.t1 = now_ns();
    r.value0 = static_cast<uint64_t>(i);
    emit(r);
  }
}

TEST(TraceRings, RingsOfExitedThreadsAreFreedByTheNextDrain) {
  drain_all();  // rings retired by earlier tests go
  const size_t base = TraceRings::ring_count();
  constexpr int kThreads = 4, kRecords = 3;
  std::atomic<int> emitted{0};
  std::atomic<bool> leave{false};
  std::vector<std::thread> threads;
  std::set<uint32_t> tids;
  std::atomic<uint32_t> tid_slots[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      tid_slots[t] = thread_id();
      emit_marks(kRecords);
      ++emitted;
      while (!leave) std::this_thread::yield();
    });
  }
  while (emitted < kThreads) std::this_thread::yield();
  EXPECT_EQ(TraceRings::ring_count(), base + kThreads);  // one ring per live thread that emitted
  leave = true;
  for (auto& th : threads) th.join();
  for (auto& t : tid_slots) tids.insert(t.load());
  EXPECT_EQ(TraceRings::ring_count(), base + kThreads) << "retired rings wait for the drain";
  std::vector<Record> out = drain_all();
  size_t theirs = 0;
  for (const Record& r : out) theirs += r.kind == RecordKind::Mark && tids.count(r.thread) != 0;
  EXPECT_EQ(theirs, size_t(kThreads * kRecords)) << "a retired ring's records are delivered before it goes";
  EXPECT_EQ(TraceRings::ring_count(), base);
}

TEST(TraceRings, ThreadsThatComeAndGoDoNotAccumulateRings) {
  drain_all();
  const size_t base = TraceRings::ring_count();
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 10; ++i) std::thread([] { emit_marks(1); }).join();
    EXPECT_EQ(drain_all().size(), 10u);
    EXPECT_EQ(TraceRings::ring_count(), base) << "round " << round;
  }
}

// Resident memory of the process, in bytes (/proc/self/statm's second field).
uint64_t resident_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

// A large [profiler] buffer_size reserves address space, not memory: a thread's ring commits its
// pages as records reach them (it used to be mapped with MAP_POPULATE: 256 MiB resident per thread).
TEST(TraceRings, ALargeRingIsCommittedLazily) {
  drain_all();
  TraceRings::set_buffer_bytes(256ull << 20);
  uint64_t before = 0, after = 0;
  std::thread([&] {
    before = resident_bytes();
    emit_marks(3);
    after = resident_bytes();
  }).join();
  TraceRings::set_buffer_bytes(4ull << 20);
  EXPECT_EQ(drain_all().size(), 3u);
  ASSERT_NE(before, 0u);
  EXPECT_LT(after, before + (64ull << 20)) << "a 256 MiB ring made " << (after - before) << " bytes resident";
}

TEST(RecordClock, TscLineAgreesWithTheSteadyClock) {
  if (!calibrate_clock()) GTEST_SKIP() << "no invariant TSC: the steady clock is read directly";
  for (int i = 0; i < 10; ++i) {
    const uint64_t before = steady_ns();
    const uint64_t t = now_ns();
    const uint64_t after = steady_ns();
    // Within the two reads, give or take the fit's error (calibrated over >= 10 ms).
    EXPECT_GE(t + 20000, before);
    EXPECT_LE(t, after + 20000);
  }
  uint64_t last = 0;
  for (int i = 0; i < 10000; ++i) {
    const uint64_t t = ticks_to_ns(ticks());
    ASSERT_GE(t, last) << "the record clock went backwards";
    last = t;
  }
  // A 20 ms interval measured by both clocks.
  const uint64_t s0 = steady_ns(), c0 = now_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const uint64_t s1 = steady_ns(), c1 = now_ns();
  const double ratio = double(c1 - c0) / double(s1 - s0);
  EXPECT_NEAR(ratio, 1.0, 0.01);
}

TEST(ApiSpanRecord, CompletedByTheDrain) {
  drain_all();
  calibrate_clock();
  static const char kName[] = "arunTestApiFunction";
  const uint64_t before = now_ns();
  g_active.store(kApi);
  { ApiSpan span(kName); }
  g_active.store(0);
  const uint64_t after = now_ns();
  std::vector<Record> out = drain_all();
  ASSERT_EQ(out.size(), 1u);
  const Record& r = out[0];
  EXPECT_EQ(r.kind, RecordKind::ApiCall);
  EXPECT_EQ(strings().get(r.name), kName);
  EXPECT_EQ(r.thread, static_cast<uint32_t>(::gettid()));
  EXPECT_EQ(r.device, -1);
  EXPECT_EQ(r.stream, -1);
  EXPECT_NE(r.correlation, 0u);
  EXPECT_EQ(r.value0, 0u) << "the name's address must not reach a sink";
  EXPECT_EQ(r.t2 | r.t3 | r.value1 | r.value2 | r.value3, 0u);
  // Times in nanoseconds on the record clock, inside the span.
  EXPECT_LE(before, r.t0);
  EXPECT_LE(r.t0, r.t1);
  EXPECT_LE(r.t1, after);
}

TEST(ApiSpanRecord, NestedSpansHaveTheirOwnCorrelationAndRestoreTheOuter) {
  drain_all();
  calibrate_clock();
  static const char kOuter[] = "arunTestOuter";
  static const char kInner[] = "arunTestInner";
  g_active.store(kApi);
  uint64_t outer = 0, inner = 0, after_inner = 0;
  {
    ApiSpan a(kOuter);
    outer = current_correlation();
    {
      ApiSpan b(kInner);
      inner = current_correlation();
    }
    after_inner = current_correlation();
  }
  g_active.store(0);
  EXPECT_NE(outer, 0u);
  EXPECT_NE(inner, outer);
  EXPECT_EQ(after_inner, outer) << "the inner span must give the outer one its correlation back";
  EXPECT_EQ(current_correlation(), 0u);
  EXPECT_EQ(current_span_start(), 0u);
  std::vector<Record> out = drain_all();
  ASSERT_EQ(out.size(), 2u);
  const Record& in = out[0].correlation == inner ? out[0] : out[1];
  const Record& outr = out[0].correlation == inner ? out[1] : out[0];
  EXPECT_EQ(strings().get(in.name), kInner);
  EXPECT_EQ(strings().get(outr.name), kOuter);
  EXPECT_EQ(outr.correlation, outer);
  EXPECT_LE(outr.t0, in.t0);
  EXPECT_LE(in.t1, outr.t1) << "the inner span lies within the outer one";
}

TEST(ApiSpanRecord, CorrelationIdsAreUniqueAcrossThreads) {
  drain_all();
  calibrate_clock();
  static const char kName[] = "arunTestThreads";
  constexpr int kThreads = 4, kSpans = 2000;
  g_active.store(kApi);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([] {
      for (int i = 0; i < kSpans; ++i) ApiSpan span(kName);
    });
  }
  for (auto& th : threads) th.join();
  g_active.store(0);
  std::vector<Record> out = drain_all();
  std::set<uint64_t> ids;
  std::set<uint32_t> tids;
  for (const Record& r : out) {
    ASSERT_EQ(r.kind, RecordKind::ApiCall);
    ids.insert(r.correlation);
    tids.insert(r.thread);
  }
  EXPECT_EQ(out.size(), size_t(kThreads * kSpans));
  EXPECT_EQ(ids.size(), out.size()) << "every span has a correlation id of its own";
  EXPECT_EQ(tids.size(), size_t(kThreads)) << "each span carries the thread of its ring";
}

TEST(TraceRings, AFullSpanRingDropsAndCountsTheRest) {
  drain_all();
  calibrate_clock();
  static const char kName[] = "arunTestFull";
  TraceRings::set_buffer_bytes(64 * sizeof(SpanSlot));  // rings made from now on hold 64 spans
  g_active.store(kApi);
  std::thread([] {
    for (int i = 0; i < 100; ++i) ApiSpan span(kName);
  }).join();
  g_active.store(0);
  TraceRings::set_buffer_bytes(4u << 20);
  std::vector<Record> out;
  uint64_t dropped = 0;
  TraceRings::drain(&out, &dropped);
  size_t spans = 0;
  uint64_t reported = 0;
  for (const Record& r : out) {
    spans += r.kind == RecordKind::ApiCall;
    if (r.kind == RecordKind::Dropped) reported += r.value0;
  }
  EXPECT_EQ(spans, 64u) << "a full ring keeps what it holds";
  EXPECT_EQ(dropped, 36u);
  EXPECT_EQ(reported, 36u) << "the drops reach the sinks as a Dropped record";
}

}  // namespace
}  // namespace arun::prof
