// Section 2.4: streams (and the arunLaunchDeviceTask extension's argument rules).
#include <algorithm>
#include <cstring>
#include <numeric>

#include "conformance.hpp"

namespace conformance {
namespace {

class StreamTest : public AclDeviceTest {};

TEST_P(StreamTest, CreateAndDestroy) {
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateStream(&b));
  ASSERT_NE(nullptr, a);
  ASSERT_NE(nullptr, b);
  EXPECT_NE(a, b);
  uint32_t priority = 99, flags = 99;
  EXPECT_ACL_OK(aclrtStreamGetPriority(a, &priority));
  EXPECT_EQ(0u, priority) << "aclrtCreateStream uses the highest priority (0)";
  EXPECT_ACL_OK(aclrtStreamGetFlags(a, &flags));
  EXPECT_EQ(0u, flags);
  int32_t idA = -1, idB = -1;
  EXPECT_ACL_OK(aclrtStreamGetId(a, &idA));
  EXPECT_ACL_OK(aclrtStreamGetId(b, &idB));
  EXPECT_NE(idA, idB);
  EXPECT_ACL_OK(aclrtDestroyStream(a));
  EXPECT_ACL_OK(aclrtDestroyStream(b));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateStream(nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(nullptr));
}

TEST_P(StreamTest, StreamApisWithoutContextAreContextNull) {
  inNewThread([] {
    aclrtStream s = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateStream(&s));
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateStreamWithConfig(&s, 0, 0));
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, arunLaunchDeviceTask(&Gate::taskFn, nullptr, nullptr));
    aclrtEvent e = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateEvent(&e));
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtSetStreamFailureMode(nullptr, ACL_STOP_ON_FAILURE));
  });
}

TEST_P(StreamTest, CreateWithConfig) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 7, 0));
  uint32_t priority = 99, flags = 99;
  EXPECT_ACL_OK(aclrtStreamGetPriority(s, &priority));
  EXPECT_EQ(7u, priority);
  EXPECT_ACL_OK(aclrtStreamGetFlags(s, &flags));
  EXPECT_EQ(0u, flags);
  EXPECT_ACL_OK(aclrtDestroyStream(s));

  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 3, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC));
  EXPECT_ACL_OK(aclrtStreamGetPriority(s, &priority));
  EXPECT_EQ(3u, priority);
  EXPECT_ACL_OK(aclrtStreamGetFlags(s, &flags));
  EXPECT_EQ(ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC, flags);
  // A FAST_SYNC stream still runs work and synchronises.
  Probe probe;
  ASSERT_ACL_OK(launchProbe(s, probe));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(probe.ran.load());
  EXPECT_ACL_OK(aclrtDestroyStream(s));

  // Unknown flag bits are ignored.
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 0, 0x80000000u));
  EXPECT_ACL_OK(aclrtDestroyStream(s));

  // An out-of-range priority is clamped to the lowest one (7), as CANN does, not refused.
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 8, 0));
  uint32_t clamped = 0;
  EXPECT_ACL_OK(aclrtStreamGetPriority(s, &clamped));
  EXPECT_EQ(7u, clamped);
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamWithConfig(nullptr, 0, 0));
}

TEST_P(StreamTest, DefaultStreamAttributes) {
  uint32_t priority = 99, flags = 0;
  int32_t id = -1;
  EXPECT_ACL_OK(aclrtStreamGetPriority(nullptr, &priority));
  EXPECT_EQ(0u, priority);
  EXPECT_ACL_OK(aclrtStreamGetFlags(nullptr, &flags));
  EXPECT_ACL_OK(aclrtStreamGetId(nullptr, &id));
  aclrtStream def = nullptr;
  ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&def));
  int32_t defId = -2;
  EXPECT_ACL_OK(aclrtStreamGetId(def, &defId));
  EXPECT_EQ(id, defId) << "NULL and the default-stream handle are the same stream";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamGetPriority(nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamGetFlags(nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamGetId(nullptr, nullptr));
}

