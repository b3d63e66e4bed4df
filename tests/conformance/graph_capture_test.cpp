// Spec part 2, 4.12: model runtime instances captured from streams (aclmdlRICapture*,
// aclmdlRIExecuteAsync, aclmdlRIDestroy, names, ids, debug output, destroy callbacks). Every error
// rule of the implemented entries, and the behaviour: nothing runs while capturing, a capture over
// three streams joined by events replays correctly 1000 times, illegal calls invalidate a capture,
// the capture modes govern unsafe calls, replays of one instance are serialised and run correctly
// next to other streams' work.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "arun/kernel.hpp"
#include "conformance.hpp"

namespace conformance {
namespace {

// One block adds 1 to *p (not atomically: overlapping executions would lose increments).
void increment(arun::Block b, int* p) {
  b.at(p) += 1;
}
void scale(arun::Block b, const float* in, float* out, size_t n, float k) {
  auto vi = b.map(in, n);
  auto vo = b.map(out, n);
  for (size_t i : b.range(n)) vo[i] = vi[i] * k;
}
void offset(arun::Block b, const float* in, float* out, size_t n, float k) {
  auto vi = b.map(in, n);
  auto vo = b.map(out, n);
  for (size_t i : b.range(n)) vo[i] = vi[i] + k;
}
void add(arun::Block b, const float* x, const float* y, float* out, size_t n) {
  auto vx = b.map(x, n);
  auto vy = b.map(y, n);
  auto vo = b.map(out, n);
  for (size_t i : b.range(n)) vo[i] = vx[i] + vy[i];
}

class GraphCaptureTest : public AclDeviceTest {
 protected:
  aclrtStream newStream(uint32_t flags = 0) {
    aclrtStream s = nullptr;
    if (flags == 0) {
      EXPECT_ACL_OK(aclrtCreateStream(&s));
    } else {
      EXPECT_ACL_OK(aclrtCreateStreamWithConfig(&s, 0, flags));
    }
    return s;
  }
  aclrtEvent newEvent() {
    aclrtEvent e = nullptr;
    EXPECT_ACL_OK(aclrtCreateEvent(&e));
    return e;
  }
  int* newCounter() {
    void* p = nullptr;
    EXPECT_ACL_OK(aclrtMalloc(&p, sizeof(int), ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_ACL_OK(aclrtMemset(p, sizeof(int), 0, sizeof(int)));
    return static_cast<int*>(p);
  }
  static int readCounter(const int* dev) {
    int v = -1;
    EXPECT_ACL_OK(aclrtMemcpy(&v, sizeof v, dev, sizeof v, ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
  }
  // Captures `n` increments of `counter` on `s` into a new instance.
  aclmdlRI captureIncrements(aclrtStream s, int* counter, int n) {
    aclmdlRI g = nullptr;
    EXPECT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    for (int i = 0; i < n; ++i) EXPECT_ACL_OK(arun::launch(s, 1, increment, counter));
    EXPECT_ACL_OK(aclmdlRICaptureEnd(s, &g));
    EXPECT_NE(g, nullptr);
    return g;
  }
  static aclmdlRICaptureStatus captureStatus(aclrtStream s, aclmdlRI* g = nullptr) {
    aclmdlRICaptureStatus st = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    EXPECT_ACL_OK(aclmdlRICaptureGetInfo(s, &st, g));
    return st;
  }
};

// ---------------------------------------------------------------- capture: begin / end / info

TEST_P(GraphCaptureTest, CaptureBeginChecks) {
  aclrtStream s = newStream();
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureBegin(nullptr, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureBegin(s, static_cast<aclmdlRICaptureMode>(3)));
  aclrtStream def = nullptr;
  ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&def));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRICaptureBegin(def, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  aclrtStream devOnly = newStream(ACL_STREAM_DEVICE_USE_ONLY);
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRICaptureBegin(devOnly, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &g));
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  aclrtStream dead = newStream();
  ASSERT_ACL_OK(aclrtDestroyStream(dead));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureBegin(dead, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  inNewThread(
      [&] { EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)); });
  EXPECT_ACL_OK(aclrtDestroyStream(devOnly));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(GraphCaptureTest, CaptureEndChecks) {
  aclrtStream s = newStream();
  aclrtStream fork = newStream();
  int* counter = newCounter();  // before the capture: its zeroing memset is synchronous
  aclmdlRI g = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureEnd(nullptr, &g));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureEnd(s, &g));
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureEnd(s, nullptr));
  // A joined stream is not the origin.
  aclrtEvent e = newEvent();
  ASSERT_ACL_OK(aclrtRecordEvent(e, s));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(fork, e));
  EXPECT_EQ(captureStatus(fork), ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED, aclmdlRICaptureEnd(fork, &g));
  // Another thread may not end a GLOBAL capture.
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  inNewThread([&] {
    ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
    aclmdlRI other = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD, aclmdlRICaptureEnd(s, &other));
  });
  // The fork never joined back: the end fails and both streams leave the capture.
  EXPECT_ACL_OK(arun::launch(fork, 1, increment, counter));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_UNJOINED, aclmdlRICaptureEnd(s, &g));
  EXPECT_EQ(captureStatus(s), ACL_MODEL_RI_CAPTURE_STATUS_NONE);
  EXPECT_EQ(captureStatus(fork), ACL_MODEL_RI_CAPTURE_STATUS_NONE);
  // A RELAXED capture may be ended by another thread.
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  inNewThread([&] {
    ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
    EXPECT_ACL_OK(aclmdlRICaptureEnd(s, &g));
  });
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_EQ(readCounter(counter), 0);
  EXPECT_ACL_OK(aclrtFree(counter));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
  EXPECT_ACL_OK(aclrtDestroyStream(fork));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(GraphCaptureTest, CaptureGetInfoReportsTheInstance) {
  aclrtStream s = newStream();
  aclmdlRICaptureStatus st = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
  aclmdlRI during = reinterpret_cast<aclmdlRI>(0x1);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureGetInfo(nullptr, &st, &during));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureGetInfo(s, nullptr, nullptr));
  ASSERT_ACL_OK(aclmdlRICaptureGetInfo(s, &st, &during));
  EXPECT_EQ(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
  EXPECT_EQ(during, nullptr);
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_EQ(captureStatus(s, &during), ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
  EXPECT_NE(during, nullptr);
  aclmdlRI only = nullptr;
  EXPECT_ACL_OK(aclmdlRICaptureGetInfo(s, nullptr, &only));  // either output may be NULL
  EXPECT_EQ(only, during);
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &g));
  EXPECT_EQ(g, during);  // the instance GetInfo named is the one the end returns
  EXPECT_EQ(captureStatus(s), ACL_MODEL_RI_CAPTURE_STATUS_NONE);
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  aclrtStream dead = newStream();
  ASSERT_ACL_OK(aclrtDestroyStream(dead));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureGetInfo(dead, &st, nullptr));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(GraphCaptureTest, ThreadExchangeMode) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureThreadExchangeMode(nullptr));
  aclmdlRICaptureMode m = static_cast<aclmdlRICaptureMode>(3);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureThreadExchangeMode(&m));
  m = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
  ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&m));
  EXPECT_EQ(m, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);  // every thread starts GLOBAL
  m = ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
  ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&m));
  EXPECT_EQ(m, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
  inNewThread([] {
    aclmdlRICaptureMode other = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
    ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&other));
    EXPECT_EQ(other, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);  // per thread
  });
  m = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
  ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&m));
  EXPECT_EQ(m, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL);
}

