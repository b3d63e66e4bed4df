// Spec part 2 (acl-api-runtime-2.md) families 4.1-4.4, the functions not covered by
// runtime2_test.cpp: CANN attributes, device features and SoC compatibility (4.1), core-count
// resource limits and what they change on the device (4.2), the remaining allocation variants
// (4.3), event waits with a flag or an expiring timeout and model-stream control (4.4). One test
// per error rule, plus the behaviour.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>

#include "arun/kernel.h"
#include "conformance.hpp"

namespace conformance {
namespace {

class LimitsTest : public AclDeviceTest {};

// ------------------------------------------------------------------ aclGetCannAttributeList / Attribute

TEST_P(LimitsTest, CannAttributeListNullArgumentsAreInvalidParam) {
  const aclCannAttr* list = nullptr;
  size_t num = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetCannAttributeList(nullptr, &num));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetCannAttributeList(&list, nullptr));
}

TEST_P(LimitsTest, CannAttributeListFollowsTheRuntimeVersionAndIsAscending) {
  char version[ACL_PKG_VERSION_MAX_SIZE] = {};
  char pkg[] = "runtime";
  ASSERT_ACL_OK(aclsysGetVersionStr(pkg, version));
  int major = 0, minor = 0;
  ASSERT_EQ(2, std::sscanf(version, "%d.%d", &major, &minor)) << version;
  const aclCannAttr* list = nullptr;
  size_t num = 99;
  ASSERT_ACL_OK(aclGetCannAttributeList(&list, &num));
  ASSERT_NE(nullptr, list);
  EXPECT_TRUE(std::is_sorted(list, list + num));
  const bool jit = major > 6 || (major == 6 && minor >= 4);
  const bool v71 = major > 7 || (major == 7 && minor >= 1);
  EXPECT_EQ(jit, std::find(list, list + num, ACL_CANN_ATTR_JIT_COMPILE) != list + num);
  if (!v71) {
    EXPECT_EQ(jit ? 1u : 0u, num) << "below 7.1 neither INF_NAN nor BF16 may be listed";
  }
}

TEST_P(LimitsTest, CannAttributeNullValueIsInvalidParam) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetCannAttribute(ACL_CANN_ATTR_BF16, nullptr));
}

TEST_P(LimitsTest, CannAttributeUnknownAttributeIsInvalidParam) {
  int32_t value = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &value));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetCannAttribute(static_cast<aclCannAttr>(3), &value));
}

TEST_P(LimitsTest, CannAttributeAgreesWithTheList) {
  const aclCannAttr* list = nullptr;
  size_t num = 0;
  ASSERT_ACL_OK(aclGetCannAttributeList(&list, &num));
  for (aclCannAttr a : {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16, ACL_CANN_ATTR_JIT_COMPILE}) {
    int32_t value = -1;
    ASSERT_ACL_OK(aclGetCannAttribute(a, &value));
    EXPECT_EQ(std::find(list, list + num, a) != list + num ? 1 : 0, value) << a;
  }
}

// ------------------------------------------------------------------ aclrtGetDeviceCapability

TEST_P(LimitsTest, DeviceFeatureNullValueIsInvalidParam) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, nullptr));
}

TEST_P(LimitsTest, DeviceFeatureUnknownFeatureIsRtParamInvalid) {
  int32_t value = 0;
  for (int f : {-1, 0, 2, 20, 22}) {
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceCapability(0, static_cast<aclrtDevFeatureType>(f), &value))
        << f;
  }
  // The feature is checked before the device.
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceCapability(-1, static_cast<aclrtDevFeatureType>(0), &value));
}

TEST_P(LimitsTest, DeviceFeatureBadDeviceIsInvalidDeviceId) {
  int32_t value = 0;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID,
             aclrtGetDeviceCapability(-1, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &value));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetDeviceCapability(static_cast<int32_t>(deviceCount()),
                                                                     ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &value));
}