TEST_P(StreamTest, TasksRunInSubmissionOrder) {
  constexpr int kTasks = 200;
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate &gate = newGate();
  std::mutex mutex;
  std::vector<int> order;
  // The gate holds the head so that every later task is queued before any of them runs.
  ASSERT_ACL_OK(launchGate(s, gate));
  for (int i = 0; i < kTasks; ++i) {
    ASSERT_ACL_OK(launch(s, [&mutex, &order, i] {
      std::lock_guard lock(mutex);
      order.push_back(i);
    }));
  }
  {
    std::lock_guard lock(mutex);
    EXPECT_TRUE(order.empty()) << "a task ran before the task ahead of it finished";
  }
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  std::vector<int> expected(kTasks);
  std::iota(expected.begin(), expected.end(), 0);
  std::lock_guard lock(mutex);
  EXPECT_EQ(expected, order);
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(StreamTest, CopiesAndMemsetsRunInStreamOrder) {
  constexpr size_t kSize = 64 * 1024;
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  void *src = nullptr, *dst = nullptr, *d1 = nullptr, *d2 = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&src, kSize));
  ASSERT_ACL_OK(aclrtMallocHost(&dst, kSize));
  ASSERT_ACL_OK(aclrtMalloc(&d1, kSize, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&d2, kSize, ACL_MEM_MALLOC_HUGE_FIRST));
  auto data = pattern(kSize, 6);
  std::memcpy(src, data.data(), kSize);
  std::memset(dst, 0xEE, kSize);

  Gate &gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d1, kSize, src, kSize, ACL_MEMCPY_HOST_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtMemsetAsync(d1, kSize, 0x5A, kSize / 2, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d2, kSize, d1, kSize, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(dst, kSize, d2, kSize, ACL_MEMCPY_DEVICE_TO_HOST, s));
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  ASSERT_ACL_OK(aclrtStreamQuery(s, &status));
  EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, status);
  const auto *out = static_cast<const uint8_t *>(dst);
  EXPECT_TRUE(std::all_of(out, out + kSize, [](uint8_t b) { return b == 0xEE; }))
      << "a copy behind a blocked task already wrote its pinned destination";
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  auto expected = data;
  std::fill(expected.begin(), expected.begin() + kSize / 2, 0x5A);
  EXPECT_EQ(0, std::memcmp(expected.data(), dst, kSize));
  EXPECT_ACL_OK(aclrtFree(d1));
  EXPECT_ACL_OK(aclrtFree(d2));
  EXPECT_ACL_OK(aclrtFreeHost(src));
  EXPECT_ACL_OK(aclrtFreeHost(dst));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(StreamTest, EnqueueReturnsWithoutWaiting) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate &gate = newGate();
  Probe probe;
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(launchProbe(s, probe));
  // Both launches returned while the first task is blocked.
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  ASSERT_ACL_OK(aclrtStreamQuery(s, &status));
  EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, status);
  EXPECT_FALSE(probe.ran.load());
  EXPECT_FALSE(gate.watchdogFired());
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(probe.ran.load());
  EXPECT_EQ(1, gate.exited());
  ASSERT_ACL_OK(aclrtStreamQuery(s, &status));
  EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, status);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamQuery(s, nullptr));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(StreamTest, IdleStreamQueryIsComplete) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  ASSERT_ACL_OK(aclrtStreamQuery(s, &status));
  EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, status);
  ASSERT_ACL_OK(aclrtStreamQuery(nullptr, &status));
  EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, status);
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(StreamTest, StreamWaitsForEventRecordedOnAnotherStream) {
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateStream(&b));
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&event));
  Gate &gate = newGate();
  std::atomic<bool> aDone{false}, bRan{false}, bSawADone{false};
  ASSERT_ACL_OK(launchGate(a, gate));
  ASSERT_ACL_OK(launch(a, [&aDone] { aDone.store(true); }));
  ASSERT_ACL_OK(aclrtRecordEvent(event, a));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(b, event));
  ASSERT_ACL_OK(launch(b, [&] {
    bSawADone.store(aDone.load());
    bRan.store(true);
  }));
  // The host did not block, and B is held back by the wait.
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  ASSERT_ACL_OK(aclrtStreamQuery(b, &status));
  EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, status);
  EXPECT_FALSE(bRan.load());
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(b));
  EXPECT_TRUE(bRan.load());
  EXPECT_TRUE(bSawADone.load()) << "B's task started before the work A's event captured had finished";
  ASSERT_ACL_OK(aclrtSynchronizeStream(a));
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
  EXPECT_ACL_OK(aclrtDestroyStream(a));
  EXPECT_ACL_OK(aclrtDestroyStream(b));
}

