// ascend-run run: an ONNX model through the public ACL model API, as an application would run it.
//
//   aclmdlLoadFromFile -> aclmdlGetDesc (names, shapes, types, sizes of inputs and outputs)
//   -> device buffers in two datasets -> aclmdlExecute once to warm up, then N timed runs
//   -> outputs copied back and written as .npy, optionally compared with reference files.
//
// Inputs come from .npy files (converted to the model's element type when they differ, as NumPy's
// astype would) or are drawn at random from a fixed seed, so two runs see the same data.
#include "model_run.hpp"
#include "runtime_errors.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <new>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "npy.hpp"

namespace model_run {
namespace {

struct Failure {};

// Every ACL call is checked; the runtime's message names the call and the problem.
#define RUN_CHECK(expr)                                                              \
  do {                                                                               \
    aclError run_rc_ = (expr);                                                       \
    if (run_rc_ != ACL_SUCCESS) {                                                    \
      const char* run_msg_ = aclGetRecentErrMsg();                                   \
      if (run_msg_ != nullptr && *run_msg_ != '\0') {                                \
        std::fprintf(stderr, "ascend-run run: %s\n", run_msg_);                      \
      } else {                                                                       \
        std::fprintf(stderr, "ascend-run run: %s failed with %d\n", #expr, run_rc_); \
      }                                                                              \
      throw Failure{};                                                               \
    }                                                                                \
  } while (0)

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "ascend-run run: %s\n", message.c_str());
  throw Failure{};
}

// The element types a model tensor can have here, with their NumPy type strings.
struct TypeInfo {
  aclDataType acl;
  const char* descr;
  const char* name;
};
constexpr TypeInfo kTypes[] = {
    {ACL_FLOAT, "f4", "float32"}, {ACL_FLOAT16, "f2", "float16"}, {ACL_DOUBLE, "f8", "float64"},
    {ACL_INT8, "i1", "int8"},     {ACL_INT16, "i2", "int16"},     {ACL_INT32, "i4", "int32"},
    {ACL_INT64, "i8", "int64"},   {ACL_UINT8, "u1", "uint8"},     {ACL_UINT16, "u2", "uint16"},
    {ACL_UINT32, "u4", "uint32"}, {ACL_UINT64, "u8", "uint64"},   {ACL_BOOL, "b1", "bool"},
};

const TypeInfo* type_of(aclDataType t) {
  for (const auto& info : kTypes)
    if (info.acl == t) return &info;
  return nullptr;
}

// Element I of raw data of NumPy type DESCR, as a double (exact for every type but 64-bit integers
// beyond 2^53, which the comparison and conversion paths accept as approximate).
double load(const std::string& descr, const unsigned char* data, size_t i) {
  auto get = [&](auto v) {
    std::memcpy(&v, data + i * sizeof v, sizeof v);
    return double(v);
  };
  if (descr == "f4") return get(float{});
  if (descr == "f8") return get(double{});
  if (descr == "f2") {
    aclFloat16 h;
    std::memcpy(&h, data + i * 2, 2);
    return aclFloat16ToFloat(h);
  }
  if (descr == "i1") return get(int8_t{});
  if (descr == "i2") return get(int16_t{});
  if (descr == "i4") return get(int32_t{});
  if (descr == "i8") return get(int64_t{});
  if (descr == "u1") return get(uint8_t{});
  if (descr == "u2") return get(uint16_t{});
  if (descr == "u4") return get(uint32_t{});
  if (descr == "u8") return get(uint64_t{});
  return data[i] != 0 ? 1.0 : 0.0;  // b1
}

void store(const std::string& descr, unsigned char* data, size_t i, double x) {
  auto put = [&](auto v) { std::memcpy(data + i * sizeof v, &v, sizeof v); };
  if (descr == "f4") return put(float(x));
  if (descr == "f8") return put(x);
  if (descr == "f2") return put(aclFloatToFloat16(float(x)));
  if (descr == "i1") return put(int8_t(x));
  if (descr == "i2") return put(int16_t(x));
  if (descr == "i4") return put(int32_t(x));
  if (descr == "i8") return put(int64_t(x));
  if (descr == "u1") return put(uint8_t(x));
  if (descr == "u2") return put(uint16_t(x));
  if (descr == "u4") return put(uint32_t(x));
  if (descr == "u8") return put(uint64_t(x));
  data[i] = x != 0.0 ? 1 : 0;  // b1
}

// One model input or output: its description and its device buffer.
struct Tensor {
  std::string name;
  aclDataType type = ACL_DT_UNDEFINED;
  std::vector<int64_t> dims;
  size_t bytes = 0;
  void* device = nullptr;
  aclDataBuffer* buffer = nullptr;
};

std::vector<int64_t> dims_of(const aclmdlIODims& d) {
  return {d.dims, d.dims + d.dimCount};
}

bool is_static(const std::vector<int64_t>& dims) {
  return std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0; });
}

