// Spec part 2, 4.10: host registration V2 (mapped and pinned ranges, device aliases, engine
// capabilities) and managed memory (allocation in the 3 TiB window, host and kernel access, advice,
// range attributes, stream-ordered prefetches), each error rule in the spec's order.
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "arun/kernel.hpp"
#include "conformance.hpp"

namespace conformance {
namespace {

// CANN's window. The sanitizers' shadow memory covers that range, so there the runtime puts the
// window elsewhere (and under ThreadSanitizer, whose shadow leaves no 3 TiB hole, makes it smaller).
#if defined(ARUN_TEST_ASAN) || defined(ARUN_TEST_TSAN)
constexpr bool kWindowAtCannAddress = false;
#else
constexpr bool kWindowAtCannAddress = true;
#endif
#if defined(ARUN_TEST_TSAN)
constexpr bool kWholeWindowFits = false;
#else
constexpr bool kWholeWindowFits = true;
#endif
constexpr uint64_t kCannWindow = 0x90000000000ull;
constexpr uint64_t kPage2M = 2ull << 20;

// Page-aligned host memory owned by the test.
struct HostPages {
  void* ptr = nullptr;
  size_t size;
  explicit HostPages(size_t n) : size(n) { ptr = std::aligned_alloc(4096, n); }
  ~HostPages() { std::free(ptr); }
  uint8_t* bytes() const { return static_cast<uint8_t*>(ptr); }
};

aclrtMemManagedLocation loc(aclrtMemManagedLocationType type, int32_t id = 0) {
  return aclrtMemManagedLocation{type, id};
}

int32_t attr32(aclrtMemManagedRangeAttribute a, const void* p, size_t n) {
  int32_t v = 12345;
  EXPECT_ACL_OK(aclrtMemManagedGetAttr(a, p, n, &v, sizeof v));
  return v;
}

class ManagedMemoryTest : public AclDeviceTest {
 protected:
  void* managed(uint64_t size) {
    void* p = nullptr;
    EXPECT_ACL_OK(aclrtMemAllocManaged(&p, size, ACL_RT_MEM_ATTACH_GLOBAL));
    return p;
  }
};

TEST_P(ManagedMemoryTest, HostRegisterV2Rules) {
  HostPages h(3 * 4096);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostRegisterV2(nullptr, 4096, ACL_HOST_REG_MAPPED));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostRegisterV2(h.ptr, 0, ACL_HOST_REG_MAPPED));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(h.ptr, 4096, 0)) << "empty flag";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(h.ptr, 4096, 0x1)) << "unknown bit";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(h.ptr, 4096, ACL_HOST_REG_MAPPED | 0x100));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtHostRegisterV2(h.ptr, 4096, ACL_HOST_REG_IOMEMORY));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             aclrtHostRegisterV2(h.ptr, 4096, ACL_HOST_REG_MAPPED | ACL_HOST_REG_READONLY));
  inNewThread([&] {
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtHostRegisterV2(h.ptr, 4096, ACL_HOST_REG_MAPPED)) << "no context";
  });

  ASSERT_ACL_OK(aclrtHostRegisterV2(h.ptr, 2 * 4096, ACL_HOST_REG_MAPPED | ACL_HOST_REG_PINNED));
  EXPECT_ACL(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, aclrtHostRegisterV2(h.ptr, 4096, ACL_HOST_REG_PINNED));
  EXPECT_ACL(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
             aclrtHostRegisterV2(h.bytes() + 4096, 2 * 4096, ACL_HOST_REG_MAPPED))
      << "overlapping counts as registered";
  void* dev = nullptr;
  EXPECT_ACL(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
             aclrtHostRegister(h.bytes() + 4096, 4096, ACL_HOST_REGISTER_MAPPED, &dev))
      << "V1 sees V2's registrations";
  EXPECT_ACL_OK(aclrtHostRegisterV2(h.bytes() + 2 * 4096, 4096, ACL_HOST_REG_PINNED)) << "adjacent is fine";
  EXPECT_ACL_OK(aclrtHostUnregister(h.ptr));
  EXPECT_ACL(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, aclrtHostUnregister(h.ptr));
  EXPECT_ACL_OK(aclrtHostUnregister(h.bytes() + 2 * 4096));
}