TEST_P(StreamTest, SeveralStreamsWaitOnOneEvent) {
  aclrtStream a = nullptr, b = nullptr, c = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateStream(&b));
  ASSERT_ACL_OK(aclrtCreateStream(&c));
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&event));
  Gate &gate = newGate();
  std::atomic<bool> aDone{false}, bOk{false}, cOk{false};
  ASSERT_ACL_OK(launchGate(a, gate));
  ASSERT_ACL_OK(launch(a, [&aDone] { aDone.store(true); }));
  ASSERT_ACL_OK(aclrtRecordEvent(event, a));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(b, event));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(c, event));
  ASSERT_ACL_OK(launch(b, [&] { bOk.store(aDone.load()); }));
  ASSERT_ACL_OK(launch(c, [&] { cOk.store(aDone.load()); }));
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(b));
  ASSERT_ACL_OK(aclrtSynchronizeStream(c));
  EXPECT_TRUE(bOk.load());
  EXPECT_TRUE(cOk.load());
  EXPECT_ACL_OK(aclrtSynchronizeStream(a));
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
  for (aclrtStream s : {a, b, c}) EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(StreamTest, WaitOnANeverRecordedEventDoesNotBlock) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&event));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s, event));
  Probe probe;
  ASSERT_ACL_OK(launchProbe(s, probe));
  EXPECT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 10000));
  EXPECT_TRUE(probe.ran.load());
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(StreamTest, StreamWaitEventArgumentRules) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEvent(nullptr, nullptr));
  aclrtEvent noSync = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&noSync, ACL_EVENT_TIME_LINE));
  EXPECT_ACL_EITHER(ACL_ERROR_RT_PARAM_INVALID, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEvent(nullptr, noSync));
  EXPECT_ACL_OK(aclrtDestroyEvent(noSync));
}

TEST_P(StreamTest, SynchronizeStreamWithTimeout) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, -2));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, INT32_MIN));
  EXPECT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 0));
  EXPECT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s, -1));
  EXPECT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 10));
  Gate &gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 10));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 0));
  EXPECT_FALSE(gate.watchdogFired());
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s, -1));
  EXPECT_EQ(1, gate.exited());
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  // Default stream too.
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(nullptr, -2));
  EXPECT_ACL_OK(aclrtSynchronizeStreamWithTimeout(nullptr, -1));
}

TEST_P(StreamTest, DestroyStreamDrainsPendingTasks) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate &gate = newGate();
  Probe after;
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(launchProbe(s, after));
  std::thread opener([&gate] {
    if (gate.waitEntered(1)) std::this_thread::sleep_for(20ms);
    gate.open();
  });
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  opener.join();
  EXPECT_TRUE(after.ran.load()) << "aclrtDestroyStream returned before (or instead of) running queued tasks";
  EXPECT_EQ(1, gate.exited());
}

TEST_P(StreamTest, DestroyStreamForceDiscardsQueuedTasksWithoutWaiting) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate &gate = newGate();
  Probe queued;
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(launchProbe(s, queued));
  ASSERT_TRUE(gate.waitEntered(1)) << "the first task never started";
  EXPECT_ACL_OK(aclrtDestroyStreamForce(s));
  EXPECT_FALSE(gate.watchdogFired()) << "aclrtDestroyStreamForce waited for the running task";
  gate.open();
  ASSERT_TRUE(gate.waitExited(1));
  EXPECT_ACL_OK(aclrtSynchronizeDevice());
  EXPECT_FALSE(queued.ran.load()) << "a task queued behind the running one ran after a force destroy";
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(s));
}

