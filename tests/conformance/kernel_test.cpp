// Kernels written in C++ (arun/kernel.hpp over arunLaunchKernel): results, block indices, stream
// order, argument lifetime, one test per fault class, and aclrtStreamStop between blocks.
//
// Faults are made deterministic without timing: a kernel maps a range it knows to be invalid, or
// traps, or fails with a chosen status. Nothing here depends on how many AI cores the backend has.
#include <atomic>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "arun/kernel.hpp"
#include "conformance.hpp"

namespace conformance {
namespace {

class KernelTest : public AclDeviceTest {
 protected:
  void* mallocDevice(size_t bytes) {
    void* p = nullptr;
    EXPECT_ACL_OK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
  }
  template <class T>
  void upload(T* dev, const std::vector<T>& v) {
    EXPECT_ACL_OK(aclrtMemcpy(dev, v.size() * sizeof(T), v.data(), v.size() * sizeof(T), ACL_MEMCPY_HOST_TO_DEVICE));
  }
  template <class T>
  std::vector<T> download(const T* dev, size_t n) {
    std::vector<T> v(n);
    EXPECT_ACL_OK(aclrtMemcpy(v.data(), n * sizeof(T), dev, n * sizeof(T), ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
  }
};

void saxpy(arun::Block b, float a, const float* x, float* y, size_t n) {
  auto xs = b.map(x, n);
  auto ys = b.map(y, n);
  for (size_t i : b.range(n)) ys[i] = a * xs[i] + ys[i];
}

TEST_P(KernelTest, SaxpyOverManyBlocksMatchesTheHost) {
  const size_t n = 100003;  // not a multiple of the block count
  std::vector<float> x(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = float(i % 101) * 0.5f;
    y[i] = float(i % 7) - 3.0f;
  }
  auto* dx = static_cast<float*>(mallocDevice(n * sizeof(float)));
  auto* dy = static_cast<float*>(mallocDevice(n * sizeof(float)));
  upload(dx, x);
  upload(dy, y);
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(arun::launch(s, 16, saxpy, 2.0f, dx, dy, n));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  std::vector<float> got = download(dy, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 2.0f * x[i] + y[i]) << "element " << i;
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtFree(dx));
  EXPECT_ACL_OK(aclrtFree(dy));
}

TEST_P(KernelTest, EveryBlockRunsOnceAndRangesPartitionTheWork) {
  const uint32_t blocks = 257;
  const size_t n = 1000;
  auto* hits = static_cast<uint32_t*>(mallocDevice(blocks * sizeof(uint32_t)));
  auto* owner = static_cast<uint32_t*>(mallocDevice(n * sizeof(uint32_t)));
  ASSERT_ACL_OK(aclrtMemset(hits, blocks * 4, 0, blocks * 4));
  ASSERT_ACL_OK(aclrtMemset(owner, n * 4, 0xff, n * 4));
  ASSERT_ACL_OK(arun::launch(
      nullptr, blocks,
      [](arun::Block b, uint32_t* hit, uint32_t* own, size_t count) {
        if (b.count() != 257) b.fail(ACL_ERROR_RT_PARAM_INVALID, "wrong block count");
        b.at(hit + b.index()) += 1;  // each block writes only its own slot
        auto v = b.map(own, count);
        for (size_t i : b.range(count)) v[i] = b.index();
      },
      hits, owner, n));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  std::vector<uint32_t> h = download(hits, blocks);
  for (uint32_t i = 0; i < blocks; ++i) EXPECT_EQ(h[i], 1u) << "block " << i;
  // ceil(1000 / 257) = 4 elements per block, in block order; the last blocks get none.
  std::vector<uint32_t> o = download(owner, n);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(o[i], i / 4) << "element " << i;
  EXPECT_ACL_OK(aclrtFree(hits));
  EXPECT_ACL_OK(aclrtFree(owner));
}

TEST_P(KernelTest, ArgumentsAreCopiedAtLaunchAndCallablesMayCapture) {
  std::vector<int> table = {1, 2, 3, 4};
  auto* out = static_cast<int*>(mallocDevice(4 * sizeof(int)));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  const int offset = 100;
  ASSERT_ACL_OK(arun::launch(
      s, 2,
      [offset](arun::Block b, const std::vector<int>& t, int* dst) {
        auto v = b.map(dst, t.size());
        for (size_t i : b.range(t.size())) v[i] = t[i] + offset;
      },
      table, out));
  table.assign(4, -1);  // the kernel has its own copy
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(download(out, 4), (std::vector<int>{101, 102, 103, 104}));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtFree(out));
}

TEST_P(KernelTest, ALaunchIsOneTaskInStreamOrderAndDoesNotWait) {
  const size_t n = 4096;
  std::vector<int32_t> in(n);
  std::iota(in.begin(), in.end(), -2000);
  void *pinnedIn = nullptr, *pinnedOut = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&pinnedIn, n * 4));
  ASSERT_ACL_OK(aclrtMallocHost(&pinnedOut, n * 4));
  std::memcpy(pinnedIn, in.data(), n * 4);
  std::memset(pinnedOut, 0, n * 4);
  auto* dev = static_cast<int32_t*>(mallocDevice(n * 4));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(aclrtMemcpyAsync(dev, n * 4, pinnedIn, n * 4, ACL_MEMCPY_HOST_TO_DEVICE, s));
  ASSERT_ACL_OK(arun::launch(
      s, 8,
      [](arun::Block b, int32_t* d, size_t count) {
        auto v = b.map(d, count);
        for (size_t i : b.range(count)) v[i] = v[i] * 3 + 1;
      },
      dev, n));
  ASSERT_ACL_OK(aclrtMemcpyAsync(pinnedOut, n * 4, dev, n * 4, ACL_MEMCPY_DEVICE_TO_HOST, s));
  // Everything is queued behind the gate: the launch returned without running.
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  ASSERT_ACL_OK(aclrtStreamQuery(s, &status));
  EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, status);
  EXPECT_EQ(0, static_cast<int32_t*>(pinnedOut)[0]);
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_FALSE(gate.watchdogFired());
  const auto* got = static_cast<const int32_t*>(pinnedOut);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], in[i] * 3 + 1) << "element " << i;
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtFreeHost(pinnedIn));
  EXPECT_ACL_OK(aclrtFreeHost(pinnedOut));
}

