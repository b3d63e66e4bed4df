// Section 2.6: memory management and copies.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "conformance.hpp"

namespace conformance {
namespace {

class MemoryTest : public AclDeviceTest {
 protected:
  uint64_t reservedAtStart_ = 0;
  void *devAlloc(size_t size) {
    void *p = nullptr;
    EXPECT_ACL_OK(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
  }
};

bool aligned(const void *p, size_t alignment) { return reinterpret_cast<uintptr_t>(p) % alignment == 0; }

// ---- allocation ----

TEST_P(MemoryTest, MallocAndFree) {
  void *p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_NE(nullptr, p);
  EXPECT_TRUE(aligned(p, 64)) << p;
  void *q = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&q, 1, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_TRUE(aligned(q, 64)) << q;
  EXPECT_NE(p, q);
  EXPECT_ACL_OK(aclrtFree(p));
  EXPECT_ACL_OK(aclrtFree(q));
}

TEST_P(MemoryTest, MallocAcceptsEveryPolicy) {
  for (int policy : std::initializer_list<int>{ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_NORMAL_ONLY,
                     ACL_MEM_MALLOC_HUGE_FIRST_P2P, ACL_MEM_MALLOC_HUGE_ONLY_P2P, ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
                     99 /* unrecognised: falls back by size */}) {
    for (size_t size : {size_t{4096}, size_t{4} << 20}) {
      void *p = nullptr;
      ASSERT_ACL_OK(aclrtMalloc(&p, size, static_cast<aclrtMemMallocPolicy>(policy)))
          << "policy " << policy << " size " << size;
      auto data = pattern(256, static_cast<uint32_t>(policy));
      writeDevice(p, data);
      EXPECT_EQ(data, readDevice(p, data.size()));
      EXPECT_ACL_OK(aclrtFree(p));
    }
  }
}

TEST_P(MemoryTest, MallocArgumentRules) {
  void *p = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMalloc(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST));
  // Padding the request would overflow size_t.
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&p, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&p, SIZE_MAX - 8, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocCached(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocCached(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST));
  inNewThread([] {
    void *q = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtMalloc(&q, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  });
}

TEST_P(MemoryTest, MallocMoreThanTheDeviceHasIsMemoryAllocation) {
  int64_t global = 0;
  ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &global));
  size_t freeBytes = 0, total = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeBytes, &total));
  const size_t tooMuch = std::max<size_t>(static_cast<size_t>(global), total) + (size_t{1} << 30);
  void *p = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMalloc(&p, tooMuch, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMalloc(&p, tooMuch, ACL_MEM_MALLOC_NORMAL_ONLY));
  // The failure leaves the device usable and its accounting unchanged.
  size_t freeAfter = 0, totalAfter = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeAfter, &totalAfter));
  EXPECT_EQ(freeBytes, freeAfter);
  EXPECT_EQ(total, totalAfter);
  ASSERT_ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_OK(aclrtFree(p));
}

TEST_P(MemoryTest, MallocCachedBehavesLikeMalloc) {
  void *p = nullptr;
  ASSERT_ACL_OK(aclrtMallocCached(&p, 8192, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_TRUE(aligned(p, 64));
  auto data = pattern(8192, 8);
  writeDevice(p, data);
  EXPECT_EQ(data, readDevice(p, data.size()));
  aclrtPtrAttributes attrs{};
  ASSERT_ACL_OK(aclrtPointerGetAttributes(p, &attrs));
  EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, attrs.location.type);
  EXPECT_ACL_OK(aclrtFree(p));
}

TEST_P(MemoryTest, FreeRejectsWhatItDidNotAllocate) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFree(nullptr));
  void *p = devAlloc(4096);
  ASSERT_ACL_OK(aclrtFree(p));
  EXPECT_ACL_EITHER(ACL_ERROR_RT_MEMORY_FREE, ACL_ERROR_RT_PARAM_INVALID, aclrtFree(p)) << "double free";
  void *heap = std::malloc(256);
  EXPECT_ACL_EITHER(ACL_ERROR_RT_MEMORY_FREE, ACL_ERROR_RT_PARAM_INVALID, aclrtFree(heap));
  std::free(heap);
  int onStack = 0;
  EXPECT_ACL_EITHER(ACL_ERROR_RT_MEMORY_FREE, ACL_ERROR_RT_PARAM_INVALID, aclrtFree(&onStack));
  void *pinned = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&pinned, 256));
  EXPECT_ACL_EITHER(ACL_ERROR_RT_MEMORY_FREE, ACL_ERROR_RT_PARAM_INVALID, aclrtFree(pinned));
  EXPECT_ACL_OK(aclrtFreeHost(pinned)) << "a rejected aclrtFree must not release host memory";
  void *q = devAlloc(4096);
  EXPECT_ACL_EITHER(ACL_ERROR_RT_MEMORY_FREE, ACL_ERROR_RT_PARAM_INVALID, aclrtFree(static_cast<uint8_t *>(q) + 64))
      << "interior pointer";
  EXPECT_ACL_OK(aclrtFree(q)) << "a rejected aclrtFree must not release the allocation";
}