// ---------------------------------------------------------------- capture records, replay runs

TEST_P(GraphCaptureTest, NothingRunsWhileCapturingAndEachReplayRunsOnce) {
  aclrtStream s = newStream();
  int* counter = newCounter();
  aclmdlRI g = captureIncrements(s, counter, 3);
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(readCounter(counter), 0);
  for (int r = 1; r <= 4; ++r) {
    ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, s));
    ASSERT_ACL_OK(aclrtSynchronizeStream(s));
    EXPECT_EQ(readCounter(counter), 3 * r);
  }
  // The instance outlives the captured stream; NULL replays on the default stream.
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_EQ(readCounter(counter), 15);
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_ACL_OK(aclrtFree(counter));
}

// Host functions, memsets and copies are captured too, and run in stream order on each replay.
TEST_P(GraphCaptureTest, CapturesCopiesMemsetsAndHostFunctions) {
  aclrtStream s = newStream();
  constexpr size_t n = 64;
  void *dev = nullptr, *host = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, n, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMallocHost(&host, n));
  static std::atomic<int> calls{0};
  calls = 0;
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclrtMemsetAsync(dev, n, 0x5A, n, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(host, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST, s));
  ASSERT_ACL_OK(aclrtLaunchHostFunc(
      s, [](void*) { calls.fetch_add(1); }, nullptr));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &g));
  std::memset(host, 0, n);
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(calls.load(), 0);
  EXPECT_EQ(static_cast<unsigned char*>(host)[0], 0);
  for (int r = 1; r <= 3; ++r) {
    std::memset(host, 0, n);
    ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, s));
    ASSERT_ACL_OK(aclrtSynchronizeStream(s));
    EXPECT_EQ(calls.load(), r);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(static_cast<unsigned char*>(host)[i], 0x5A);
  }
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_ACL_OK(aclrtFreeHost(host));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