TEST_P(LimitsTest, DeviceFeaturesNeedNoDevice) {
  inNewThread([this] {
    int32_t value = -1;
    EXPECT_ACL_OK(aclrtGetDeviceCapability(lastDevice(), ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &value));
    EXPECT_EQ(ACL_DEV_FEATURE_SUPPORT, value) << "aclrtTaskUpdateAsync / aclmdlRIUpdate update kernel tasks";
    value = -1;
    EXPECT_ACL_OK(aclrtGetDeviceCapability(lastDevice(), ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &value));
    EXPECT_EQ(ACL_DEV_FEATURE_NOT_SUPPORT, value);
  });
}

// ------------------------------------------------------------------ aclrtCheckArchCompatibility

TEST_P(LimitsTest, CheckArchNullArgumentsAreRtParamInvalid) {
  int32_t ok = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckArchCompatibility(nullptr, &ok));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckArchCompatibility("Ascend910B1", nullptr));
}

TEST_P(LimitsTest, CheckArchEmptyOrUnknownNameIsRtParamInvalid) {
  int32_t ok = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckArchCompatibility("", &ok));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckArchCompatibility("Ascend999Z", &ok));
}

TEST_P(LimitsTest, CheckArchComparesArchitectureGenerations) {
  const std::string soc = aclrtGetSocName();
  int32_t ok = -1;
  if (soc.rfind("Ascend910B", 0) != 0 || soc.size() < 11) {
    // A SoC outside the table (the null device) is compatible with nothing the table names.
    ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend910B1", &ok));
    EXPECT_EQ(0, ok);
    return;
  }
  ASSERT_ACL_OK(aclrtCheckArchCompatibility(soc.c_str(), &ok));
  EXPECT_EQ(1, ok) << "a SoC is compatible with itself";
  ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend910B1", &ok));
  EXPECT_EQ(1, ok) << "same generation as " << soc;
  ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend910_9391", &ok));
  EXPECT_EQ(1, ok) << "A3 shares the A2 AI-core architecture";
  ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend310P3", &ok));
  EXPECT_EQ(0, ok);
  ASSERT_ACL_OK(aclrtCheckArchCompatibility("Ascend950PR", &ok));
  EXPECT_EQ(0, ok);
  inNewThread([] {  // no current device: device 0's SoC decides
    int32_t v = -1;
    EXPECT_ACL_OK(aclrtCheckArchCompatibility("Ascend910B4", &v));
    EXPECT_EQ(1, v);
  });
}

// ------------------------------------------------------------------ device resource limits

uint32_t hardware(int32_t device, aclrtDevResLimitType type) {
  int64_t v = -1;
  EXPECT_ACL_OK(aclrtGetDeviceInfo(
      static_cast<uint32_t>(device),
      type == ACL_RT_DEV_RES_CUBE_CORE ? ACL_DEV_ATTR_AICORE_CORE_NUM : ACL_DEV_ATTR_VECTOR_CORE_NUM, &v));
  return static_cast<uint32_t>(v);
}

TEST_P(LimitsTest, GetDeviceResLimitNullValueIsInvalidParam) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, nullptr));
}

TEST_P(LimitsTest, DeviceResLimitBadDeviceIsInvalidDeviceId) {
  uint32_t v = 0;
  const auto n = static_cast<int32_t>(deviceCount());
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetDeviceResLimit(-1, ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetDeviceResLimit(n, ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDeviceResLimit(n, ACL_RT_DEV_RES_CUBE_CORE, 1));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDeviceResLimit(-1));
}

TEST_P(LimitsTest, DeviceResLimitBadTypeIsRtParamInvalid) {
  uint32_t v = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceResLimit(0, static_cast<aclrtDevResLimitType>(2), &v));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceResLimit(0, static_cast<aclrtDevResLimitType>(2), 1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceResLimit(0, static_cast<aclrtDevResLimitType>(-1), 1));
}

TEST_P(LimitsTest, SetDeviceResLimitValueOutOfRangeIsRtParamInvalid) {
  for (aclrtDevResLimitType t : {ACL_RT_DEV_RES_CUBE_CORE, ACL_RT_DEV_RES_VECTOR_CORE}) {
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceResLimit(0, t, hardware(0, t) + 1)) << t;
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceResLimit(0, t, 0)) << t;
  }
}