TEST_P(MemoryTest, MallocHostAndFreeHost) {
  void *p = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&p, 10000));
  ASSERT_NE(nullptr, p);
  EXPECT_TRUE(aligned(p, 64)) << p;
  // Host memory: directly usable by the host.
  std::memset(p, 0x42, 10000);
  EXPECT_EQ(0x42, static_cast<uint8_t *>(p)[9999]);
  EXPECT_ACL_OK(aclrtFreeHost(p));
  EXPECT_ACL_EITHER(ACL_ERROR_RT_MEMORY_FREE, ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHost(p)) << "double free";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocHost(nullptr, 64));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocHost(&p, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(nullptr));
  void *heap = std::malloc(64);
  EXPECT_ACL_EITHER(ACL_ERROR_RT_MEMORY_FREE, ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHost(heap));
  std::free(heap);
  void *dev = devAlloc(64);
  EXPECT_ACL_EITHER(ACL_ERROR_RT_MEMORY_FREE, ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHost(dev));
  EXPECT_ACL_OK(aclrtFree(dev));
}

// ---- synchronous copies ----

TEST_P(MemoryTest, MemcpyEveryDirection) {
  constexpr size_t kSize = 12345;
  auto data = pattern(kSize, 9);
  void *d1 = devAlloc(kSize), *d2 = devAlloc(kSize);
  std::vector<uint8_t> host(kSize, 0), host2(kSize, 0);

  ASSERT_ACL_OK(aclrtMemcpy(d1, kSize, data.data(), kSize, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(d2, kSize, d1, kSize, ACL_MEMCPY_DEVICE_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(host.data(), kSize, d2, kSize, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(data, host);
  ASSERT_ACL_OK(aclrtMemcpy(host2.data(), kSize, host.data(), kSize, ACL_MEMCPY_HOST_TO_HOST));
  EXPECT_EQ(data, host2);

  // HOST_TO_BUF_TO_DEVICE stages the source: it may be reused as soon as the call returns.
  auto staged = pattern(kSize, 10);
  std::vector<uint8_t> src = staged;
  ASSERT_ACL_OK(aclrtMemcpy(d1, kSize, src.data(), kSize, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE));
  std::fill(src.begin(), src.end(), 0);
  EXPECT_EQ(staged, readDevice(d1, kSize));

  // Pinned host memory on either side.
  void *pinned = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&pinned, kSize));
  ASSERT_ACL_OK(aclrtMemcpy(pinned, kSize, d1, kSize, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(0, std::memcmp(staged.data(), pinned, kSize));
  std::memcpy(pinned, data.data(), kSize);
  ASSERT_ACL_OK(aclrtMemcpy(d2, kSize, pinned, kSize, ACL_MEMCPY_HOST_TO_DEVICE));
  EXPECT_EQ(data, readDevice(d2, kSize));
  EXPECT_ACL_OK(aclrtFreeHost(pinned));
  EXPECT_ACL_OK(aclrtFree(d1));
  EXPECT_ACL_OK(aclrtFree(d2));
}

TEST_P(MemoryTest, MemcpyDefaultInfersTheDirection) {
  constexpr size_t kSize = 4000;
  auto data = pattern(kSize, 11);
  void *d1 = devAlloc(kSize), *d2 = devAlloc(kSize);
  std::vector<uint8_t> host(kSize, 0), host2(kSize, 0);
  ASSERT_ACL_OK(aclrtMemcpy(d1, kSize, data.data(), kSize, ACL_MEMCPY_DEFAULT));
  ASSERT_ACL_OK(aclrtMemcpy(d2, kSize, d1, kSize, ACL_MEMCPY_DEFAULT));
  ASSERT_ACL_OK(aclrtMemcpy(host.data(), kSize, d2, kSize, ACL_MEMCPY_DEFAULT));
  EXPECT_EQ(data, host);
  ASSERT_ACL_OK(aclrtMemcpy(host2.data(), kSize, host.data(), kSize, ACL_MEMCPY_DEFAULT));
  EXPECT_EQ(data, host2);
  EXPECT_ACL_OK(aclrtFree(d1));
  EXPECT_ACL_OK(aclrtFree(d2));
}

TEST_P(MemoryTest, MemcpyPartialAndOffsets) {
  constexpr size_t kSize = 1024;
  auto data = pattern(kSize, 12);
  void *dev = devAlloc(kSize);
  ASSERT_ACL_OK(aclrtMemset(dev, kSize, 0, kSize));
  // destMax larger than count; destination inside the allocation.
  ASSERT_ACL_OK(aclrtMemcpy(static_cast<uint8_t *>(dev) + 100, kSize - 100, data.data(), 200, ACL_MEMCPY_HOST_TO_DEVICE));
  auto back = readDevice(dev, kSize);
  std::vector<uint8_t> expected(kSize, 0);
  std::copy(data.begin(), data.begin() + 200, expected.begin() + 100);
  EXPECT_EQ(expected, back);
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(MemoryTest, MemcpyArgumentRules) {
  constexpr size_t kSize = 256;
  void *dev = devAlloc(kSize), *dev2 = devAlloc(kSize);
  std::vector<uint8_t> host(kSize, 0x77), host2(kSize, 0x66);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(nullptr, kSize, host.data(), kSize, ACL_MEMCPY_HOST_TO_DEVICE));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(dev, kSize, nullptr, kSize, ACL_MEMCPY_HOST_TO_DEVICE));
  // count > destMax.
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(dev, kSize - 1, host.data(), kSize, ACL_MEMCPY_HOST_TO_DEVICE));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(host.data(), kSize - 1, dev, kSize, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(host2.data(), 1, host.data(), 2, ACL_MEMCPY_HOST_TO_HOST));
  // Pointers that do not match the kind.
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(host2.data(), kSize, host.data(), kSize, ACL_MEMCPY_HOST_TO_DEVICE));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(dev, kSize, dev2, kSize, ACL_MEMCPY_HOST_TO_DEVICE));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(host.data(), kSize, host2.data(), kSize, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(dev, kSize, dev2, kSize, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(dev, kSize, host.data(), kSize, ACL_MEMCPY_DEVICE_TO_DEVICE));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(host.data(), kSize, dev, kSize, ACL_MEMCPY_DEVICE_TO_DEVICE));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(dev, kSize, host.data(), kSize, ACL_MEMCPY_HOST_TO_HOST));
  // Kinds outside the accepted set.
  for (int kind : {-1, 6, 7, 8, 99}) {
    EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
               aclrtMemcpy(dev, kSize, host.data(), kSize, static_cast<aclrtMemcpyKind>(kind)))
        << "kind " << kind;
  }
  // None of the rejected calls wrote anything.
  EXPECT_TRUE(std::all_of(host.begin(), host.end(), [](uint8_t b) { return b == 0x77; }));
  EXPECT_TRUE(std::all_of(host2.begin(), host2.end(), [](uint8_t b) { return b == 0x66; }));
  // count 0 is a successful no-op.
  EXPECT_ACL_OK(aclrtMemcpy(host2.data(), kSize, host.data(), 0, ACL_MEMCPY_HOST_TO_HOST));
  EXPECT_ACL_OK(aclrtMemcpy(host2.data(), kSize, dev, 0, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_ACL_OK(aclrtMemcpy(dev, kSize, host.data(), 0, ACL_MEMCPY_HOST_TO_DEVICE));
  EXPECT_TRUE(std::all_of(host2.begin(), host2.end(), [](uint8_t b) { return b == 0x66; }));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtFree(dev2));
}

