// (3) Copy bandwidth: H2D, D2H and D2D through aclrtMemcpyAsync + aclrtSynchronizeStream and
// through the synchronous aclrtMemcpy, for 64 KiB, 1 MiB, 16 MiB and 64 MiB, next to a host
// std::memcpy of the same size (the physical floor: the simulated device's memory is host memory).
// Host sides are pinned (aclrtMallocHost). Every buffer was touched in setup(), so no first-touch
// page fault is measured. Two ways to compare with memcpy: the Copy/<size>/host_memcpy row runs just
// before the runtime copies of that size, and every runtime copy row carries x_memcpy, measured
// interleaved with it (see run_copy).
#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace bench {
namespace {

enum class Dir { H2D, D2H, D2D };

struct Ends {
  void* dst;
  const void* src;
  aclrtMemcpyKind kind;
};

Ends ends(Dir dir) {
  Globals& s = g();
  switch (dir) {
    case Dir::H2D:
      return {s.dev_a, s.pinned_a, ACL_MEMCPY_HOST_TO_DEVICE};
    case Dir::D2H:
      return {s.pinned_b, s.dev_a, ACL_MEMCPY_DEVICE_TO_HOST};
    case Dir::D2D:
      return {s.dev_b, s.dev_a, ACL_MEMCPY_DEVICE_TO_DEVICE};
  }
  return {};
}

void BM_HostMemcpy(benchmark::State& state, size_t bytes) {
  Globals& s = g();
  for (auto _ : state) {
    std::memcpy(s.host_b, s.host_a, bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}

// The runtime copy is timed alone (manual time). Right after it, in the same iteration, the same
// number of bytes is copied with std::memcpy between two host buffers and timed too, so that
// x_memcpy = (memcpy time) / (runtime copy time) = runtime bandwidth / memcpy bandwidth compares
// the two under the same machine load, interleaved copy by copy.
// x_memcpy_p50 is the median of the per-iteration ratios (a preempted iteration moves a mean, not
// the median), and copy_p50_us the median time of one runtime copy (issue 16).
template <class Copy>
void run_copy(benchmark::State& state, size_t bytes, Copy copy) {
  Globals& s = g();
  int64_t ours_ns = 0;
  int64_t memcpy_ns = 0;
  std::vector<double> ratios, ours;
  ratios.reserve(4096);
  ours.reserve(4096);
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    copy();
    const int64_t t1 = now_ns();
    std::memcpy(s.host_b, s.host_a, bytes);
    benchmark::ClobberMemory();
    const int64_t t2 = now_ns();
    state.SetIterationTime(double(t1 - t0) / 1e9);
    ours_ns += t1 - t0;
    memcpy_ns += t2 - t1;
    if (t1 > t0) ratios.push_back(double(t2 - t1) / double(t1 - t0));
    ours.push_back(double(t1 - t0));
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
  if (ours_ns > 0) state.counters["x_memcpy"] = double(memcpy_ns) / double(ours_ns);
  auto median = [](std::vector<double>& v) {
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  if (!ratios.empty()) state.counters["x_memcpy_p50"] = median(ratios);
  if (!ours.empty()) state.counters["copy_p50_us"] = median(ours) / 1e3;
}

// aclrtMemcpyAsync + aclrtSynchronizeStream.
void BM_CopyAsync(benchmark::State& state, Dir dir, size_t bytes) {
  Globals& s = g();
  const Ends e = ends(dir);
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  run_copy(state, bytes, [&] {
    BENCH_CHECK(aclrtMemcpyAsync(e.dst, bytes, e.src, bytes, e.kind, s.stream));
    BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  });
}

// Synchronous aclrtMemcpy.
void BM_CopySync(benchmark::State& state, Dir dir, size_t bytes) {
  const Ends e = ends(dir);
  run_copy(state, bytes, [&] { BENCH_CHECK(aclrtMemcpy(e.dst, bytes, e.src, bytes, e.kind)); });
}

// Direct submission's threshold (issue 16; ASCEND_RUN_DIRECT_SUBMIT): the host time of the
// aclrtMemcpyAsync call alone (the copy is synchronized outside the timed region), whose median is
// issue_p50_us. With direct submission a copy up to the threshold runs inside the call, so this is
// what a program that overlaps host work with its copies pays; without it the call only queues.
void BM_CopyIssue(benchmark::State& state, Dir dir, size_t bytes) {
  Globals& s = g();
  const Ends e = ends(dir);
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  std::vector<double> issue;
  issue.reserve(4096);
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    BENCH_CHECK(aclrtMemcpyAsync(e.dst, bytes, e.src, bytes, e.kind, s.stream));
    const int64_t t1 = now_ns();
    BENCH_CHECK(aclrtSynchronizeStream(s.stream));
    state.SetIterationTime(double(t1 - t0) / 1e9);
    issue.push_back(double(t1 - t0));
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
  if (!issue.empty()) {
    std::nth_element(issue.begin(), issue.begin() + std::ptrdiff_t(issue.size() / 2), issue.end());
    state.counters["issue_p50_us"] = issue[issue.size() / 2] / 1e3;
  }
}

std::string size_name(int64_t bytes) {
  return bytes >= (1 << 20) ? std::to_string(bytes >> 20) + "MiB" : std::to_string(bytes >> 10) + "KiB";
}

const bool registered = [] {
  const int64_t sizes[] = {64 << 10, 1 << 20, 16 << 20, 64 << 20};
  const std::pair<Dir, const char*> dirs[] = {{Dir::H2D, "H2D"}, {Dir::D2H, "D2H"}, {Dir::D2D, "D2D"}};
  for (int64_t size : sizes) {
    // A 64 MiB copy takes ~5-20 ms here: give the large sizes enough iterations.
    const double min_time = size >= (16 << 20) ? 0.15 : 0.05;
    const std::string prefix = "Copy/" + size_name(size) + "/";
    benchmark::RegisterBenchmark((prefix + "host_memcpy").c_str(), BM_HostMemcpy, size_t(size))
        ->UseRealTime()
        ->MinTime(min_time)
        ->Unit(benchmark::kMicrosecond);
    for (auto [dir, name] : dirs) {
      benchmark::RegisterBenchmark((prefix + name + "_async").c_str(), BM_CopyAsync, dir, size_t(size))
          ->UseManualTime()
          ->MinTime(min_time)
          ->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark((prefix + name + "_sync").c_str(), BM_CopySync, dir, size_t(size))
          ->UseManualTime()
          ->MinTime(min_time)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  // The crossover sizes of direct submission: the round trip (x_memcpy_p50, copy_p50_us) and the
  // issue cost (issue_p50_us) of an H2D and a D2D copy, run with ASCEND_RUN_DIRECT_SUBMIT=0 and
  // with it on (bench/README.md, "Direct submission").
  for (int64_t size : {int64_t(4) << 10, int64_t(16) << 10, int64_t(64) << 10, int64_t(128) << 10, int64_t(256) << 10,
                       int64_t(512) << 10, int64_t(1) << 20}) {
    const std::string prefix = "Direct/" + size_name(size) + "/";
    for (auto [dir, name] : {std::pair{Dir::H2D, "H2D"}, std::pair{Dir::D2D, "D2D"}}) {
      benchmark::RegisterBenchmark((prefix + name + "_roundtrip").c_str(), BM_CopyAsync, dir, size_t(size))
          ->UseManualTime()
          ->MinTime(0.05)
          ->Unit(benchmark::kMicrosecond);
      // A fixed count: the manual time (~1 us an iteration) is a small part of the real time (the
      // synchronize), so a minimum time would run the large sizes for minutes on a loaded machine.
      benchmark::RegisterBenchmark((prefix + name + "_issue").c_str(), BM_CopyIssue, dir, size_t(size))
          ->UseManualTime()
          ->Iterations(4000)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  return true;
}();

}  // namespace

// Issue 16's copy table: x_memcpy_p50 of every async and sync copy that ran (the median aggregate
// when there were repetitions), against the targets >= 0.8 at 64 KiB and >= 0.9 from 1 MiB.
void CopyTable::ReportRuns(const std::vector<Run>& runs) {
  for (const auto& r : runs) {
    const bool median = r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
    if (r.run_type == Run::RT_Aggregate && !median) continue;
    const std::string name = r.run_name.function_name;
    auto c = r.counters.find("x_memcpy_p50");
    if (name.rfind("Copy/", 0) != 0 || c == r.counters.end()) continue;
    const size_t slash = name.find('/', 5);
    Cell& cell = cells_[name.substr(5, slash - 5)][name.substr(slash + 1)];
    if (!median && cell.from_median) continue;
    cell.from_median = median;
    cell.x = c->second.value;
  }
  ConsoleReporter::ReportRuns(runs);
}

void CopyTable::print() const {
  if (cells_.empty()) return;
  std::printf("\n== copies: runtime bandwidth / host memcpy, median of the per-copy ratios (x_memcpy_p50)\n");
  const char* cols[] = {"H2D_async", "D2H_async", "D2D_async", "H2D_sync", "D2H_sync", "D2D_sync"};
  std::printf("%-8s", "size");
  for (const char* c : cols) std::printf(" %10s", c);
  std::printf("  target (async)\n");
  const char* order[] = {"64KiB", "1MiB", "16MiB", "64MiB"};
  for (const char* size : order) {
    auto it = cells_.find(size);
    if (it == cells_.end()) continue;
    const double target = std::string(size) == "64KiB" ? 0.8 : 0.9;
    bool met = true;
    std::printf("%-8s", size);
    for (const char* c : cols) {
      auto cell = it->second.find(c);
      if (cell == it->second.end()) {
        std::printf(" %10s", "-");
        continue;
      }
      std::printf(" %10.2f", cell->second.x);
      if (std::string(c).find("async") != std::string::npos && cell->second.x < target) met = false;
    }
    std::printf("  >= %.1f %s\n", target, met ? "met" : "MISS");
  }
}

}  // namespace bench
