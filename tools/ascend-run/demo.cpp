// ascend-run demo: a double-buffered copy/compute pipeline through the public C API.
//
// This file is meant to be read. It shows the pattern that keeps a device busy:
//
//   copy-in stream:   H2D(0)  H2D(1)  H2D(2) ...        pinned host -> device input slot i%2
//   compute stream:           K(0)    K(1)    K(2) ...  device kernel, input slot -> output slot
//   copy-out stream:                  D2H(0)  D2H(1) .. output slot -> pinned host
//
// Three streams, so copies in both directions and kernels can run at the same time; two device
// slots for inputs and two for outputs, so batch i+1 can be copied in while batch i is computed.
// Events order the streams without the host waiting:
//   K(i)      waits for H2D(i)   (its input has arrived)       and D2H(i-2) (its output slot is free)
//   H2D(i)    waits for K(i-2)   (the kernel that read this input slot has finished)
//   D2H(i)    waits for K(i)
// The host only enqueues, then synchronizes once at the end. Every result is compared with the
// same computation done on the host, and the per-stage times come from timeline events recorded
// on the streams (device clock), so the overlap printed is what the device actually did.
#include "demo.hpp"
#include "runtime_errors.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "arun/arun_ext.h"
#include "arun/kernel.hpp"

namespace demo {
namespace {

// Every ACL call is checked; the first failure ends the demo with the runtime's own message.
#define DEMO_CHECK(expr)                                                                                  \
  do {                                                                                                    \
    aclError demo_rc_ = (expr);                                                                           \
    if (demo_rc_ != ACL_SUCCESS) {                                                                        \
      const char* demo_msg_ = aclGetRecentErrMsg();                                                       \
      std::fprintf(stderr, "demo: %s failed with %d: %s\n", #expr, demo_rc_, demo_msg_ ? demo_msg_ : ""); \
      throw Failure{};                                                                                    \
    }                                                                                                     \
  } while (0)

struct Failure {};

// The computation: a degree-6 polynomial per element, evaluated by Horner's rule. It is the same
// function on the device (inside the kernel) and on the host (for the check).
constexpr float kCoeff[] = {0.25f, -0.5f, 0.125f, 1.5f, -0.75f, 2.0f, 0.5f};

inline float polynomial(float x) {
  float y = kCoeff[0];
  for (size_t c = 1; c < sizeof kCoeff / sizeof kCoeff[0]; ++c) y = y * x + kCoeff[c];
  return y;
}

// The kernel: each block takes its contiguous share of the batch. Device memory is reached only
// through the checked views Block::map returns.
void polynomial_kernel(arun::Block block, const float* in, float* out, size_t n) {
  auto x = block.map(in, n);
  auto y = block.map(out, n);
  const arun::IndexRange mine = block.range(n);
  const float* src = x.data();  // the range is inside both views: unchecked inner loop
  float* dst = y.data();
  for (size_t i = mine.first; i < mine.last; ++i) dst[i] = polynomial(src[i]);
}

float input_value(size_t batch, size_t i) {
  return float((batch * 7919 + i) % 2001) / 1000.0f - 1.0f;
}

// A stage's begin/end events of one batch (ACL_EVENT_TIME_LINE: they carry device timestamps).
struct StageEvents {
  aclrtEvent begin = nullptr;
  aclrtEvent end = nullptr;
};

enum Stage { kH2D, kKernel, kD2H, kStages };
const char* const kStageName[kStages] = {"H2D copy", "kernel", "D2H copy"};

struct Interval {
  double begin_ms, end_ms;
};

// Total length of the union of intervals.
double union_ms(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.begin_ms < b.begin_ms; });
  double total = 0, cur_b = 0, cur_e = -1;
  for (const Interval& i : v) {
    if (i.begin_ms > cur_e) {
      if (cur_e > cur_b) total += cur_e - cur_b;
      cur_b = i.begin_ms;
      cur_e = i.end_ms;
    } else {
      cur_e = std::max(cur_e, i.end_ms);
    }
  }
  if (cur_e > cur_b) total += cur_e - cur_b;
  return total;
}

// Length of (union of a) ∩ (union of b), from |A| + |B| - |A ∪ B|.
double intersection_ms(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> both = a;
  both.insert(both.end(), b.begin(), b.end());
  return union_ms(a) + union_ms(b) - union_ms(both);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

class Pipeline {
 public:
  explicit Pipeline(const Options& o) : o_(o), bytes_(o.elements * sizeof(float)) {}

  ~Pipeline() {
    // Best effort: a failure above may leave some of these unset.
    for (aclrtEvent e : all_events_) (void)aclrtDestroyEvent(e);
    for (aclrtStream s : {copy_in_, compute_, copy_out_})
      if (s != nullptr) (void)aclrtDestroyStream(s);
    for (int slot = 0; slot < 2; ++slot) {
      if (dev_in_[slot] != nullptr) (void)aclrtFree(dev_in_[slot]);
      if (dev_out_[slot] != nullptr) (void)aclrtFree(dev_out_[slot]);
    }
    for (void* p : host_in_) (void)aclrtFreeHost(p);
    for (void* p : host_out_) (void)aclrtFreeHost(p);
  }

  void setup() {
    DEMO_CHECK(aclrtCreateStream(&copy_in_));
    DEMO_CHECK(aclrtCreateStream(&compute_));
    DEMO_CHECK(aclrtCreateStream(&copy_out_));
    for (int slot = 0; slot < 2; ++slot) {
      DEMO_CHECK(aclrtMalloc(&dev_in_[slot], bytes_, ACL_MEM_MALLOC_HUGE_FIRST));
      DEMO_CHECK(aclrtMalloc(&dev_out_[slot], bytes_, ACL_MEM_MALLOC_HUGE_FIRST));
    }
    // Pinned host memory: asynchronous copies from pageable memory would have to be staged.
    host_in_.resize(o_.batches);
    host_out_.resize(o_.batches);
    for (size_t b = 0; b < o_.batches; ++b) {
      DEMO_CHECK(aclrtMallocHost(&host_in_[b], bytes_));
      DEMO_CHECK(aclrtMallocHost(&host_out_[b], bytes_));
      auto* in = static_cast<float*>(host_in_[b]);
      for (size_t i = 0; i < o_.elements; ++i) in[i] = input_value(b, i);
      std::memset(host_out_[b], 0, bytes_);
    }
    // Events that order the streams (SYNC) and events that time the stages (TIME_LINE).
    for (int slot = 0; slot < 2; ++slot) {
      input_ready_[slot] = sync_event();
      input_free_[slot] = sync_event();
      output_ready_[slot] = sync_event();
      output_free_[slot] = sync_event();
    }
    origin_ = timeline_event();
    times_.resize(o_.batches);
    for (auto& batch : times_)
      for (auto& stage : batch) stage = {timeline_event(), timeline_event()};
  }

  // Enqueues the whole pipeline; returns without waiting for the device.
  void enqueue() {
    DEMO_CHECK(aclrtRecordEvent(origin_, copy_in_));
    for (size_t b = 0; b < o_.batches; ++b) {
      const int slot = static_cast<int>(b % 2);
      auto& t = times_[b];

      // Copy in, once the kernel that last read this input slot (batch b-2) is done.
      if (b >= 2) DEMO_CHECK(aclrtStreamWaitEvent(copy_in_, input_free_[slot]));
      DEMO_CHECK(aclrtRecordEvent(t[kH2D].begin, copy_in_));
      DEMO_CHECK(aclrtMemcpyAsync(dev_in_[slot], bytes_, host_in_[b], bytes_, ACL_MEMCPY_HOST_TO_DEVICE, copy_in_));
      DEMO_CHECK(aclrtRecordEvent(t[kH2D].end, copy_in_));
      DEMO_CHECK(aclrtRecordEvent(input_ready_[slot], copy_in_));

      // Compute, once the input is there and the D2H of batch b-2 has emptied the output slot.
      DEMO_CHECK(aclrtStreamWaitEvent(compute_, input_ready_[slot]));
      if (b >= 2) DEMO_CHECK(aclrtStreamWaitEvent(compute_, output_free_[slot]));
      DEMO_CHECK(aclrtRecordEvent(t[kKernel].begin, compute_));
      DEMO_CHECK(arun::launch(compute_, o_.blocks, polynomial_kernel, static_cast<const float*>(dev_in_[slot]),
                              static_cast<float*>(dev_out_[slot]), o_.elements));
      DEMO_CHECK(aclrtRecordEvent(t[kKernel].end, compute_));
      DEMO_CHECK(aclrtRecordEvent(input_free_[slot], compute_));
      DEMO_CHECK(aclrtRecordEvent(output_ready_[slot], compute_));

      // Copy out.
      DEMO_CHECK(aclrtStreamWaitEvent(copy_out_, output_ready_[slot]));
      DEMO_CHECK(aclrtRecordEvent(t[kD2H].begin, copy_out_));
      DEMO_CHECK(aclrtMemcpyAsync(host_out_[b], bytes_, dev_out_[slot], bytes_, ACL_MEMCPY_DEVICE_TO_HOST, copy_out_));
      DEMO_CHECK(aclrtRecordEvent(t[kD2H].end, copy_out_));
      DEMO_CHECK(aclrtRecordEvent(output_free_[slot], copy_out_));
    }
  }

  // The same work on one stream: nothing can overlap. The baseline the pipeline is compared with.
  void enqueue_serial() {
    for (size_t b = 0; b < o_.batches; ++b) {
      DEMO_CHECK(aclrtMemcpyAsync(dev_in_[0], bytes_, host_in_[b], bytes_, ACL_MEMCPY_HOST_TO_DEVICE, compute_));
      DEMO_CHECK(arun::launch(compute_, o_.blocks, polynomial_kernel, static_cast<const float*>(dev_in_[0]),
                              static_cast<float*>(dev_out_[0]), o_.elements));
      DEMO_CHECK(aclrtMemcpyAsync(host_out_[b], bytes_, dev_out_[0], bytes_, ACL_MEMCPY_DEVICE_TO_HOST, compute_));
    }
  }

  void synchronize() {
    DEMO_CHECK(aclrtSynchronizeStream(copy_in_));
    DEMO_CHECK(aclrtSynchronizeStream(compute_));
    DEMO_CHECK(aclrtSynchronizeStream(copy_out_));
  }

  // Compares every output with the host computation; returns the number of mismatches.
  size_t verify() const {
    size_t bad = 0;
    for (size_t b = 0; b < o_.batches; ++b) {
      const auto* out = static_cast<const float*>(host_out_[b]);
      for (size_t i = 0; i < o_.elements; ++i) {
        const float want = polynomial(input_value(b, i));
        if (!(std::fabs(out[i] - want) <= 1e-5f * std::max(1.0f, std::fabs(want)))) {
          if (bad++ < 5) std::printf("  mismatch: batch %zu element %zu: %g, expected %g\n", b, i, out[i], want);
        }
      }
    }
    return bad;
  }

  void clear_outputs() {
    for (void* p : host_out_) std::memset(p, 0, bytes_);
  }

  // Per-stage times and the copy/compute overlap, from the timeline events.
  void report(double wall_ms) {
    std::vector<Interval> stages[kStages];
    for (size_t b = 0; b < o_.batches; ++b) {
      for (int s = 0; s < kStages; ++s) {
        float begin = 0, end = 0;
        DEMO_CHECK(aclrtEventElapsedTime(&begin, origin_, times_[b][s].begin));
        DEMO_CHECK(aclrtEventElapsedTime(&end, origin_, times_[b][s].end));
        stages[s].push_back({begin, end});
      }
    }
    std::printf("\n  %-9s %10s %10s %10s   (ms on the device clock; batch 0 starts at 0)\n", "batch", "H2D", "kernel",
                "D2H");
    for (size_t b = 0; b < o_.batches; ++b) {
      std::printf("  %-9zu", b);
      for (int s = 0; s < kStages; ++s) std::printf(" %4.1f-%-5.1f", stages[s][b].begin_ms, stages[s][b].end_ms);
      std::printf("\n");
    }
    std::printf("\n");
    for (int s = 0; s < kStages; ++s) {
      std::vector<double> d;
      for (const Interval& i : stages[s]) d.push_back(i.end_ms - i.begin_ms);
      std::printf("  %-9s median %.2f ms per batch, %.1f GB/s\n", kStageName[s], median(d),
                  s == kKernel ? double(bytes_) * 2 / (median(d) * 1e6) : double(bytes_) / (median(d) * 1e6));
    }
    std::vector<Interval> copies = stages[kH2D];
    copies.insert(copies.end(), stages[kD2H].begin(), stages[kD2H].end());
    const double kernel_ms = union_ms(stages[kKernel]);
    const double overlapped = intersection_ms(copies, stages[kKernel]);
    overlap_ = kernel_ms > 0 ? overlapped / kernel_ms : 0;
    double busy_sum = 0;
    for (auto& s : stages)
      for (const Interval& i : s) busy_sum += i.end_ms - i.begin_ms;
    std::printf("\n  stage time, summed:  %.1f ms\n", busy_sum);
    std::printf("  pipeline wall time:  %.1f ms\n", wall_ms);
    std::printf("  copy/compute overlap: %.0f%% of kernel time had a copy in flight (%.1f of %.1f ms)\n",
                overlap_ * 100, overlapped, kernel_ms);
  }

  double overlap() const { return overlap_; }

 private:
  aclrtEvent sync_event() {
    aclrtEvent e = nullptr;
    DEMO_CHECK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    all_events_.push_back(e);
    return e;
  }
  aclrtEvent timeline_event() {
    aclrtEvent e = nullptr;
    DEMO_CHECK(aclrtCreateEventWithFlag(&e, ACL_EVENT_TIME_LINE));
    all_events_.push_back(e);
    return e;
  }

  const Options o_;
  const size_t bytes_;
  aclrtStream copy_in_ = nullptr, compute_ = nullptr, copy_out_ = nullptr;
  void *dev_in_[2] = {}, *dev_out_[2] = {};
  std::vector<void*> host_in_, host_out_;
  aclrtEvent input_ready_[2] = {}, input_free_[2] = {}, output_ready_[2] = {}, output_free_[2] = {};
  aclrtEvent origin_ = nullptr;
  std::vector<std::array<StageEvents, kStages>> times_;
  std::vector<aclrtEvent> all_events_;
  double overlap_ = 0;
};

double ms_since(const std::chrono::steady_clock::time_point& t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int run_on_device(const Options& o) {
  DEMO_CHECK(aclrtSetDevice(0));
  const char* soc = aclrtGetSocName();
  size_t free_b = 0, total_b = 0;
  DEMO_CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total_b));
  std::printf("ascend-run demo: %zu batches of %zu floats (%.1f MiB), kernels of %u blocks\n", o.batches, o.elements,
              double(o.elements * sizeof(float)) / (1 << 20), o.blocks);
  std::printf("device 0: %s, %.1f GiB device memory\n", soc ? soc : "?", double(total_b) / (1ull << 30));

  Pipeline p(o);
  p.setup();

  // Warm-up: touch every page once, so no first-touch page fault is timed.
  p.enqueue_serial();
  p.synchronize();

  // Serial and pipelined runs alternate, so both see the same machine load; the medians are
  // compared. Every run's results are verified.
  std::vector<double> serial_ms, wall_ms;
  double enqueue_ms = 0;
  size_t bad = 0, serial_bad = 0;
  for (int rep = 0; rep < 3; ++rep) {
    p.clear_outputs();
    auto t0 = std::chrono::steady_clock::now();
    p.enqueue_serial();
    p.synchronize();
    serial_ms.push_back(ms_since(t0));
    serial_bad += p.verify();

    p.clear_outputs();
    t0 = std::chrono::steady_clock::now();
    p.enqueue();
    enqueue_ms = ms_since(t0);
    p.synchronize();
    wall_ms.push_back(ms_since(t0));
    bad += p.verify();
  }

  std::printf("\npipelined on 3 streams (last of 3 runs; enqueued in %.2f ms, the host never waited in between):",
              enqueue_ms);
  p.report(wall_ms.back());
  const double pipelined = median(wall_ms), serial = median(serial_ms);
  std::printf("  median of 3 runs: pipelined %.1f ms, same work on one stream %.1f ms  ->  speed-up %.2fx\n", pipelined,
              serial, serial / pipelined);
  std::printf(
      "  (the simulated NPU's AI cores and copy engines share this machine's %u CPUs: kernels already\n"
      "   use them all, so on few CPUs a copy overlapping a kernel takes CPU time from it)\n",
      std::thread::hardware_concurrency());
  const size_t results = o.batches * o.elements;
  if (bad != 0 || serial_bad != 0) {
    std::printf("\nFAILED: %zu of %zu pipelined results (and %zu serial ones) differ from the host, over 3 runs\n", bad,
                results, serial_bad);
    return 1;
  }
  std::printf("\nverified: all %zu results of every run (3 pipelined, 3 serial) match the host computation\n", results);
  if (const char* mem = arunMemReport(0)) std::printf("\n%s", mem);
  return 0;
}

}  // namespace

int run(const Options& o) {
  if (o.batches == 0 || o.elements == 0 || o.blocks == 0) {
    std::fprintf(stderr, "demo: batches, elements and blocks must be at least 1\n");
    return 2;
  }
  aclError rc = aclInit(o.config);
  if (rc != ACL_SUCCESS) {
    cli::report_init_failure("demo", rc);
    return 1;
  }
  int status = 1;
  try {
    status = run_on_device(o);
  } catch (const Failure&) {
    status = 1;
  }
  (void)aclrtResetDevice(0);
  (void)aclFinalize();
  return status;
}

}  // namespace demo