// ---- asynchronous copies ----

TEST_P(MemoryTest, MemcpyAsyncEveryDirectionWithPinnedMemory) {
  constexpr size_t kSize = 30000;
  auto data = pattern(kSize, 13);
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  void *src = nullptr, *dst = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&src, kSize));
  ASSERT_ACL_OK(aclrtMallocHost(&dst, kSize));
  std::memcpy(src, data.data(), kSize);
  std::memset(dst, 0, kSize);
  void *d1 = devAlloc(kSize), *d2 = devAlloc(kSize);
  ASSERT_ACL_OK(aclrtMemcpyAsync(d1, kSize, src, kSize, ACL_MEMCPY_HOST_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d2, kSize, d1, kSize, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(dst, kSize, d2, kSize, ACL_MEMCPY_DEVICE_TO_HOST, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(0, std::memcmp(data.data(), dst, kSize));
  // DEFAULT infers the direction for async copies too.
  std::memset(dst, 0, kSize);
  ASSERT_ACL_OK(aclrtMemsetAsync(d1, kSize, 0, kSize, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d1, kSize, src, kSize, ACL_MEMCPY_DEFAULT, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(d2, kSize, d1, kSize, ACL_MEMCPY_DEFAULT, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(dst, kSize, d2, kSize, ACL_MEMCPY_DEFAULT, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(0, std::memcmp(data.data(), dst, kSize));
  EXPECT_ACL_OK(aclrtFree(d1));
  EXPECT_ACL_OK(aclrtFree(d2));
  EXPECT_ACL_OK(aclrtFreeHost(src));
  EXPECT_ACL_OK(aclrtFreeHost(dst));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(MemoryTest, MemcpyAsyncHostToHost) {
  constexpr size_t kSize = 1000;
  auto data = pattern(kSize, 14);
  void *src = nullptr, *dst = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&src, kSize));
  ASSERT_ACL_OK(aclrtMallocHost(&dst, kSize));
  std::memcpy(src, data.data(), kSize);
  std::memset(dst, 0, kSize);
  // The spec allows ACL_ERROR_RT_FEATURE_NOT_SUPPORT for HOST_TO_HOST on EP products.
  aclError rc = aclrtMemcpyAsync(dst, kSize, src, kSize, ACL_MEMCPY_HOST_TO_HOST, nullptr);
  EXPECT_TRUE(rc == ACL_SUCCESS || rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) << rc;
  if (rc == ACL_SUCCESS) {
    ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
    EXPECT_EQ(0, std::memcmp(data.data(), dst, kSize));
  }
  EXPECT_ACL_OK(aclrtFreeHost(src));
  EXPECT_ACL_OK(aclrtFreeHost(dst));
}

TEST_P(MemoryTest, MemcpyAsyncWithPinnedMemoryIsStreamOrdered) {
  constexpr size_t kSize = 8192;
  auto data = pattern(kSize, 15);
  void *dev = devAlloc(kSize);
  writeDevice(dev, data);
  void *dst = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&dst, kSize));
  std::memset(dst, 0xEE, kSize);
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate &gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  // Pinned destination: the call only submits, even though the stream is blocked.
  ASSERT_ACL_OK(aclrtMemcpyAsync(dst, kSize, dev, kSize, ACL_MEMCPY_DEVICE_TO_HOST, s));
  EXPECT_FALSE(gate.watchdogFired()) << "an async copy with pinned memory waited for earlier stream work";
  const auto *out = static_cast<const uint8_t *>(dst);
  EXPECT_TRUE(std::all_of(out, out + kSize, [](uint8_t b) { return b == 0xEE; }))
      << "the copy ran ahead of the blocked task before it in the stream";
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(0, std::memcmp(data.data(), dst, kSize));
  EXPECT_ACL_OK(aclrtFreeHost(dst));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(MemoryTest, MemcpyAsyncWithPageableMemoryCompletesBeforeReturning) {
  constexpr size_t kSize = 20000;
  auto data = pattern(kSize, 16);
  void *dev = devAlloc(kSize);
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  // Pageable source: consumed before the call returns, so it may be overwritten at once.
  std::vector<uint8_t> src = data;
  ASSERT_ACL_OK(aclrtMemcpyAsync(dev, kSize, src.data(), kSize, ACL_MEMCPY_HOST_TO_DEVICE, s));
  std::fill(src.begin(), src.end(), 0);
  // Pageable destination: written when the call returns, without a synchronize.
  std::vector<uint8_t> dst(kSize, 0);
  ASSERT_ACL_OK(aclrtMemcpyAsync(dst.data(), kSize, dev, kSize, ACL_MEMCPY_DEVICE_TO_HOST, s));
  EXPECT_EQ(data, dst) << "an async copy into pageable memory had not completed on return";
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(MemoryTest, MemcpyAsyncArgumentRules) {
  constexpr size_t kSize = 256;
  void *dev = devAlloc(kSize), *dev2 = devAlloc(kSize);
  void *pinned = nullptr, *pinned2 = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&pinned, kSize));
  ASSERT_ACL_OK(aclrtMallocHost(&pinned2, kSize));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsync(nullptr, kSize, pinned, kSize, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsync(dev, kSize, nullptr, kSize, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(dev, kSize - 1, pinned, kSize, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(pinned, 1, dev, 2, ACL_MEMCPY_DEVICE_TO_HOST, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(pinned2, kSize, pinned, kSize, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(dev, kSize, dev2, kSize, ACL_MEMCPY_DEVICE_TO_HOST, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(dev, kSize, pinned, kSize, ACL_MEMCPY_DEVICE_TO_DEVICE, nullptr));
  for (int kind : {-1, 6, 7, 99}) {
    EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
               aclrtMemcpyAsync(dev, kSize, pinned, kSize, static_cast<aclrtMemcpyKind>(kind), nullptr))
        << "kind " << kind;
  }
  EXPECT_ACL_OK(aclrtMemcpyAsync(dev, kSize, pinned, 0, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  EXPECT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_ACL_OK(aclrtFreeHost(pinned));
  EXPECT_ACL_OK(aclrtFreeHost(pinned2));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtFree(dev2));
}

// ---- 2-D copies ----

TEST_P(MemoryTest, Memcpy2dRoundTrip) {
  constexpr size_t kWidth = 40, kHeight = 8, kHostPitch = 64, kDevPitch = 128, kBackPitch = 48;
  auto matrix = pattern(kHostPitch * kHeight, 17);
  void *dev = devAlloc(kDevPitch * kHeight);
  ASSERT_ACL_OK(aclrtMemset(dev, kDevPitch * kHeight, 0x11, kDevPitch * kHeight));
  ASSERT_ACL_OK(aclrtMemcpy2d(dev, kDevPitch, matrix.data(), kHostPitch, kWidth, kHeight, ACL_MEMCPY_HOST_TO_DEVICE));
  // On the device: each row's first kWidth bytes copied, the rest of each pitch untouched.
  auto raw = readDevice(dev, kDevPitch * kHeight);
  for (size_t r = 0; r < kHeight; ++r) {
    for (size_t c = 0; c < kDevPitch; ++c) {
      uint8_t want = c < kWidth ? matrix[r * kHostPitch + c] : 0x11;
      ASSERT_EQ(want, raw[r * kDevPitch + c]) << "row " << r << " col " << c;
    }
  }
  std::vector<uint8_t> back(kBackPitch * kHeight, 0xEE);
  ASSERT_ACL_OK(aclrtMemcpy2d(back.data(), kBackPitch, dev, kDevPitch, kWidth, kHeight, ACL_MEMCPY_DEVICE_TO_HOST));
  for (size_t r = 0; r < kHeight; ++r) {
    for (size_t c = 0; c < kBackPitch; ++c) {
      uint8_t want = c < kWidth ? matrix[r * kHostPitch + c] : 0xEE;
      ASSERT_EQ(want, back[r * kBackPitch + c]) << "row " << r << " col " << c;
    }
  }
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(MemoryTest, Memcpy2dArgumentRules) {
  std::vector<uint8_t> host(64 * 4, 0x5C);
  void *dev = devAlloc(64 * 4);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, 64, host.data(), 32, 33, 4, ACL_MEMCPY_HOST_TO_DEVICE))
      << "width > spitch";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, 32, host.data(), 64, 33, 4, ACL_MEMCPY_HOST_TO_DEVICE))
      << "width > dpitch";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(nullptr, 64, host.data(), 64, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, 64, nullptr, 64, 32, 4, ACL_MEMCPY_HOST_TO_DEVICE));
  std::vector<uint8_t> host2(64 * 4, 0);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(host2.data(), 64, host.data(), 64, 32, 4, ACL_MEMCPY_HOST_TO_HOST))
      << "HOST_TO_HOST is not a 2-D kind";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclrtMemcpy2d(dev, 64, host.data(), 64, 32, 4, static_cast<aclrtMemcpyKind>(99)));
  // width or height 0: no-op success.
  EXPECT_ACL_OK(aclrtMemcpy2d(host2.data(), 64, dev, 64, 32, 0, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_ACL_OK(aclrtMemcpy2d(host2.data(), 64, dev, 64, 0, 4, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_TRUE(std::all_of(host2.begin(), host2.end(), [](uint8_t b) { return b == 0; }));
  EXPECT_ACL_OK(aclrtFree(dev));
}

// aclrtFreeHost is stream-ordered: pinned memory freed while async copies queued before the free
// still use it is released only once they have completed (before, it was freed at once: the copy
// read freed memory, here reused and overwritten by the next aclrtMallocHost).
TEST_P(MemoryTest, FreeHostOfPinnedMemoryInUseWaitsForTheQueuedCopies) {
  constexpr size_t kSize = 8u << 20;
  void *src = nullptr, *back = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&src, kSize));
  ASSERT_ACL_OK(aclrtMallocHost(&back, kSize));
  for (size_t i = 0; i < kSize; ++i) static_cast<uint8_t*>(src)[i] = static_cast<uint8_t>(i * 7 + 3);
  std::memset(back, 0, kSize);
  void* dev = devAlloc(kSize);
  aclrtStream stream = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&stream));
  static std::atomic<bool> open{false};
  open = false;
  ASSERT_ACL_OK(aclrtLaunchHostFunc(
      stream,
      [](void*) {
        while (!open.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      },
      nullptr));
  ASSERT_ACL_OK(aclrtMemcpyAsync(dev, kSize, src, kSize, ACL_MEMCPY_HOST_TO_DEVICE, stream));
  ASSERT_ACL_OK(aclrtMemcpyAsync(back, kSize, dev, kSize, ACL_MEMCPY_DEVICE_TO_HOST, stream));
  // The copy from `src` has not run yet: the host function holds the stream.
  ASSERT_ACL_OK(aclrtFreeHost(src));
  EXPECT_ACL(ACL_ERROR_RT_MEMORY_FREE, aclrtFreeHost(src)) << "a second free is still an error";
  // New pinned blocks of the same size, scribbled over: with an immediate free one of them would be
  // `src`'s memory.
  std::vector<void*> others(4, nullptr);
  for (void*& o : others) {
    ASSERT_ACL_OK(aclrtMallocHost(&o, kSize));
    std::memset(o, 0xEE, kSize);
  }
  open = true;
  ASSERT_ACL_OK(aclrtSynchronizeStream(stream));
  size_t wrong = 0;
  for (size_t i = 0; i < kSize; ++i) wrong += static_cast<uint8_t*>(back)[i] != static_cast<uint8_t>(i * 7 + 3);
  EXPECT_EQ(0u, wrong) << "bytes that did not come from the freed block's contents";
  for (void* o : others) EXPECT_ACL_OK(aclrtFreeHost(o));
  EXPECT_ACL_OK(aclrtFreeHost(back));
  EXPECT_ACL_OK(aclrtDestroyStream(stream));
  EXPECT_ACL_OK(aclrtFree(dev));
}

// A pitch so large that (height - 1) * pitch + width wraps around 2^64 to a small extent must be
// a parameter error, not pass the range check and fault on the device.
TEST_P(MemoryTest, Memcpy2dHugePitchIsAParameterError) {
  std::vector<uint8_t> host(64 * 4, 0x5C);
  void* dev = devAlloc(64 * 4);
  const size_t wrap = size_t{1} << 63;  // 2 * 2^63 wraps to 0: the extent would be just `width`
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, wrap, host.data(), 64, 32, 3, ACL_MEMCPY_HOST_TO_DEVICE))
      << "dpitch overflow";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(host.data(), 64, dev, wrap, 32, 3, ACL_MEMCPY_DEVICE_TO_HOST))
      << "spitch overflow";
  aclrtStream stream = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&stream));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclrtMemcpy2dAsync(dev, wrap, host.data(), 64, 32, 3, ACL_MEMCPY_HOST_TO_DEVICE, stream));
  EXPECT_ACL_OK(aclrtSynchronizeStream(stream));
  EXPECT_ACL_OK(aclrtDestroyStream(stream));
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(MemoryTest, Memcpy2dDeviceToDeviceIfSupported) {
  constexpr size_t kWidth = 16, kHeight = 4, kPitch = 32;
  auto matrix = pattern(kPitch * kHeight, 18);
  void *a = devAlloc(kPitch * kHeight), *b = devAlloc(kPitch * kHeight);
  writeDevice(a, matrix);
  ASSERT_ACL_OK(aclrtMemset(b, kPitch * kHeight, 0, kPitch * kHeight));
  aclError rc = aclrtMemcpy2d(b, kPitch, a, kPitch, kWidth, kHeight, ACL_MEMCPY_DEVICE_TO_DEVICE);
  EXPECT_TRUE(rc == ACL_SUCCESS || rc == ACL_ERROR_INVALID_PARAM) << rc;
  if (rc == ACL_SUCCESS) {
    auto raw = readDevice(b, kPitch * kHeight);
    for (size_t r = 0; r < kHeight; ++r)
      for (size_t c = 0; c < kPitch; ++c)
        ASSERT_EQ(c < kWidth ? matrix[r * kPitch + c] : 0, raw[r * kPitch + c]) << "row " << r << " col " << c;
  }
  EXPECT_ACL_OK(aclrtFree(a));
  EXPECT_ACL_OK(aclrtFree(b));
}

