// arun_op_bench: MatMul through aclopExecuteV2 on the simulated NPU against OpenBLAS's sgemm called
// directly on host memory, in the same process and run, for the same shapes.
//
//   op/<shape>          aclopExecuteV2("MatMul") + aclrtSynchronizeStream per iteration: validation,
//                       the launch, sgemm tiles on the AI cores (BLAS single-threaded per block)
//   aclnn/<shape>       the same kernel through aclnn: aclnnMatmulGetWorkspaceSize + aclnnMatmul (a new
//                       single-use executor per call, as eager frameworks do) + aclrtSynchronizeStream
//   Conv/op, Conv/aclnn  a ResNet 3x3 convolution (1x64x56x56, 64 filters, stride 1, pad 1) through
//                       aclopExecuteV2("Conv") and through aclnnConvolution: the same kernel
//   blas_1t/<shape>     cblas_sgemm on one thread (what one block can do)
//   blas_nt/<shape>     cblas_sgemm with OpenBLAS's own threads, one per CPU (the machine's peak)
//   onednn_1t/<shape>   oneDNN's dnnl_sgemm on one thread: the engine ops/src/sgemm.hpp picks for all
//                       but matrix-vector and tiny products
// Counter GFLOPs = 2*B*M*N*K / time. The AI-core count comes from the configuration
// (ASCEND_RUN_CONFIG; default 20 cores); it is printed in the context as ai_cores.
#include <cblas.h>
#include <dnnl.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_matmul.h"
#include "bench_common.hpp"

namespace {

struct Shape {
  const char* name;
  int64_t batch, m, k, n;
};
const Shape kShapes[] = {
    {"256x256x256", 1, 256, 256, 256},
    {"512x512x512", 1, 512, 512, 512},
    {"1024x1024x1024", 1, 1024, 1024, 1024},
    {"mlp_32x784x512", 1, 32, 784, 512},
    {"attn_8x128x64x128", 8, 128, 64, 128},
    {"gemv_1x784x512", 1, 1, 784, 512},
    {"tiny_1x1x1", 1, 1, 1, 1},
};

double flops(const Shape& s) {
  return 2.0 * double(s.batch) * double(s.m) * double(s.n) * double(s.k);
}

std::vector<float> filled(size_t n, float base) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = base + float(i % 17) * 0.01f;
  return v;
}