TEST_P(LimitsTest, DeviceResLimitOnADeviceNotOpenedIsDevSetupError) {
  if (deviceCount() < 2) GTEST_SKIP() << "needs a second device";
  const int32_t closed = lastDevice();  // the fixture opened device 0 only
  uint32_t v = 0;
  EXPECT_ACL(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtGetDeviceResLimit(closed, ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_ACL(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtSetDeviceResLimit(closed, ACL_RT_DEV_RES_CUBE_CORE, 1));
  EXPECT_ACL(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtResetDeviceResLimit(closed));
}

TEST_P(LimitsTest, DeviceResLimitSetGetResetAndThreadView) {
  for (aclrtDevResLimitType t : {ACL_RT_DEV_RES_CUBE_CORE, ACL_RT_DEV_RES_VECTOR_CORE}) {
    const uint32_t hw = hardware(0, t);
    uint32_t v = 0;
    ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, t, &v));
    EXPECT_EQ(hw, v) << "no limit: the hardware count";
    if (hw == 0) continue;
    ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, t, 1));
    ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, t, &v));
    EXPECT_EQ(1u, v);
    ASSERT_ACL_OK(aclrtGetResInCurrentThread(t, &v));
    EXPECT_EQ(1u, v) << "the device limit is in force for the thread";
    EXPECT_EQ(hw, hardware(0, t)) << "aclrtGetDeviceInfo keeps reporting the physical count";
  }
  ASSERT_ACL_OK(aclrtResetDeviceResLimit(0));
  uint32_t v = 0;
  ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_EQ(hardware(0, ACL_RT_DEV_RES_CUBE_CORE), v);
}

TEST_P(LimitsTest, DeviceResLimitIsDroppedWhenTheDeviceCloses) {
  ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 1));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  uint32_t v = 0;
  ASSERT_ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_EQ(hardware(0, ACL_RT_DEV_RES_CUBE_CORE), v);
}

// ------------------------------------------------------------------ stream resource limits

TEST_P(LimitsTest, GetStreamResLimitNullValueIsInvalidParam) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetStreamResLimit(nullptr, ACL_RT_DEV_RES_CUBE_CORE, nullptr));
}

TEST_P(LimitsTest, StreamResLimitBadTypeIsRtParamInvalid) {
  uint32_t v = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetStreamResLimit(nullptr, static_cast<aclrtDevResLimitType>(2), &v));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamResLimit(nullptr, static_cast<aclrtDevResLimitType>(2), 1));
}

TEST_P(LimitsTest, SetStreamResLimitAboveTheHardwareIsRtParamInvalid) {
  const uint32_t hw = hardware(0, ACL_RT_DEV_RES_CUBE_CORE);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamResLimit(nullptr, ACL_RT_DEV_RES_CUBE_CORE, hw + 1));
}

TEST_P(LimitsTest, StreamResLimitWithoutContextIsContextNull) {
  inNewThread([] {
    uint32_t v = 0;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetStreamResLimit(nullptr, ACL_RT_DEV_RES_CUBE_CORE, &v));
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtSetStreamResLimit(nullptr, ACL_RT_DEV_RES_CUBE_CORE, 1));
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtResetStreamResLimit(nullptr));
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtUseStreamResInCurrentThread(nullptr));
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtUnuseStreamResInCurrentThread(nullptr));
  });
}

TEST_P(LimitsTest, StreamResLimitDeadStreamIsInvalidHandle) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  uint32_t v = 0;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 1));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetStreamResLimit(s));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtUseStreamResInCurrentThread(s));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtUnuseStreamResInCurrentThread(s));
}