TEST_P(ManagedMemoryTest, DevicePointerOfAMappedRange) {
  HostPages h(2 * 4096);
  HostPages pinnedOnly(4096);
  void* dev = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer(nullptr, &dev, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer(h.ptr, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer(h.ptr, &dev, 1)) << "flag must be 0";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtHostGetDevicePointer(h.ptr, &dev, 0)) << "not registered";
  ASSERT_ACL_OK(aclrtHostRegisterV2(pinnedOnly.ptr, 4096, ACL_HOST_REG_PINNED));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtHostGetDevicePointer(pinnedOnly.ptr, &dev, 0)) << "not mapped";

  ASSERT_ACL_OK(aclrtHostRegisterV2(h.ptr, h.size, ACL_HOST_REG_MAPPED));
  void* base = nullptr;
  void* inner = nullptr;
  ASSERT_ACL_OK(aclrtHostGetDevicePointer(h.ptr, &base, 0));
  ASSERT_ACL_OK(aclrtHostGetDevicePointer(h.bytes() + 100, &inner, 0));
  EXPECT_EQ(100, static_cast<uint8_t*>(inner) - static_cast<uint8_t*>(base)) << "same offset in the range";

  // Device code reaches the range through the alias.
  for (size_t i = 0; i < 1024; ++i) reinterpret_cast<int32_t*>(h.ptr)[i] = static_cast<int32_t>(i);
  ASSERT_ACL_OK(arun::launch(
      nullptr, 4,
      [](arun::Block b, int32_t* d, size_t n) {
        auto v = b.map(d, n);
        for (size_t i : b.range(n)) v[i] = v[i] * 2 + 1;
      },
      static_cast<int32_t*>(base), size_t{1024}));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  for (size_t i = 0; i < 1024; ++i) ASSERT_EQ(static_cast<int32_t>(2 * i + 1), reinterpret_cast<int32_t*>(h.ptr)[i]);
  // ... but not beyond it.
  ASSERT_ACL_OK(arun::launch(
      nullptr, 1, [](arun::Block b, uint8_t* d) { b.map(d, 3 * 4096)[0] = 1; }, static_cast<uint8_t*>(base)));
  EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeDevice());

  // aclrtHostRegister's (V1) ranges are mapped too; unregistered ones are gone for device code.
  EXPECT_ACL_OK(aclrtHostUnregister(h.ptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtHostGetDevicePointer(h.ptr, &dev, 0));
  void* v1 = nullptr;
  ASSERT_ACL_OK(aclrtHostRegister(h.ptr, h.size, ACL_HOST_REGISTER_MAPPED, &v1));
  EXPECT_ACL_OK(aclrtHostGetDevicePointer(h.bytes() + 8, &dev, 0));
  EXPECT_EQ(static_cast<uint8_t*>(v1) + 8, dev);
  EXPECT_ACL_OK(aclrtHostUnregister(h.ptr));
  EXPECT_ACL_OK(aclrtHostUnregister(pinnedOnly.ptr));
}

