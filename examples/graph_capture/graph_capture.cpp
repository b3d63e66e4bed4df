// graph_capture: record a step of work once, replay it many times (CANN's "ACL graph", spec part 2,
// 4.12; the kernels are C++ kernels, an ascend-run extension).
//
// What it teaches:
//  - aclmdlRICaptureBegin puts a stream into capture: the copies and kernels submitted to it are
//    recorded, not run; aclmdlRICaptureEnd returns the recorded instance (aclmdlRI);
//  - a second stream joins the capture by waiting on an event recorded in it (a fork) and must be
//    joined back (the origin waits on an event recorded on it) before the capture ends;
//  - aclmdlRIExecuteAsync replays the whole graph with one call; the two branches run concurrently
//    on every replay, and the input (pinned host memory) is read afresh each time;
//  - aclmdlRIDebugJsonPrint writes the graph as a Chrome-tracing file.
#include <cstdio>
#include <cstring>

#include "acl/acl.h"
#include "arun/kernel.hpp"

#define CHECK(expr)                                                                               \
  do {                                                                                            \
    aclError rc_ = (expr);                                                                        \
    if (rc_ != ACL_SUCCESS) {                                                                     \
      const char* msg_ = aclGetRecentErrMsg();                                                    \
      std::printf("%s:%d: %s failed: %d %s\n", __FILE__, __LINE__, #expr, rc_, msg_ ? msg_ : ""); \
      return 1;                                                                                   \
    }                                                                                             \
  } while (0)

void square(arun::Block b, const float* x, float* y, size_t n) {
  auto vx = b.map(x, n);
  auto vy = b.map(y, n);
  for (size_t i : b.range(n)) vy[i] = vx[i] * vx[i];
}
void twice(arun::Block b, const float* x, float* y, size_t n) {
  auto vx = b.map(x, n);
  auto vy = b.map(y, n);
  for (size_t i : b.range(n)) vy[i] = 2 * vx[i];
}
void sum(arun::Block b, const float* x, const float* y, float* z, size_t n) {
  auto vx = b.map(x, n);
  auto vy = b.map(y, n);
  auto vz = b.map(z, n);
  for (size_t i : b.range(n)) vz[i] = vx[i] + vy[i];
}

int main() {
  constexpr size_t n = 1024, bytes = n * sizeof(float);
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  aclrtStream main_stream = nullptr, side = nullptr;
  CHECK(aclrtCreateStream(&main_stream));
  CHECK(aclrtCreateStream(&side));
  aclrtEvent fork = nullptr, join = nullptr;
  CHECK(aclrtCreateEvent(&fork));
  CHECK(aclrtCreateEvent(&join));
  void *x = nullptr, *sq = nullptr, *tw = nullptr, *z = nullptr, *in = nullptr, *out = nullptr;
  for (void** p : {&x, &sq, &tw, &z}) CHECK(aclrtMalloc(p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMallocHost(&in, bytes));
  CHECK(aclrtMallocHost(&out, bytes));
  const auto* fx = static_cast<const float*>(x);

  // z = x*x + 2x, the two terms on two streams.
  aclmdlRI graph = nullptr;
  CHECK(aclmdlRICaptureBegin(main_stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  CHECK(aclrtMemcpyAsync(x, bytes, in, bytes, ACL_MEMCPY_HOST_TO_DEVICE, main_stream));
  CHECK(aclrtRecordEvent(fork, main_stream));
  CHECK(aclrtStreamWaitEvent(side, fork));  // side joins the capture
  CHECK(arun::launch(main_stream, 4, square, fx, static_cast<float*>(sq), n));
  CHECK(arun::launch(side, 4, twice, fx, static_cast<float*>(tw), n));
  CHECK(aclrtRecordEvent(join, side));
  CHECK(aclrtStreamWaitEvent(main_stream, join));  // ... and is joined back
  CHECK(arun::launch(main_stream, 4, sum, static_cast<const float*>(sq), static_cast<const float*>(tw),
                     static_cast<float*>(z), n));
  CHECK(aclrtMemcpyAsync(out, bytes, z, bytes, ACL_MEMCPY_DEVICE_TO_HOST, main_stream));
  CHECK(aclmdlRICaptureEnd(main_stream, &graph));
  CHECK(aclmdlRISetName(graph, "square_plus_twice"));
  std::printf("captured 5 tasks over 2 streams; nothing ran yet\n");

  auto* hin = static_cast<float*>(in);
  auto* hout = static_cast<float*>(out);
  int wrong = 0;
  constexpr int kSteps = 100;
  for (int step = 0; step < kSteps; ++step) {
    for (size_t i = 0; i < n; ++i) hin[i] = static_cast<float>(i % 17) + static_cast<float>(step);
    CHECK(aclmdlRIExecuteAsync(graph, main_stream));  // one call for the whole step
    CHECK(aclrtSynchronizeStream(main_stream));
    for (size_t i = 0; i < n; ++i) {
      const float v = hin[i];
      if (hout[i] != v * v + 2 * v) ++wrong;
    }
  }
  std::printf("replayed %d times, %d wrong elements\n", kSteps, wrong);
  CHECK(aclmdlRIDebugJsonPrint(graph, "graph_capture.json", ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY));
  std::printf("wrote graph_capture.json (open it in chrome://tracing or Perfetto)\n");

  CHECK(aclmdlRIDestroy(graph));
  for (void* p : {x, sq, tw, z}) CHECK(aclrtFree(p));
  CHECK(aclrtFreeHost(in));
  CHECK(aclrtFreeHost(out));
  CHECK(aclrtDestroyEvent(fork));
  CHECK(aclrtDestroyEvent(join));
  CHECK(aclrtDestroyStream(side));
  CHECK(aclrtDestroyStream(main_stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  if (wrong != 0) return 1;
  std::printf("graph_capture: OK\n");
  return 0;
}