TEST_P(MemoryTest, Memcpy2dAsync) {
  constexpr size_t kWidth = 24, kHeight = 6, kHostPitch = 32, kDevPitch = 64;
  void *src = nullptr, *dst = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&src, kHostPitch * kHeight));
  ASSERT_ACL_OK(aclrtMallocHost(&dst, kHostPitch * kHeight));
  auto matrix = pattern(kHostPitch * kHeight, 19);
  std::memcpy(src, matrix.data(), matrix.size());
  std::memset(dst, 0xEE, kHostPitch * kHeight);
  void *dev = devAlloc(kDevPitch * kHeight);
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtMemcpy2dAsync(dev, kDevPitch, src, kHostPitch, kWidth, kHeight, ACL_MEMCPY_HOST_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtMemcpy2dAsync(dst, kHostPitch, dev, kDevPitch, kWidth, kHeight, ACL_MEMCPY_DEVICE_TO_HOST, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  const auto *out = static_cast<const uint8_t *>(dst);
  for (size_t r = 0; r < kHeight; ++r)
    for (size_t c = 0; c < kHostPitch; ++c)
      ASSERT_EQ(c < kWidth ? matrix[r * kHostPitch + c] : 0xEE, out[r * kHostPitch + c]) << "row " << r << " col " << c;

  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclrtMemcpy2dAsync(dev, kDevPitch, src, kHostPitch, kHostPitch + 1, 1, ACL_MEMCPY_HOST_TO_DEVICE, s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclrtMemcpy2dAsync(nullptr, kDevPitch, src, kHostPitch, kWidth, 1, ACL_MEMCPY_HOST_TO_DEVICE, s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclrtMemcpy2dAsync(dev, kDevPitch, src, kHostPitch, kWidth, 1, static_cast<aclrtMemcpyKind>(99), s));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtFreeHost(src));
  EXPECT_ACL_OK(aclrtFreeHost(dst));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(MemoryTest, Memcpy2dAsyncLimits) {
  // width <= 5,000,000 and height <= 5,242,880; real buffers, so a missed check still copies safely.
  constexpr size_t kWide = 5000001, kTall = 5242881;
  std::vector<uint8_t> host(std::max(kWide, kTall), 0);
  void *dev = devAlloc(std::max(kWide, kTall));
  EXPECT_ACL_EITHER(ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_PARAM_INVALID,
                    aclrtMemcpy2dAsync(dev, kWide, host.data(), kWide, kWide, 1, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  EXPECT_ACL_EITHER(ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_PARAM_INVALID,
                    aclrtMemcpy2dAsync(dev, 1, host.data(), 1, 1, kTall, ACL_MEMCPY_HOST_TO_DEVICE, nullptr));
  EXPECT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_ACL_OK(aclrtFree(dev));
}

// ---- memset ----

TEST_P(MemoryTest, MemsetWritesTheLowByte) {
  constexpr size_t kSize = 5000;
  void *dev = devAlloc(kSize);
  ASSERT_ACL_OK(aclrtMemset(dev, kSize, 0x1234, kSize));
  EXPECT_EQ(std::vector<uint8_t>(kSize, 0x34), readDevice(dev, kSize));
  ASSERT_ACL_OK(aclrtMemset(dev, kSize, 0xAB, kSize / 2));
  std::vector<uint8_t> expected(kSize, 0x34);
  std::fill(expected.begin(), expected.begin() + kSize / 2, 0xAB);
  EXPECT_EQ(expected, readDevice(dev, kSize));
  ASSERT_ACL_OK(aclrtMemset(dev, kSize, 0x00, 0));
  EXPECT_EQ(expected, readDevice(dev, kSize)) << "count 0 must not write";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemset(dev, kSize, 0, kSize + 1));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemset(nullptr, kSize, 0, kSize));
  EXPECT_EQ(expected, readDevice(dev, kSize)) << "a rejected memset wrote";
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(MemoryTest, MemsetOnAclHostMemory) {
  void *host = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&host, 1000));
  std::memset(host, 0, 1000);
  ASSERT_ACL_OK(aclrtMemset(host, 1000, 0x7F, 600));
  const auto *p = static_cast<const uint8_t *>(host);
  EXPECT_TRUE(std::all_of(p, p + 600, [](uint8_t b) { return b == 0x7F; }));
  EXPECT_TRUE(std::all_of(p + 600, p + 1000, [](uint8_t b) { return b == 0; }));
  EXPECT_ACL_OK(aclrtFreeHost(host));
}

TEST_P(MemoryTest, MemsetAsync) {
  constexpr size_t kSize = 3000;
  void *dev = devAlloc(kSize);
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtMemsetAsync(dev, kSize, 0x21, kSize, s));
  ASSERT_ACL_OK(aclrtMemsetAsync(dev, kSize, 0x4321, 100, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  std::vector<uint8_t> expected(kSize, 0x21);
  std::fill(expected.begin(), expected.begin() + 100, static_cast<uint8_t>(0x4321 & 0xFF));
  EXPECT_EQ(expected, readDevice(dev, kSize));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetAsync(dev, kSize, 0, kSize + 1, s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemsetAsync(nullptr, kSize, 0, kSize, s));
  EXPECT_ACL_OK(aclrtMemsetAsync(dev, kSize, 0, 0, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(expected, readDevice(dev, kSize));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

// ---- accounting and pointer attributes ----

TEST_P(MemoryTest, MemInfoAccountsForAllocations) {
  constexpr size_t kSize = 16u << 20;
  arunMemStats start{};
  ASSERT_ACL_OK(arunGetMemStats(0, &start));
  reservedAtStart_ = start.reserved.current;
  size_t free0 = 0, total0 = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total0));
  ASSERT_GE(free0, kSize) << "device too small for this test";
  void *p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, kSize, ACL_MEM_MALLOC_HUGE_FIRST));
  size_t free1 = 0, total1 = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total1));
  EXPECT_EQ(total0, total1) << "total must not change";
  EXPECT_LE(free1 + kSize, free0) << "free did not drop by at least the allocation size";
  arunMemStats before{};
  ASSERT_ACL_OK(arunGetMemStats(0, &before));
  ASSERT_ACL_OK(aclrtFree(p));
  size_t free2 = 0, total2 = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free2, &total2));
  EXPECT_EQ(total0, total2);
  // The device's free memory is the truth: what free2 lacks is exactly what the allocator still
  // reserves (a caching policy keeps freed blocks; the direct policy keeps nothing).
  arunMemStats after{};
  ASSERT_ACL_OK(arunGetMemStats(0, &after));
  EXPECT_EQ(before.requested.current - kSize, after.requested.current);
  EXPECT_EQ(free0 - free2, after.reserved.current - reservedAtStart_) << "aclrtFree did not give the memory back";
  // The hardware-agnostic attribute reports the same device.
  size_t freeN = 0, totalN = 0;
  EXPECT_ACL_OK(aclrtGetMemInfo(ACL_DDR_MEM, &freeN, &totalN));
  EXPECT_LE(freeN, totalN);
}