TEST_P(StreamTest, DestroyedStreamIsInvalidHandle) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  void *dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  uint8_t host[64] = {};
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&event));
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  uint32_t u = 0;
  int32_t id = 0;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStream(s));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStreamForce(s));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(s));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStreamWithTimeout(s, 10));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamQuery(s, &status));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, arunLaunchDeviceTask(&Gate::taskFn, nullptr, s));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemcpyAsync(dev, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, s));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemsetAsync(dev, 64, 0, 64, s));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEvent(event, s));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEvent(s, event));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamGetPriority(s, &u));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamGetFlags(s, &u));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamGetId(s, &id));
  // A pointer that never was a stream is treated the same way.
  int bogus = 0;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(&bogus));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStream(&bogus));
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(StreamTest, StreamOfAnotherContextIsStreamContext) {
  aclrtContext ctxA = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctxA));
  aclrtStream sA = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&sA));
  aclrtEvent eA = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&eA));
  aclrtContext ctxB = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&ctxB, 0));  // now current
  void *dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  uint8_t host[64] = {};
  aclrtEvent eB = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&eB));

  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, arunLaunchDeviceTask(&Gate::taskFn, nullptr, sA));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtMemcpyAsync(dev, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, sA));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtMemsetAsync(dev, 64, 0, 64, sA));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordEvent(eB, sA));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtStreamWaitEvent(sA, eB));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtDestroyStream(sA));
  // An event of the other context, used with this context's default stream.
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordEvent(eA, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtStreamWaitEvent(nullptr, eA));

  EXPECT_ACL_OK(aclrtDestroyEvent(eB));
  EXPECT_ACL_OK(aclrtFree(dev));
  ASSERT_ACL_OK(aclrtSetCurrentContext(ctxA));
  // The rejected calls left the stream alive and usable in its own context.
  Probe probe;
  ASSERT_ACL_OK(launchProbe(sA, probe));
  EXPECT_ACL_OK(aclrtSynchronizeStream(sA));
  EXPECT_TRUE(probe.ran.load());
  EXPECT_ACL_OK(aclrtDestroyStream(sA));
  EXPECT_ACL_OK(aclrtDestroyEvent(eA));
  EXPECT_ACL_OK(aclrtDestroyContext(ctxB));
}

TEST_P(StreamTest, NullMeansTheDefaultStreamEverywhere) {
  constexpr size_t kSize = 4096;
  void *dev = nullptr, *pinned = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, kSize, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMallocHost(&pinned, kSize));
  auto data = pattern(kSize, 7);
  std::memcpy(pinned, data.data(), kSize);
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&event));
  Probe probe;
  ASSERT_ACL_OK(aclrtMemcpyAsync(dev, kSize, pinned, kSize, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  ASSERT_ACL_OK(aclrtMemsetAsync(dev, kSize, 0x33, 16, nullptr));
  ASSERT_ACL_OK(launchProbe(nullptr, probe));
  ASSERT_ACL_OK(aclrtRecordEvent(event, nullptr));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(nullptr, event));
  ASSERT_ACL_OK(aclrtMemcpyAsync(pinned, kSize, dev, kSize, ACL_MEMCPY_DEVICE_TO_HOST, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_TRUE(probe.ran.load());
  auto expected = data;
  std::fill(expected.begin(), expected.begin() + 16, 0x33);
  EXPECT_EQ(0, std::memcmp(expected.data(), pinned, kSize));
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  EXPECT_ACL_OK(aclrtStreamQuery(nullptr, &status));
  EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, status);
  EXPECT_ACL_OK(aclrtSynchronizeStreamWithTimeout(nullptr, 1000));
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
  EXPECT_ACL_OK(aclrtFreeHost(pinned));
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(StreamTest, DefaultStreamCannotBeDestroyed) {
  aclrtStream def = nullptr;
  ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&def));
  EXPECT_NE(ACL_SUCCESS, aclrtDestroyStream(def));
  Probe probe;
  ASSERT_ACL_OK(launchProbe(nullptr, probe));
  EXPECT_ACL_OK(aclrtSynchronizeStream(def));
  EXPECT_TRUE(probe.ran.load());
}

