// Spec part 2, 4.13: virtual memory management (reserve, physical memory, map/unmap, access,
// retain, properties) and aclrtDeviceGetBareTgid (4.14), each error rule in the spec's order.
// Device physical memory needs the device plugin's physical-memory extension (ABI minor 6); a
// backend without it answers ACL_ERROR_RT_FEATURE_NOT_SUPPORT and those tests skip.
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "arun/kernel.hpp"
#include "conformance.hpp"

namespace conformance {
namespace {

// Layouts are ABI (spec part 2, section 2: sizes on LP64).
static_assert(sizeof(aclrtPhysicalMemProp) == 32, "aclrtPhysicalMemProp layout");
static_assert(sizeof(aclrtMemAccessDesc) == 24, "aclrtMemAccessDesc layout");

constexpr size_t k2M = 2u << 20;
constexpr uint64_t kTiB = uint64_t{1} << 40;

aclrtPhysicalMemProp devProp(int32_t device, aclrtMemAttr attr = ACL_MEM_NORMAL) {
  aclrtPhysicalMemProp p{};
  p.handleType = ACL_MEM_HANDLE_TYPE_NONE;
  p.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
  p.memAttr = attr;
  p.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = static_cast<uint32_t>(device);
  return p;
}

aclrtPhysicalMemProp hostProp() {
  aclrtPhysicalMemProp p = devProp(0);
  p.location.type = ACL_MEM_LOCATION_TYPE_HOST;
  return p;
}

aclrtMemAccessDesc accessDesc(aclrtMemLocationType type, uint32_t id,
                              aclrtMemAccessFlags flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE) {
  aclrtMemAccessDesc d{};
  d.flags = flags;
  d.location.type = type;
  d.location.id = id;
  return d;
}

// Whether the host may read [p, p+n): write() reports EFAULT instead of crashing on a hole.
bool hostReadable(const void* p, size_t n) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  const ssize_t w = write(fds[1], p, n);
  close(fds[0]);
  close(fds[1]);
  return w == static_cast<ssize_t>(n);
}

size_t freeBytes() {
  size_t free = 0, total = 0;
  EXPECT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free, &total));
  return free;
}

class VirtualMemoryTest : public AclDeviceTest {
 protected:
  // A device physical allocation, or false (with the test skipped) when the backend has none.
  bool physical(aclrtDrvMemHandle* h, size_t size, int32_t device = 0) {
    const aclrtPhysicalMemProp p = devProp(device);
    const aclError e = aclrtMallocPhysical(h, size, &p, 0);
    if (e == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) return false;
    EXPECT_ACL_OK(e);
    return e == ACL_SUCCESS;
  }
  void* reserve(size_t size) {
    void* p = nullptr;
    EXPECT_ACL_OK(aclrtReserveMemAddress(&p, size, 0, nullptr, 0));
    return p;
  }
};

#define NEED_PHYSICAL(h, size)                                                                         \
  do {                                                                                                 \
    if (!physical(&(h), (size))) GTEST_SKIP() << "the backend has no device physical memory (207000)"; \
  } while (0)