TEST_P(ManagedMemoryTest, PinnedRegistrationCopies) {
  HostPages in(8192), out(8192);
  for (size_t i = 0; i < in.size; ++i) in.bytes()[i] = static_cast<uint8_t>(i * 7);
  std::memset(out.ptr, 0, out.size);
  ASSERT_ACL_OK(aclrtHostRegisterV2(in.ptr, in.size, ACL_HOST_REG_PINNED));
  ASSERT_ACL_OK(aclrtHostRegisterV2(out.ptr, out.size, ACL_HOST_REG_PINNED));
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 8192, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(dev, 8192, in.ptr, 8192, ACL_MEMCPY_HOST_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtMemcpyAsync(out.ptr, 8192, dev, 8192, ACL_MEMCPY_DEVICE_TO_HOST, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(0, std::memcmp(in.ptr, out.ptr, 8192));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtHostUnregister(in.ptr));
  EXPECT_ACL_OK(aclrtHostUnregister(out.ptr));
}

TEST_P(ManagedMemoryTest, HostMemMapCapabilities) {
  aclrtHostMemMapCapability cap = ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_AIC, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtHostMemMapCapabilities(deviceCount(), ACL_RT_HAC_TYPE_AIC, &cap));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID,
             aclrtHostMemMapCapabilities(deviceCount(), static_cast<aclrtHacType>(10), &cap))
      << "the device before the engine";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtHostMemMapCapabilities(0, static_cast<aclrtHacType>(10), &cap));
  const bool expected[10] = {true, false, true, true, false, false, true, false, false, false};
  for (int hac = 0; hac < 10; ++hac) {
    cap = static_cast<aclrtHostMemMapCapability>(7);
    ASSERT_ACL_OK(aclrtHostMemMapCapabilities(lastDevice(), static_cast<aclrtHacType>(hac), &cap));
    EXPECT_EQ(expected[hac] ? ACL_RT_HOST_MEM_MAP_SUPPORTED : ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED, cap) << hac;
  }
}

TEST_P(ManagedMemoryTest, AllocManagedRules) {
  void* p = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemAllocManaged(nullptr, 4096, ACL_RT_MEM_ATTACH_GLOBAL));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemAllocManaged(&p, 4096, 0)) << "flag";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemAllocManaged(&p, 0, 2)) << "flag before size";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemAllocManaged(&p, 0, ACL_RT_MEM_ATTACH_GLOBAL));
  EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMemAllocManaged(&p, (3ull << 40) + 1, ACL_RT_MEM_ATTACH_GLOBAL))
      << "beyond the 3 TiB window";
  EXPECT_EQ(nullptr, p);

  // A window-sized request fits while nothing else is allocated, at the window's base.
  uint64_t window = 0;
  if (kWholeWindowFits) {
    void* whole = managed(3ull << 40);
    window = reinterpret_cast<uint64_t>(whole);
    if (kWindowAtCannAddress) {
      EXPECT_EQ(kCannWindow, window);
    }
    EXPECT_EQ(0u, window % kPage2M);
    EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMemAllocManaged(&p, 1, ACL_RT_MEM_ATTACH_GLOBAL)) << "exhausted";
    EXPECT_ACL_OK(aclrtFree(whole));
  }

  void* a = managed(1);
  void* b = managed(kPage2M + 1);
  const auto ua = reinterpret_cast<uint64_t>(a), ub = reinterpret_cast<uint64_t>(b);
  EXPECT_GE(ua, window);
  if (kWholeWindowFits) {
    EXPECT_LT(ub + 2 * kPage2M, window + (3ull << 40));
  }
  EXPECT_EQ(0u, ua % kPage2M);
  EXPECT_EQ(0u, ub % kPage2M);
  EXPECT_TRUE(ub >= ua + kPage2M || ua >= ub + 2 * kPage2M) << "1 byte takes a 2 MiB page; 2 MiB + 1 takes two";
  // Host-accessible over the whole rounded size.
  std::memset(b, 0x5a, 2 * kPage2M);
  EXPECT_ACL_OK(aclrtFree(a));
  EXPECT_ACL_OK(aclrtFree(b));
  EXPECT_NE(ACL_SUCCESS, aclrtFree(a)) << "freed twice";
}

