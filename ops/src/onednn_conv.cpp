// oneDNN behind the 2-D float32 Conv kernel: primitives cached per shape, executed on the AI core
// thread that runs the block.
#include "onednn_conv.hpp"
#include "sgemm.hpp"

#include <cstdlib>
#include <cstring>
#include <dnnl.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

// libgomp's, the OpenMP runtime oneDNN is built with (declared here: clang has no omp.h without
// libomp-dev, and the OpenMP C API is stable).
extern "C" void omp_set_num_threads(int);
extern "C" int omp_get_max_threads();

namespace arun::ops {

namespace {

struct ShapeHash {
  size_t operator()(const OneDnnConv2d& s) const {
    const int64_t v[] = {s.c,     s.h,     s.w,     s.m,     s.group, s.kh,    s.kw, s.stride_h, s.stride_w,
                         s.dil_h, s.dil_w, s.pad_t, s.pad_l, s.pad_b, s.pad_r, s.oh, s.ow,       s.bias};
    size_t h = 1469598103934665603ull;
    for (int64_t x : v) h = (h ^ static_cast<size_t>(x)) * 1099511628211ull;
    return h;
  }
};

// A created primitive (or the fact that oneDNN has none for the shape). A blocked entry's
// convolution runs on oneDNN's own layouts (nChw16c activations, packed weights): `src`,
// `weights` and `dst` are those, and the reorders bring the NCHW tensors and OIHW weights in and
// the output back, per call.
struct Entry {
  std::unique_ptr<dnnl::convolution_forward> conv;
  dnnl::memory::desc src, weights, bias, dst, scratch;
  std::unique_ptr<dnnl::reorder> src_in, weights_in, dst_out;
  dnnl::memory::desc plain_src, plain_weights, plain_dst;
  bool blocked() const { return src_in != nullptr; }
};

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// The model's tensors as they are: NCHW activations, OIHW weights (GOIHW with groups).
void plain_descs(const OneDnnConv2d& s, Entry* e) {
  using dnnl::memory;
  e->plain_src = memory::desc({1, s.c, s.h, s.w}, memory::data_type::f32, memory::format_tag::nchw);
  e->plain_dst = memory::desc({1, s.m, s.oh, s.ow}, memory::data_type::f32, memory::format_tag::nchw);
  e->plain_weights = s.group == 1
                         ? memory::desc({s.m, s.c, s.kh, s.kw}, memory::data_type::f32, memory::format_tag::oihw)
                         : memory::desc({s.group, s.m / s.group, s.c / s.group, s.kh, s.kw}, memory::data_type::f32,
                                        memory::format_tag::goihw);
  e->bias = s.bias ? memory::desc({s.m}, memory::data_type::f32, memory::format_tag::x) : memory::desc();
}

// The primitive descriptor of `s` on the given layouts, or nothing when oneDNN has no
// implementation. The scratchpad is ours (per thread, below), so a primitive keeps no buffer of its
// own sized for the thread that created it.
std::optional<dnnl::convolution_forward::primitive_desc> describe(const OneDnnConv2d& s, const dnnl::memory::desc& src,
                                                                  const dnnl::memory::desc& weights,
                                                                  const dnnl::memory::desc& bias,
                                                                  const dnnl::memory::desc& dst) {
  try {
    // oneDNN counts dilation from 0 (ONNX from 1).
    const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                            src, weights, bias, dst, {s.stride_h, s.stride_w},
                                            {s.dil_h - 1, s.dil_w - 1}, {s.pad_t, s.pad_l}, {s.pad_b, s.pad_r});
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return dnnl::convolution_forward::primitive_desc(d, attr, cpu_engine());
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

// The NCHW path (plain_descs set): only an implementation on exactly the model's layouts
// (oneDNN's `gemm:jit`).
void make_plain(const OneDnnConv2d& s, Entry* e) {
  auto pd = describe(s, e->plain_src, e->plain_weights, e->bias, e->plain_dst);
  if (!pd || pd->src_desc() != e->plain_src || pd->weights_desc() != e->plain_weights ||
      pd->dst_desc() != e->plain_dst) {
    return;  // no implementation: remembered, so the fallback is taken without asking again
  }
  e->src = e->plain_src;
  e->weights = e->plain_weights;
  e->dst = e->plain_dst;
  e->scratch = pd->scratchpad_desc();
  e->conv = std::make_unique<dnnl::convolution_forward>(*pd);
}

// The blocked path (plain_descs set): oneDNN picks the layouts (`brgconv` / `jit` on nChw16c
// with packed weights).
void make_blocked(const OneDnnConv2d& s, Entry* e) {
  using dnnl::memory;
  const auto any = [](const memory::desc& d) {
    return memory::desc(d.dims(), memory::data_type::f32, memory::format_tag::any);
  };
  auto pd = describe(s, any(e->plain_src), any(e->plain_weights), e->bias, any(e->plain_dst));
  if (!pd) return;
  try {
    e->src = pd->src_desc();
    e->weights = pd->weights_desc();
    e->dst = pd->dst_desc();
    e->src_in = std::make_unique<dnnl::reorder>(
        dnnl::reorder::primitive_desc(cpu_engine(), e->plain_src, cpu_engine(), e->src));
    e->weights_in = std::make_unique<dnnl::reorder>(
        dnnl::reorder::primitive_desc(cpu_engine(), e->plain_weights, cpu_engine(), e->weights));
    e->dst_out = std::make_unique<dnnl::reorder>(
        dnnl::reorder::primitive_desc(cpu_engine(), e->dst, cpu_engine(), e->plain_dst));
    e->scratch = pd->scratchpad_desc();
    e->conv = std::make_unique<dnnl::convolution_forward>(*pd);
  } catch (const dnnl::error&) {
    e->src_in.reset();
    e->weights_in.reset();
    e->dst_out.reset();
    e->conv.reset();
  }
}

// Whether `s` runs on the blocked layouts. Measured single-threaded with every reorder per call
// included (`arun_conv_engine_bench`, OneDNN vs OneDNNBlocked, bench/README.md): 1.4-3.2x the
// NCHW path on 3x3 and 7x7 kernels, but 0.6x on 1x1 (there `gemm:jit` is one sgemm at ~190
// GFLOP/s, and the reorders are pure cost). The per-call weight reorder costs ~0.13 ns a byte:
// under a quarter of the convolution while the output plane has >= 196 positions (14x14); below
// that, large weights make it slower (512 channels at 7x7: 91 against 132 GFLOP/s). Fewer than
// 16 output channels fill a 16-channel block half: cnn_b32's 1 -> 8 ran 0.8x.
// ARUN_CONV_LAYOUT=plain keeps every shape on NCHW, for the comparison.
bool prefers_blocked(const OneDnnConv2d& s) {
  static const bool enabled = [] {
    const char* v = std::getenv("ARUN_CONV_LAYOUT");
    return v == nullptr || std::strcmp(v, "plain") != 0;
  }();
  return enabled && s.group == 1 && s.kh * s.kw > 1 && s.oh * s.ow >= 196 && s.m >= 16;
}

// The cache is bounded: a process that loads model after model of new shapes starts over.
constexpr size_t kMaxCached = 1024;

std::shared_ptr<const Entry> primitive_for(const OneDnnConv2d& s) {
  static std::mutex mu;
  static std::unordered_map<OneDnnConv2d, std::shared_ptr<const Entry>, ShapeHash> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(s);
    if (it != cache.end()) return it->second;
  }
  auto e = std::make_shared<Entry>();
  // oneDNN plans a primitive's work for the threads OpenMP offers the creating thread: plan for
  // the one thread it will run on (a plan for more, run on one, measured 2.5x slower), and give
  // the caller's thread its setting back.
  const int caller_threads = omp_get_max_threads();
  omp_set_num_threads(1);
  plain_descs(s, e.get());
  if (prefers_blocked(s)) make_blocked(s, e.get());
  if (!e->conv) make_plain(s, e.get());
  omp_set_num_threads(caller_threads);
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() >= kMaxCached) cache.clear();
  return cache.emplace(s, std::move(e)).first->second;
}

}  // namespace