TEST_P(StreamTest, LaunchDeviceTaskArgumentRules) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, arunLaunchDeviceTask(nullptr, nullptr, nullptr));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, arunLaunchDeviceTask(nullptr, nullptr, s));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(StreamTest, FailureMode) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclError rc = aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE);
  EXPECT_TRUE(rc == ACL_SUCCESS || rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) << rc;
  if (rc == ACL_SUCCESS) {
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE))
        << "the mode is set once per stream";
    // Work without failures still runs normally.
    Probe probe;
    ASSERT_ACL_OK(launchProbe(s, probe));
    EXPECT_ACL_OK(aclrtSynchronizeStream(s));
    EXPECT_TRUE(probe.ran.load());
  }
  aclrtStream t = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&t));
  rc = aclrtSetStreamFailureMode(t, 7);
  EXPECT_TRUE(rc == ACL_ERROR_RT_PARAM_INVALID || rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) << rc;
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(t));
}

TEST_P(StreamTest, StreamAttributes) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 3, 0));
  aclrtStreamAttrValue v{};
  ASSERT_ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
  EXPECT_EQ(3u, v.streamPriority);
  ASSERT_ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
  EXPECT_EQ(uint64_t(ACL_CONTINUE_ON_FAILURE), v.failureMode) << "the default";

  v = {};
  v.failureMode = ACL_STOP_ON_FAILURE;
  ASSERT_ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE))
      << "the attribute and aclrtSetStreamFailureMode are one setting, set once";
  v = {};
  ASSERT_ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
  EXPECT_EQ(uint64_t(ACL_STOP_ON_FAILURE), v.failureMode);

  for (aclrtStreamAttr attr : {ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, ACL_STREAM_ATTR_CACHE_OP_INFO}) {
    v = {};
    v.reserve[0] = 1;  // the switch's member, whichever it is, is the union's first word
    ASSERT_ACL_OK(aclrtSetStreamAttribute(s, attr, &v)) << attr;
    v = {};
    ASSERT_ACL_OK(aclrtGetStreamAttribute(s, attr, &v));
    EXPECT_EQ(1u, v.reserve[0]) << attr;
    v.reserve[0] = 2;
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamAttribute(s, attr, &v)) << "a switch is 0 or 1";
  }
  v = {};
  v.userCustomTag = 0xC0FFEE;
  ASSERT_ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
  v = {};
  ASSERT_ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
  EXPECT_EQ(0xC0FFEEu, v.userCustomTag);

  v = {};
  v.streamPriority = 1;
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
  EXPECT_NE(nullptr, std::strstr(aclGetRecentErrMsg(), "fixed at creation"));
  ASSERT_ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
  EXPECT_EQ(3u, v.streamPriority) << "unchanged";

  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamAttribute(s, static_cast<aclrtStreamAttr>(99), &v));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetStreamAttribute(s, static_cast<aclrtStreamAttr>(0), &v));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
}

TEST_P(StreamTest, AbortDiscardsQueuedTasks) {
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamAbort(nullptr));
  aclrtStream a = nullptr, s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&event));
  Gate &gate = newGate();
  Probe queued;
  // s holds only a wait (on work blocked in a) and a task behind it: nothing of s is running.
  ASSERT_ACL_OK(launchGate(a, gate));
  ASSERT_ACL_OK(aclrtRecordEvent(event, a));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s, event));
  ASSERT_ACL_OK(launchProbe(s, queued));
  aclError rc = aclrtStreamAbort(s);
  EXPECT_TRUE(rc == ACL_SUCCESS || rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) << rc;
  EXPECT_FALSE(gate.watchdogFired()) << "aclrtStreamAbort waited for another stream's work";
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(a));
  if (rc == ACL_SUCCESS) {
    (void)aclrtSynchronizeStream(s);
    EXPECT_FALSE(queued.ran.load()) << "a task queued on an aborted stream ran";
    // The stream can be used again.
    Probe later;
    ASSERT_ACL_OK(launchProbe(s, later));
    EXPECT_ACL_OK(aclrtSynchronizeStream(s));
    EXPECT_TRUE(later.ran.load());
  }
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
  EXPECT_ACL_OK(aclrtDestroyStream(a));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(StreamTest, StopRejectsNull) { EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamStop(nullptr)); }