TEST_P(LimitsTest, StreamResLimitFallsBackToTheDeviceThenTheHardware) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  const uint32_t hw = hardware(0, ACL_RT_DEV_RES_CUBE_CORE);
  uint32_t v = 0;
  ASSERT_ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_EQ(hw, v);
  ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 1));
  ASSERT_ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_EQ(1u, v) << "the device's limit";
  ASSERT_ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, hw));
  ASSERT_ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_EQ(hw, v) << "the stream's own limit";
  ASSERT_ACL_OK(aclrtResetStreamResLimit(s));
  ASSERT_ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_EQ(1u, v) << "reset drops the stream's limit only";
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(LimitsTest, StreamResLimitAppliesOnlyToThreadsThatSelectedTheStream) {
  aclrtStream s = nullptr, other = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&other));
  const uint32_t hw = hardware(0, ACL_RT_DEV_RES_CUBE_CORE);
  ASSERT_ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 1));
  uint32_t v = 0;
  ASSERT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_EQ(hw, v) << "not selected yet";
  ASSERT_ACL_OK(aclrtUseStreamResInCurrentThread(s));
  ASSERT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_EQ(1u, v);
  ASSERT_ACL_OK(aclrtUnuseStreamResInCurrentThread(other));
  ASSERT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_EQ(1u, v) << "unusing a stream that is not selected changes nothing";
  ASSERT_ACL_OK(aclrtUnuseStreamResInCurrentThread(s));
  ASSERT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_EQ(hw, v);
  ASSERT_ACL_OK(aclrtUseStreamResInCurrentThread(s));
  ASSERT_ACL_OK(aclrtDestroyStream(s));
  ASSERT_ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
  EXPECT_EQ(hw, v) << "destroying the selected stream clears the selection";
  EXPECT_ACL_OK(aclrtDestroyStream(other));
}

// A kernel whose blocks record how many of them run at once.
struct Concurrency {
  std::atomic<int> now{0};
  std::atomic<int> max{0};
};

void measureKernel(arunBlock*, void* args) {
  auto* c = static_cast<Concurrency*>(args);
  const int n = c->now.fetch_add(1) + 1;
  int seen = c->max.load();
  while (n > seen && !c->max.compare_exchange_weak(seen, n)) {
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  c->now.fetch_sub(1);
}

int maxConcurrency(aclrtStream s, uint32_t blocks) {
  Concurrency c;
  EXPECT_ACL_OK(arunLaunchKernel(s, blocks, &measureKernel, &c, nullptr));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  return c.max.load();
}

TEST_P(LimitsTest, StreamCubeLimitBoundsTheCoresRunningAKernel) {
  const uint32_t hw = hardware(0, ACL_RT_DEV_RES_CUBE_CORE);
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  const int unlimited = maxConcurrency(s, 32);
  EXPECT_GE(unlimited, 1);
  EXPECT_LE(unlimited, static_cast<int>(hw));
  // A limit may not exceed the device's cores (a one-core configuration checks the limit of 1 only).
  const uint32_t two = std::min<uint32_t>(2, hw);
  ASSERT_ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, two));
  ASSERT_ACL_OK(aclrtUseStreamResInCurrentThread(s));
  for (int i = 0; i < 3; ++i) {
    const int limited = maxConcurrency(s, 32);
    EXPECT_GE(limited, 1);
    EXPECT_LE(limited, static_cast<int>(two))
        << "a stream limit of " << two << " AI cores (unlimited the kernel reached " << unlimited << ")";
  }
  ASSERT_ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 1));
  EXPECT_EQ(1, maxConcurrency(s, 16)) << "a limit of 1 runs the blocks one after another";
  ASSERT_ACL_OK(aclrtUnuseStreamResInCurrentThread(s));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(LimitsTest, DeviceCubeLimitBoundsEveryStream) {
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateStream(&b));
  const uint32_t limit = std::min(3u, hardware(0, ACL_RT_DEV_RES_CUBE_CORE));
  ASSERT_ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, limit));
  for (aclrtStream s : {a, b, static_cast<aclrtStream>(nullptr)}) {
    EXPECT_LE(maxConcurrency(s, 32), static_cast<int>(limit));
  }
  // A selected stream's own limit overrides the device's.
  ASSERT_ACL_OK(aclrtSetStreamResLimit(a, ACL_RT_DEV_RES_CUBE_CORE, 1));
  ASSERT_ACL_OK(aclrtUseStreamResInCurrentThread(a));
  EXPECT_EQ(1, maxConcurrency(b, 16)) << "the thread's selection applies to its launches on any stream";
  ASSERT_ACL_OK(aclrtUnuseStreamResInCurrentThread(a));
  EXPECT_ACL_OK(aclrtDestroyStream(a));
  EXPECT_ACL_OK(aclrtDestroyStream(b));
}

