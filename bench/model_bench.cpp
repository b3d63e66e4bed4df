// arun_model_bench: latency of whole ONNX models through the model API, on the simulated NPU.
//
//   Model/execute/<model>   aclmdlExecute per iteration (enqueue every node, then wait): what an
//                           application measures around one synchronous inference
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

void BM_Execute(benchmark::State& state, std::string stem) {
  const std::string path = models_dir() + "/" + stem + ".onnx";
  uint32_t id = 0;
  BENCH_CHECK(aclmdlLoadFromFile(path.c_str(), &id));
  aclmdlDesc* desc = aclmdlCreateDesc();
  BENCH_CHECK(aclmdlGetDesc(desc, id));
  // Zero inputs are as good as any: the kernels do the same work whatever the values.
  std::vector<void*> mem;
  aclmdlDataset* sets[2] = {aclmdlCreateDataset(), aclmdlCreateDataset()};
  std::vector<aclDataBuffer*> bufs;
  for (int side = 0; side < 2; ++side) {
    const size_t n = side == 0 ? aclmdlGetNumInputs(desc) : aclmdlGetNumOutputs(desc);
    for (size_t i = 0; i < n; ++i) {
      const size_t bytes = side == 0 ? aclmdlGetInputSizeByIndex(desc, i) : aclmdlGetOutputSizeByIndex(desc, i);
      void* p = nullptr;
      BENCH_CHECK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
      BENCH_CHECK(aclrtMemset(p, bytes, 0, bytes));
      mem.push_back(p);
      bufs.push_back(aclCreateDataBuffer(p, bytes));
      BENCH_CHECK(aclmdlAddDatasetBuffer(sets[side], bufs.back()));
    }
  }
  BENCH_CHECK(aclmdlExecute(id, sets[0], sets[1]));  // warm-up: first touches of the workspace
  for (auto _ : state) BENCH_CHECK(aclmdlExecute(id, sets[0], sets[1]));
  for (auto* b : bufs) aclDestroyDataBuffer(b);
  aclmdlDestroyDataset(sets[0]);
  aclmdlDestroyDataset(sets[1]);
  for (void* p : mem) aclrtFree(p);
  aclmdlDestroyDesc(desc);
  BENCH_CHECK(aclmdlUnload(id));
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
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  BENCH_CHECK(aclrtResetDevice(0));
  BENCH_CHECK(aclFinalize());
  return 0;
}
