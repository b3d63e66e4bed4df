// arun_model_bench: latency of whole ONNX models through the model API, on the simulated NPU.
//
//   Model/execute/<model>   aclmdlExecute per iteration (enqueue every node, then wait): what an
//                           application measures around one synchronous inference
//   Model/step_enqueue/<m>  the host's cost of submitting one step node by node (aclmdlExecuteAsync)
//   Model/step_replay/<m>   ... and of replaying a captured graph of the same step (aclmdlRIExecuteAsync);
//                           end_to_end_us: submission to completion, both ways
// The models are the project's test models (tests/models/make_models.py); the directory comes from
// ARUN_MODELS_DIR or defaults to the build tree's generated set (run `ctest -R models.generate`
// first). Compare with ONNX Runtime's CPU latency for the same files (bench/README.md).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "bench_common.hpp"

namespace {

std::string models_dir() {
  const char* env = std::getenv("ARUN_MODELS_DIR");
  return env != nullptr ? env : ARUN_TEST_MODELS_DIR;
}

// A loaded test model with zeroed device inputs and outputs in two datasets. Zero inputs are as
// good as any: the kernels do the same work whatever the values.
class Loaded {
 public:
  explicit Loaded(const std::string& stem) {
    const std::string path = models_dir() + "/" + stem + ".onnx";
    BENCH_CHECK(aclmdlLoadFromFile(path.c_str(), &id_));
    aclmdlDesc* desc = aclmdlCreateDesc();
    BENCH_CHECK(aclmdlGetDesc(desc, id_));
    for (int side = 0; side < 2; ++side) {
      sets_[side] = aclmdlCreateDataset();
      const size_t n = side == 0 ? aclmdlGetNumInputs(desc) : aclmdlGetNumOutputs(desc);
      for (size_t i = 0; i < n; ++i) {
        const size_t bytes = side == 0 ? aclmdlGetInputSizeByIndex(desc, i) : aclmdlGetOutputSizeByIndex(desc, i);
        void* p = nullptr;
        BENCH_CHECK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
        BENCH_CHECK(aclrtMemset(p, bytes, 0, bytes));
        mem_.push_back(p);
        bufs_.push_back(aclCreateDataBuffer(p, bytes));
        BENCH_CHECK(aclmdlAddDatasetBuffer(sets_[side], bufs_.back()));
      }
    }
    aclmdlDestroyDesc(desc);
  }
  ~Loaded() {
    for (auto* b : bufs_) aclDestroyDataBuffer(b);
    aclmdlDestroyDataset(sets_[0]);
    aclmdlDestroyDataset(sets_[1]);
    for (void* p : mem_) aclrtFree(p);
    BENCH_CHECK(aclmdlUnload(id_));
  }
  Loaded(const Loaded&) = delete;
  Loaded& operator=(const Loaded&) = delete;

  uint32_t id() const { return id_; }
  aclmdlDataset* in() const { return sets_[0]; }
  aclmdlDataset* out() const { return sets_[1]; }

 private:
  uint32_t id_ = 0;
  aclmdlDataset* sets_[2] = {nullptr, nullptr};
  std::vector<void*> mem_;
  std::vector<aclDataBuffer*> bufs_;
};

void BM_Execute(benchmark::State& state, std::string stem) {
  Loaded m(stem);
  BENCH_CHECK(aclmdlExecute(m.id(), m.in(), m.out()));  // warm-up: first touches of the workspace
  for (auto _ : state) BENCH_CHECK(aclmdlExecute(m.id(), m.in(), m.out()));
}

// One model step submitted node by node (aclmdlExecuteAsync) or as the replay of a captured graph
// of the same step (aclmdlRIExecuteAsync). The timed part is the host's submission (manual time);
// the synchronize after it is untimed and reported as end_to_end_us (submission to completion),
// so "the device finishes no later" reads off the same run.
template <bool kReplay>
void BM_Step(benchmark::State& state, std::string stem) {
  Loaded m(stem);
  aclrtStream stream = nullptr;
  BENCH_CHECK(aclrtCreateStream(&stream));
  BENCH_CHECK(aclmdlExecuteAsync(m.id(), m.in(), m.out(), stream));  // warm-up, on the capture stream
  BENCH_CHECK(aclrtSynchronizeStream(stream));
  aclmdlRI graph = nullptr;
  if constexpr (kReplay) {
    BENCH_CHECK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    BENCH_CHECK(aclmdlExecuteAsync(m.id(), m.in(), m.out(), stream));
    BENCH_CHECK(aclmdlRICaptureEnd(stream, &graph));
  }
  int64_t host_ns = 0, total_ns = 0;
  for (auto _ : state) {
    const int64_t t0 = bench::now_ns();
    if constexpr (kReplay) {
      BENCH_CHECK(aclmdlRIExecuteAsync(graph, stream));
    } else {
      BENCH_CHECK(aclmdlExecuteAsync(m.id(), m.in(), m.out(), stream));
    }
    const int64_t t1 = bench::now_ns();
    BENCH_CHECK(aclrtSynchronizeStream(stream));
    const int64_t t2 = bench::now_ns();
    state.SetIterationTime(double(t1 - t0) / 1e9);
    host_ns += t1 - t0;
    total_ns += t2 - t0;
  }
  const double n = double(state.iterations());
  state.counters["host_us"] = double(host_ns) / n / 1e3;
  state.counters["end_to_end_us"] = double(total_ns) / n / 1e3;
  if (graph != nullptr) BENCH_CHECK(aclmdlRIDestroy(graph));
  BENCH_CHECK(aclrtDestroyStream(stream));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  BENCH_CHECK(aclInit(nullptr));
  BENCH_CHECK(aclrtSetDevice(0));
  for (const char* stem : {"mlp_b1", "mlp_b32", "cnn_b1", "cnn_b32", "transformer_b1", "transformer_b32"}) {
    benchmark::RegisterBenchmark((std::string("Model/execute/") + stem).c_str(), BM_Execute, std::string(stem))
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
  }
  // The host's cost of a step, node by node against one replay (issue 18). A fixed count of steps:
  // the manual (host) time is a small part of each step, so a time budget on it would run for long.
  for (const char* stem : {"mlp_b1", "cnn_b1", "transformer_b1"}) {
    benchmark::RegisterBenchmark((std::string("Model/step_enqueue/") + stem).c_str(), BM_Step<false>, std::string(stem))
        ->UseManualTime()
        ->Iterations(300)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("Model/step_replay/") + stem).c_str(), BM_Step<true>, std::string(stem))
        ->UseManualTime()
        ->Iterations(300)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  BENCH_CHECK(aclrtResetDevice(0));
  BENCH_CHECK(aclFinalize());
  return 0;
}