// --- faults: one test per failure mode ---------------------------------------------------------

TEST_P(KernelTest, AnAccessOutsideAnyAllocationFaultsAndCorruptsNothing) {
  auto* a = static_cast<uint8_t*>(mallocDevice(64));
  auto* neighbour = static_cast<uint8_t*>(mallocDevice(64));
  ASSERT_ACL_OK(aclrtMemset(a, 64, 0x11, 64));
  ASSERT_ACL_OK(aclrtMemset(neighbour, 64, 0x5a, 64));
  aclrtStream s = nullptr, other = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&other));
  std::atomic<int> reached{0};
  // Asks for 1 MiB of a 64-byte allocation: the view is refused before anything is written.
  ASSERT_ACL_OK(arun::launch(
      s, 4,
      [&reached](arun::Block b, uint8_t* p) {
        auto v = b.map(p, 1 << 20);
        reached++;
        std::memset(v.data(), 0xee, v.size());
      },
      a));
  EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(s));
  const char* msg = aclGetRecentErrMsg();
  ASSERT_NE(nullptr, msg);
  EXPECT_NE(nullptr, std::strstr(msg, "outside any live allocation")) << msg;
  EXPECT_EQ(0, reached.load());
  EXPECT_EQ(std::vector<uint8_t>(64, 0x11), download(a, 64));
  EXPECT_EQ(std::vector<uint8_t>(64, 0x5a), download(neighbour, 64));
  // The error was reported once; the stream (continue-on-failure) and the others keep working.
  ASSERT_ACL_OK(arun::launch(
      s, 2, [](arun::Block b, uint8_t* p) { b.at(p + b.index()) = 7; }, a));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(arun::launch(
      other, 1, [](arun::Block b, uint8_t* p) { b.at(p + 2) = 9; }, a));
  EXPECT_ACL_OK(aclrtSynchronizeStream(other));
  std::vector<uint8_t> got = download(a, 3);
  EXPECT_EQ((std::vector<uint8_t>{7, 7, 9}), got);
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(other));
  EXPECT_ACL_OK(aclrtFree(a));
  EXPECT_ACL_OK(aclrtFree(neighbour));
}

TEST_P(KernelTest, AnIndexOutsideAViewFaultsInsteadOfWriting) {
  auto* a = static_cast<uint8_t*>(mallocDevice(64));
  ASSERT_ACL_OK(aclrtMemset(a, 64, 0x11, 64));
  ASSERT_ACL_OK(arun::launch(
      nullptr, 1,
      [](arun::Block b, uint8_t* p) {
        auto v = b.map(p, 16);
        v[16] = 0xee;  // one past the view, still inside the allocation
      },
      a));
  EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(nullptr));
  EXPECT_EQ(std::vector<uint8_t>(64, 0x11), download(a, 64));
  EXPECT_ACL_OK(aclrtFree(a));
}