// ------------------------------------------------------------------ aclrtMallocHostWithCfg

TEST_P(LimitsTest, MallocHostWithCfgNullOrZeroIsInvalidParam) {
  void* p = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocHostWithCfg(nullptr, 64, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocHostWithCfg(&p, 0, nullptr));
}

TEST_P(LimitsTest, MallocHostWithCfgBadAttributeArrayIsRtParamInvalid) {
  void* p = nullptr;
  aclrtMallocConfig none{nullptr, 0};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocHostWithCfg(&p, 64, &none));
  aclrtMallocAttribute attr{};
  aclrtMallocConfig cfg{&attr, 1};
  attr.attr = ACL_RT_MEM_ATTR_VA_FLAG;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocHostWithCfg(&p, 64, &cfg));
  attr.attr = static_cast<aclrtMallocAttrType>(9);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocHostWithCfg(&p, 64, &cfg));
}

TEST_P(LimitsTest, MallocHostWithCfgOutOfMemoryIsMemoryAllocation) {
  void* p = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMallocHostWithCfg(&p, UINT64_MAX - 100, nullptr));
}

TEST_P(LimitsTest, MallocHostWithCfgNeedsNoContextAndIsPinnedHostMemory) {
  aclrtMallocAttribute attrs[2] = {};
  attrs[0].attr = ACL_RT_MEM_ATTR_MODULE_ID;
  attrs[0].value.moduleId = 3;
  attrs[1].attr = ACL_RT_MEM_ATTR_DEVICE_ID;
  attrs[1].value.deviceId = 77;  // accepted and ignored
  aclrtMallocConfig cfg{attrs, 2};
  void* p = nullptr;
  inNewThread([&] { EXPECT_ACL_OK(aclrtMallocHostWithCfg(&p, 100, &cfg)); });
  ASSERT_NE(nullptr, p);
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(p) % 64);
  static_cast<char*>(p)[99] = 1;  // host memory
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 100, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_OK(aclrtMemcpy(dev, 100, p, 100, ACL_MEMCPY_HOST_TO_DEVICE));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtFreeHost(p));
}

// ------------------------------------------------------------------ aclrtMallocForTaskScheduler

TEST_P(LimitsTest, MallocForTaskSchedulerInvalidParamRules) {
  void* p = nullptr;
  aclrtMallocConfig counted{nullptr, 2};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocForTaskScheduler(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocForTaskScheduler(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &counted));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocForTaskScheduler(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST, nullptr));
}

TEST_P(LimitsTest, MallocForTaskSchedulerRtParamInvalidRules) {
  void* p = nullptr;
  aclrtMallocConfig none{nullptr, 0};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocForTaskScheduler(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &none));
  aclrtMallocAttribute attr{};
  attr.attr = ACL_RT_MEM_ATTR_VA_FLAG;
  aclrtMallocConfig cfg{&attr, 1};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocForTaskScheduler(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
  const auto both = static_cast<aclrtMemMallocPolicy>(ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocForTaskScheduler(&p, 64, both, nullptr));
}

TEST_P(LimitsTest, MallocForTaskSchedulerWithoutContextIsContextNull) {
  inNewThread([] {
    void* p = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtMallocForTaskScheduler(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, nullptr));
  });
}

TEST_P(LimitsTest, MallocForTaskSchedulerAllocatesUsableDeviceMemory) {
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMallocForTaskScheduler(&p, 200, ACL_MEM_MALLOC_NORMAL_ONLY, nullptr));
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(p) % 64);
  const auto data = pattern(200, 11);
  writeDevice(p, data);
  EXPECT_EQ(data, readDevice(p, 200));
  EXPECT_ACL_OK(aclrtFree(p));
}

// ------------------------------------------------------------------ aclrtFreeHostWithDevSync

TEST_P(LimitsTest, FreeHostWithDevSyncNullIsInvalidParam) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeHostWithDevSync(nullptr));
}