// A host buffer of BYTES for WHAT, refused (not thrown) when the machine's memory could not hold it.
std::vector<unsigned char> host_buffer(size_t bytes, const std::string& what) {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && bytes / static_cast<size_t>(page) >= static_cast<size_t>(pages)) {
    fail(what + " needs " + std::to_string(bytes) + " bytes of host memory, more than this machine has");
  }
  try {
    return std::vector<unsigned char>(bytes);
  } catch (const std::bad_alloc&) {
    fail(what + ": cannot allocate " + std::to_string(bytes) + " bytes of host memory");
  }
}

std::string describe(const Tensor& t) {
  const TypeInfo* info = type_of(t.type);
  return t.name + " " + (info ? info->name : "type " + std::to_string(int(t.type))) + npy::shape_text(t.dims);
}

// The host data of input T: from its .npy file (shape checked, type converted) or random.
std::vector<unsigned char> input_data(const Tensor& t, const std::string* file, std::mt19937* rng) {
  const TypeInfo* info = type_of(t.type);
  if (info == nullptr) fail("input " + describe(t) + ": this element type cannot be read or generated");
  if (file == nullptr) {
    if (!is_static(t.dims))
      fail("input " + describe(t) + " has dynamic dimensions: give its data with --input " + t.name + "=FILE.npy");
    std::vector<unsigned char> data = host_buffer(t.bytes, "input " + describe(t));
    const size_t n = t.bytes / aclDataTypeSize(t.type);
    const bool real = info->descr[0] == 'f';
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (size_t i = 0; i < n; ++i) store(info->descr, data.data(), i, real ? uniform(*rng) : 0.0);
    return data;
  }
  npy::Array a;
  std::string error;
  if (!npy::read(*file, &a, &error)) fail("input " + t.name + ": " + error);
  bool shape_ok = a.shape.size() == t.dims.size();
  for (size_t i = 0; shape_ok && i < a.shape.size(); ++i) shape_ok = t.dims[i] < 0 || t.dims[i] == a.shape[i];
  if (!shape_ok) fail("input " + describe(t) + ": " + *file + " holds shape " + npy::shape_text(a.shape));
  if (a.descr == info->descr) return std::move(a.data);
  std::fprintf(stderr, "ascend-run run: input %s: converting %s from %s to %s\n", t.name.c_str(), file->c_str(),
               a.descr.c_str(), info->name);
  size_t bytes = 0;
  if (!npy::checked_bytes(a.shape, aclDataTypeSize(t.type), &bytes)) fail("input " + describe(t) + ": too large");
  std::vector<unsigned char> data = host_buffer(bytes, "input " + describe(t));
  for (size_t i = 0; i < a.elements(); ++i) store(info->descr, data.data(), i, load(a.descr, a.data.data(), i));
  return data;
}

