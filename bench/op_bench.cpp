// arun_op_bench: MatMul through aclopExecuteV2 on the simulated NPU against OpenBLAS's sgemm called
// directly on host memory, in the same process and run, for the same shapes.
//
//   op/<shape>          aclopExecuteV2("MatMul") + aclrtSynchronizeStream per iteration: validation,
//                       the launch, sgemm tiles on the AI cores (BLAS single-threaded per block)
//   blas_1t/<shape>     cblas_sgemm on one thread (what one block can do)
//   blas_nt/<shape>     cblas_sgemm with OpenBLAS's own threads, one per CPU (the machine's peak)
// Counter GFLOPs = 2*B*M*N*K / time. The AI-core count comes from the configuration
// (ASCEND_RUN_CONFIG; default 20 cores); it is printed in the context as ai_cores.
#include <cblas.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "bench_common.hpp"

namespace {

struct Shape {
  const char* name;
  int64_t batch, m, k, n;
};
const Shape kShapes[] = {
    {"256x256x256", 1, 256, 256, 256},    {"512x512x512", 1, 512, 512, 512},
    {"1024x1024x1024", 1, 1024, 1024, 1024}, {"mlp_32x784x512", 1, 32, 784, 512},
    {"attn_8x128x64x128", 8, 128, 64, 128}, {"gemv_1x784x512", 1, 1, 784, 512},
    {"tiny_1x1x1", 1, 1, 1, 1},
};

double flops(const Shape& s) { return 2.0 * double(s.batch) * double(s.m) * double(s.n) * double(s.k); }

std::vector<float> filled(size_t n, float base) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = base + float(i % 17) * 0.01f;
  return v;
}

void BM_Op(benchmark::State& state, Shape s) {
  const int64_t a_dims[] = {s.batch, s.m, s.k}, b_dims[] = {s.batch, s.k, s.n}, c_dims[] = {s.batch, s.m, s.n};
  const size_t na = s.batch * s.m * s.k, nb = s.batch * s.k * s.n, nc = s.batch * s.m * s.n;
  void *da, *db, *dc;
  BENCH_CHECK(aclrtMalloc(&da, na * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  BENCH_CHECK(aclrtMalloc(&db, nb * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  BENCH_CHECK(aclrtMalloc(&dc, nc * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  auto ha = filled(na, 0.5f), hb = filled(nb, -0.25f);
  BENCH_CHECK(aclrtMemcpy(da, na * 4, ha.data(), na * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  BENCH_CHECK(aclrtMemcpy(db, nb * 4, hb.data(), nb * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  aclTensorDesc* in_desc[] = {aclCreateTensorDesc(ACL_FLOAT, 3, a_dims, ACL_FORMAT_ND),
                              aclCreateTensorDesc(ACL_FLOAT, 3, b_dims, ACL_FORMAT_ND)};
  aclTensorDesc* out_desc[] = {aclCreateTensorDesc(ACL_FLOAT, 3, c_dims, ACL_FORMAT_ND)};
  aclDataBuffer* in_buf[] = {aclCreateDataBuffer(da, na * 4), aclCreateDataBuffer(db, nb * 4)};
  aclDataBuffer* out_buf[] = {aclCreateDataBuffer(dc, nc * 4)};
  aclrtStream stream;
  BENCH_CHECK(aclrtCreateStream(&stream));
  for (int warm = 0; warm < 3; ++warm) {
    BENCH_CHECK(aclopExecuteV2("MatMul", 2, in_desc, in_buf, 1, out_desc, out_buf, nullptr, stream));
    BENCH_CHECK(aclrtSynchronizeStream(stream));
  }
  for (auto _ : state) {
    BENCH_CHECK(aclopExecuteV2("MatMul", 2, in_desc, in_buf, 1, out_desc, out_buf, nullptr, stream));
    BENCH_CHECK(aclrtSynchronizeStream(stream));
  }
  state.counters["GFLOPs"] = benchmark::Counter(flops(s) * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  BENCH_CHECK(aclrtDestroyStream(stream));
  for (auto* d : in_desc) aclDestroyTensorDesc(d);
  aclDestroyTensorDesc(out_desc[0]);
  for (auto* b : in_buf) BENCH_CHECK(aclDestroyDataBuffer(b));
  BENCH_CHECK(aclDestroyDataBuffer(out_buf[0]));
  BENCH_CHECK(aclrtFree(da));
  BENCH_CHECK(aclrtFree(db));
  BENCH_CHECK(aclrtFree(dc));
}

void BM_Blas(benchmark::State& state, Shape s, int threads) {
  auto a = filled(s.batch * s.m * s.k, 0.5f), b = filled(s.batch * s.k * s.n, -0.25f);
  std::vector<float> c(s.batch * s.m * s.n);
  openblas_set_num_threads(threads);
  auto once = [&] {
    for (int64_t i = 0; i < s.batch; ++i) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(s.m), int(s.n), int(s.k), 1.0f,
                  a.data() + i * s.m * s.k, int(s.k), b.data() + i * s.k * s.n, int(s.n), 0.0f,
                  c.data() + i * s.m * s.n, int(s.n));
    }
  };
  for (int warm = 0; warm < 3; ++warm) once();
  for (auto _ : state) {
    once();
    benchmark::DoNotOptimize(c.data());
  }
  openblas_set_num_threads(1);  // what the op library runs with inside its blocks
  state.counters["GFLOPs"] = benchmark::Counter(flops(s) * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  BENCH_CHECK(aclInit(nullptr));
  BENCH_CHECK(aclrtSetDevice(0));
  int64_t cores = 0;
  BENCH_CHECK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &cores));
  benchmark::AddCustomContext("ai_cores", std::to_string(cores));
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (const Shape& s : kShapes) {
    // Side by side per shape, so each ratio compares runs under the same machine load.
    benchmark::RegisterBenchmark((std::string("MatMul/op/") + s.name).c_str(), BM_Op, s)->UseRealTime();
    benchmark::RegisterBenchmark((std::string("MatMul/blas_1t/") + s.name).c_str(), BM_Blas, s, 1)->UseRealTime();
    benchmark::RegisterBenchmark((std::string("MatMul/blas_nt/") + s.name).c_str(), BM_Blas, s, cpus)->UseRealTime();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  BENCH_CHECK(aclrtResetDevice(0));
  BENCH_CHECK(aclFinalize());
  return 0;
}