TEST_P(VirtualMemoryTest, GranularityAndPropertyRules) {
  size_t g = 0;
  aclrtPhysicalMemProp p = devProp(0);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclrtMemGetAllocationGranularity(nullptr, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, nullptr));
  const struct {
    aclrtMemAttr attr;
    size_t minimum, recommended;
  } kinds[] = {{ACL_MEM_NORMAL, 4096, k2M},     {ACL_MEM_HUGE, k2M, k2M},     {ACL_MEM_HUGE1G, 1u << 30, 1u << 30},
               {ACL_HBM_MEM_NORMAL, 4096, k2M}, {ACL_MEM_P2P_HUGE, k2M, k2M}, {ACL_HBM_MEM_HUGE1G, 1u << 30, 1u << 30}};
  for (const auto& k : kinds) {
    p = devProp(0, k.attr);
    ASSERT_ACL_OK(aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g)) << k.attr;
    EXPECT_EQ(k.minimum, g) << "memAttr " << k.attr;
    ASSERT_ACL_OK(aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &g));
    EXPECT_EQ(k.recommended, g) << "memAttr " << k.attr;
  }
  p = hostProp();
  p.memAttr = ACL_DDR_MEM_HUGE;
  EXPECT_ACL_OK(aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
  EXPECT_EQ(k2M, g);

  // Property errors are the ACL layer's 100000.
  auto bad = [&](aclrtPhysicalMemProp q, const char* why) {
    EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(&q, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g))
        << why;
    aclrtDrvMemHandle h = nullptr;
    EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, k2M, &q, 0)) << why;
  };
  p = devProp(0);
  p.handleType = ACL_MEM_HANDLE_TYPE_POSIX;
  bad(p, "handleType POSIX");
  p = devProp(0);
  p.allocationType = static_cast<aclrtMemAllocationType>(1);
  bad(p, "allocationType 1");
  p = devProp(0);
  p.location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
  bad(p, "UNREGISTERED");
  p.location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
  bad(p, "MANAGED");
  bad(devProp(0, ACL_DDR_MEM_NORMAL), "DDR kind on a device");
  bad(devProp(0, ACL_DDR_MEM), "ACL_DDR_MEM");
  bad(devProp(0, ACL_HBM_MEM), "ACL_HBM_MEM");
  bad(devProp(0, ACL_HBM_MEM_P2P_HUGE), "ACL_HBM_MEM_P2P_HUGE");
  bad(devProp(0, ACL_HBM_MEM_P2P_NORMAL), "ACL_HBM_MEM_P2P_NORMAL");
  bad(devProp(0, ACL_HBM_MEM_P2P_HUGE1G), "ACL_HBM_MEM_P2P_HUGE1G");
  p = hostProp();
  p.memAttr = ACL_MEM_HUGE1G;
  bad(p, "1 GiB pages on the host");

  p = devProp(0);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF, &g));
  p = devProp(static_cast<int32_t>(deviceCount()));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID,
             aclrtMemGetAllocationGranularity(&p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
}

TEST_P(VirtualMemoryTest, ReserveAndReleaseRules) {
  void* p = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(nullptr, k2M, 0, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&p, 0, 0, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&p, k2M, 0, nullptr, 2));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddress(&p, k2M, 4096, nullptr, 0)) << "alignment";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddress(&p, k2M, 0, reinterpret_cast<void*>(8 * kTiB), 0))
      << "below the window";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtReserveMemAddress(&p, k2M, 0, reinterpret_cast<void*>(20 * kTiB + 4096), 0))
      << "misaligned";

  ASSERT_ACL_OK(aclrtReserveMemAddress(&p, 3 * k2M, 0, nullptr, 1));
  ASSERT_NE(nullptr, p);
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(p) % k2M) << "runtime-chosen starts are 2 MiB-aligned";
  EXPECT_FALSE(hostReadable(p, 64)) << "a reserved range is no host memory";
  void* q = reserve(k2M);
  EXPECT_TRUE(reinterpret_cast<uintptr_t>(q) + k2M <= reinterpret_cast<uintptr_t>(p) ||
              reinterpret_cast<uintptr_t>(p) + 3 * k2M <= reinterpret_cast<uintptr_t>(q))
      << "reservations do not overlap";

  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress(static_cast<char*>(p) + 4096)) << "not its start";
  int local = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress(&local)) << "not a reservation";
  EXPECT_ACL_OK(aclrtReleaseMemAddress(p));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress(p)) << "released twice";
  EXPECT_ACL_OK(aclrtReleaseMemAddress(q));

#if !defined(ARUN_TEST_ASAN) && !defined(ARUN_TEST_TSAN)
  // A requested start in the window (the sanitizers' shadow memory lives there).
  void* want = reinterpret_cast<void*>(20 * kTiB);
  void* got = nullptr;
  ASSERT_ACL_OK(aclrtReserveMemAddress(&got, k2M, 0, want, 0));
  EXPECT_EQ(want, got);
  void* again = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddress(&again, k2M, 0, want, 0)) << "taken";
  EXPECT_ACL_OK(aclrtReleaseMemAddress(got));