TEST_P(LimitsTest, FreeHostWithDevSyncForeignPointerIsRtParamInvalid) {
  int local = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHostWithDevSync(&local));
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&p, 256));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHostWithDevSync(static_cast<char*>(p) + 8)) << "interior pointer";
  EXPECT_ACL_OK(aclrtFreeHost(p));
}

TEST_P(LimitsTest, FreeHostWithDevSyncWithoutContextIsContextNull) {
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&p, 64));
  inNewThread([p] { EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtFreeHostWithDevSync(p)); });
  EXPECT_ACL_OK(aclrtFreeHost(p)) << "the refused call freed nothing";
}

TEST_P(LimitsTest, FreeHostWithDevSyncWaitsForTheDeviceThenFrees) {
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMallocHostWithCfg(&p, 64, nullptr));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::atomic<bool> ran{false};
  ASSERT_ACL_OK(launch(s, [&ran] {
    std::this_thread::sleep_for(50ms);
    ran.store(true);
  }));
  ASSERT_ACL_OK(aclrtFreeHostWithDevSync(p));
  EXPECT_TRUE(ran.load()) << "the free returned before the device's work was done";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHostWithDevSync(p)) << "already freed";
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

// ------------------------------------------------------------------ aclrtStreamWaitEventWithFlag

TEST_P(LimitsTest, WaitEventWithFlagInvalidParamRules) {
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithFlag(nullptr, nullptr, 0, ACL_EVENT_WAIT_DEFAULT));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithFlag(nullptr, e, 0, 2));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithFlag(nullptr, e, 5, ACL_EVENT_WAIT_EXTERNAL));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
}

TEST_P(LimitsTest, WaitEventWithFlagDeadEventIsInvalidHandle) {
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  ASSERT_ACL_OK(aclrtDestroyEvent(e));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEventWithFlag(nullptr, e, 0, ACL_EVENT_WAIT_DEFAULT));
}

TEST_P(LimitsTest, WaitEventWithFlagExternalNeedsAnExSyncEvent) {
  aclrtEvent plain = nullptr, timed = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&plain));
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&timed, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             aclrtStreamWaitEventWithFlag(nullptr, plain, 0, ACL_EVENT_WAIT_EXTERNAL));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             aclrtStreamWaitEventWithFlag(nullptr, timed, 0, ACL_EVENT_WAIT_EXTERNAL));
  EXPECT_ACL_OK(aclrtDestroyEvent(plain));
  EXPECT_ACL_OK(aclrtDestroyEvent(timed));
}

TEST_P(LimitsTest, WaitEventWithFlagExternalOnAStreamNotCapturedIsNotCaptured) {
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclrtStreamWaitEventWithFlag(nullptr, e, 0, ACL_EVENT_WAIT_EXTERNAL));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
}

TEST_P(LimitsTest, WaitEventWithFlagFirstCallFixesTheWaitFlagOnly) {
  aclrtEvent a = nullptr, b = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&a, ACL_EVENT_SYNC));
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&b, ACL_EVENT_SYNC));
  ASSERT_ACL_OK(aclrtStreamWaitEventWithFlag(nullptr, a, 0, ACL_EVENT_WAIT_DEFAULT));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithFlag(nullptr, a, 0, ACL_EVENT_WAIT_EXTERNAL));
  EXPECT_ACL_OK(aclrtRecordEventWithFlag(a, nullptr, ACL_EVENT_RECORD_DEFAULT)) << "the record flag is separate";
  // A first call that fails fixes the flag too.
  EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclrtStreamWaitEventWithFlag(nullptr, b, 0, ACL_EVENT_WAIT_EXTERNAL));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithFlag(nullptr, b, 0, ACL_EVENT_WAIT_DEFAULT));
  EXPECT_ACL_OK(aclrtSynchronizeDevice());
  EXPECT_ACL_OK(aclrtDestroyEvent(a));
  EXPECT_ACL_OK(aclrtDestroyEvent(b));
}