TEST_P(MemoryTest, MemInfoArgumentRules) {
  size_t f = 0, t = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetMemInfo(ACL_HBM_MEM, nullptr, &t));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetMemInfo(ACL_HBM_MEM, &f, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetMemInfo(static_cast<aclrtMemAttr>(99), &f, &t));
  inNewThread([] {
    size_t a = 0, b = 0;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetMemInfo(ACL_HBM_MEM, &a, &b));
  });
}

TEST_P(MemoryTest, PointerAttributes) {
  aclrtPtrAttributes attrs{};
  void *dev = devAlloc(4096);
  ASSERT_ACL_OK(aclrtPointerGetAttributes(dev, &attrs));
  EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, attrs.location.type);
  EXPECT_EQ(0u, attrs.location.id);

  void *pinned = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&pinned, 4096));
  attrs = {};
  ASSERT_ACL_OK(aclrtPointerGetAttributes(pinned, &attrs));
  EXPECT_EQ(ACL_MEM_LOCATION_TYPE_HOST, attrs.location.type);

  std::vector<uint8_t> heap(4096);
  attrs = {};
  ASSERT_ACL_OK(aclrtPointerGetAttributes(heap.data(), &attrs));
  EXPECT_EQ(ACL_MEM_LOCATION_TYPE_UNREGISTERED, attrs.location.type);
  int onStack = 0;
  attrs = {};
  ASSERT_ACL_OK(aclrtPointerGetAttributes(&onStack, &attrs));
  EXPECT_EQ(ACL_MEM_LOCATION_TYPE_UNREGISTERED, attrs.location.type);

  if (deviceCount() >= 2) {
    ASSERT_ACL_OK(aclrtSetDevice(1));
    void *dev1 = devAlloc(4096);
    attrs = {};
    ASSERT_ACL_OK(aclrtPointerGetAttributes(dev1, &attrs));
    EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, attrs.location.type);
    EXPECT_EQ(1u, attrs.location.id);
    EXPECT_ACL_OK(aclrtFree(dev1));
    ASSERT_ACL_OK(aclrtSetDevice(0));
  }
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtPointerGetAttributes(nullptr, &attrs));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtPointerGetAttributes(dev, nullptr));
  EXPECT_ACL_OK(aclrtFreeHost(pinned));
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(MemoryTest, HostRegister) {
  constexpr size_t kSize = 2 * 4096;
  void *host = std::aligned_alloc(4096, kSize);
  ASSERT_NE(nullptr, host);
  void *devPtr = nullptr;
  ASSERT_ACL_OK(aclrtHostRegister(host, kSize, ACL_HOST_REGISTER_MAPPED, &devPtr));
  EXPECT_NE(nullptr, devPtr);
  void *again = nullptr;
  EXPECT_ACL(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, aclrtHostRegister(host, kSize, ACL_HOST_REGISTER_MAPPED, &again));
  EXPECT_ACL_OK(aclrtHostUnregister(host));
  EXPECT_ACL(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, aclrtHostUnregister(host));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(nullptr, kSize, ACL_HOST_REGISTER_MAPPED, &devPtr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(host, kSize, ACL_HOST_REGISTER_MAPPED, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(host, 0, ACL_HOST_REGISTER_MAPPED, &devPtr));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtHostRegister(host, kSize, ACL_HOST_REGISTER_IOMEMORY, &devPtr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostUnregister(nullptr));
  std::free(host);
}

ARUN_CONFORMANCE_INSTANTIATE(MemoryTest);

}  // namespace
}  // namespace conformance
