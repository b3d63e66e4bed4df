// The two convolution engines Conv can run on, side by side in one process, single-threaded (one
// AI core's share), on the convolutions of ResNet-50 and the first layer of the image networks:
//   OpenBLAS/<shape>  im2col + cblas_sgemm, the fallback path of ops/src/conv.cpp
//   OneDNN/<shape>    oneDNN 2.6's convolution on the same NCHW tensors and OIHW weights
//                     (no reorder), oneDNN's `gemm:jit`
//   OneDNNBlocked/<shape>/w  oneDNN's blocked-layout convolution (nChw16c, `jit:avx512_core` or
//                     `brgconv`) with the reorders in and out of NCHW timed per call; w = 1 reorders
//                     the OIHW weights per call too, w = 0 packs them once, outside the loop
// Counter GFLOPS: 2 * MACs / time. Shapes are C_in x H (= W) -> M, kernel k, stride s, padding k/2.
//   build/bin/arun_conv_engine_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <algorithm>
#include <dnnl.hpp>
#include <random>
#include <vector>

extern "C" void omp_set_num_threads(int);

namespace {

struct Shape {
  int c, h, m, k, s;
  int pad() const { return k / 2; }
  int out() const { return (h + 2 * pad() - k) / s + 1; }
  double flops() const { return 2.0 * m * out() * out() * double(c) * k * k; }
};

const Shape kShapes[] = {
    {3, 224, 64, 7, 2},     // every ResNet's first layer
    {64, 56, 64, 3, 1},     // conv2_x 3x3
    {64, 56, 256, 1, 1},    // conv2_x expand
    {256, 56, 64, 1, 1},    // conv2_x reduce
    {128, 28, 128, 3, 1},   // conv3_x 3x3
    {256, 14, 256, 3, 1},   // conv4_x 3x3
    {1024, 14, 256, 1, 1},  // conv4_x reduce
    {512, 7, 512, 3, 1},    // conv5_x 3x3
    {128, 56, 32, 3, 1},    // DenseNet-121's 3x3 growth convolution, blocks 1-4
    {128, 28, 32, 3, 1},
    {128, 14, 32, 3, 1},
    {128, 7, 32, 3, 1},
    {1, 28, 8, 3, 1},       // cnn_b32's (tests/models) first layer, per image
    {16, 28, 16, 3, 1},
    {3, 224, 64, 3, 2},     // SqueezeNet 1.1's first layer
    {3, 224, 96, 7, 2},     // SqueezeNet 1.0's
};

struct Data {
  std::vector<float> x, w, y;
  explicit Data(const Shape& s)
      : x(size_t(s.c) * s.h * s.h), w(size_t(s.m) * s.c * s.k * s.k), y(size_t(s.m) * s.out() * s.out()) {
    std::mt19937 rng(7);
    std::normal_distribution<float> nd;
    for (float& v : x) v = nd(rng);
    for (float& v : w) v = nd(rng);
  }
};

void BM_OpenBLAS(benchmark::State& state) {
  const Shape s = kShapes[state.range(0)];
  Data d(s);
  openblas_set_num_threads(1);
  const int o = s.out(), kc = s.c * s.k * s.k;
  std::vector<float> col(size_t(kc) * o * o);
  for (auto _ : state) {
    for (int c = 0; c < s.c; ++c)
      for (int ky = 0; ky < s.k; ++ky)
        for (int kx = 0; kx < s.k; ++kx) {
          float* dst = &col[size_t((c * s.k + ky) * s.k + kx) * o * o];
          for (int oy = 0; oy < o; ++oy) {
            const int iy = oy * s.s - s.pad() + ky;
            for (int ox = 0; ox < o; ++ox) {
              const int ix = ox * s.s - s.pad() + kx;
              dst[oy * o + ox] =
                  iy >= 0 && iy < s.h && ix >= 0 && ix < s.h ? d.x[(size_t(c) * s.h + iy) * s.h + ix] : 0.f;
            }
          }
        }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.m, o * o, kc, 1.f, d.w.data(), kc, col.data(), o * o, 0.f,
                d.y.data(), o * o);
    benchmark::DoNotOptimize(d.y.data());
  }
  state.counters["GFLOPS"] = benchmark::Counter(s.flops() * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_OneDNN(benchmark::State& state) {
  const Shape s = kShapes[state.range(0)];
  Data d(s);
  omp_set_num_threads(1);
  using dnnl::memory;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  const memory::desc src({1, s.c, s.h, s.h}, memory::data_type::f32, memory::format_tag::nchw);
  const memory::desc wts({s.m, s.c, s.k, s.k}, memory::data_type::f32, memory::format_tag::oihw);
  const memory::desc dst({1, s.m, s.out(), s.out()}, memory::data_type::f32, memory::format_tag::nchw);
  const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                             src, wts, dst, {s.s, s.s}, {0, 0}, {s.pad(), s.pad()}, {s.pad(), s.pad()});
  const dnnl::convolution_forward::primitive_desc pd(desc, eng);
  dnnl::convolution_forward conv(pd);
  memory xm(src, eng, d.x.data()), wm(wts, eng, d.w.data()), ym(dst, eng, d.y.data());
  for (auto _ : state) {
    conv.execute(stream, {{DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, ym}});
    stream.wait();
  }
  state.counters["GFLOPS"] = benchmark::Counter(s.flops() * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(pd.impl_info_str());
}

void BM_OneDNNBlocked(benchmark::State& state) {
  const Shape s = kShapes[state.range(0)];
  const bool weights_per_call = state.range(1) != 0;
  Data d(s);
  omp_set_num_threads(1);
  using dnnl::memory;
  using tag = memory::format_tag;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  const memory::desc src({1, s.c, s.h, s.h}, memory::data_type::f32, tag::nchw);
  const memory::desc wts({s.m, s.c, s.k, s.k}, memory::data_type::f32, tag::oihw);
  const memory::desc dst({1, s.m, s.out(), s.out()}, memory::data_type::f32, tag::nchw);
  const memory::desc any_src({1, s.c, s.h, s.h}, memory::data_type::f32, tag::any);
  const memory::desc any_wts({s.m, s.c, s.k, s.k}, memory::data_type::f32, tag::any);
  const memory::desc any_dst({1, s.m, s.out(), s.out()}, memory::data_type::f32, tag::any);
  const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                             any_src, any_wts, any_dst, {s.s, s.s}, {0, 0}, {s.pad(), s.pad()},
                                             {s.pad(), s.pad()});
  const dnnl::convolution_forward::primitive_desc pd(desc, eng);
  dnnl::convolution_forward conv(pd);
  memory xm(src, eng, d.x.data()), wm(wts, eng, d.w.data()), ym(dst, eng, d.y.data());
  memory xb(pd.src_desc(), eng), wb(pd.weights_desc(), eng), yb(pd.dst_desc(), eng);
  dnnl::reorder in(xm, xb), pack(wm, wb), out(yb, ym);
  pack.execute(stream, wm, wb);
  for (auto _ : state) {
    in.execute(stream, xm, xb);
    if (weights_per_call) pack.execute(stream, wm, wb);
    conv.execute(stream, {{DNNL_ARG_SRC, xb}, {DNNL_ARG_WEIGHTS, wb}, {DNNL_ARG_DST, yb}});
    out.execute(stream, yb, ym);
    stream.wait();
  }
  state.counters["GFLOPS"] = benchmark::Counter(s.flops() * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(pd.impl_info_str());
}

void shapes(benchmark::internal::Benchmark* b) {
  for (int i = 0; i < int(sizeof kShapes / sizeof kShapes[0]); ++i) b->Arg(i);
  b->ArgName("shape")->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_OpenBLAS)->Apply(shapes);
BENCHMARK(BM_OneDNN)->Apply(shapes);
BENCHMARK(BM_OneDNNBlocked)->Apply([](benchmark::internal::Benchmark* b) {
  for (int w : {0, 1})
    for (int i = 0; i < int(sizeof kShapes / sizeof kShapes[0]); ++i) b->Args({i, w});
  b->ArgNames({"shape", "w"})->Unit(benchmark::kMicrosecond);
});

}  // namespace

BENCHMARK_MAIN();
