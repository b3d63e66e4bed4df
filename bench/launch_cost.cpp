// Host cost of the hot API calls as instruction counts, free of timing noise: each case issues the
// same call `n` times on a stream whose device work is held back by a gate (a device task that
// sleeps until the loop is over), with callgrind collecting only inside the loop, and dumps the
// counts under the case's name. tools/launch_cost_callgrind.sh runs it for one or two builds and
// prints instructions per call side by side.
//   valgrind --tool=callgrind --collect-atstart=no build/bin/arun_launch_cost [n]
// Uses only the public headers, so the same source builds against any version of the library.
#include <valgrind/callgrind.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "arun/arun_ext.h"
#include "arun/kernel.hpp"
#if __has_include("aclnnop/aclnn_add.h")  // builds without aclnn too (compare_builds, older trees)
#include "aclnnop/aclnn_add.h"
#define ARUN_HAVE_ACLNN 1
#endif

namespace {

#define CHECK(call)                                                                 \
  do {                                                                              \
    aclError rc_ = (call);                                                          \
    if (rc_ != ACL_SUCCESS) {                                                       \
      std::fprintf(stderr, "%s failed: %d %s\n", #call, rc_, aclGetRecentErrMsg()); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

std::atomic<bool> g_open{false};
void gate(void*) {
  g_open.wait(false);
}
void empty_task(void*) {}
void empty_kernel(arun::Block) {}

// Runs `call` n times with collection on and dumps the counts as `name`; the device holds the work
// until the loop is over, so only the host path is counted.
template <class F>
void measure(const char* name, aclrtStream stream, int n, F&& call) {
  g_open.store(false);
  CHECK(arunLaunchDeviceTask(&gate, nullptr, stream));
  CALLGRIND_ZERO_STATS;
  CALLGRIND_TOGGLE_COLLECT;
  for (int i = 0; i < n; ++i) call();
  CALLGRIND_TOGGLE_COLLECT;
  CALLGRIND_DUMP_STATS_AT(name);
  g_open.store(true);
  g_open.notify_all();
  CHECK(aclrtSynchronizeStream(stream));
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 500;  // below the default queue bound (1024)
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  aclrtStream s = nullptr;
  CHECK(aclrtCreateStream(&s));
  void* dev = nullptr;
  void* host = nullptr;
  CHECK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMallocHost(&host, 4096));
  aclrtEvent ev = nullptr;
  CHECK(aclrtCreateEvent(&ev));
  const int64_t dims[] = {16};
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 1, dims, ACL_FORMAT_ND);
  aclDataBuffer* buf = aclCreateDataBuffer(dev, 64);
  aclopAttr* attr = aclopCreateAttr();
  const aclTensorDesc* in_desc[] = {desc, desc};
  const aclDataBuffer* in_buf[] = {buf, buf};
  aclTensorDesc* out_desc[] = {desc};
  aclDataBuffer* out_buf[] = {buf};

  measure("device_task", s, n, [&] { CHECK(arunLaunchDeviceTask(&empty_task, nullptr, s)); });
  measure("kernel_launch", s, n, [&] { CHECK(arun::launch(s, 1, empty_kernel)); });
  measure("memcpy_async_h2d_64B", s, n,
          [&] { CHECK(aclrtMemcpyAsync(dev, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, s)); });
  measure("memset_async_64B", s, n, [&] { CHECK(aclrtMemsetAsync(dev, 64, 0, 64, s)); });
  measure("record_event", s, n, [&] { CHECK(aclrtRecordEvent(ev, s)); });
  // One replay of a captured graph of 100 empty kernels (issue 18: against 100 x kernel_launch).
  aclrtStream cap = nullptr;
  CHECK(aclrtCreateStream(&cap));
  CHECK(aclmdlRICaptureBegin(cap, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  for (int i = 0; i < 100; ++i) CHECK(arun::launch(cap, 1, empty_kernel));
  aclmdlRI graph = nullptr;
  CHECK(aclmdlRICaptureEnd(cap, &graph));
  measure("graph_replay_100", s, n, [&] { CHECK(aclmdlRIExecuteAsync(graph, s)); });
  CHECK(aclmdlRIDestroy(graph));
  CHECK(aclrtDestroyStream(cap));
  measure("op_add_16", s, n, [&] {
    CHECK(aclopExecuteV2("Add", 2, const_cast<aclTensorDesc**>(in_desc), const_cast<aclDataBuffer**>(in_buf), 1,
                         out_desc, out_buf, attr, s));
  });

#ifdef ARUN_HAVE_ACLNN
  // The same Add of 16 floats through aclnn: both phases per call (CANN's eager pattern; the
  // executor is single-use, so phase 1 runs every time).
  const int64_t shape[] = {16};
  aclTensor* t = aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, dev);
  float one = 1.0f;
  aclScalar* alpha = aclCreateScalar(&one, ACL_FLOAT);
  measure("aclnn_add_16", s, n, [&] {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    CHECK(aclnnAddGetWorkspaceSize(t, t, alpha, t, &ws, &ex));
    CHECK(aclnnAdd(nullptr, ws, ex, s));
  });
  // Plan once, launch many: phase 2 of a repeatable executor only.
  uint64_t rws = 0;
  aclOpExecutor* rex = nullptr;
  CHECK(aclnnAddGetWorkspaceSize(t, t, alpha, t, &rws, &rex));
  CHECK(aclSetAclOpExecutorRepeatable(rex));
  measure("aclnn_add_16_repeat", s, n, [&] { CHECK(aclnnAdd(nullptr, rws, rex, s)); });
  CHECK(aclDestroyAclOpExecutor(rex));
  aclDestroyScalar(alpha);
  aclDestroyTensor(t);
#endif

  aclopDestroyAttr(attr);
  aclDestroyDataBuffer(buf);
  aclDestroyTensorDesc(desc);
  CHECK(aclrtDestroyEvent(ev));
  CHECK(aclrtFreeHost(host));
  CHECK(aclrtFree(dev));
  CHECK(aclrtDestroyStream(s));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  std::printf("ran %d calls per case\n", n);
  return 0;
}