TEST_P(StreamTest, SetStreamConfigOpt) {
  aclrtStreamConfigHandle handle{};
  uint32_t priority = 3;
  ASSERT_ACL_OK(aclrtSetStreamConfigOpt(&handle, ACL_RT_STREAM_PRIORITY, &priority, sizeof(priority)));
  EXPECT_EQ(3u, handle.priority);
  size_t workSize = 4096;
  ASSERT_ACL_OK(aclrtSetStreamConfigOpt(&handle, ACL_RT_STREAM_WORK_SIZE, &workSize, sizeof(workSize)));
  EXPECT_EQ(4096u, handle.workSize);
  size_t flag = ACL_STREAM_FAST_SYNC;
  EXPECT_ACL_OK(aclrtSetStreamConfigOpt(&handle, ACL_RT_STREAM_FLAG, &flag, sizeof(flag)));
  void *ptr = &handle;
  EXPECT_ACL_OK(aclrtSetStreamConfigOpt(&handle, ACL_RT_STREAM_WORK_ADDR_PTR, &ptr, sizeof(ptr)));

  uint32_t tooLow = 8;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(&handle, ACL_RT_STREAM_PRIORITY, &tooLow, sizeof(tooLow)));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(&handle, ACL_RT_STREAM_PRIORITY, &workSize, sizeof(workSize)));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(&handle, ACL_RT_STREAM_WORK_SIZE, &priority, sizeof(priority)));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(nullptr, ACL_RT_STREAM_PRIORITY, &priority, sizeof(priority)));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(&handle, ACL_RT_STREAM_PRIORITY, nullptr, sizeof(priority)));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclrtSetStreamConfigOpt(&handle, static_cast<aclrtStreamConfigAttr>(42), &priority, sizeof(priority)));
  EXPECT_EQ(3u, handle.priority) << "a rejected call changed the handle";
}

TEST_P(StreamTest, CreateStreamV2FromAConfigHandle) {
  aclrtStreamConfigHandle *handle = aclrtCreateStreamConfigHandle();
  ASSERT_NE(nullptr, handle);
  EXPECT_EQ(0u, handle->priority) << "a new handle describes aclrtCreateStream's stream";
  uint32_t priority = 5;
  ASSERT_ACL_OK(aclrtSetStreamConfigOpt(handle, ACL_RT_STREAM_PRIORITY, &priority, sizeof(priority)));
  size_t flag = ACL_STREAM_FAST_SYNC;
  ASSERT_ACL_OK(aclrtSetStreamConfigOpt(handle, ACL_RT_STREAM_FLAG, &flag, sizeof(flag)));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStreamV2(&s, handle));
  uint32_t got = 99, flags = 0;
  EXPECT_ACL_OK(aclrtStreamGetPriority(s, &got));
  EXPECT_EQ(5u, got);
  EXPECT_ACL_OK(aclrtStreamGetFlags(s, &flags));
  EXPECT_EQ(static_cast<uint32_t>(ACL_STREAM_FAST_SYNC), flags);
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(s));

  // The handle struct is public: a priority written directly past 7 is clamped like
  // aclrtCreateStreamWithConfig's.
  handle->priority = 12;
  ASSERT_ACL_OK(aclrtCreateStreamV2(&s, handle));
  EXPECT_ACL_OK(aclrtStreamGetPriority(s, &got));
  EXPECT_EQ(7u, got);
  EXPECT_ACL_OK(aclrtDestroyStream(s));

  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamV2(nullptr, handle));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamV2(&s, nullptr));
  EXPECT_ACL_OK(aclrtDestroyStreamConfigHandle(handle));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamConfigHandle(nullptr));
}