// The acceptance test: origin s0 forks s1 and s2 with one event, joins both back, and the
// instance replays 1000 times with fresh input each time; every output is checked.
TEST_P(GraphCaptureTest, ThreeStreamsJoinedByEventsReplay1000Times) {
  constexpr size_t n = 256;
  constexpr size_t bytes = n * sizeof(float);
  aclrtStream s0 = newStream(), s1 = newStream(), s2 = newStream();
  aclrtEvent fork = newEvent(), j1 = newEvent(), j2 = newEvent();
  void *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr, *in = nullptr, *out = nullptr;
  for (void** p : {&a, &b, &c, &d}) ASSERT_ACL_OK(aclrtMalloc(p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMallocHost(&in, bytes));
  ASSERT_ACL_OK(aclrtMallocHost(&out, bytes));
  auto* fa = static_cast<float*>(a);
  auto* fb = static_cast<float*>(b);
  auto* fc = static_cast<float*>(c);
  auto* fd = static_cast<float*>(d);

  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s0, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclrtMemcpyAsync(a, bytes, in, bytes, ACL_MEMCPY_HOST_TO_DEVICE, s0));
  ASSERT_ACL_OK(aclrtRecordEvent(fork, s0));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s1, fork));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s2, fork));
  ASSERT_ACL_OK(arun::launch(s1, 4, scale, static_cast<const float*>(fa), fb, n, 2.0f));
  ASSERT_ACL_OK(arun::launch(s2, 4, offset, static_cast<const float*>(fa), fc, n, 3.0f));
  ASSERT_ACL_OK(aclrtRecordEvent(j1, s1));
  ASSERT_ACL_OK(aclrtRecordEvent(j2, s2));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s0, j1));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s0, j2));
  ASSERT_ACL_OK(arun::launch(s0, 4, add, static_cast<const float*>(fb), static_cast<const float*>(fc), fd, n));
  ASSERT_ACL_OK(aclrtMemcpyAsync(out, bytes, d, bytes, ACL_MEMCPY_DEVICE_TO_HOST, s0));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s0, &g));
  EXPECT_EQ(captureStatus(s1), ACL_MODEL_RI_CAPTURE_STATUS_NONE);

  aclrtStream r = newStream();
  auto* hin = static_cast<float*>(in);
  auto* hout = static_cast<float*>(out);
  int bad = 0;
  for (int k = 0; k < 1000 && bad == 0; ++k) {
    for (size_t i = 0; i < n; ++i) hin[i] = static_cast<float>(i + k);
    std::memset(out, 0, bytes);
    ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, (k & 1) ? r : s0));
    ASSERT_ACL_OK(aclrtSynchronizeStream((k & 1) ? r : s0));
    for (size_t i = 0; i < n; ++i) {
      const float x = static_cast<float>(i + k);
      if (hout[i] != 3 * x + 3) {
        ADD_FAILURE() << "replay " << k << " element " << i << ": " << hout[i] << " != " << 3 * x + 3;
        ++bad;
        break;
      }
    }
  }
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  for (void* p : {a, b, c, d}) EXPECT_ACL_OK(aclrtFree(p));
  EXPECT_ACL_OK(aclrtFreeHost(in));
  EXPECT_ACL_OK(aclrtFreeHost(out));
  for (aclrtEvent e : {fork, j1, j2}) EXPECT_ACL_OK(aclrtDestroyEvent(e));
  for (aclrtStream s : {s0, s1, s2, r}) EXPECT_ACL_OK(aclrtDestroyStream(s));
}