TEST_P(LimitsTest, WaitEventWithFlagDefaultChecksAsWithTimeout) {
  aclrtEvent devOnly = nullptr, noSync = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&devOnly, ACL_EVENT_SYNC | ACL_EVENT_DEVICE_USE_ONLY));
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&noSync, ACL_EVENT_TIME_LINE));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithFlag(nullptr, devOnly, 0, ACL_EVENT_WAIT_DEFAULT));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             aclrtStreamWaitEventWithFlag(nullptr, noSync, 0, ACL_EVENT_WAIT_DEFAULT));
  EXPECT_ACL_OK(aclrtDestroyEvent(devOnly));
  EXPECT_ACL_OK(aclrtDestroyEvent(noSync));
}

TEST_P(LimitsTest, WaitEventWithFlagOrdersTheStreams) {
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateStream(&b));
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  Gate& gate = newGate();
  std::atomic<bool> aDone{false}, bSawADone{false};
  ASSERT_ACL_OK(launchGate(a, gate));
  ASSERT_ACL_OK(launch(a, [&aDone] { aDone.store(true); }));
  ASSERT_ACL_OK(aclrtRecordEvent(e, a));
  ASSERT_ACL_OK(aclrtStreamWaitEventWithFlag(b, e, UINT32_MAX, ACL_EVENT_WAIT_DEFAULT));
  ASSERT_ACL_OK(launch(b, [&] { bSawADone.store(aDone.load()); }));
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(b));
  EXPECT_TRUE(bSawADone.load());
  EXPECT_ACL_OK(aclrtSynchronizeStream(a));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
  EXPECT_ACL_OK(aclrtDestroyStream(a));
  EXPECT_ACL_OK(aclrtDestroyStream(b));
}

// ------------------------------------------------------------------ expiring wait timeouts

// Stream b waits (with a 1 s bound) for an event recorded on a behind a closed gate: the wait
// fails, b's synchronize reports ACL_ERROR_RT_TASK_TIMEOUT instead of hanging, and b goes on.
// What runs on b after the wait is a host function: on a one-AI-core device the gate holds the only
// core, so a kernel there could not run until the gate opens.
template <class Wait>
void expectWaitTimesOut(Gate& gate, Wait wait, const std::function<aclError(aclrtStream, Gate&)>& gateFn) {
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateStream(&b));
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  ASSERT_ACL_OK(gateFn(a, gate));
  ASSERT_ACL_OK(aclrtRecordEvent(e, a));
  ASSERT_ACL_OK(wait(b, e));
  std::atomic<bool> after{false};
  ASSERT_ACL_OK(aclrtLaunchHostFunc(
      b, [](void* flag) { static_cast<std::atomic<bool>*>(flag)->store(true); }, &after));
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_ACL(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(b));
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, 900ms) << "the wait gave up before its bound";
  EXPECT_LT(waited, 10s);
  EXPECT_FALSE(gate.watchdogFired()) << "the timeout, not the gate's watchdog, released the stream";
  EXPECT_TRUE(after.load()) << "the stream goes on after the failed wait";
  EXPECT_ACL_OK(aclrtSynchronizeStream(b)) << "the error is reported once";
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeStream(a));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
  EXPECT_ACL_OK(aclrtDestroyStream(a));
  EXPECT_ACL_OK(aclrtDestroyStream(b));
}

TEST_P(LimitsTest, StreamWaitEventWithTimeoutExpires) {
  expectWaitTimesOut(
      newGate(), [](aclrtStream s, aclrtEvent e) { return aclrtStreamWaitEventWithTimeout(s, e, 1); },
      [this](aclrtStream s, Gate& g) { return launchGate(s, g); });
}

TEST_P(LimitsTest, StreamWaitEventWithFlagTimeoutExpires) {
  expectWaitTimesOut(
      newGate(),
      [](aclrtStream s, aclrtEvent e) { return aclrtStreamWaitEventWithFlag(s, e, 1, ACL_EVENT_WAIT_DEFAULT); },
      [this](aclrtStream s, Gate& g) { return launchGate(s, g); });
}