double percentile(std::vector<double> sorted_values, double q) {
  if (sorted_values.empty()) return 0.0;
  const double at = q * double(sorted_values.size() - 1);
  const size_t lo = size_t(at);
  const size_t hi = std::min(lo + 1, sorted_values.size() - 1);
  return sorted_values[lo] + (at - double(lo)) * (sorted_values[hi] - sorted_values[lo]);
}

// Shows "iteration k/N" on a terminal, a line per quarter elsewhere, once a run takes over a second.
class Progress {
 public:
  Progress(size_t total, bool quiet) : total_(total), quiet_(quiet), tty_(isatty(STDERR_FILENO) == 1) {}
  void update(size_t done) {
    if (quiet_) return;
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < 1.0) return;
    if (tty_) {
      if (std::chrono::duration<double>(now - last_).count() < 0.2 && done != total_) return;
      last_ = now;
      std::fprintf(stderr, "\r  iteration %zu/%zu (%.1f s)", done, total_, elapsed);
      shown_ = true;
    } else if (done * 4 / total_ > quarter_) {
      quarter_ = done * 4 / total_;
      std::fprintf(stderr, "  iteration %zu/%zu (%.1f s)\n", done, total_, elapsed);
    }
  }
  ~Progress() {
    if (shown_) std::fputc('\n', stderr);
  }

 private:
  size_t total_;
  bool quiet_;
  bool tty_;
  bool shown_ = false;
  size_t quarter_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = start_;
};

// Compares output T's host data with a reference file; prints the errors; true when within tolerance.
bool compare(const Tensor& t, const std::vector<unsigned char>& host, const std::string& file, const Options& o) {
  npy::Array ref;
  std::string error;
  if (!npy::read(file, &ref, &error)) fail("--compare " + t.name + ": " + error);
  const std::string descr = type_of(t.type)->descr;
  const size_t n = host.size() / aclDataTypeSize(t.type);
  if (ref.shape != t.dims) {
    std::printf("  %s: reference %s has shape %s, the output %s: MISMATCH\n", t.name.c_str(), file.c_str(),
                npy::shape_text(ref.shape).c_str(), npy::shape_text(t.dims).c_str());
    return false;
  }
  // The same kind of number (a float64 reference for a float32 output is a finer reference; an
  // integer or boolean reference for a float output is the wrong file).
  if (ref.descr.empty() || ref.descr[0] != descr[0]) {
    std::printf("  %s: reference %s holds '%s' elements, the output '%s': MISMATCH\n", t.name.c_str(), file.c_str(),
                ref.descr.c_str(), descr.c_str());
    return false;
  }
  if (ref.elements() != n) {
    std::printf("  %s: reference %s holds %zu elements %s, the output has %zu: MISMATCH\n", t.name.c_str(),
                file.c_str(), ref.elements(), npy::shape_text(ref.shape).c_str(), n);
    return false;
  }
  double max_abs = 0.0;
  double max_rel = 0.0;
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const double got = load(descr, host.data(), i);
    const double want = load(ref.descr, ref.data.data(), i);
    // NaN matches NaN and an infinity the same infinity (as numpy.testing does); otherwise the
    // tolerance decides, and a NaN or infinity against a number is a mismatch.
    if ((std::isnan(got) && std::isnan(want)) || (std::isinf(got) && got == want)) continue;
    const double err = std::fabs(got - want);
    if (!(err <= o.atol + o.rtol * std::fabs(want))) ++bad;
    max_abs = std::max(max_abs, err);
    if (want != 0.0) max_rel = std::max(max_rel, err / std::fabs(want));
  }
  std::printf("  %s vs %s: max abs error %.3g, max rel error %.3g, %zu of %zu outside atol %.g + rtol %.g: %s\n",
              t.name.c_str(), file.c_str(), max_abs, max_rel, bad, n, o.atol, o.rtol, bad == 0 ? "match" : "MISMATCH");
  return bad == 0;
}

std::string size_text(size_t bytes) {
  char buf[32];
  if (bytes < (size_t(1) << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / 1024.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / 1048576.0);
  }
  return buf;
}

