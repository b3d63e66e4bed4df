// Direct submission (issue 16): with ASCEND_RUN_DIRECT_SUBMIT on (the default), a tiny copy or
// memset to an idle stream runs on the calling thread; with it off, every task goes to a device
// thread. Each test runs the same program under both settings (a fresh runtime each) and checks
// that what the program can observe is the same: data, stream and event order, errors, and the
// synchronize family. Nothing here may depend on the backend.
#include <cstdlib>
#include <cstring>

#include "conformance.hpp"

namespace conformance {
namespace {

class DirectSubmitTest : public AclDeviceTest {
 protected:
  void SetUp() override {
    const char* was = std::getenv("ASCEND_RUN_DIRECT_SUBMIT");
    had_ = was != nullptr;
    if (had_) saved_ = was;
    AclDeviceTest::SetUp();
  }
  // The setting the suite runs under comes back for the tests after this one.
  void TearDown() override {
    AclDeviceTest::TearDown();
    if (had_) {
      setenv("ASCEND_RUN_DIRECT_SUBMIT", saved_.c_str(), 1);
    } else {
      unsetenv("ASCEND_RUN_DIRECT_SUBMIT");
    }
  }
  // A fresh runtime with direct submission on or off, device 0 current.
  void restart(bool direct) {
    if (initialized()) {
      (void)aclrtResetDeviceForce(0);
      ASSERT_NO_FATAL_FAILURE(finalize());
    }
    setenv("ASCEND_RUN_DIRECT_SUBMIT", direct ? "on" : "0", 1);
    ASSERT_NO_FATAL_FAILURE(reinit());
    ASSERT_ACL_OK(aclrtSetDevice(0));
  }

