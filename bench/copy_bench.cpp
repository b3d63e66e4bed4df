// (3) Copy bandwidth: H2D, D2H and D2D through aclrtMemcpyAsync + aclrtSynchronizeStream and
// through the synchronous aclrtMemcpy, for 64 KiB, 1 MiB, 16 MiB and 64 MiB, next to a host
// std::memcpy of the same size (the physical floor: the simulated device's memory is host memory).
// Host sides are pinned (aclrtMallocHost). Every buffer was touched in setup(), so no first-touch
// page fault is measured. For each size the host memcpy is registered first and the runtime
// copies right after it, so that the ratio compares numbers taken seconds apart.
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

void BM_CopyAsync(benchmark::State& state, Dir dir, size_t bytes) {
  Globals& s = g();
  const Ends e = ends(dir);
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  for (auto _ : state) {
    BENCH_CHECK(aclrtMemcpyAsync(e.dst, bytes, e.src, bytes, e.kind, s.stream));
    BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}

void BM_CopySync(benchmark::State& state, Dir dir, size_t bytes) {
  const Ends e = ends(dir);
  for (auto _ : state) BENCH_CHECK(aclrtMemcpy(e.dst, bytes, e.src, bytes, e.kind));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}

std::string size_name(int64_t bytes) {
  return bytes >= (1 << 20) ? std::to_string(bytes >> 20) + "MiB" : std::to_string(bytes >> 10) + "KiB";
}

const bool registered = [] {
  const int64_t sizes[] = {64 << 10, 1 << 20, 16 << 20, 64 << 20};
  const std::pair<Dir, const char*> dirs[] = {{Dir::H2D, "H2D"}, {Dir::D2H, "D2H"}, {Dir::D2D, "D2D"}};
  // About 50 ms of copying per benchmark: a 64 MiB copy takes ~5-10 ms here.
  constexpr double kMinTime = 0.05;
  for (int64_t size : sizes) {
    const std::string prefix = "Copy/" + size_name(size) + "/";
    benchmark::RegisterBenchmark((prefix + "host_memcpy").c_str(), BM_HostMemcpy, size_t(size))
        ->UseRealTime()->MinTime(kMinTime)->Unit(benchmark::kMicrosecond);
    for (auto [dir, name] : dirs) {
      benchmark::RegisterBenchmark((prefix + name + "_async").c_str(), BM_CopyAsync, dir, size_t(size))
          ->UseRealTime()->MinTime(kMinTime)->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark((prefix + name + "_sync").c_str(), BM_CopySync, dir, size_t(size))
          ->UseRealTime()->MinTime(kMinTime)->Unit(benchmark::kMicrosecond);
    }
  }
  return true;
}();

}  // namespace
}  // namespace bench
