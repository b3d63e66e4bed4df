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

// A created primitive (or the fact that oneDNN has none for the shape).
struct Entry {
  std::unique_ptr<dnnl::convolution_forward> conv;
  dnnl::memory::desc src, weights, bias, dst, scratch;
};

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
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
  using dnnl::memory;
  auto e = std::make_shared<Entry>();
  e->src = memory::desc({1, s.c, s.h, s.w}, memory::data_type::f32, memory::format_tag::nchw);
  e->dst = memory::desc({1, s.m, s.oh, s.ow}, memory::data_type::f32, memory::format_tag::nchw);
  // The model's weights as they are (no reorder per call): OIHW, or GOIHW with groups.
  e->weights = s.group == 1 ? memory::desc({s.m, s.c, s.kh, s.kw}, memory::data_type::f32, memory::format_tag::oihw)
                            : memory::desc({s.group, s.m / s.group, s.c / s.group, s.kh, s.kw}, memory::data_type::f32,
                                           memory::format_tag::goihw);
  e->bias = s.bias ? memory::desc({s.m}, memory::data_type::f32, memory::format_tag::x) : memory::desc();
  try {
    // oneDNN counts dilation from 0 (ONNX from 1).
    const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                            e->src, e->weights, e->bias, e->dst, {s.stride_h, s.stride_w},
                                            {s.dil_h - 1, s.dil_w - 1}, {s.pad_t, s.pad_l}, {s.pad_b, s.pad_r});
    // The scratchpad is ours (per thread, below), so a primitive keeps no buffer of its own sized
    // for the thread that created it.
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    // oneDNN plans a primitive's work for the threads OpenMP offers the creating thread: plan for
    // the one thread it will run on (a plan for more, run on one, measured 2.5x slower), and give
    // the caller's thread its setting back.
    const int caller_threads = omp_get_max_threads();
    omp_set_num_threads(1);
    std::optional<dnnl::convolution_forward::primitive_desc> made;
    try {
      made.emplace(d, attr, cpu_engine());
    } catch (...) {
      omp_set_num_threads(caller_threads);
      throw;
    }
    omp_set_num_threads(caller_threads);
    const dnnl::convolution_forward::primitive_desc& pd = *made;
    // Only an implementation on exactly these layouts: any other would need a reorder per call.
    if (pd.src_desc() == e->src && pd.weights_desc() == e->weights && pd.dst_desc() == e->dst) {
      e->conv = std::make_unique<dnnl::convolution_forward>(pd);
      e->scratch = pd.scratchpad_desc();
    }
  } catch (const dnnl::error&) {
    e->conv.reset();  // no implementation: remembered, so the fallback is taken without asking again
  }
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

bool onednn_conv2d(const OneDnnConv2d& shape, const float* x, const float* weights, const float* bias, float* y) {
  const std::shared_ptr<const Entry> e = primitive_for(shape);
  if (!e->conv) return false;
  // One thread: oneDNN's parallel regions run inline on this AI core's thread.
  pin_onednn_to_this_thread();
  thread_local dnnl::stream stream(cpu_engine());
  using dnnl::memory;
  // oneDNN reads through these handles only; const_cast because dnnl::memory takes void*.
  memory src(e->src, cpu_engine(), const_cast<float*>(x));
  memory wts(e->weights, cpu_engine(), const_cast<float*>(weights));
  memory dst(e->dst, cpu_engine(), y);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wts}, {DNNL_ARG_DST, dst}};
  if (shape.bias) args.emplace(DNNL_ARG_BIAS, memory(e->bias, cpu_engine(), const_cast<float*>(bias)));
  // This thread's scratchpad, grown to the largest a primitive has asked for, 64-byte aligned.
  thread_local std::vector<uint8_t> scratch;
  const size_t need = e->scratch.get_size() + 64;
  if (scratch.size() < need) scratch.resize(need);
  void* aligned = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
  args.emplace(DNNL_ARG_SCRATCHPAD, memory(e->scratch, cpu_engine(), aligned));
  e->conv->execute(stream, args);
  stream.wait();
  return true;
}

}  // namespace arun::ops