TEST_P(KernelTest, MemoryFreedBeforeTheKernelRunsIsAFault) {
  auto* a = static_cast<uint8_t*>(mallocDevice(4096));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(arun::launch(
      s, 2, [](arun::Block b, uint8_t* p) { b.map(p, 4096)[0] = 1; }, a));
  ASSERT_TRUE(gate.waitEntered(1));
  ASSERT_ACL_OK(aclrtFree(a));
  gate.open();
  EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(KernelTest, TrapsStatusesAndExceptionsFailTheLaunchWithTheirCodes) {
  struct Case {
    const char* what;
    aclError expected;
    void (*kernel)(arun::Block);
    const char* message;  // what the synchronize's error message carries from the failing block
  };
  const Case cases[] = {
      {"trap", ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, [](arun::Block b) { b.trap("assertion failed in block"); },
       "assertion failed in block"},
      {"status", ACL_ERROR_RT_VECTOR_CORE_EXCEPTION,
       [](arun::Block b) {
         if (b.index() == 1) b.fail(ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, "vector unit fault");
       },
       "block 1: vector unit fault"},
      {"fail(0)", ACL_ERROR_RT_AICORE_EXCEPTION, [](arun::Block b) { b.fail(ACL_SUCCESS, "fault without a code"); },
       "fault without a code"},
      {"exception", ACL_ERROR_RT_AICORE_EXCEPTION, [](arun::Block) { throw std::runtime_error("kernel bug"); },
       "kernel bug"},
      {"C fault", ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW,
       [](arun::Block b) { arunBlockFault(b.native(), ACL_ERROR_RT_AICORE_TRAP_READ_OVERFLOW, "read overflow"); },
       "read overflow"},
  };
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  for (const Case& c : cases) {
    ASSERT_ACL_OK(arun::launch(s, 3, c.kernel)) << c.what;
    EXPECT_ACL(c.expected, aclrtSynchronizeStream(s)) << c.what;
    // The device's explanation reaches the program, not only the log.
    const char* msg = aclGetRecentErrMsg();
    ASSERT_NE(nullptr, msg) << c.what;
    EXPECT_NE(nullptr, std::strstr(msg, c.message)) << c.what << ": " << msg;
    EXPECT_ACL_OK(aclrtSynchronizeStream(s)) << c.what << ": a failure is reported once";
  }
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(KernelTest, StopHaltsARunningKernelBetweenBlocksAndDropsTheQueue) {
  constexpr uint32_t kBlocks = 1000;
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate& gate = newGate();
  std::atomic<uint32_t> ran{0};
  ASSERT_ACL_OK(arun::launch(s, kBlocks, [&gate, &ran](arun::Block) {
    ran++;
    Gate::taskFn(&gate);
  }));
  Probe behind;
  ASSERT_ACL_OK(launchProbe(s, behind));
  ASSERT_TRUE(gate.waitEntered(1));
  ASSERT_ACL_OK(aclrtStreamStop(s));
  gate.open();
  // The stream is abnormal from now on (spec part 2, R3); the tasks behind the halted one are dropped.
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtSynchronizeStream(s));
  EXPECT_FALSE(behind.ran.load());
  // Blocks already running finish; each unit stops before its next block.
  EXPECT_LT(ran.load(), kBlocks);
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

// Counts calls of the C ABI's argument destructor.
std::atomic<int> g_freed{0};
void countFree(void*) {
  g_freed++;
}
void writeOne(arunBlock* block, void* args) {
  auto* p = static_cast<int*>(arunBlockMap(block, args, sizeof(int)));
  if (p != nullptr) *p = static_cast<int>(arunBlockDim(block) * 10 + arunBlockIdx(block));
}

TEST_P(KernelTest, TheCInterfaceFreesArgumentsExactlyOnceOnEveryPath) {
  g_freed = 0;
  auto* dev = static_cast<int*>(mallocDevice(sizeof(int)));
  ASSERT_ACL_OK(arunLaunchKernel(nullptr, 1, &writeOne, dev, &countFree));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_EQ(1, g_freed.load());
  EXPECT_EQ(std::vector<int>{10}, download(dev, 1));

  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, arunLaunchKernel(nullptr, 1, nullptr, dev, &countFree));
  EXPECT_EQ(2, g_freed.load());
  EXPECT_NE(nullptr, aclGetRecentErrMsg());
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, arunLaunchKernel(nullptr, 0, &writeOne, dev, &countFree));
  EXPECT_EQ(3, g_freed.load());

  aclrtStream gone = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&gone));
  ASSERT_ACL_OK(aclrtDestroyStream(gone));
  EXPECT_NE(ACL_SUCCESS, arunLaunchKernel(gone, 1, &writeOne, dev, &countFree));
  EXPECT_EQ(4, g_freed.load());

  // Dropped by aclrtStreamAbort before it ran: freed, never run.
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(aclrtMemset(dev, sizeof(int), 0, sizeof(int)));
  ASSERT_ACL_OK(arunLaunchKernel(s, 4, &writeOne, dev, &countFree));
  ASSERT_TRUE(gate.waitEntered(1));
  // The gate opens once the abort has dropped (and so freed) the queued launch.
  std::thread opener([&gate] {
    for (int i = 0; i < 20000 && g_freed.load() < 5; ++i) std::this_thread::sleep_for(1ms);
    gate.open();
  });
  EXPECT_ACL_OK(aclrtStreamAbort(s));
  opener.join();
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(5, g_freed.load());
  EXPECT_EQ(std::vector<int>{0}, download(dev, 1)) << "an aborted launch must not run";
  EXPECT_ACL_OK(aclrtDestroyStream(s));

  // Before aclInit (after aclFinalize) the arguments are freed as well.
  EXPECT_ACL_OK(aclrtFree(dev));
  finalize();
  EXPECT_ACL(ACL_ERROR_UNINITIALIZE, arunLaunchKernel(nullptr, 1, &writeOne, nullptr, &countFree));
  EXPECT_EQ(6, g_freed.load());
  reinit();
}

}  // namespace
ARUN_CONFORMANCE_INSTANTIATE(KernelTest);
}  // namespace conformance