// Two float32 inputs filled on the device and an output, for every row of this file.
struct Operands {
  void *a = nullptr, *b = nullptr, *out = nullptr;
  Operands(size_t na, size_t nb, size_t nout) {
    BENCH_CHECK(aclrtMalloc(&a, na * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    BENCH_CHECK(aclrtMalloc(&b, nb * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    BENCH_CHECK(aclrtMalloc(&out, nout * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    auto ha = filled(na, 0.5f), hb = filled(nb, -0.25f);
    BENCH_CHECK(aclrtMemcpy(a, na * 4, ha.data(), na * 4, ACL_MEMCPY_HOST_TO_DEVICE));
    BENCH_CHECK(aclrtMemcpy(b, nb * 4, hb.data(), nb * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  }
  ~Operands() {
    BENCH_CHECK(aclrtFree(a));
    BENCH_CHECK(aclrtFree(b));
    BENCH_CHECK(aclrtFree(out));
  }
};

void BM_Op(benchmark::State& state, Shape s) {
  const int64_t a_dims[] = {s.batch, s.m, s.k}, b_dims[] = {s.batch, s.k, s.n}, c_dims[] = {s.batch, s.m, s.n};
  const size_t na = s.batch * s.m * s.k, nb = s.batch * s.k * s.n, nc = s.batch * s.m * s.n;
  Operands d(na, nb, nc);
  aclTensorDesc* in_desc[] = {aclCreateTensorDesc(ACL_FLOAT, 3, a_dims, ACL_FORMAT_ND),
                              aclCreateTensorDesc(ACL_FLOAT, 3, b_dims, ACL_FORMAT_ND)};
  aclTensorDesc* out_desc[] = {aclCreateTensorDesc(ACL_FLOAT, 3, c_dims, ACL_FORMAT_ND)};
  aclDataBuffer* in_buf[] = {aclCreateDataBuffer(d.a, na * 4), aclCreateDataBuffer(d.b, nb * 4)};
  aclDataBuffer* out_buf[] = {aclCreateDataBuffer(d.out, nc * 4)};
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
  state.counters["GFLOPs"] =
      benchmark::Counter(flops(s) * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  BENCH_CHECK(aclrtDestroyStream(stream));
  for (auto* d : in_desc) aclDestroyTensorDesc(d);
  aclDestroyTensorDesc(out_desc[0]);
  for (auto* b : in_buf) BENCH_CHECK(aclDestroyDataBuffer(b));
  BENCH_CHECK(aclDestroyDataBuffer(out_buf[0]));
}

// Device workspace for aclnn calls: grown on demand (during the warm-up), freed at scope exit.
class Workspace {
 public:
  ~Workspace() {
    if (ptr_ != nullptr) BENCH_CHECK(aclrtFree(ptr_));
  }
  void* get(uint64_t need) {
    if (need > bytes_) {
      if (ptr_ != nullptr) BENCH_CHECK(aclrtFree(ptr_));
      BENCH_CHECK(aclrtMalloc(&ptr_, need, ACL_MEM_MALLOC_HUGE_FIRST));
      bytes_ = need;
    }
    return ptr_;
  }

 private:
  void* ptr_ = nullptr;
  uint64_t bytes_ = 0;
};

void BM_Aclnn(benchmark::State& state, Shape s) {
  const int64_t a_dims[] = {s.batch, s.m, s.k}, b_dims[] = {s.batch, s.k, s.n}, c_dims[] = {s.batch, s.m, s.n};
  const int64_t a_strides[] = {s.m * s.k, s.k, 1}, b_strides[] = {s.k * s.n, s.n, 1}, c_strides[] = {s.m * s.n, s.n, 1};
  const size_t na = s.batch * s.m * s.k, nb = s.batch * s.k * s.n, nc = s.batch * s.m * s.n;
  Operands d(na, nb, nc);
  aclTensor* a = aclCreateTensor(a_dims, 3, ACL_FLOAT, a_strides, 0, ACL_FORMAT_ND, a_dims, 3, d.a);
  aclTensor* b = aclCreateTensor(b_dims, 3, ACL_FLOAT, b_strides, 0, ACL_FORMAT_ND, b_dims, 3, d.b);
  aclTensor* c = aclCreateTensor(c_dims, 3, ACL_FLOAT, c_strides, 0, ACL_FORMAT_ND, c_dims, 3, d.out);
  aclrtStream stream;
  BENCH_CHECK(aclrtCreateStream(&stream));
  Workspace workspace;
  auto once = [&] {
    uint64_t need = 0;
    aclOpExecutor* executor = nullptr;
    BENCH_CHECK(aclnnMatmulGetWorkspaceSize(a, b, c, 0, &need, &executor));
    BENCH_CHECK(aclnnMatmul(workspace.get(need), need, executor, stream));
    BENCH_CHECK(aclrtSynchronizeStream(stream));
  };
  for (int warm = 0; warm < 3; ++warm) once();
  for (auto _ : state) once();
  state.counters["GFLOPs"] =
      benchmark::Counter(flops(s) * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  BENCH_CHECK(aclrtDestroyStream(stream));
  aclDestroyTensor(a);
  aclDestroyTensor(b);
  aclDestroyTensor(c);
}

// The convolution both front ends run: NCHW input, MCkHkW weights, no bias.
constexpr int64_t kConvX[] = {1, 64, 56, 56}, kConvW[] = {64, 64, 3, 3}, kConvY[] = {1, 64, 56, 56};
constexpr size_t kConvXn = 64 * 56 * 56, kConvWn = 64 * 64 * 9, kConvYn = 64 * 56 * 56;
double conv_flops() {
  return 2.0 * double(kConvYn) * 64 * 9;
}

void BM_ConvOp(benchmark::State& state) {
  Operands buf(kConvXn, kConvWn, kConvYn);
  aclTensorDesc* in_desc[] = {aclCreateTensorDesc(ACL_FLOAT, 4, kConvX, ACL_FORMAT_NCHW),
                              aclCreateTensorDesc(ACL_FLOAT, 4, kConvW, ACL_FORMAT_NCHW)};
  aclTensorDesc* out_desc[] = {aclCreateTensorDesc(ACL_FLOAT, 4, kConvY, ACL_FORMAT_NCHW)};
  aclDataBuffer* in_buf[] = {aclCreateDataBuffer(buf.a, kConvXn * 4), aclCreateDataBuffer(buf.b, kConvWn * 4)};
  aclDataBuffer* out_buf[] = {aclCreateDataBuffer(buf.out, kConvYn * 4)};
  aclopAttr* attr = aclopCreateAttr();
  const int64_t ones[] = {1, 1}, pads[] = {1, 1, 1, 1};
  BENCH_CHECK(aclopSetAttrListInt(attr, "strides", 2, ones));
  BENCH_CHECK(aclopSetAttrListInt(attr, "dilations", 2, ones));
  BENCH_CHECK(aclopSetAttrListInt(attr, "pads", 4, pads));
  aclrtStream stream;
  BENCH_CHECK(aclrtCreateStream(&stream));
  auto once = [&] {
    BENCH_CHECK(aclopExecuteV2("Conv", 2, in_desc, in_buf, 1, out_desc, out_buf, attr, stream));
    BENCH_CHECK(aclrtSynchronizeStream(stream));
  };
  for (int warm = 0; warm < 3; ++warm) once();
  for (auto _ : state) once();
  state.counters["GFLOPs"] =
      benchmark::Counter(conv_flops() * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  BENCH_CHECK(aclrtDestroyStream(stream));
  aclopDestroyAttr(attr);
  for (auto* d : in_desc) aclDestroyTensorDesc(d);
  aclDestroyTensorDesc(out_desc[0]);
  for (auto* b : in_buf) BENCH_CHECK(aclDestroyDataBuffer(b));
  BENCH_CHECK(aclDestroyDataBuffer(out_buf[0]));
}

void BM_ConvAclnn(benchmark::State& state) {
  Operands buf(kConvXn, kConvWn, kConvYn);
  const int64_t x_strides[] = {64 * 56 * 56, 56 * 56, 56, 1}, w_strides[] = {64 * 9, 9, 3, 1};
  aclTensor* x = aclCreateTensor(kConvX, 4, ACL_FLOAT, x_strides, 0, ACL_FORMAT_NCHW, kConvX, 4, buf.a);
  aclTensor* w = aclCreateTensor(kConvW, 4, ACL_FLOAT, w_strides, 0, ACL_FORMAT_NCHW, kConvW, 4, buf.b);
  aclTensor* y = aclCreateTensor(kConvY, 4, ACL_FLOAT, x_strides, 0, ACL_FORMAT_NCHW, kConvY, 4, buf.out);
  const int64_t ones[] = {1, 1}, zeros[] = {0, 0};
  aclIntArray* stride = aclCreateIntArray(ones, 2);
  aclIntArray* padding = aclCreateIntArray(ones, 2);
  aclIntArray* dilation = aclCreateIntArray(ones, 2);
  aclIntArray* output_padding = aclCreateIntArray(zeros, 2);
  aclrtStream stream;
  BENCH_CHECK(aclrtCreateStream(&stream));
  Workspace workspace;
  auto once = [&] {
    uint64_t need = 0;
    aclOpExecutor* executor = nullptr;
    BENCH_CHECK(aclnnConvolutionGetWorkspaceSize(x, w, nullptr, stride, padding, dilation, false, output_padding, 1, y,
                                                 0, &need, &executor));
    BENCH_CHECK(aclnnConvolution(workspace.get(need), need, executor, stream));
    BENCH_CHECK(aclrtSynchronizeStream(stream));
  };
  for (int warm = 0; warm < 3; ++warm) once();
  for (auto _ : state) once();
  state.counters["GFLOPs"] =
      benchmark::Counter(conv_flops() * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
  BENCH_CHECK(aclrtDestroyStream(stream));
  for (auto* a : {stride, padding, dilation, output_padding}) aclDestroyIntArray(a);
  for (auto* t : {x, w, y}) aclDestroyTensor(t);
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
  state.counters["GFLOPs"] =
      benchmark::Counter(flops(s) * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
}

// libgomp's (oneDNN's OpenMP runtime): one thread, as inside an AI core's block.
extern "C" void omp_set_num_threads(int);

void BM_OneDnn(benchmark::State& state, Shape s) {
  auto a = filled(s.batch * s.m * s.k, 0.5f), b = filled(s.batch * s.k * s.n, -0.25f);
  std::vector<float> c(s.batch * s.m * s.n);
  omp_set_num_threads(1);
  auto once = [&] {
    for (int64_t i = 0; i < s.batch; ++i) {
      if (dnnl_sgemm('N', 'N', s.m, s.n, s.k, 1.0f, a.data() + i * s.m * s.k, s.k, b.data() + i * s.k * s.n, s.n, 0.0f,
                     c.data() + i * s.m * s.n, s.n) != dnnl_success) {
        std::fprintf(stderr, "dnnl_sgemm failed\n");
        std::exit(2);
      }
    }
  };
  for (int warm = 0; warm < 3; ++warm) once();
  for (auto _ : state) {
    once();
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOPs"] =
      benchmark::Counter(flops(s) * double(state.iterations()) / 1e9, benchmark::Counter::kIsRate);
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
    benchmark::RegisterBenchmark((std::string("MatMul/aclnn/") + s.name).c_str(), BM_Aclnn, s)->UseRealTime();
    benchmark::RegisterBenchmark((std::string("MatMul/blas_1t/") + s.name).c_str(), BM_Blas, s, 1)->UseRealTime();
    benchmark::RegisterBenchmark((std::string("MatMul/blas_nt/") + s.name).c_str(), BM_Blas, s, cpus)->UseRealTime();
    benchmark::RegisterBenchmark((std::string("MatMul/onednn_1t/") + s.name).c_str(), BM_OneDnn, s)->UseRealTime();
  }
  benchmark::RegisterBenchmark("Conv/op/resnet_1x64x56x56_k3", BM_ConvOp)->UseRealTime();
  benchmark::RegisterBenchmark("Conv/aclnn/resnet_1x64x56x56_k3", BM_ConvAclnn)->UseRealTime();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  BENCH_CHECK(aclrtResetDevice(0));
  BENCH_CHECK(aclFinalize());
  return 0;
}
