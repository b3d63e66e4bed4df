// Kernel launches (arun/kernel.hpp, arunLaunchKernel): (1) host cost of launching an empty kernel,
// side by side with the plain device task it is built like; (2) launch + synchronize round trip of
// an empty kernel with 1, 20 (one per AI core) and 1000 blocks, where the blocks spread over the
// idle AI cores. (1) also launches an empty kernel of a kernel binary with aclrtLaunchKernelWithConfig
// (spec part 2, 4.11) to compare with the C++ template launch.
#include "arun/kernel.hpp"
#include "bench_common.hpp"

namespace bench {
namespace {

void empty_kernel(arun::Block) {}
void empty_c_kernel(arunBlock*, void*) {}

enum class Launch { Cpp, CAbi, DeviceTask, BinaryWithConfig };

// The empty kernel of the bench kernel binary (bench/kernel_binaries/empty.cpp), loaded once, and a
// finalized argument handle for it: what a CANN program holds between launches.
struct BinaryKernel {
  aclrtBinHandle bin = nullptr;
  aclrtFuncHandle fn = nullptr;
  aclrtArgsHandle args = nullptr;
};
BinaryKernel& binary_kernel() {
  static BinaryKernel k = [] {
    BinaryKernel b;
    BENCH_CHECK(aclrtBinaryLoadFromFile(ARUN_BENCH_KERNEL_BINARY, nullptr, &b.bin));
    BENCH_CHECK(aclrtBinaryGetFunction(b.bin, "bench_empty", &b.fn));
    BENCH_CHECK(aclrtKernelArgsInit(b.fn, &b.args));
    uint64_t a = 1;
    uint32_t c = 2;
    aclrtParamHandle p = nullptr;
    BENCH_CHECK(aclrtKernelArgsAppend(b.args, &a, sizeof a, &p));
    BENCH_CHECK(aclrtKernelArgsAppend(b.args, &c, sizeof c, &p));
    BENCH_CHECK(aclrtKernelArgsFinalize(b.args));
    return b;
  }();
  return k;
}

inline void launch_empty(Launch how, aclrtStream stream, uint32_t blocks) {
  switch (how) {
    case Launch::Cpp: BENCH_CHECK(arun::launch(stream, blocks, empty_kernel)); break;
    case Launch::CAbi: BENCH_CHECK(arunLaunchKernel(stream, blocks, &empty_c_kernel, nullptr, nullptr)); break;
    case Launch::DeviceTask: BENCH_CHECK(arunLaunchDeviceTask(&empty_task, nullptr, stream)); break;
    case Launch::BinaryWithConfig: {
      BinaryKernel& k = binary_kernel();
      BENCH_CHECK(aclrtLaunchKernelWithConfig(k.fn, blocks, stream, nullptr, k.args, nullptr));
      break;
    }
  }
}

// (1) kEnqueueBatch launches back to back (timed, manual time), then an untimed synchronize.
template <Launch kHow>
void BM_LaunchEmpty(benchmark::State& state) {
  const int64_t n = state.range(0);
  Globals& s = g();
  if (kHow == Launch::BinaryWithConfig) binary_kernel();  // loaded outside the timed region
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  int64_t launch_ns = 0;
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    for (int64_t i = 0; i < n; ++i) launch_empty(kHow, s.stream, 1);
    const int64_t t1 = now_ns();
    BENCH_CHECK(aclrtSynchronizeStream(s.stream));
    state.SetIterationTime(double(t1 - t0) / 1e9);
    launch_ns += t1 - t0;
  }
  state.counters["ns_per_launch"] = double(launch_ns) / (double(state.iterations()) * double(n));
  state.SetItemsProcessed(state.iterations() * n);
}

// (2) One empty kernel of state.range(0) blocks + aclrtSynchronizeStream per iteration.
void BM_KernelRoundTrip(benchmark::State& state) {
  const auto blocks = static_cast<uint32_t>(state.range(0));
  Globals& s = g();
  BENCH_CHECK(aclrtSynchronizeStream(s.stream));
  LatencySamples samples(size_t(state.max_iterations));
  for (auto _ : state) {
    const int64_t t0 = now_ns();
    launch_empty(Launch::Cpp, s.stream, blocks);
    BENCH_CHECK(aclrtSynchronizeStream(s.stream));
    samples.add(now_ns() - t0);
  }
  samples.report(state);
}

}  // namespace

BENCHMARK(BM_LaunchEmpty<Launch::Cpp>)->Name("Kernel/launch_empty/arun_launch")->Arg(kEnqueueBatch)
    ->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LaunchEmpty<Launch::CAbi>)->Name("Kernel/launch_empty/arunLaunchKernel")->Arg(kEnqueueBatch)
    ->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LaunchEmpty<Launch::DeviceTask>)->Name("Kernel/launch_empty/device_task")->Arg(kEnqueueBatch)
    ->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LaunchEmpty<Launch::BinaryWithConfig>)->Name("Kernel/launch_empty/aclrtLaunchKernelWithConfig")
    ->Arg(kEnqueueBatch)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_KernelRoundTrip)->Name("Kernel/round_trip_blocks")->Arg(1)->Arg(20)->Arg(1000)->UseRealTime()
    ->Iterations(kRoundTripIters)->Unit(benchmark::kMicrosecond);

}  // namespace bench