TEST_P(ManagedMemoryTest, HostKernelsAndCopiesShareManagedMemory) {
  constexpr size_t n = 4096;
  auto* m = static_cast<int32_t*>(managed(n * 4));
  for (size_t i = 0; i < n; ++i) m[i] = static_cast<int32_t>(i);
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(arun::launch(
      s, 8,
      [](arun::Block b, int32_t* d, size_t count) {
        auto v = b.map(d, count);
        for (size_t i : b.range(count)) v[i] = v[i] * 3;
      },
      m, n));
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemcpyAsync(dev, n * 4, m, n * 4, ACL_MEMCPY_HOST_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(static_cast<int32_t>(3 * i), m[i]) << i;
  std::vector<int32_t> back(n);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), n * 4, dev, n * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(static_cast<int32_t>(3 * i), back[i]) << i;
  // A kernel that runs past the allocation (2 MiB rounded) faults.
  ASSERT_ACL_OK(arun::launch(
      s, 1, [](arun::Block b, uint8_t* d) { b.map(d, 2 * kPage2M)[0] = 1; }, reinterpret_cast<uint8_t*>(m)));
  EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtFree(m));
}

TEST_P(ManagedMemoryTest, AdviseRules) {
  void* m = managed(4 * kPage2M);
  auto* c = static_cast<uint8_t*>(m);
  const auto dev0 = loc(ACL_MEM_LOCATIONTYPE_DEVICE, 0);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedAdvise(nullptr, kPage2M, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedAdvise(m, 0, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemManagedAdvise(m, kPage2M, static_cast<aclrtMemManagedAdviseType>(6), dev0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemManagedAdvise(m, kPage2M, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION,
                                   loc(ACL_MEM_LOCATIONTYPE_DEVICE, static_cast<int32_t>(deviceCount()))))
      << "device id out of range";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemManagedAdvise(m, kPage2M, ACL_MEM_ADVISE_SET_ACCESSED_BY, loc(ACL_MEM_LOCATIONTYPE_DEVICE, -1)));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedAdvise(m, 4096, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0))
      << "size not 2 MiB aligned";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedAdvise(c + 4096, kPage2M, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0))
      << "ptr not 2 MiB aligned";
  HostPages outside(4096);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemManagedAdvise(outside.ptr, kPage2M, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0))
      << "outside the window";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedAdvise(m, 5 * kPage2M, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0))
      << "beyond the allocation";

  // Read-mostly on two of four pages.
  ASSERT_ACL_OK(
      aclrtMemManagedAdvise(m, 2 * kPage2M, ACL_MEM_ADVISE_SET_READ_MOSTLY, loc(ACL_MEM_LOCATIONTYPE_INVALID)));
  EXPECT_EQ(1, attr32(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 2 * kPage2M));
  EXPECT_EQ(1, attr32(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, c + 10, 100)) << "unaligned queries are fine";
  EXPECT_EQ(0, attr32(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4 * kPage2M));
  ASSERT_ACL_OK(aclrtMemManagedAdvise(m, kPage2M, ACL_MEM_ADVISE_UNSET_READ_MOSTLY, loc(ACL_MEM_LOCATIONTYPE_HOST)));
  EXPECT_EQ(0, attr32(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, kPage2M));

  // Preferred location: set pre-populates; a conflicting one then fails unless read-mostly.
  EXPECT_EQ(-2, attr32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, kPage2M)) << "none yet";
  ASSERT_ACL_OK(aclrtMemManagedAdvise(c + 2 * kPage2M, 2 * kPage2M, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, dev0));
  EXPECT_EQ(0, attr32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, c + 2 * kPage2M, 2 * kPage2M));
  EXPECT_EQ(ACL_MEM_LOCATIONTYPE_DEVICE,
            attr32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, c + 2 * kPage2M, 2 * kPage2M));
  EXPECT_EQ(0, attr32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, c + 2 * kPage2M, 2 * kPage2M));
  EXPECT_EQ(-2, attr32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 4 * kPage2M)) << "mixed";
  EXPECT_EQ(ACL_MEM_LOCATIONTYPE_INVALID, attr32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m, 4 * kPage2M));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemManagedAdvise(c + 2 * kPage2M, kPage2M, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION,
                                   loc(ACL_MEM_LOCATIONTYPE_HOST)))
      << "populated on device 0 already";
  ASSERT_ACL_OK(aclrtMemManagedAdvise(c + 2 * kPage2M, kPage2M, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
  EXPECT_ACL_OK(aclrtMemManagedAdvise(c + 2 * kPage2M, kPage2M, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION,
                                      loc(ACL_MEM_LOCATIONTYPE_HOST)))
      << "read-mostly pages may be replicated";
  EXPECT_EQ(-1, attr32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, c + 2 * kPage2M, kPage2M)) << "host";
  ASSERT_ACL_OK(aclrtMemManagedAdvise(c + 3 * kPage2M, kPage2M, ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION, dev0));
  EXPECT_EQ(-2, attr32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, c + 3 * kPage2M, kPage2M));

  // Accessed-by: ids present on every page of the range; unused slots -2.
  ASSERT_ACL_OK(aclrtMemManagedAdvise(m, 2 * kPage2M, ACL_MEM_ADVISE_SET_ACCESSED_BY, dev0));
  ASSERT_ACL_OK(aclrtMemManagedAdvise(m, kPage2M, ACL_MEM_ADVISE_SET_ACCESSED_BY, loc(ACL_MEM_LOCATIONTYPE_HOST)));
  int32_t ids[3] = {7, 7, 7};
  ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, kPage2M, ids, sizeof ids));
  EXPECT_EQ(-1, ids[0]);
  EXPECT_EQ(0, ids[1]);
  EXPECT_EQ(-2, ids[2]);
  ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 2 * kPage2M, ids, sizeof ids));
  EXPECT_EQ(0, ids[0]);
  EXPECT_EQ(-2, ids[1]);
  ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, kPage2M, ids, 4));
  EXPECT_EQ(-1, ids[0]) << "extra ids are dropped";
  ASSERT_ACL_OK(aclrtMemManagedAdvise(m, 2 * kPage2M, ACL_MEM_ADVISE_UNSET_ACCESSED_BY, dev0));
  ASSERT_ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 2 * kPage2M, ids, sizeof ids));
  EXPECT_EQ(-2, ids[0]);
  EXPECT_ACL_OK(aclrtFree(m));
}

