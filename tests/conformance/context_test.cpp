// Section 2.3: contexts, and many threads using devices at once.
#include <algorithm>
#include <barrier>
#include <cstring>

#include "conformance.hpp"

namespace conformance {
namespace {

class ContextTest : public AclTest {};

TEST_P(ContextTest, DefaultContextIsSharedByThreadsOnTheSameDevice) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtContext mine = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&mine));
  ASSERT_NE(nullptr, mine);
  constexpr int kThreads = 4;
  std::vector<aclrtContext> seen(kThreads, nullptr);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&seen, i] {
      ASSERT_ACL_OK(aclrtSetDevice(0));
      EXPECT_ACL_OK(aclrtGetCurrentContext(&seen[i]));
    });
  }
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(mine, seen[i]) << "thread " << i;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetCurrentContext(nullptr));
}

TEST_P(ContextTest, DefaultContextsOfDifferentDevicesDiffer) {
  if (deviceCount() < 2) GTEST_SKIP() << "needs 2 devices";
  aclrtContext c0 = nullptr, c1 = nullptr;
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtGetCurrentContext(&c0));
  ASSERT_ACL_OK(aclrtSetDevice(1));
  ASSERT_ACL_OK(aclrtGetCurrentContext(&c1));
  EXPECT_NE(c0, c1);
}

TEST_P(ContextTest, NoContextIsContextNull) {
  aclrtContext ctx = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&ctx));
  aclrtStream stream = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCtxGetCurrentDefaultStream(&stream));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  inNewThread([] {
    aclrtContext c = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&c));
    aclrtStream s = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCtxGetCurrentDefaultStream(&s));
  });
}

TEST_P(ContextTest, CurrentContextIsThreadLocal) {
  std::barrier sync(2);
  aclrtContext created[2] = {nullptr, nullptr};
  aclrtContext seen[2] = {nullptr, nullptr};
  auto body = [&](int i) {
    const int32_t device = i % static_cast<int32_t>(deviceCount());
    EXPECT_ACL_OK(aclrtCreateContext(&created[i], device));
    sync.arrive_and_wait();  // both contexts exist before either thread looks
    EXPECT_ACL_OK(aclrtGetCurrentContext(&seen[i]));
    int32_t current = -1;
    EXPECT_ACL_OK(aclrtGetDevice(&current));
    EXPECT_EQ(device, current);
    sync.arrive_and_wait();
    EXPECT_ACL_OK(aclrtDestroyContext(created[i]));
  };
  std::thread a(body, 0), b(body, 1);
  a.join();
  b.join();
  EXPECT_NE(created[0], created[1]);
  EXPECT_EQ(created[0], seen[0]);
  EXPECT_EQ(created[1], seen[1]);
  // The test thread itself was never given a context.
  aclrtContext ctx = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&ctx));
}

TEST_P(ContextTest, CreateContextMakesItCurrent) {
  const int32_t device = lastDevice();
  ASSERT_ACL_OK(aclrtSetDevice(device));
  aclrtContext def = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&def));
  aclrtStream defStream = nullptr;
  ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&defStream));

  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, device));
  ASSERT_NE(nullptr, ctx);
  EXPECT_NE(def, ctx);
  aclrtContext current = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&current));
  EXPECT_EQ(ctx, current);
  int32_t currentDevice = -1;
  ASSERT_ACL_OK(aclrtGetDevice(&currentDevice));
  EXPECT_EQ(device, currentDevice);
  // Each context has its own default stream.
  aclrtStream ctxStream = nullptr;
  ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&ctxStream));
  EXPECT_NE(nullptr, ctxStream);
  EXPECT_NE(defStream, ctxStream);
  // Work in the new context.
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 512, ACL_MEM_MALLOC_HUGE_FIRST));
  auto data = pattern(512, 4);
  writeDevice(dev, data);
  EXPECT_EQ(data, readDevice(dev, data.size()));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtDestroyContext(ctx));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateContext(nullptr, device));
}

TEST_P(ContextTest, CreateContextOpensTheDevice) {
  // No aclrtSetDevice anywhere: creating the context is enough to use the device.
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
  int32_t device = -1;
  ASSERT_ACL_OK(aclrtGetDevice(&device));
  EXPECT_EQ(0, device);
  aclrtStream stream = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&stream));
  Probe probe;
  ASSERT_ACL_OK(launchProbe(stream, probe));
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
  EXPECT_TRUE(probe.ran.load());
  EXPECT_ACL_OK(aclrtDestroyStream(stream));
  EXPECT_ACL_OK(aclrtDestroyContext(ctx));
}