#endif
}

TEST_P(VirtualMemoryTest, MallocPhysicalRules) {
  aclrtDrvMemHandle h = nullptr;
  aclrtPhysicalMemProp p = devProp(0);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(nullptr, k2M, &p, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, k2M, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 0, &p, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, k2M, &p, 1));
  p = devProp(static_cast<int32_t>(deviceCount()));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMallocPhysical(&h, k2M, &p, 0));
  p = devProp(0);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocPhysical(&h, 4096 + 512, &p, 0)) << "not a 4 KiB multiple";
  p = devProp(0, ACL_MEM_HUGE);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocPhysical(&h, 4096, &p, 0)) << "not a 2 MiB multiple";
  p = hostProp();
  p.location.type = ACL_MEM_LOCATION_TYPE_HOST_NUMA;
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMallocPhysical(&h, k2M, &p, 0));
  p = hostProp();
  EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMallocPhysical(&h, size_t{1} << 62, &p, 0))
      << "more than the host has: refused, not promised";

  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreePhysical(nullptr));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtFreePhysical(reinterpret_cast<aclrtDrvMemHandle>(0x1234)));
  aclrtPhysicalMemProp out{};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationPropertiesFromHandle(nullptr, &out));

  NEED_PHYSICAL(h, 2 * k2M);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationPropertiesFromHandle(h, nullptr));
  ASSERT_ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(h, &out));
  const aclrtPhysicalMemProp want = devProp(0);
  EXPECT_EQ(0, std::memcmp(&want, &out, sizeof want)) << "the properties it was created with";

  // Device memory: it counts against the device, and comes back when freed.
  const size_t before = freeBytes();
  aclrtDrvMemHandle h2 = nullptr;
  ASSERT_TRUE(physical(&h2, 8 * k2M));
  EXPECT_EQ(before - 8 * k2M, freeBytes());
  EXPECT_ACL_OK(aclrtFreePhysical(h2));
  EXPECT_EQ(before, freeBytes());
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtFreePhysical(h2)) << "freed twice";
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemGetAllocationPropertiesFromHandle(h2, &out));
  // More than the device has: refused before anything is taken.
  p = devProp(0);
  size_t free = 0, total = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free, &total));
  EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMallocPhysical(&h2, (total / 4096 + 1) * 4096, &p, 0));
  EXPECT_EQ(before, freeBytes());
  EXPECT_ACL_OK(aclrtFreePhysical(h));
}