 private:
  bool had_ = false;
  std::string saved_;
};

// H2D copy on stream a, an event recorded after it, stream b waits for the event, then copies the
// data on and back to the host. The event is complete once b's copy has run.
TEST_P(DirectSubmitTest, CopyThenRecordThenWaitOnAnotherStream) {
  std::vector<uint8_t> results[2];
  for (int direct = 0; direct < 2; ++direct) {
    ASSERT_NO_FATAL_FAILURE(restart(direct != 0));
    constexpr size_t kBytes = 4096;
    aclrtStream a = nullptr, b = nullptr;
    aclrtEvent e = nullptr;
    void *host = nullptr, *back = nullptr, *d1 = nullptr, *d2 = nullptr;
    ASSERT_ACL_OK(aclrtCreateStream(&a));
    ASSERT_ACL_OK(aclrtCreateStream(&b));
    ASSERT_ACL_OK(aclrtCreateEvent(&e));
    ASSERT_ACL_OK(aclrtMallocHost(&host, kBytes));
    ASSERT_ACL_OK(aclrtMallocHost(&back, kBytes));
    ASSERT_ACL_OK(aclrtMalloc(&d1, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ASSERT_ACL_OK(aclrtMalloc(&d2, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    for (size_t i = 0; i < kBytes; ++i) static_cast<uint8_t*>(host)[i] = static_cast<uint8_t>(i * 7 + 1);
    std::memset(back, 0, kBytes);
    ASSERT_ACL_OK(aclrtMemcpyAsync(d1, kBytes, host, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, a));
    if (direct) {
      // The stream was idle: the copy ran before the call returned.
      aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
      ASSERT_ACL_OK(aclrtStreamQuery(a, &st));
      EXPECT_EQ(ACL_STREAM_STATUS_COMPLETE, st) << "a tiny copy to an idle stream ran on the calling thread";
    }
    ASSERT_ACL_OK(aclrtRecordEvent(e, a));
    ASSERT_ACL_OK(aclrtStreamWaitEvent(b, e));
    ASSERT_ACL_OK(aclrtMemcpyAsync(d2, kBytes, d1, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, b));
    ASSERT_ACL_OK(aclrtMemcpyAsync(back, kBytes, d2, kBytes, ACL_MEMCPY_DEVICE_TO_HOST, b));
    ASSERT_ACL_OK(aclrtSynchronizeStream(b));
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    ASSERT_ACL_OK(aclrtQueryEventStatus(e, &status));
    EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status);
    EXPECT_ACL_OK(aclrtSynchronizeEvent(e));
    EXPECT_ACL_OK(aclrtSynchronizeStreamWithTimeout(a, 1000));
    EXPECT_ACL_OK(aclrtSynchronizeDevice());
    results[direct].assign(static_cast<uint8_t*>(back), static_cast<uint8_t*>(back) + kBytes);
    EXPECT_EQ(0, std::memcmp(host, back, kBytes));
    EXPECT_ACL_OK(aclrtFree(d1));
    EXPECT_ACL_OK(aclrtFree(d2));
    EXPECT_ACL_OK(aclrtFreeHost(host));
    EXPECT_ACL_OK(aclrtFreeHost(back));
    EXPECT_ACL_OK(aclrtDestroyEvent(e));
    EXPECT_ACL_OK(aclrtDestroyStream(a));
    EXPECT_ACL_OK(aclrtDestroyStream(b));
  }
  EXPECT_EQ(results[0], results[1]);
}

// A memset, then a copy of what it wrote, then a copy back to pageable host memory (which the
// spec makes synchronous), at sizes below and above the threshold.
TEST_P(DirectSubmitTest, MemsetThenCopy) {
  for (size_t bytes : {size_t(64), size_t(64) << 10, size_t(1) << 20}) {
    std::vector<uint8_t> results[2];
    for (int direct = 0; direct < 2; ++direct) {
      ASSERT_NO_FATAL_FAILURE(restart(direct != 0));
      aclrtStream s = nullptr;
      void *d1 = nullptr, *d2 = nullptr;
      ASSERT_ACL_OK(aclrtCreateStream(&s));
      ASSERT_ACL_OK(aclrtMalloc(&d1, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
      ASSERT_ACL_OK(aclrtMalloc(&d2, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
      ASSERT_ACL_OK(aclrtMemsetAsync(d1, bytes, 0xa5, bytes, s));
      ASSERT_ACL_OK(aclrtMemsetAsync(d1, bytes / 2, 0x11, bytes / 2, s));
      ASSERT_ACL_OK(aclrtMemcpyAsync(d2, bytes, d1, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
      std::vector<uint8_t> out(bytes, 0);
      ASSERT_ACL_OK(aclrtMemcpyAsync(out.data(), bytes, d2, bytes, ACL_MEMCPY_DEVICE_TO_HOST, s));
      results[direct] = out;  // pageable host memory: complete when the call returned
      std::vector<uint8_t> want(bytes, 0xa5);
      std::memset(want.data(), 0x11, bytes / 2);
      EXPECT_EQ(want, out) << bytes << " bytes, direct " << direct;
      EXPECT_ACL_OK(aclrtSynchronizeStream(s));
      EXPECT_ACL_OK(aclrtFree(d1));
      EXPECT_ACL_OK(aclrtFree(d2));
      EXPECT_ACL_OK(aclrtDestroyStream(s));
    }
    EXPECT_EQ(results[0], results[1]);
  }
}

// Bad input is refused at the call with the same codes either way; a copy that fails on the
// device reports ACL_ERROR_RT_COPY_DATA on the next synchronize, once, and later tiny copies on the
// same stream run (ACL_CONTINUE_ON_FAILURE).
TEST_P(DirectSubmitTest, ErrorsAreTheSame) {
  for (int direct = 0; direct < 2; ++direct) {
    ASSERT_NO_FATAL_FAILURE(restart(direct != 0));
    aclrtStream s = nullptr;
    void *d = nullptr, *src = nullptr;
    ASSERT_ACL_OK(aclrtCreateStream(&s));
    ASSERT_ACL_OK(aclrtMalloc(&d, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    ASSERT_ACL_OK(aclrtMalloc(&src, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    std::vector<uint8_t> host(256, 3);
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(d, 128, host.data(), 256, ACL_MEMCPY_HOST_TO_DEVICE, s))
        << "destMax below count";
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetAsync(d, 128, 0, 256, s));
    EXPECT_NE(ACL_SUCCESS, aclrtMemcpyAsync(d, 256, host.data(), 256, ACL_MEMCPY_DEVICE_TO_HOST, s))
        << "the kind does not match the pointers";
    // A device-side failure: the source is freed while the copy waits behind a gate.
    Gate& gate = newGate();
    ASSERT_ACL_OK(launchGate(s, gate));
    ASSERT_ACL_OK(aclrtMemcpyAsync(d, 256, src, 256, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    ASSERT_ACL_OK(aclrtFree(src));
    gate.open();
    EXPECT_ACL(ACL_ERROR_RT_COPY_DATA, aclrtSynchronizeStream(s));
    EXPECT_ACL_OK(aclrtSynchronizeStream(s)) << "reported once";
    ASSERT_ACL_OK(aclrtMemcpyAsync(d, 256, host.data(), 256, ACL_MEMCPY_HOST_TO_DEVICE, s));
    EXPECT_ACL_OK(aclrtSynchronizeStream(s));
    EXPECT_EQ(host, readDevice(d, 256));
    EXPECT_ACL_OK(aclrtFree(d));
    EXPECT_ACL_OK(aclrtDestroyStream(s));
  }
}

// Host callbacks and device tasks queued after a directly run copy still run after it, in stream
// order, and see its data.
TEST_P(DirectSubmitTest, LaterTasksSeeTheCopy) {
  for (int direct = 0; direct < 2; ++direct) {
    ASSERT_NO_FATAL_FAILURE(restart(direct != 0));
    aclrtStream s = nullptr;
    void* pinned = nullptr;
    ASSERT_ACL_OK(aclrtCreateStream(&s));
    ASSERT_ACL_OK(aclrtMallocHost(&pinned, 64));
    void* d = nullptr;
    ASSERT_ACL_OK(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    std::memset(pinned, 0, 64);
    ASSERT_ACL_OK(aclrtMemsetAsync(d, 64, 0x42, 64, s));
    ASSERT_ACL_OK(aclrtMemcpyAsync(pinned, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST, s));
    std::atomic<int> seen{-1};
    ASSERT_ACL_OK(launch(s, [&] { seen = static_cast<uint8_t*>(pinned)[63]; }));
    ASSERT_ACL_OK(aclrtSynchronizeStream(s));
    EXPECT_EQ(0x42, seen.load());
    EXPECT_ACL_OK(aclrtFree(d));
    EXPECT_ACL_OK(aclrtFreeHost(pinned));
    EXPECT_ACL_OK(aclrtDestroyStream(s));
  }
}

// Several threads launch tiny copies to one stream at once, with event records another stream
// waits on: every copy and every wait completes, and each thread's data arrives (run under TSan by
// tools/test.sh).
TEST_P(DirectSubmitTest, ConcurrentLaunchersToOneStream) {
  for (int direct = 0; direct < 2; ++direct) {
    ASSERT_NO_FATAL_FAILURE(restart(direct != 0));
    constexpr int kThreads = 4, kEach = 100;
    constexpr size_t kBytes = 256;
    aclrtContext ctx = nullptr;
    ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
    aclrtStream s = nullptr, other = nullptr;
    aclrtEvent e = nullptr;
    ASSERT_ACL_OK(aclrtCreateStream(&s));
    ASSERT_ACL_OK(aclrtCreateStream(&other));
    ASSERT_ACL_OK(aclrtCreateEvent(&e));
    void *dev = nullptr, *copies = nullptr;
    ASSERT_ACL_OK(aclrtMalloc(&dev, kThreads * kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ASSERT_ACL_OK(aclrtMalloc(&copies, kThreads * kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    std::vector<std::vector<uint8_t>> src(kThreads);
    void* pinned = nullptr;  // pinned sources: the copies are asynchronous
    ASSERT_ACL_OK(aclrtMallocHost(&pinned, kThreads * kBytes));
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int t = 0; t < kThreads; ++t) {
      src[t].assign(kBytes, static_cast<uint8_t>(t + 1));
      std::memcpy(static_cast<uint8_t*>(pinned) + t * kBytes, src[t].data(), kBytes);
    }
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        if (aclrtSetCurrentContext(ctx) != ACL_SUCCESS) ++failures;
        auto* mine = static_cast<uint8_t*>(dev) + t * kBytes;
        auto* copy = static_cast<uint8_t*>(copies) + t * kBytes;
        for (int i = 0; i < kEach; ++i) {
          const void* from = static_cast<uint8_t*>(pinned) + t * kBytes;
          if (aclrtMemcpyAsync(mine, kBytes, from, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, s) != ACL_SUCCESS) ++failures;
          if (i % 25 == 24) {
            if (aclrtRecordEvent(e, s) != ACL_SUCCESS) ++failures;
            if (aclrtStreamWaitEvent(other, e) != ACL_SUCCESS) ++failures;
          }
        }
        if (aclrtSynchronizeStream(s) != ACL_SUCCESS) ++failures;
        // After the synchronize this thread's last copy is done: copy it on the other stream.
        if (aclrtMemcpyAsync(copy, kBytes, mine, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, other) != ACL_SUCCESS) ++failures;
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(0, failures.load());
    ASSERT_ACL_OK(aclrtSynchronizeStream(s));
    ASSERT_ACL_OK(aclrtSynchronizeStream(other));
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_EQ(src[t], readDevice(static_cast<uint8_t*>(dev) + t * kBytes, kBytes)) << "thread " << t;
      EXPECT_EQ(src[t], readDevice(static_cast<uint8_t*>(copies) + t * kBytes, kBytes)) << "thread " << t;
    }
    EXPECT_ACL_OK(aclrtFree(dev));
    EXPECT_ACL_OK(aclrtFree(copies));
    EXPECT_ACL_OK(aclrtFreeHost(pinned));
    EXPECT_ACL_OK(aclrtDestroyEvent(e));
    EXPECT_ACL_OK(aclrtDestroyStream(s));
    EXPECT_ACL_OK(aclrtDestroyStream(other));
  }
}

// A bad value fails aclInit with ACL_ERROR_INVALID_PARAM, as the other ASCEND_RUN_* switches do.
TEST_P(DirectSubmitTest, BadSettingFailsInit) {
  (void)aclrtResetDeviceForce(0);
  ASSERT_NO_FATAL_FAILURE(finalize());
  setenv("ASCEND_RUN_DIRECT_SUBMIT", "sometimes", 1);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclInit(config()));
  setenv("ASCEND_RUN_DIRECT_SUBMIT", "16KiB", 1);
  ASSERT_NO_FATAL_FAILURE(reinit());
}

ARUN_CONFORMANCE_INSTANTIATE(DirectSubmitTest);

}  // namespace
}  // namespace conformance