std::string stem_of(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  const size_t dot = base.rfind('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

// --graph: captures one aclmdlExecuteAsync of the model on `stream` into a model runtime
// instance and says what it holds. Whatever fails, the capture is ended, so the stream is usable.
aclmdlRI capture_step(uint32_t model_id, const aclmdlDataset* in_set, aclmdlDataset* out_set, aclrtStream stream) {
  RUN_CHECK(aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  const aclError executed = aclmdlExecuteAsync(model_id, in_set, out_set, stream);
  std::string why;
  if (executed != ACL_SUCCESS) {
    const char* msg = aclGetRecentErrMsg();
    why = msg != nullptr && *msg != '\0' ? msg : "aclmdlExecuteAsync returned " + std::to_string(executed);
  }
  aclmdlRI graph = nullptr;
  const aclError ended = aclmdlRICaptureEnd(stream, &graph);
  if (executed != ACL_SUCCESS) {
    if (graph != nullptr) aclmdlRIDestroy(graph);
    fail("--graph: capturing the model step failed: " + why);
  }
  RUN_CHECK(ended);
  uint32_t streams = 0;
  RUN_CHECK(aclmdlRIGetStreams(graph, nullptr, &streams));
  std::vector<aclrtStream> list(streams);
  RUN_CHECK(aclmdlRIGetStreams(graph, list.data(), &streams));
  size_t tasks = 0;
  for (aclrtStream s : list) {
    uint32_t n = 0;
    RUN_CHECK(aclmdlRIGetTasksByStream(s, nullptr, &n));
    tasks += n;
  }
  std::printf("graph: the step captured as %zu tasks on %u streams, replayed with one aclmdlRIExecuteAsync\n", tasks,
              streams);
  return graph;
}

}  // namespace

bool parse_binding(const char* text, std::pair<std::string, std::string>* out) {
  const char* eq = std::strchr(text, '=');
  if (eq == nullptr || eq == text || eq[1] == '\0') return false;
  *out = {std::string(text, eq), std::string(eq + 1)};
  return true;
}

int run(const Options& o) {
  if (o.profile && setenv("ASCEND_RUN_PROFILING", "timeline,summary", 1) != 0) {
    std::perror("ascend-run run: setenv");
    return 1;
  }
  if (aclError rc = aclInit(o.config); rc != ACL_SUCCESS) {
    cli::report_init_failure("run", rc);
    return 1;
  }
  bool device_set = false;
  uint32_t model_id = 0;
  bool loaded = false;
  aclmdlDesc* desc = nullptr;
  aclmdlDataset* in_set = nullptr;
  aclmdlDataset* out_set = nullptr;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  aclrtStream stream = nullptr;  // --graph: the stream the step is captured on and replayed to
  aclmdlRI graph = nullptr;
  int status = 0;
  try {
    RUN_CHECK(aclrtSetDevice(0));
    device_set = true;
    size_t work = 0;
    size_t weights = 0;
    RUN_CHECK(aclmdlQuerySize(o.model.c_str(), &work, &weights));
    const auto load_start = std::chrono::steady_clock::now();
    RUN_CHECK(aclmdlLoadFromFile(o.model.c_str(), &model_id));
    loaded = true;
    const double load_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start).count();
    desc = aclmdlCreateDesc();
    if (desc == nullptr) fail("aclmdlCreateDesc returned NULL");
    RUN_CHECK(aclmdlGetDesc(desc, model_id));
    std::printf("model %s: loaded in %.1f ms; weights %s, workspace %s (planned at load)\n", o.model.c_str(), load_ms,
                size_text(weights).c_str(), size_text(work).c_str());

    auto describe_all = [&](bool is_input) {
      std::vector<Tensor> list(is_input ? aclmdlGetNumInputs(desc) : aclmdlGetNumOutputs(desc));
      for (size_t i = 0; i < list.size(); ++i) {
        Tensor& t = list[i];
        aclmdlIODims d{};
        RUN_CHECK(is_input ? aclmdlGetInputDims(desc, i, &d) : aclmdlGetOutputDims(desc, i, &d));
        const char* name = is_input ? aclmdlGetInputNameByIndex(desc, i) : aclmdlGetOutputNameByIndex(desc, i);
        t.name = name != nullptr ? name : d.name;
        t.dims = dims_of(d);
        t.type = is_input ? aclmdlGetInputDataType(desc, i) : aclmdlGetOutputDataType(desc, i);
        t.bytes = is_input ? aclmdlGetInputSizeByIndex(desc, i) : aclmdlGetOutputSizeByIndex(desc, i);
        std::printf("  %s %zu: %s, %zu bytes\n", is_input ? "input " : "output", i, describe(t).c_str(), t.bytes);
      }
      return list;
    };
    inputs = describe_all(true);
    outputs = describe_all(false);

    std::map<std::string, std::string> given(o.inputs.begin(), o.inputs.end());
    std::mt19937 rng(o.seed);
    in_set = aclmdlCreateDataset();
    out_set = aclmdlCreateDataset();
    if (in_set == nullptr || out_set == nullptr) fail("aclmdlCreateDataset returned NULL");
    for (Tensor& t : inputs) {
      const auto it = given.find(t.name);
      const std::vector<unsigned char> host = input_data(t, it == given.end() ? nullptr : &it->second, &rng);
      if (it != given.end()) given.erase(it);
      if (t.bytes == 0 || !is_static(t.dims)) t.bytes = host.size();
      if (host.size() != t.bytes)
        fail("input " + describe(t) + " needs " + std::to_string(t.bytes) + " bytes, the data has " +
             std::to_string(host.size()));
      // An empty tensor (a dimension 0: ReduceSum's empty axes, a zero-size Split part) has no
      // memory: aclrtMalloc refuses size 0, as CANN's does, and the buffer is (NULL, 0).
      if (t.bytes > 0) {
        RUN_CHECK(aclrtMalloc(&t.device, t.bytes, ACL_MEM_MALLOC_HUGE_FIRST));
        RUN_CHECK(aclrtMemcpy(t.device, t.bytes, host.data(), host.size(), ACL_MEMCPY_HOST_TO_DEVICE));
      }
      t.buffer = aclCreateDataBuffer(t.device, t.bytes);
      RUN_CHECK(aclmdlAddDatasetBuffer(in_set, t.buffer));
    }
    if (!given.empty()) {
      std::string names;
      for (const Tensor& t : inputs) names += (names.empty() ? "" : ", ") + t.name;
      fail("--input " + given.begin()->first + ": the model has no input of that name (its inputs: " + names + ")");
    }
    for (Tensor& t : outputs) {
      if (type_of(t.type) == nullptr) fail("output " + describe(t) + ": this element type cannot be written as .npy");
      if (t.bytes > 0) RUN_CHECK(aclrtMalloc(&t.device, t.bytes, ACL_MEM_MALLOC_HUGE_FIRST));
      t.buffer = aclCreateDataBuffer(t.device, t.bytes);
      RUN_CHECK(aclmdlAddDatasetBuffer(out_set, t.buffer));
    }

    // One step: aclmdlExecute, or with --graph one replay of the captured step and its synchronize.
    std::function<void()> step = [&] { RUN_CHECK(aclmdlExecute(model_id, in_set, out_set)); };
    std::vector<double> submit_us;  // --graph: the host's cost of each aclmdlRIExecuteAsync
    if (o.graph) {
      RUN_CHECK(aclrtCreateStream(&stream));
      // The warm-up runs on the capture stream itself: had the last execution used another stream,
      // the captured one would wait for it, and a capture cannot depend on work outside it.
      for (size_t i = 0; i < o.warmup; ++i) {
        RUN_CHECK(aclmdlExecuteAsync(model_id, in_set, out_set, stream));
        RUN_CHECK(aclrtSynchronizeStream(stream));
      }
      graph = capture_step(model_id, in_set, out_set, stream);
      submit_us.reserve(o.iterations);
      step = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        RUN_CHECK(aclmdlRIExecuteAsync(graph, stream));
        submit_us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
        RUN_CHECK(aclrtSynchronizeStream(stream));
      };
    } else {
      for (size_t i = 0; i < o.warmup; ++i) step();
    }
    std::vector<double> ms;
    ms.reserve(o.iterations);
    {
      Progress progress(o.iterations, o.quiet);
      for (size_t i = 0; i < o.iterations; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        step();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        progress.update(i + 1);
      }
    }
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    double total = 0.0;
    for (double v : ms) total += v;
    std::printf(
        "latency over %zu %s (after %zu warm-up): p50 %.3f ms, p90 %.3f ms, min %.3f ms, max %.3f ms, "
        "mean %.3f ms\n",
        ms.size(), o.graph ? "replays" : "runs", o.warmup, percentile(sorted, 0.5), percentile(sorted, 0.9),
        sorted.front(), sorted.back(), total / double(ms.size()));
    if (!submit_us.empty()) {
      std::sort(submit_us.begin(), submit_us.end());
      std::printf("host cost of a replay (aclmdlRIExecuteAsync): p50 %.1f us, max %.1f us\n",
                  percentile(submit_us, 0.5), submit_us.back());
    }

    const std::string dir = o.output_dir.empty() ? stem_of(o.model) + "_outputs" : o.output_dir;
    if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) fail(dir + ": cannot create: " + std::strerror(errno));
    std::map<std::string, std::string> refs(o.compares.begin(), o.compares.end());
    bool all_match = true;
    std::set<std::string> used_names;
    for (size_t i = 0; i < outputs.size(); ++i) {
      Tensor& t = outputs[i];
      std::vector<unsigned char> host = host_buffer(t.bytes, "output " + describe(t));
      if (t.bytes > 0) RUN_CHECK(aclrtMemcpy(host.data(), host.size(), t.device, t.bytes, ACL_MEMCPY_DEVICE_TO_HOST));
      npy::Array a;
      a.descr = type_of(t.type)->descr;
      a.shape = t.dims;
      a.data = host;
      const std::string path = dir + "/" + npy::output_file_name(t.name, i, &used_names);
      std::string error;
      if (!npy::write(path, a, &error)) fail(error);
      std::printf("output %s -> %s\n", describe(t).c_str(), path.c_str());
      const auto it = refs.find(t.name);
      if (it != refs.end()) {
        all_match = compare(t, host, it->second, o) && all_match;
        refs.erase(it);
      }
    }
    if (!refs.empty()) fail("--compare " + refs.begin()->first + ": the model has no output of that name");
    if (!all_match) status = 3;
  } catch (const Failure&) {
    status = 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "ascend-run run: %s: out of host memory\n", o.model.c_str());
    status = 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ascend-run run: %s: %s\n", o.model.c_str(), e.what());
    status = 1;
  }
  for (auto* list : {&inputs, &outputs}) {
    for (Tensor& t : *list) {
      if (t.buffer != nullptr) aclDestroyDataBuffer(t.buffer);
      if (t.device != nullptr) aclrtFree(t.device);
    }
  }
  if (graph != nullptr) aclmdlRIDestroy(graph);
  if (stream != nullptr) aclrtDestroyStream(stream);
  if (in_set != nullptr) aclmdlDestroyDataset(in_set);
  if (out_set != nullptr) aclmdlDestroyDataset(out_set);
  if (desc != nullptr) aclmdlDestroyDesc(desc);
  if (loaded) aclmdlUnload(model_id);
  if (device_set) aclrtResetDevice(0);
  aclFinalize();
  if (o.profile) std::printf("profile: written under ./ascend-run-profile (timeline.json opens in ui.perfetto.dev)\n");
  return status;
}

}  // namespace model_run