TEST_P(VirtualMemoryTest, MapCopyKernelAndAliasing) {
  aclrtDrvMemHandle h = nullptr;
  NEED_PHYSICAL(h, k2M);
  char* base = static_cast<char*>(reserve(4 * k2M));
  ASSERT_NE(nullptr, base);
  ASSERT_ACL_OK(aclrtMapMem(base, k2M, 0, h, 0));
  ASSERT_ACL_OK(aclrtMapMem(base + 2 * k2M, k2M, 0, h, 0)) << "a second mapping of the same memory";
  EXPECT_FALSE(hostReadable(base, 64)) << "mapped device memory is still no host memory";

  // Written through one mapping, read through the other.
  std::vector<uint8_t> data = pattern(k2M, 19);
  ASSERT_ACL_OK(aclrtMemcpy(base, k2M, data.data(), k2M, ACL_MEMCPY_HOST_TO_DEVICE));
  std::vector<uint8_t> back(k2M);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), k2M, base + 2 * k2M, k2M, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(data, back);

  // A kernel on the mapped range, checked against a host reference.
  const size_t n = k2M / sizeof(int32_t);
  std::vector<int32_t> ints(n);
  for (size_t i = 0; i < n; ++i) ints[i] = static_cast<int32_t>(i * 7 - 3);
  ASSERT_ACL_OK(aclrtMemcpy(base, k2M, ints.data(), k2M, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(arun::launch(
      nullptr, 8,
      [](arun::Block b, int32_t* d, size_t count) {
        auto v = b.map(d, count);
        for (size_t i : b.range(count)) v[i] = v[i] * 3 + 1;
      },
      reinterpret_cast<int32_t*>(base), n));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  std::vector<int32_t> result(n);
  ASSERT_ACL_OK(aclrtMemcpy(result.data(), k2M, base + 2 * k2M, k2M, ACL_MEMCPY_DEVICE_TO_HOST));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(ints[i] * 3 + 1, result[i]) << i;

  // Device-to-device between the mappings and an ordinary allocation.
  void* plain = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&plain, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpy(plain, 4096, base + 2 * k2M + 4096, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
  std::vector<int32_t> small(1024);
  ASSERT_ACL_OK(aclrtMemcpy(small.data(), 4096, plain, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
  for (size_t i = 0; i < 1024; ++i) ASSERT_EQ(ints[1024 + i] * 3 + 1, small[i]);
  EXPECT_ACL_OK(aclrtFree(plain));

  // The unmapped hole between the mappings is no memory: copies and kernels there fail.
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(back.data(), 64, base + k2M, 64, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_NE(ACL_SUCCESS, aclrtMemcpy(back.data(), k2M, base + k2M / 2, k2M, ACL_MEMCPY_DEVICE_TO_HOST))
      << "a range running off a mapping";
  ASSERT_ACL_OK(arun::launch(
      nullptr, 1, [](arun::Block b, int32_t* d) { b.map(d, 16)[0] = 1; }, reinterpret_cast<int32_t*>(base + k2M)));
  EXPECT_NE(ACL_SUCCESS, aclrtSynchronizeDevice()) << "a kernel touching an unmapped range faults";

  EXPECT_ACL_OK(aclrtUnmapMem(base));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(back.data(), 64, base, 64, ACL_MEMCPY_DEVICE_TO_HOST))
      << "unmapped";
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), 64, base + 2 * k2M, 64, ACL_MEMCPY_DEVICE_TO_HOST)) << "the other stays";
  EXPECT_ACL_OK(aclrtUnmapMem(base + 2 * k2M));
  EXPECT_ACL_OK(aclrtFreePhysical(h));
  EXPECT_ACL_OK(aclrtReleaseMemAddress(base));
}

TEST_P(VirtualMemoryTest, MapAndUnmapRules) {
  aclrtDrvMemHandle h = nullptr;
  NEED_PHYSICAL(h, k2M);
  char* base = static_cast<char*>(reserve(4 * k2M));
  int local = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(nullptr, k2M, 0, h, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(base, k2M, 0, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(base, 0, 0, h, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMapMem(base, k2M, 0, h, 1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(base, k2M, 4096, h, 0)) << "offset";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(base, 2 * k2M, 0, h, 0)) << "size mismatch";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(&local, k2M, 0, h, 0)) << "not reserved";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(base + 3 * k2M + 4096, k2M, 0, h, 0)) << "runs past the end";
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtMapMem(base, k2M, 0, reinterpret_cast<aclrtDrvMemHandle>(0x1234), 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapNoAccess(nullptr, k2M, 0, h, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapNoAccess(base, k2M, 8, h, 0));

  ASSERT_ACL_OK(aclrtMapMem(base + k2M, k2M, 0, h, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(base + k2M, k2M, 0, h, 0)) << "mapped twice";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(base + k2M / 2, k2M, 0, h, 0)) << "overlaps from below";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(base + k2M + 4096, k2M, 0, h, 0)) << "overlaps from inside";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress(base)) << "still mapped";

  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtUnmapMem(nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtUnmapMem(base + k2M + 4096)) << "partial unmap";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtUnmapMem(base)) << "no mapping starts there";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtUnmapMem(&local));
  EXPECT_ACL_OK(aclrtUnmapMem(base + k2M));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtUnmapMem(base + k2M)) << "unmapped twice";

  // One reservation maps one device's memory.
  if (deviceCount() >= 2) {
    aclrtDrvMemHandle other = nullptr;
    ASSERT_TRUE(physical(&other, k2M, 1));
    ASSERT_ACL_OK(aclrtMapMem(base, k2M, 0, h, 0));
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(base + 2 * k2M, k2M, 0, other, 0));
    EXPECT_ACL_OK(aclrtUnmapMem(base));
    EXPECT_ACL_OK(aclrtMapMem(base + 2 * k2M, k2M, 0, other, 0)) << "once the other device's mapping is gone";
    EXPECT_ACL_OK(aclrtUnmapMem(base + 2 * k2M));
    EXPECT_ACL_OK(aclrtFreePhysical(other));
  }
  EXPECT_ACL_OK(aclrtFreePhysical(h));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtMapMem(base, k2M, 0, h, 0)) << "freed handle";
  EXPECT_ACL_OK(aclrtReleaseMemAddress(base));
}