// Replays of one instance from two threads on two streams are serialised (no increment is lost),
// while other streams' work runs next to them and stays correct.
TEST_P(GraphCaptureTest, ConcurrentReplaysAndOtherStreams) {
  aclrtStream s = newStream();
  int* counter = newCounter();
  int* other = newCounter();
  aclmdlRI g = captureIncrements(s, counter, 10);
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  auto replayer = [&] {
    ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
    aclrtStream mine = nullptr;
    ASSERT_ACL_OK(aclrtCreateStream(&mine));
    for (int i = 0; i < 50; ++i) ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, mine));
    ASSERT_ACL_OK(aclrtSynchronizeStream(mine));
    ASSERT_ACL_OK(aclrtDestroyStream(mine));
  };
  std::thread t1(replayer), t2(replayer);
  aclrtStream side = newStream();
  for (int i = 0; i < 200; ++i) ASSERT_ACL_OK(arun::launch(side, 1, increment, other));
  t1.join();
  t2.join();
  ASSERT_ACL_OK(aclrtSynchronizeStream(side));
  EXPECT_EQ(readCounter(counter), 2 * 50 * 10);
  EXPECT_EQ(readCounter(other), 200);
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_ACL_OK(aclrtFree(counter));
  EXPECT_ACL_OK(aclrtFree(other));
  EXPECT_ACL_OK(aclrtDestroyStream(side));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

// One block copies *counter into *out (a snapshot taken where it sits in its stream).
void snapshot(arun::Block b, const int* counter, int* out) {
  b.at(out) = b.at(counter);
}

// Replays queued back to back, without a synchronize: each replay's marker keeps its stream's
// later work behind the whole graph, so a snapshot after replay k on the same stream sees exactly
// k + 1 complete executions. Then replays from two streams: executions of the instance never
// overlap (no increment is lost).
TEST_P(GraphCaptureTest, BackToBackReplaysKeepTheirStreamsOrder) {
  constexpr int kReplays = 60, kNodes = 10;
  aclrtStream s = newStream(), a = newStream(), b = newStream();
  int* counter = newCounter();
  void* snaps = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&snaps, kReplays * sizeof(int), ACL_MEM_MALLOC_HUGE_FIRST));
  auto* out = static_cast<int*>(snaps);
  aclmdlRI g = captureIncrements(s, counter, kNodes);
  auto read_snaps = [&] {
    std::vector<int> host(kReplays, -1);
    EXPECT_ACL_OK(
        aclrtMemcpy(host.data(), kReplays * sizeof(int), snaps, kReplays * sizeof(int), ACL_MEMCPY_DEVICE_TO_HOST));
    return host;
  };
  for (int k = 0; k < kReplays; ++k) {
    ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, a));
    ASSERT_ACL_OK(arun::launch(a, 1, snapshot, static_cast<const int*>(counter), out + k));
  }
  ASSERT_ACL_OK(aclrtSynchronizeStream(a));
  std::vector<int> host = read_snaps();
  for (int k = 0; k < kReplays; ++k) EXPECT_EQ(host[static_cast<size_t>(k)], (k + 1) * kNodes) << "snapshot " << k;

  // Two streams: no snapshot here, since a snapshot on one stream is not ordered against the next
  // execution begun from the other (it would race with its increments).
  for (int k = 0; k < kReplays; ++k) ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, (k % 3 == 0) ? b : a));
  ASSERT_ACL_OK(aclrtSynchronizeStream(a));
  ASSERT_ACL_OK(aclrtSynchronizeStream(b));
  EXPECT_EQ(readCounter(counter), 2 * kReplays * kNodes);
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_ACL_OK(aclrtFree(counter));
  EXPECT_ACL_OK(aclrtFree(snaps));
  for (aclrtStream x : {s, a, b}) EXPECT_ACL_OK(aclrtDestroyStream(x));
}

// Replays queued behind a blocked wait are dropped by aclrtStreamAbort: none runs, the instance
// stays usable (the next replay is complete), and destroying it does not wait for the dropped ones.
// Under the stream sanitizer this is the launcher path (as for built instances): its executions
// start at the head of the replay stream, so a dropped one runs nothing there either.
TEST_P(GraphCaptureTest, AbortDropsQueuedReplays) {
  aclrtStream s = newStream(), x = newStream();
  aclrtEvent e = newEvent();
  int* counter = newCounter();
  aclmdlRI g = captureIncrements(s, counter, 4);
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(x, gate));
  ASSERT_ACL_OK(aclrtRecordEvent(e, x));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s, e));
  for (int i = 0; i < 5; ++i) ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, s));
  ASSERT_ACL_OK(aclrtStreamAbort(s));
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(x));
  EXPECT_EQ(readCounter(counter), 0);
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(readCounter(counter), 4);
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_ACL_OK(aclrtFree(counter));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
  for (aclrtStream t : {s, x}) EXPECT_ACL_OK(aclrtDestroyStream(t));
}