// ascend-run extension: the stream's backlog as arunStreamGetQueueDepth and the runtime report see it.
TEST_P(StreamTest, QueueDepthCountsPendingTasks) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStreamWithConfig(&s, 3, 0));
  uint32_t depth = 99, capacity = 0;
  ASSERT_ACL_OK(arunStreamGetQueueDepth(s, &depth, &capacity));
  EXPECT_EQ(0u, depth);
  EXPECT_GE(capacity, 5u) << "the bound (default 1024) must leave room for this test";
  Gate gate;
  ASSERT_ACL_OK(arunLaunchDeviceTask(&Gate::taskFn, &gate, s));
  ASSERT_TRUE(gate.waitEntered(1));
  for (int i = 0; i < 4; ++i) ASSERT_ACL_OK(arunLaunchDeviceTask(&Gate::taskFn, &gate, s));
  ASSERT_ACL_OK(arunStreamGetQueueDepth(s, &depth, nullptr));
  EXPECT_EQ(5u, depth) << "one running + four queued";
  int32_t id = -1;
  ASSERT_ACL_OK(aclrtStreamGetId(s, &id));
  std::string report = arunRuntimeReport();
  std::string line = "stream " + std::to_string(id) + " (priority 3): 5 of " + std::to_string(capacity) + " queued";
  EXPECT_NE(std::string::npos, report.find(line)) << report;
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(arunStreamGetQueueDepth(s, &depth, nullptr));
  EXPECT_EQ(0u, depth);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, arunStreamGetQueueDepth(s, nullptr, &capacity));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, arunStreamGetQueueDepth(s, &depth, nullptr));
  EXPECT_ACL_OK(arunStreamGetQueueDepth(nullptr, &depth, nullptr));  // the default stream
}

struct StreamStateLog {
  std::mutex mutex;
  std::vector<std::pair<aclrtStream, aclrtStreamState>> calls;
};

void recordStreamState(aclrtStream stream, aclrtStreamState state, void *args) {
  auto *log = static_cast<StreamStateLog *>(args);
  std::lock_guard lock(log->mutex);
  log->calls.emplace_back(stream, state);
}

TEST_P(StreamTest, StreamStateCallback) {
  static StreamStateLog log;  // process lifetime: a leaked registration can never dangle
  {
    std::lock_guard lock(log.mutex);
    log.calls.clear();
  }
  const char *name = "arun_conformance_stream_state";
  ASSERT_ACL_OK(aclrtRegStreamStateCallback(name, &recordStreamState, &log));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRegStreamStateCallback(name, &recordStreamState, &log));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtRegStreamStateCallback(name, nullptr, nullptr));
  size_t callsWhileRegistered = 0;
  {
    std::lock_guard lock(log.mutex);
    callsWhileRegistered = log.calls.size();
    int created = 0, destroyed = 0;
    bool destroyAfterCreate = false;
    for (const auto &[stream, state] : log.calls) {
      if (stream == s && state == ACL_RT_STREAM_STATE_CREATE_POST) ++created;
      if (stream == s && state == ACL_RT_STREAM_STATE_DESTROY_PRE) {
        ++destroyed;
        destroyAfterCreate = created == 1;
      }
    }
    EXPECT_EQ(1, created);
    EXPECT_EQ(1, destroyed);
    EXPECT_TRUE(destroyAfterCreate) << "DESTROY_PRE came before CREATE_POST";
  }
  aclrtStream t = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&t));
  ASSERT_ACL_OK(aclrtDestroyStream(t));
  {
    std::lock_guard lock(log.mutex);
    EXPECT_EQ(callsWhileRegistered, log.calls.size()) << "callback still called after it was removed";
  }
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRegStreamStateCallback(nullptr, &recordStreamState, &log));
}

ARUN_CONFORMANCE_INSTANTIATE(StreamTest);

}  // namespace
}  // namespace conformance