TEST_P(VirtualMemoryTest, ReferencesKeepMemoryUntilTheLastUser) {
  aclrtDrvMemHandle h = nullptr;
  const size_t before = freeBytes();
  NEED_PHYSICAL(h, k2M);
  char* base = static_cast<char*>(reserve(k2M));
  ASSERT_ACL_OK(aclrtMapMem(base, k2M, 0, h, 0));
  std::vector<uint8_t> data = pattern(4096, 7), back(4096);
  ASSERT_ACL_OK(aclrtMemcpy(base, 4096, data.data(), 4096, ACL_MEMCPY_HOST_TO_DEVICE));
  // The creator's reference goes; the mapping keeps the memory.
  ASSERT_ACL_OK(aclrtFreePhysical(h));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtFreePhysical(h)) << "no reference of the caller's left";
  EXPECT_EQ(before - k2M, freeBytes());
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), 4096, base, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(data, back);

  aclrtDrvMemHandle r = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemRetainAllocationHandle(nullptr, &r));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemRetainAllocationHandle(base, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemRetainAllocationHandle(base + 4096, &r)) << "not a mapping start";
  ASSERT_ACL_OK(aclrtMemRetainAllocationHandle(base, &r));
  EXPECT_EQ(h, r) << "the handle mapped there";
  aclrtDrvMemHandle r2 = nullptr;
  ASSERT_ACL_OK(aclrtMemRetainAllocationHandle(base, &r2));
  aclrtPhysicalMemProp out{};
  EXPECT_ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(r, &out));
  EXPECT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, out.location.type);

  ASSERT_ACL_OK(aclrtUnmapMem(base));
  EXPECT_EQ(before - k2M, freeBytes()) << "two retains still hold it";
  EXPECT_ACL_OK(aclrtFreePhysical(r));
  EXPECT_ACL_OK(aclrtFreePhysical(r2));
  EXPECT_EQ(before, freeBytes()) << "released with its last reference";
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtFreePhysical(r));
  EXPECT_ACL_OK(aclrtReleaseMemAddress(base));
}