TEST_P(GraphCaptureTest, ReplaysWithManyNodesAndLanesStayCorrect) {
  // 3 lanes x 200 nodes, each lane fed one task at a time: the join sees every lane's work.
  constexpr int kPer = 200;
  aclrtStream s0 = newStream(), s1 = newStream(), s2 = newStream();
  aclrtEvent fork = newEvent(), j1 = newEvent(), j2 = newEvent();
  int* c0 = newCounter();
  int* c1 = newCounter();
  int* c2 = newCounter();
  void* snap = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&snap, 3 * sizeof(int), ACL_MEM_MALLOC_HUGE_FIRST));
  auto* snaps = static_cast<int*>(snap);
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s0, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclrtRecordEvent(fork, s0));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s1, fork));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s2, fork));
  for (int i = 0; i < kPer; ++i) {
    ASSERT_ACL_OK(arun::launch(s0, 1, increment, c0));
    ASSERT_ACL_OK(arun::launch(s1, 1, increment, c1));
    ASSERT_ACL_OK(arun::launch(s2, 1, increment, c2));
  }
  ASSERT_ACL_OK(aclrtRecordEvent(j1, s1));
  ASSERT_ACL_OK(aclrtRecordEvent(j2, s2));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s0, j1));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s0, j2));
  ASSERT_ACL_OK(arun::launch(s0, 1, snapshot, static_cast<const int*>(c0), snaps));
  ASSERT_ACL_OK(arun::launch(s0, 1, snapshot, static_cast<const int*>(c1), snaps + 1));
  ASSERT_ACL_OK(arun::launch(s0, 1, snapshot, static_cast<const int*>(c2), snaps + 2));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s0, &g));
  aclrtStream r = newStream();
  for (int k = 1; k <= 5; ++k) {
    ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, r));
    ASSERT_ACL_OK(aclrtSynchronizeStream(r));
    int host[3] = {-1, -1, -1};
    ASSERT_ACL_OK(aclrtMemcpy(host, sizeof host, snap, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int l = 0; l < 3; ++l) EXPECT_EQ(host[l], k * kPer) << "replay " << k << " lane " << l;
  }
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  for (int* c : {c0, c1, c2}) EXPECT_ACL_OK(aclrtFree(c));
  EXPECT_ACL_OK(aclrtFree(snap));
  for (aclrtEvent e : {fork, j1, j2}) EXPECT_ACL_OK(aclrtDestroyEvent(e));
  for (aclrtStream t : {s0, s1, s2, r}) EXPECT_ACL_OK(aclrtDestroyStream(t));
}

// ---------------------------------------------------------------- invalidation and illegal calls

TEST_P(GraphCaptureTest, SynchronizeOrQueryOfACapturingStreamInvalidatesTheCapture) {
  aclrtStream s = newStream();
  int* counter = newCounter();
  for (int which = 0; which < 2; ++which) {
    ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    ASSERT_ACL_OK(arun::launch(s, 1, increment, counter));
    if (which == 0) {
      EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeStream(s));
    } else {
      aclrtStreamStatus st;
      EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclrtStreamQuery(s, &st));
    }
    EXPECT_EQ(captureStatus(s), ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED);
    EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, arun::launch(s, 1, increment, counter));
    aclmdlRI g = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(s, &g));
    EXPECT_EQ(captureStatus(s), ACL_MODEL_RI_CAPTURE_STATUS_NONE);
  }
  // The stream runs normally again, and nothing captured ran.
  ASSERT_ACL_OK(arun::launch(s, 1, increment, counter));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(readCounter(counter), 1);
  EXPECT_ACL_OK(aclrtFree(counter));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(GraphCaptureTest, EventRulesDuringCapture) {
  aclrtStream s = newStream(), t = newStream();
  aclrtEvent outside = newEvent(), inside = newEvent();
  ASSERT_ACL_OK(aclrtRecordEvent(outside, t));
  ASSERT_ACL_OK(aclrtSynchronizeStream(t));
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclrtRecordEvent(inside, s));
  // An event recorded in the capture cannot be queried or synchronized (the capture stays valid).
  aclrtEventRecordedStatus rs;
  EXPECT_ACL(ACL_ERROR_RT_EVENT_CAPTURED, aclrtQueryEventStatus(inside, &rs));
  EXPECT_ACL(ACL_ERROR_RT_EVENT_CAPTURED, aclrtSynchronizeEvent(inside));
  EXPECT_EQ(captureStatus(s), ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
  // Waiting on a record made outside the capture is a dependency the instance cannot have.
  EXPECT_ACL(ACL_ERROR_RT_CAPTURE_DEPENDENCY, aclrtStreamWaitEvent(s, outside));
  EXPECT_EQ(captureStatus(s), ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED);
  aclmdlRI g = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(s, &g));
  EXPECT_ACL_OK(aclrtQueryEventStatus(inside, &rs));  // not captured any more

  // Two captures mixed: a stream of one capture waits on an event recorded in another.
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclmdlRICaptureBegin(t, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclrtRecordEvent(inside, s));
  EXPECT_ACL(ACL_ERROR_STREAM_CAPTURE_CONFLICT, aclrtStreamWaitEvent(t, inside));
  EXPECT_EQ(captureStatus(t), ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED);
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(t, &g));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &g));
  EXPECT_ACL_OK(aclmdlRIDestroy(g));

  // The default stream joining a capture is an implicit dependency; so is using it during one.
  aclrtStream def = nullptr;
  ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&def));
  int* counter = newCounter();
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT, arun::launch(nullptr, 1, increment, counter));
  ASSERT_ACL_OK(aclrtRecordEvent(inside, s));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT, aclrtStreamWaitEvent(def, inside));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(s, &g));
  EXPECT_EQ(readCounter(counter), 0);
  EXPECT_ACL_OK(aclrtFree(counter));
  for (aclrtEvent e : {outside, inside}) EXPECT_ACL_OK(aclrtDestroyEvent(e));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(t));
}

