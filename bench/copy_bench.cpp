// (3) Copy bandwidth: H2D, D2H and D2D through aclrtMemcpyAsync + aclrtSynchronizeStream and
// through the synchronous aclrtMemcpy, for 64 KiB, 1 MiB, 16 MiB and 64 MiB, next to a host
// std::memcpy of the same size (the physical floor: the simulated device's memory is host memory).
// Host sides are pinned (aclrtMallocHost). Every buffer was touched in setup(), so no first-touch
// page fault is measured. Two ways to compare with memcpy: the Copy/<size>/host_memcpy row runs just
// before the runtime copies of that size, and every runtime copy row carries x_memcpy, measured
// interleaved with it (see run_copy).
#include <cstring>
#include <string>

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
    case Dir::H2D: return {s.dev_a, s.pinned_a, ACL_MEMCPY_HOST_TO_DEVICE};
    case Dir::D2H: return {s.pinned_b, s.dev_a, ACL_MEMCPY_DEVICE_TO_HOST};
    case Dir::D2D: return {s.dev_b, s.dev_a, ACL_MEMCPY_DEVICE_TO_DEVICE};
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
template <class Copy>
void run_copy(benchmark::State& state, size_t bytes, Copy copy) {
  Globals& s = g();
  int64_t ours_ns = 0;
  int64_t memcpy_ns = 0;
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
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
  if (ours_ns > 0) state.counters["x_memcpy"] = double(memcpy_ns) / double(ours_ns);
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
        ->UseRealTime()->MinTime(min_time)->Unit(benchmark::kMicrosecond);
    for (auto [dir, name] : dirs) {
      benchmark::RegisterBenchmark((prefix + name + "_async").c_str(), BM_CopyAsync, dir, size_t(size))
          ->UseManualTime()->MinTime(min_time)->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark((prefix + name + "_sync").c_str(), BM_CopySync, dir, size_t(size))
          ->UseManualTime()->MinTime(min_time)->Unit(benchmark::kMicrosecond);
    }
  }
  return true;
}();

}  // namespace
}  // namespace bench