bool onednn_conv_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("ARUN_CONV_ENGINE");
    return v == nullptr || std::strcmp(v, "openblas") != 0;
  }();
  return enabled;
}

bool onednn_conv2d_supported(const OneDnnConv2d& shape) {
  return primitive_for(shape)->conv != nullptr;
}

bool onednn_conv2d_blocked(const OneDnnConv2d& shape) {
  const std::shared_ptr<const Entry> e = primitive_for(shape);
  return e->conv != nullptr && e->blocked();
}

bool onednn_conv2d(const OneDnnConv2d& shape, const float* x, const float* weights, const float* bias, float* y) {
  const std::shared_ptr<const Entry> e = primitive_for(shape);
  if (!e->conv) return false;
  // One thread: oneDNN's parallel regions run inline on this AI core's thread.
  pin_onednn_to_this_thread();
  thread_local dnnl::stream stream(cpu_engine());
  using dnnl::memory;
  // oneDNN reads through these handles only; const_cast because dnnl::memory takes void*.
  memory src(e->plain_src, cpu_engine(), const_cast<float*>(x));
  memory wts(e->plain_weights, cpu_engine(), const_cast<float*>(weights));
  memory dst(e->plain_dst, cpu_engine(), y);
  // This thread's scratch, grown to the largest a primitive has asked for: the convolution's
  // scratchpad, then (blocked) its input, weights and output in oneDNN's layouts; 64-byte aligned.
  thread_local std::vector<uint8_t> scratch;
  const auto round = [](size_t n) { return (n + 63) / 64 * 64; };
  const size_t pad = round(e->scratch.get_size());
  const size_t need =
      pad + (e->blocked() ? round(e->src.get_size()) + round(e->weights.get_size()) + round(e->dst.get_size()) : 0);
  if (scratch.size() < need + 64) scratch.resize(need + 64);
  uint8_t* at = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
  std::unordered_map<int, memory> args{{DNNL_ARG_SCRATCHPAD, memory(e->scratch, cpu_engine(), at)}};
  if (shape.bias) args.emplace(DNNL_ARG_BIAS, memory(e->bias, cpu_engine(), const_cast<float*>(bias)));
  if (!e->blocked()) {
    args.insert({{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wts}, {DNNL_ARG_DST, dst}});
    e->conv->execute(stream, args);
  } else {
    at += pad;
    memory bsrc(e->src, cpu_engine(), at);
    at += round(e->src.get_size());
    memory bwts(e->weights, cpu_engine(), at);
    at += round(e->weights.get_size());
    memory bdst(e->dst, cpu_engine(), at);
    e->src_in->execute(stream, src, bsrc);
    e->weights_in->execute(stream, wts, bwts);
    args.insert({{DNNL_ARG_SRC, bsrc}, {DNNL_ARG_WEIGHTS, bwts}, {DNNL_ARG_DST, bdst}});
    e->conv->execute(stream, args);
    e->dst_out->execute(stream, bdst, dst);
  }
  stream.wait();
  return true;
}

}  // namespace arun::ops