// Unsafe calls (synchronous copies and memsets, async copies of pageable memory, device
// synchronize) under the three capture modes and the thread's own mode; a refused call does not
// invalidate the capture.
TEST_P(GraphCaptureTest, CaptureModesGovernUnsafeCalls) {
  aclrtStream s = newStream();
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  std::vector<char> pageable(64, 1);
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  auto syncCopy = [&] { return aclrtMemcpy(dev, 64, pageable.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE); };
  auto otherThread = [&](aclmdlRICaptureMode mode) {
    aclError rc = ACL_SUCCESS;
    inNewThread([&] {
      EXPECT_ACL_OK(aclrtSetCurrentContext(ctx));
      aclmdlRICaptureMode m = mode;
      EXPECT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&m));
      rc = aclrtMemset(dev, 64, 0, 64);
    });
    return rc;
  };
  aclmdlRI g = nullptr;
  // GLOBAL: forbidden for this thread and for every GLOBAL thread of the context.
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, syncCopy());
  EXPECT_ACL(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtSynchronizeDevice());
  EXPECT_ACL(ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC,
             aclrtMemcpyAsync(dev, 64, pageable.data(), 64, ACL_MEMCPY_HOST_TO_DEVICE, s));
  EXPECT_ACL(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, otherThread(ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL_OK(otherThread(ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));  // it began no capture
  EXPECT_ACL_OK(otherThread(ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  aclmdlRICaptureMode m = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
  ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&m));
  EXPECT_ACL_OK(syncCopy());  // a RELAXED thread is never restricted
  ASSERT_ACL_OK(aclmdlRICaptureThreadExchangeMode(&m));
  EXPECT_EQ(captureStatus(s), ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &g));
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  // THREAD_LOCAL: only the capturing thread is restricted.
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
  EXPECT_ACL(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, syncCopy());
  EXPECT_ACL_OK(otherThread(ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &g));
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  // RELAXED: nobody is restricted.
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  EXPECT_ACL_OK(syncCopy());
  EXPECT_ACL_OK(otherThread(ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &g));
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_ACL_OK(syncCopy());  // no capture open
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

// ---------------------------------------------------------------- execute / destroy / abort

TEST_P(GraphCaptureTest, ExecuteAsyncChecks) {
  aclrtStream s = newStream(), t = newStream();
  int* counter = newCounter();
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIExecuteAsync(nullptr, s));
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  aclmdlRI open = nullptr;
  ASSERT_EQ(captureStatus(s, &open), ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
  EXPECT_ACL(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRIExecuteAsync(open, t));
  EXPECT_ACL(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRIDestroy(open));
  ASSERT_ACL_OK(arun::launch(s, 1, increment, counter));
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s, &g));
  ASSERT_ACL_OK(aclmdlRICaptureBegin(t, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRIExecuteAsync(g, t));
  aclmdlRI tg = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureEnd(t, &tg));
  aclrtStream devOnly = newStream(ACL_STREAM_DEVICE_USE_ONLY);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecuteAsync(g, devOnly));
  aclrtStream persistent = newStream(ACL_STREAM_PERSISTENT);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecuteAsync(g, persistent));
  // An instance of another context.
  aclrtContext mine = nullptr, other = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&mine));
  ASSERT_ACL_OK(aclrtCreateContext(&other, 0));
  aclrtStream foreign = newStream();
  EXPECT_ACL(ACL_ERROR_RT_MODEL_CONTEXT, aclmdlRIExecuteAsync(g, foreign));
  EXPECT_ACL_OK(aclrtDestroyStream(foreign));
  ASSERT_ACL_OK(aclrtSetCurrentContext(mine));
  EXPECT_ACL_OK(aclrtDestroyContext(other));
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, t));
  ASSERT_ACL_OK(aclrtSynchronizeStream(t));
  EXPECT_EQ(readCounter(counter), 1);
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_ACL_OK(aclmdlRIDestroy(tg));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync(g, t));
  EXPECT_ACL_OK(aclrtFree(counter));
  for (aclrtStream x : {s, t, devOnly, persistent}) EXPECT_ACL_OK(aclrtDestroyStream(x));
}