TEST_P(ManagedMemoryTest, GetAttrRules) {
  void* m = managed(kPage2M);
  int32_t v = 0;
  int32_t big[4];
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, nullptr, 4, &v, 4));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4, nullptr, 4));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 0, &v, 4));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemManagedGetAttr(static_cast<aclrtMemManagedRangeAttribute>(0), m, 4, &v, 4));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemManagedGetAttr(static_cast<aclrtMemManagedRangeAttribute>(9), m, 4, &v, 4));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4, &v, 8));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m, 4, &v, 2));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 4, big, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 4, big, 6));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, &v, 4, &v, 4))
      << "outside the window";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, kPage2M + 1, &v, 4))
      << "beyond the allocation";

  // The batch form: NULLs, then every attribute before anything is written.
  aclrtMemManagedRangeAttribute attrs[2] = {ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
                                            static_cast<aclrtMemManagedRangeAttribute>(9)};
  int32_t r0 = 77, r1 = 77;
  void* data[2] = {&r0, &r1};
  size_t sizes[2] = {4, 4};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttrs(nullptr, 2, m, 4, data, sizes));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttrs(attrs, 2, nullptr, 4, data, sizes));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttrs(attrs, 2, m, 4, nullptr, sizes));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttrs(attrs, 2, m, 4, data, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttrs(attrs, 2, m, 0, data, sizes));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttrs(attrs, 2, m, 4, data, sizes));
  EXPECT_EQ(77, r0) << "nothing written";
  EXPECT_ACL_OK(aclrtMemManagedGetAttrs(attrs, 0, m, 4, data, sizes)) << "no attributes";
  attrs[1] = ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE;
  ASSERT_ACL_OK(aclrtMemManagedGetAttrs(attrs, 2, m, 4, data, sizes));
  EXPECT_EQ(0, r0);
  EXPECT_EQ(ACL_MEM_LOCATIONTYPE_INVALID, r1) << "never prefetched";
  EXPECT_ACL_OK(aclrtFree(m));
}