TEST_P(ContextTest, DestroyingTheDefaultContextIsRejected) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtContext def = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&def));
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtDestroyContext(def));  // part 2, R1
  // Still alive and current.
  EXPECT_ACL_OK(aclrtSetCurrentContext(def));
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(ContextTest, DestroyedContextHandleIsInvalidHandle) {
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
  ASSERT_ACL_OK(aclrtDestroyContext(ctx));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetCurrentContext(ctx));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyContext(ctx));
  int bogus = 0;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetCurrentContext(&bogus));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyContext(&bogus));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetCurrentContext(nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(nullptr));
}

TEST_P(ContextTest, ContextOfAResetDeviceIsInvalidHandle) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtContext def = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&def));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetCurrentContext(def));
}

TEST_P(ContextTest, SetCurrentContextSwitchesTheDevice) {
  if (deviceCount() < 2) GTEST_SKIP() << "needs 2 devices";
  aclrtContext ctx1 = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&ctx1, 1));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  int32_t device = -1;
  ASSERT_ACL_OK(aclrtGetDevice(&device));
  EXPECT_EQ(0, device);
  aclrtContext current = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&current));
  EXPECT_NE(ctx1, current);
  ASSERT_ACL_OK(aclrtSetCurrentContext(ctx1));
  ASSERT_ACL_OK(aclrtGetDevice(&device));
  EXPECT_EQ(1, device);
  ASSERT_ACL_OK(aclrtGetCurrentContext(&current));
  EXPECT_EQ(ctx1, current);
  // Memory now comes from device 1.
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtPtrAttributes attrs{};
  ASSERT_ACL_OK(aclrtPointerGetAttributes(dev, &attrs));
  EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, attrs.location.type);
  EXPECT_EQ(1u, attrs.location.id);
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtDestroyContext(ctx1));
}

TEST_P(ContextTest, AContextCanBeUsedFromAnotherThread) {
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
  aclrtStream ctxStream = nullptr;
  ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&ctxStream));
  inNewThread([this, ctx, ctxStream] {
    ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
    aclrtContext current = nullptr;
    EXPECT_ACL_OK(aclrtGetCurrentContext(&current));
    EXPECT_EQ(ctx, current);
    aclrtStream s = nullptr;
    EXPECT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&s));
    EXPECT_EQ(ctxStream, s);
    void* dev = nullptr;
    ASSERT_ACL_OK(aclrtMalloc(&dev, 300, ACL_MEM_MALLOC_HUGE_FIRST));
    auto data = pattern(300, 5);
    writeDevice(dev, data);
    EXPECT_EQ(data, readDevice(dev, data.size()));
    EXPECT_ACL_OK(aclrtFree(dev));
  });
  EXPECT_ACL_OK(aclrtDestroyContext(ctx));
}

TEST_P(ContextTest, DefaultStreamHandleIsWhatNullDenotes) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtStream def = nullptr;
  ASSERT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&def));
  ASSERT_NE(nullptr, def);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCtxGetCurrentDefaultStream(nullptr));
  // Threads sharing the default context share its default stream.
  inNewThread([def] {
    ASSERT_ACL_OK(aclrtSetDevice(0));
    aclrtStream s = nullptr;
    EXPECT_ACL_OK(aclrtCtxGetCurrentDefaultStream(&s));
    EXPECT_EQ(def, s);
  });
  // Work enqueued through NULL is visible through the handle, and the other way round.
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(nullptr, gate));
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  ASSERT_ACL_OK(aclrtStreamQuery(def, &status));
  EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, status);
  Probe probe;
  ASSERT_ACL_OK(launchProbe(def, probe));
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_TRUE(probe.ran.load()) << "a task enqueued on the default-stream handle is not on the NULL stream";
  ASSERT_ACL_OK(aclrtStreamQuery(def, &status));
  EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, status);
}

TEST_P(ContextTest, ResInCurrentThread) {
  inNewThread([] {
    uint32_t v = 0;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
  });
  ASSERT_ACL_OK(aclrtSetDevice(0));
  uint32_t cube = 0, vector = 0;
  EXPECT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &cube));
  EXPECT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &vector));
  EXPECT_GT(cube + vector, 0u) << "a device with no cores of either kind cannot run work";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, nullptr));
  uint32_t v = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetResInCurrentThread(static_cast<aclrtDevResLimitType>(99), &v));
}