TEST_P(VirtualMemoryTest, AccessRights) {
  aclrtDrvMemHandle h = nullptr;
  NEED_PHYSICAL(h, k2M);
  char* base = static_cast<char*>(reserve(2 * k2M));
  ASSERT_ACL_OK(aclrtMemMapNoAccess(base, k2M, 0, h, 0));
  aclrtMemLocation dev0{0, ACL_MEM_LOCATION_TYPE_DEVICE};
  aclrtMemLocation host{0, ACL_MEM_LOCATION_TYPE_HOST};
  uint64_t flags = 99;
  ASSERT_ACL_OK(aclrtMemGetAccess(base, &dev0, &flags));
  EXPECT_EQ(uint64_t{ACL_RT_MEM_ACCESS_FLAGS_NONE}, flags);

  // Without access the device cannot touch it.
  std::vector<uint8_t> data = pattern(4096, 3), back(4096);
  EXPECT_NE(ACL_SUCCESS, aclrtMemcpy(base, 4096, data.data(), 4096, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(arun::launch(
      nullptr, 1, [](arun::Block b, int32_t* d) { b.map(d, 16)[0] = 1; }, reinterpret_cast<int32_t*>(base)));
  EXPECT_NE(ACL_SUCCESS, aclrtSynchronizeDevice()) << "a kernel without access faults";

  // aclrtMemSetAccess has no ACL-level check: every argument error is 107000.
  aclrtMemAccessDesc rw = accessDesc(ACL_MEM_LOCATION_TYPE_DEVICE, 0);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(nullptr, k2M, &rw, 1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(base, k2M, nullptr, 1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(base, k2M, &rw, 0));
  aclrtMemAccessDesc ro = accessDesc(ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_RT_MEM_ACCESS_FLAGS_READ);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(base, k2M, &ro, 1)) << "only READWRITE";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(base, 2 * k2M, &rw, 1)) << "size differs";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(base + k2M, k2M, &rw, 1)) << "not mapped";
  aclrtMemAccessDesc nodev = accessDesc(ACL_MEM_LOCATION_TYPE_DEVICE, deviceCount());
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemSetAccess(base, k2M, &nodev, 1));

  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(nullptr, &dev0, &flags));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(base, nullptr, &flags));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(base, &dev0, nullptr));
  aclrtMemLocation managed{0, ACL_MEM_LOCATION_TYPE_MANAGED};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAccess(base, &managed, &flags));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAccess(base + k2M, &dev0, &flags)) << "not mapped";

  ASSERT_ACL_OK(aclrtMemSetAccess(base, k2M, &rw, 1));
  ASSERT_ACL_OK(aclrtMemGetAccess(base, &dev0, &flags));
  EXPECT_EQ(uint64_t{ACL_RT_MEM_ACCESS_FLAGS_READWRITE}, flags);
  ASSERT_ACL_OK(aclrtMemcpy(base, 4096, data.data(), 4096, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), 4096, base, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(data, back);

  // The host: no access until granted, then the bytes are readable in place.
  ASSERT_ACL_OK(aclrtMemGetAccess(base, &host, &flags));
  EXPECT_EQ(uint64_t{ACL_RT_MEM_ACCESS_FLAGS_NONE}, flags);
  EXPECT_FALSE(hostReadable(base, 64));
  aclrtMemAccessDesc both[2] = {accessDesc(ACL_MEM_LOCATION_TYPE_HOST, 0), rw};
  ASSERT_ACL_OK(aclrtMemSetAccess(base, k2M, both, 2));
  ASSERT_ACL_OK(aclrtMemGetAccess(base, &host, &flags));
  EXPECT_EQ(uint64_t{ACL_RT_MEM_ACCESS_FLAGS_READWRITE}, flags);
  ASSERT_TRUE(hostReadable(base, 4096));
  EXPECT_EQ(0, std::memcmp(base, data.data(), 4096));

  // Another device: no access from a mapping of device 0's memory until granted.
  if (deviceCount() >= 2) {
    aclrtMemLocation dev1{1, ACL_MEM_LOCATION_TYPE_DEVICE};
    ASSERT_ACL_OK(aclrtMemGetAccess(base, &dev1, &flags));
    EXPECT_EQ(uint64_t{ACL_RT_MEM_ACCESS_FLAGS_NONE}, flags);
    aclrtMemAccessDesc rw1 = accessDesc(ACL_MEM_LOCATION_TYPE_DEVICE, 1);
    ASSERT_ACL_OK(aclrtMemSetAccess(base, k2M, &rw1, 1));
    ASSERT_ACL_OK(aclrtMemGetAccess(base, &dev1, &flags));
    EXPECT_EQ(uint64_t{ACL_RT_MEM_ACCESS_FLAGS_READWRITE}, flags);
  }
  EXPECT_ACL_OK(aclrtUnmapMem(base));
  EXPECT_FALSE(hostReadable(base, 64)) << "host access ends with the mapping";
  EXPECT_ACL_OK(aclrtFreePhysical(h));
  EXPECT_ACL_OK(aclrtReleaseMemAddress(base));
}