TEST_P(GraphCaptureTest, ExecuteAndAbortAreForBuiltInstances) {
  aclrtStream s = newStream();
  aclmdlRI g = captureIncrements(s, newCounter(), 1);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIExecute(nullptr, -1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecute(g, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecute(g, -2));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecute(g, -1));  // a captured instance
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecute(g, 100));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIAbort(nullptr));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIAbort(g));
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIAbort(g));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

std::vector<int> g_destroyOrder;
void onDestroyA(void* user) {
  g_destroyOrder.push_back(*static_cast<int*>(user));
}
void onDestroyB(void* user) {
  g_destroyOrder.push_back(100 + *static_cast<int*>(user));
}

TEST_P(GraphCaptureTest, DestroyRunsCallbacksAndWaitsForExecutions) {
  aclrtStream s = newStream();
  int* counter = newCounter();
  aclmdlRI g = captureIncrements(s, counter, 5);
  int one = 1, two = 2, three = 3;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDestroyRegisterCallback(nullptr, onDestroyA, &one));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDestroyRegisterCallback(g, nullptr, &one));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDestroyUnregisterCallback(nullptr, onDestroyA));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDestroyUnregisterCallback(g, nullptr));
  ASSERT_ACL_OK(aclmdlRIDestroyRegisterCallback(g, onDestroyA, &one));
  ASSERT_ACL_OK(aclmdlRIDestroyRegisterCallback(g, onDestroyB, &two));
  ASSERT_ACL_OK(aclmdlRIDestroyRegisterCallback(g, onDestroyA, &three));  // replaces A's user data
  ASSERT_ACL_OK(aclmdlRIDestroyUnregisterCallback(g, onDestroyB));
  ASSERT_ACL_OK(aclmdlRIDestroyUnregisterCallback(g, onDestroyB));  // unknown now: still fine
  ASSERT_ACL_OK(aclmdlRIDestroyRegisterCallback(g, onDestroyB, &one));
  g_destroyOrder.clear();
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  for (int i = 0; i < 3; ++i) ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, s));
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    gate.open();
  });
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIDestroy(nullptr));
  ASSERT_ACL_OK(aclmdlRIDestroy(g));  // waits for the three executions behind the gate
  EXPECT_EQ(readCounter(counter), 15);
  opener.join();
  EXPECT_EQ(g_destroyOrder, (std::vector<int>{3, 101}));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroy(g));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroyRegisterCallback(g, onDestroyA, &one));
  EXPECT_ACL_OK(aclrtFree(counter));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

// ---------------------------------------------------------------- names, ids, debug output

TEST_P(GraphCaptureTest, NamesAndIds) {
  aclrtStream s = newStream();
  int* counter = newCounter();
  aclmdlRI g = captureIncrements(s, counter, 1);
  aclmdlRI h = captureIncrements(s, counter, 1);
  char buf[32];
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRISetName(nullptr, "x"));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRISetName(g, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIGetName(nullptr, sizeof buf, buf));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIGetName(g, sizeof buf, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetName(g, 0, buf));
  ASSERT_ACL_OK(aclmdlRIGetName(g, 1, buf));
  EXPECT_STREQ(buf, "");  // never named
  ASSERT_ACL_OK(aclmdlRISetName(g, "first"));
  ASSERT_ACL_OK(aclmdlRISetName(g, "decoder-step"));                     // last call wins
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIGetName(g, 12, buf));  // no truncation
  ASSERT_ACL_OK(aclmdlRIGetName(g, 13, buf));
  EXPECT_STREQ(buf, "decoder-step");
  uint32_t id1 = 0, id2 = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIGetId(nullptr, &id1));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIGetId(g, nullptr));
  ASSERT_ACL_OK(aclmdlRIGetId(g, &id1));
  ASSERT_ACL_OK(aclmdlRIGetId(h, &id2));
  EXPECT_NE(id1, id2);
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetId(g, &id1));
  EXPECT_ACL_OK(aclmdlRIDestroy(h));
  EXPECT_ACL_OK(aclrtFree(counter));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