TEST_P(ContextTest, ManyThreadsUseDevicesConcurrently) {
  constexpr int kThreads = 16;
  constexpr int kRounds = 4;
  constexpr size_t kSize = 64 * 1024;
  const int32_t count = static_cast<int32_t>(deviceCount());
  std::barrier start(kThreads);
  std::atomic<int> taskRuns{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const int32_t device = t % count;
      EXPECT_ACL_OK(aclrtSetDevice(device));
      start.arrive_and_wait();  // everyone has set a device: now all allocate and copy at once
      int32_t current = -1;
      EXPECT_ACL_OK(aclrtGetDevice(&current));
      EXPECT_EQ(device, current);
      for (int round = 0; round < kRounds; ++round) {
        const uint32_t seed = static_cast<uint32_t>(t * 100 + round);
        auto data = pattern(kSize, seed);
        void* dev = nullptr;
        ASSERT_ACL_OK(aclrtMalloc(&dev, kSize, ACL_MEM_MALLOC_HUGE_FIRST));
        ASSERT_ACL_OK(aclrtMemcpy(dev, kSize, data.data(), kSize, ACL_MEMCPY_HOST_TO_DEVICE));
        std::vector<uint8_t> back(kSize, 0);
        ASSERT_ACL_OK(aclrtMemcpy(back.data(), kSize, dev, kSize, ACL_MEMCPY_DEVICE_TO_HOST));
        EXPECT_EQ(data, back) << "thread " << t << " round " << round;

        // Stream-ordered: memset the first quarter, copy back into pinned memory, count a task.
        aclrtStream stream = nullptr;
        ASSERT_ACL_OK(aclrtCreateStream(&stream));
        void* host = nullptr;
        ASSERT_ACL_OK(aclrtMallocHost(&host, kSize));
        ASSERT_ACL_OK(aclrtMemsetAsync(dev, kSize, t, kSize / 4, stream));
        ASSERT_ACL_OK(launch(stream, [&taskRuns] { taskRuns.fetch_add(1); }));
        ASSERT_ACL_OK(aclrtMemcpyAsync(host, kSize, dev, kSize, ACL_MEMCPY_DEVICE_TO_HOST, stream));
        ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
        auto expected = data;
        std::fill(expected.begin(), expected.begin() + kSize / 4, static_cast<uint8_t>(t));
        EXPECT_EQ(0, std::memcmp(expected.data(), host, kSize)) << "thread " << t << " round " << round;
        EXPECT_ACL_OK(aclrtFreeHost(host));
        EXPECT_ACL_OK(aclrtDestroyStream(stream));
        EXPECT_ACL_OK(aclrtFree(dev));
      }
      EXPECT_ACL_OK(aclrtResetDevice(device));
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(kThreads * kRounds, taskRuns.load());
}

ARUN_CONFORMANCE_INSTANTIATE(ContextTest);

// Part 2, R1: destroying the thread's current (created) context leaves it with no context; there is
// no fallback to the primary context of an earlier aclrtSetDevice.
TEST_P(ContextTest, DestroyingTheCurrentContextLeavesNoContext) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtContext primary = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
  aclrtContext current = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&current));
  EXPECT_EQ(ctx, current);
  ASSERT_ACL_OK(aclrtDestroyContext(ctx));
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&current));
  int32_t device = -1;
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&device));
  void* dev = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtStream stream = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateStream(&stream));
  // aclrtSetDevice selects the still-open primary context again.
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtGetCurrentContext(&current));
  EXPECT_EQ(primary, current);
  ASSERT_ACL_OK(aclrtGetDevice(&device));
  EXPECT_EQ(0, device);
  ASSERT_ACL_OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(ContextTest, DestroyingAnotherContextKeepsTheCurrentOne) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtContext a = nullptr, b = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&a, 0));
  ASSERT_ACL_OK(aclrtCreateContext(&b, 0));  // b is current now
  ASSERT_ACL_OK(aclrtDestroyContext(a));
  aclrtContext current = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&current));
  EXPECT_EQ(b, current);
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_OK(aclrtFree(dev));
  ASSERT_ACL_OK(aclrtDestroyContext(b));
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&current));
  // aclrtSetCurrentContext is the other way back to a context.
  aclrtContext c = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&c, 0));
  ASSERT_ACL_OK(aclrtSetDevice(0));  // back to the primary: c stays alive but not current
  aclrtContext primary = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
  EXPECT_NE(c, primary);
  ASSERT_ACL_OK(aclrtSetCurrentContext(c));
  ASSERT_ACL_OK(aclrtGetCurrentContext(&current));
  EXPECT_EQ(c, current);
  EXPECT_ACL_OK(aclrtDestroyContext(c));
}

}  // namespace
}  // namespace conformance