TEST_P(VirtualMemoryTest, KernelOnAnotherDeviceNeedsAccess) {
  if (deviceCount() < 2) GTEST_SKIP() << "needs 2 devices";
  aclrtDrvMemHandle h = nullptr;
  NEED_PHYSICAL(h, k2M);
  char* base = static_cast<char*>(reserve(k2M));
  ASSERT_ACL_OK(aclrtMapMem(base, k2M, 0, h, 0));
  std::vector<int32_t> ints(1024, 5);
  ASSERT_ACL_OK(aclrtMemcpy(base, 4096, ints.data(), 4096, ACL_MEMCPY_HOST_TO_DEVICE));
  auto kernel = [](arun::Block b, int32_t* d) {
    auto v = b.map(d, 1024);
    for (size_t i : b.range(1024)) v[i] += 1;
  };
  ASSERT_ACL_OK(aclrtSetDevice(1));
  ASSERT_ACL_OK(arun::launch(nullptr, 1, kernel, reinterpret_cast<int32_t*>(base)));
  EXPECT_NE(ACL_SUCCESS, aclrtSynchronizeDevice()) << "device 1 has no access to device 0's mapping";
  aclrtMemAccessDesc rw1 = accessDesc(ACL_MEM_LOCATION_TYPE_DEVICE, 1);
  ASSERT_ACL_OK(aclrtMemSetAccess(base, k2M, &rw1, 1));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(arun::launch(s, 2, kernel, reinterpret_cast<int32_t*>(base)));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtMemcpy(ints.data(), 4096, base, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
  for (int32_t v : ints) ASSERT_EQ(6, v);
  EXPECT_ACL_OK(aclrtUnmapMem(base));
  EXPECT_ACL_OK(aclrtFreePhysical(h));
  EXPECT_ACL_OK(aclrtReleaseMemAddress(base));
}

TEST_P(VirtualMemoryTest, HostPhysicalMemory) {
  // Host memory works on every backend: mapped with host access, it is plain host memory.
  aclrtPhysicalMemProp p = hostProp();
  aclrtDrvMemHandle h = nullptr;
  ASSERT_ACL_OK(aclrtMallocPhysical(&h, 4 * 4096, &p, 0));
  char* base = static_cast<char*>(reserve(k2M));
  ASSERT_ACL_OK(aclrtMapMem(base, 4 * 4096, 0, h, 0));
  ASSERT_ACL_OK(aclrtMapMem(base + 8 * 4096, 4 * 4096, 0, h, 0));
  std::memcpy(base, "virtual memory", 15);
  EXPECT_STREQ("virtual memory", base + 8 * 4096) << "two mappings alias";
  aclrtMemLocation host{0, ACL_MEM_LOCATION_TYPE_HOST};
  uint64_t flags = 0;
  ASSERT_ACL_OK(aclrtMemGetAccess(base, &host, &flags));
  EXPECT_EQ(uint64_t{ACL_RT_MEM_ACCESS_FLAGS_READWRITE}, flags);
  EXPECT_ACL_OK(aclrtUnmapMem(base));
  EXPECT_ACL_OK(aclrtUnmapMem(base + 8 * 4096));
  EXPECT_FALSE(hostReadable(base, 16));
  EXPECT_ACL_OK(aclrtFreePhysical(h));
  EXPECT_ACL_OK(aclrtReleaseMemAddress(base));
}

TEST_P(VirtualMemoryTest, FinalizeReleasesEverything) {
  aclrtDrvMemHandle h = nullptr;
  NEED_PHYSICAL(h, k2M);
  char* base = static_cast<char*>(reserve(k2M));
  ASSERT_ACL_OK(aclrtMapMem(base, k2M, 0, h, 0));
  finalize();  // mapped, never freed: aclFinalize releases it all
  reinit();
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtFreePhysical(h)) << "handles die with the runtime";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress(base));
}

TEST_P(VirtualMemoryTest, BareTgid) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetBareTgid(nullptr));
  int32_t pid = 0;
  ASSERT_ACL_OK(aclrtDeviceGetBareTgid(&pid));
  EXPECT_EQ(static_cast<int32_t>(getpid()), pid);
}

}  // namespace

ARUN_CONFORMANCE_INSTANTIATE(VirtualMemoryTest);

}  // namespace conformance