TEST_P(ManagedMemoryTest, PrefetchRules) {
  void* m = managed(2 * kPage2M);
  auto* c = static_cast<uint8_t*>(m);
  const auto dev0 = loc(ACL_MEM_LOCATIONTYPE_DEVICE, 0);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchAsync(nullptr, kPage2M, dev0, 0, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchAsync(m, 0, dev0, 0, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchAsync(m, kPage2M, dev0, 1, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemManagedPrefetchAsync(
                 m, kPage2M, loc(ACL_MEM_LOCATIONTYPE_DEVICE, static_cast<int32_t>(deviceCount())), 0, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemManagedPrefetchAsync(m, kPage2M, loc(ACL_MEM_LOCATIONTYPE_INVALID), 0, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchAsync(m, 4096, dev0, 0, nullptr)) << "unaligned";
  int x = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchAsync(&x, kPage2M, dev0, 0, nullptr)) << "window";
  inNewThread([&] {
    EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtMemManagedPrefetchAsync(m, kPage2M, dev0, 0, nullptr))
        << "no default stream";
  });

  // A stream-ordered task: the request shows at once, the task completes with the stream.
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(aclrtMemManagedPrefetchAsync(m, kPage2M, dev0, 0, s));
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  ASSERT_ACL_OK(aclrtStreamQuery(s, &status));
  EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, status);
  EXPECT_EQ(0, attr32(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, kPage2M)) << "the request, not completion";
  EXPECT_EQ(-2, attr32(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 2 * kPage2M)) << "mixed";
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  // A prefetch placed the page on device 0: a preferred location elsewhere now conflicts.
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemManagedAdvise(m, kPage2M, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, loc(ACL_MEM_LOCATIONTYPE_HOST)));
  ASSERT_ACL_OK(aclrtMemManagedPrefetchAsync(c + kPage2M, kPage2M, loc(ACL_MEM_LOCATIONTYPE_HOST), 0, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  EXPECT_EQ(ACL_MEM_LOCATIONTYPE_HOST, attr32(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, c + kPage2M, 1));
  EXPECT_EQ(-1, attr32(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, c + kPage2M, 1));

  // Batch: destinations as runs over the ranges.
  const void* ptrs[2] = {m, c + kPage2M};
  size_t sizes[2] = {kPage2M, kPage2M};
  aclrtMemManagedLocation locs[2] = {loc(ACL_MEM_LOCATIONTYPE_HOST), dev0};
  size_t idx[2] = {0, 1};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(nullptr, sizes, 2, locs, idx, 2, 0, s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, locs, nullptr, 2, 0, s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 0, locs, idx, 1, 0, s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 0, 0, s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 2, 1, s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 1, locs, idx, 2, 0, s))
      << "more locations than ranges";
  size_t badIdx[2] = {1, 1};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, locs, badIdx, 2, 0, s))
      << "first index not 0";
  size_t flatIdx[2] = {0, 0};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, locs, flatIdx, 2, 0, s))
      << "not strictly increasing";
  const void* withNull[2] = {m, nullptr};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(withNull, sizes, 2, locs, idx, 2, 0, s));
  size_t oddSizes[2] = {kPage2M, 4096};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, oddSizes, 2, locs, idx, 2, 0, s));
  aclrtMemManagedLocation badLocs[2] = {loc(ACL_MEM_LOCATIONTYPE_HOST),
                                        loc(static_cast<aclrtMemManagedLocationType>(7))};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, badLocs, idx, 2, 0, s));
  ASSERT_ACL_OK(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 2, 0, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(-1, attr32(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, kPage2M));
  EXPECT_EQ(0, attr32(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, c + kPage2M, kPage2M));
  // One location for both ranges.
  ASSERT_ACL_OK(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 1, 0, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(-1, attr32(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 2 * kPage2M));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtFree(m));
}

}  // namespace

ARUN_CONFORMANCE_INSTANTIATE(ManagedMemoryTest);

}  // namespace conformance