std::string readFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

TEST_P(GraphCaptureTest, DebugPrintAndJsonPrintWriteTheGraph) {
  aclrtStream s0 = newStream(), s1 = newStream();
  aclrtEvent fork = newEvent(), join = newEvent();
  int* counter = newCounter();
  aclmdlRI g = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureBegin(s0, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  ASSERT_ACL_OK(arun::launch(s0, 2, increment, counter));
  ASSERT_ACL_OK(aclrtRecordEvent(fork, s0));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s1, fork));
  ASSERT_ACL_OK(aclrtMemsetAsync(counter, sizeof(int), 0, sizeof(int), s1));
  ASSERT_ACL_OK(aclrtRecordEvent(join, s1));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s0, join));
  ASSERT_ACL_OK(arun::launch(s0, 1, increment, counter));
  ASSERT_ACL_OK(aclmdlRICaptureEnd(s0, &g));
  ASSERT_ACL_OK(aclmdlRISetName(g, "dbg"));
  // aclmdlRIDebugPrint is deprecated in CANN (and so marked in our header) but still exported.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIDebugPrint(nullptr));
  EXPECT_ACL_OK(aclmdlRIDebugPrint(g));
#pragma GCC diagnostic pop
  const std::string path = scratchPath("graph_capture_debug.json");
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIDebugJsonPrint(nullptr, path.c_str(), 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclmdlRIDebugJsonPrint(g, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDebugJsonPrint(g, path.c_str(), 2));
  EXPECT_ACL(ACL_ERROR_RT_FILE_OPEN, aclmdlRIDebugJsonPrint(g, "/nonexistent-dir/x/graph.json", 0));
  ASSERT_ACL_OK(aclmdlRIDebugJsonPrint(g, path.c_str(), ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY));
  std::string json = readFile(path);
  EXPECT_NE(json.find("\"traceEvents\""), std::string::npos);
  EXPECT_EQ(count(json, "\"name\":\"kernel\""), 2u) << json;
  EXPECT_EQ(count(json, "\"name\":\"memset\""), 1u) << json;
  EXPECT_NE(json.find("\"deps\":[0]"), std::string::npos) << json;    // the memset after the first kernel
  EXPECT_NE(json.find("\"deps\":[0,1]"), std::string::npos) << json;  // the last kernel joins both
  EXPECT_NE(json.find("\"name\":\"dbg\""), std::string::npos) << json;
  EXPECT_EQ(json.find("\"args_size\""), std::string::npos);
  ASSERT_ACL_OK(aclmdlRIDebugJsonPrint(g, path.c_str(), ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE));
  json = readFile(path);
  EXPECT_EQ(count(json, "\"args_size\""), 2u) << json;
  std::remove(path.c_str());
  EXPECT_ACL_OK(aclmdlRIDestroy(g));
  EXPECT_ACL_OK(aclrtFree(counter));
  for (aclrtEvent e : {fork, join}) EXPECT_ACL_OK(aclrtDestroyEvent(e));
  for (aclrtStream s : {s0, s1}) EXPECT_ACL_OK(aclrtDestroyStream(s));
}

// An instance still alive at aclFinalize is destroyed with the runtime (after its executions).
TEST_P(GraphCaptureTest, FinalizeDropsLiveInstances) {
  aclrtStream s = newStream();
  int* counter = newCounter();
  aclmdlRI g = captureIncrements(s, counter, 2);
  ASSERT_ACL_OK(aclmdlRIExecuteAsync(g, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(readCounter(counter), 2);
  ASSERT_ACL_OK(aclrtFree(counter));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  // A capture still open at aclFinalize is dropped too.
  aclrtStream t = newStream();
  ASSERT_ACL_OK(aclmdlRICaptureBegin(t, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
  finalize();
  reinit();
}

}  // namespace
ARUN_CONFORMANCE_INSTANTIATE(GraphCaptureTest);
}  // namespace conformance