TEST_P(LimitsTest, StreamWaitEventReleasedInTimeDoesNotFail) {
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateStream(&b));
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(a, gate));
  ASSERT_ACL_OK(aclrtRecordEvent(e, a));
  ASSERT_ACL_OK(aclrtStreamWaitEventWithTimeout(b, e, 1));
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeStream(b));
  std::this_thread::sleep_for(1200ms);  // past the deadline: the released wait must stay released
  EXPECT_ACL_OK(aclrtSynchronizeStream(b));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
  EXPECT_ACL_OK(aclrtDestroyStream(a));
  EXPECT_ACL_OK(aclrtDestroyStream(b));
}

// ------------------------------------------------------------------ aclrtSwitchStream / aclrtActiveStream

TEST_P(LimitsTest, SwitchStreamNullArgumentsAreInvalidParam) {
  aclrtStream s = nullptr, t = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&t));
  int64_t l = 0, r = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(nullptr, ACL_RT_EQUAL, &r, ACL_RT_SWITCH_INT64, t, nullptr, s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(&l, ACL_RT_EQUAL, nullptr, ACL_RT_SWITCH_INT64, t, nullptr, s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclrtSwitchStream(&l, ACL_RT_EQUAL, &r, ACL_RT_SWITCH_INT64, nullptr, nullptr, s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(&l, ACL_RT_EQUAL, &r, ACL_RT_SWITCH_INT64, t, nullptr, nullptr))
      << "the default stream cannot be used";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(&l, ACL_RT_EQUAL, &r, ACL_RT_SWITCH_INT64, t, s, s))
      << "falseStream is reserved";
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(t));
}

TEST_P(LimitsTest, SwitchStreamBadConditionOrTypeIsRtParamInvalid) {
  aclrtStream s = nullptr, t = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&t));
  int64_t l = 0, r = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtSwitchStream(&l, static_cast<aclrtCondition>(6), &r, ACL_RT_SWITCH_INT64, t, nullptr, s));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtSwitchStream(&l, ACL_RT_LESS, &r, static_cast<aclrtCompareDataType>(2), t, nullptr, s));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(t));
}

TEST_P(LimitsTest, SwitchAndActiveStreamNeedModelBoundStreams) {
  aclrtStream s = nullptr, t = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&t));
  int64_t l = 0, r = 0;
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtSwitchStream(&l, ACL_RT_GREATER, &r, ACL_RT_SWITCH_INT32, t, nullptr, s));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_MODEL, aclrtActiveStream(t, s));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(t));
}

TEST_P(LimitsTest, SwitchAndActiveStreamDeadHandleIsInvalidHandle) {
  aclrtStream live = nullptr, dead = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&live));
  ASSERT_ACL_OK(aclrtCreateStream(&dead));
  ASSERT_ACL_OK(aclrtDestroyStream(dead));
  int64_t l = 0, r = 0;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE,
             aclrtSwitchStream(&l, ACL_RT_EQUAL, &r, ACL_RT_SWITCH_INT64, live, nullptr, dead));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE,
             aclrtSwitchStream(&l, ACL_RT_EQUAL, &r, ACL_RT_SWITCH_INT64, dead, nullptr, live));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtActiveStream(live, dead));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtActiveStream(dead, live));
  EXPECT_ACL_OK(aclrtDestroyStream(live));
}

TEST_P(LimitsTest, SwitchAndActiveStreamOfAnotherContextIsStreamContext) {
  aclrtContext primary = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
  aclrtStream s = nullptr, t = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&t));
  aclrtContext other = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&other, 0));
  int64_t l = 0, r = 0;
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtSwitchStream(&l, ACL_RT_EQUAL, &r, ACL_RT_SWITCH_INT64, t, nullptr, s));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtActiveStream(t, s));
  ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
  EXPECT_ACL_OK(aclrtDestroyContext(other));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(t));
}

TEST_P(LimitsTest, SwitchAndActiveStreamWithoutContextIsContextNull) {
  aclrtStream s = nullptr, t = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&t));
  inNewThread([s, t] {
    int64_t l = 0, r = 0;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtSwitchStream(&l, ACL_RT_EQUAL, &r, ACL_RT_SWITCH_INT64, t, nullptr, s));
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtActiveStream(t, s));
  });
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(t));
}

ARUN_CONFORMANCE_INSTANTIATE(LimitsTest);

}  // namespace
}  // namespace conformance
