// Section 2.2: device management.
#include <climits>

#include "conformance.hpp"

namespace conformance {
namespace {

class DeviceTest : public AclTest {};

TEST_P(DeviceTest, CountIsPositiveAndNeedsNoDevice) {
  uint32_t count = 0;
  ASSERT_ACL_OK(aclrtGetDeviceCount(&count));
  EXPECT_GE(count, 1u);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceCount(nullptr));
  // Same answer from another thread.
  inNewThread([count] {
    uint32_t again = 0;
    EXPECT_ACL_OK(aclrtGetDeviceCount(&again));
    EXPECT_EQ(count, again);
  });
}

TEST_P(DeviceTest, SetDeviceMakesItCurrent) {
  for (int32_t id = 0; id < static_cast<int32_t>(deviceCount()); ++id) {
    ASSERT_ACL_OK(aclrtSetDevice(id));
    int32_t current = -1;
    ASSERT_ACL_OK(aclrtGetDevice(&current));
    EXPECT_EQ(id, current);
  }
  // Back to device 0: the last call wins.
  ASSERT_ACL_OK(aclrtSetDevice(0));
  int32_t current = -1;
  ASSERT_ACL_OK(aclrtGetDevice(&current));
  EXPECT_EQ(0, current);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDevice(nullptr));
}

TEST_P(DeviceTest, CurrentDeviceIsPerThread) {
  if (deviceCount() < 2) GTEST_SKIP() << "needs 2 devices";
  ASSERT_ACL_OK(aclrtSetDevice(0));
  inNewThread([] {
    ASSERT_ACL_OK(aclrtSetDevice(1));
    int32_t current = -1;
    EXPECT_ACL_OK(aclrtGetDevice(&current));
    EXPECT_EQ(1, current);
  });
  int32_t current = -1;
  ASSERT_ACL_OK(aclrtGetDevice(&current));
  EXPECT_EQ(0, current);
}

TEST_P(DeviceTest, InvalidDeviceIdsAreRejected) {
  const int32_t count = static_cast<int32_t>(deviceCount());
  for (int32_t bad : {-1, count, count + 1, INT32_MIN, INT32_MAX}) {
    SCOPED_TRACE("device id " + std::to_string(bad));
    EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(bad));
    EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDevice(bad));
    EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDeviceForce(bad));
    aclrtDeviceStatus status = ACL_RT_DEVICE_STATUS_END;
    EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtQueryDeviceStatus(bad, &status));
    aclrtContext ctx = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtCreateContext(&ctx, bad));
    aclrtUtilizationInfo info{};
    EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetDeviceUtilizationRate(bad, &info));
    int64_t value = 0;
    EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID,
               aclrtGetDeviceInfo(static_cast<uint32_t>(bad), ACL_DEV_ATTR_AICORE_CORE_NUM, &value));
  }
  // None of these bound a device to the thread.
  int32_t current = -1;
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&current));
}

TEST_P(DeviceTest, NoCurrentDeviceIsContextNull) {
  int32_t current = -1;
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&current));
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtSynchronizeDevice());
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtSynchronizeDeviceWithTimeout(100));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  // A new thread has no current device even though this one has.
  inNewThread([] {
    int32_t device = -1;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&device));
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtSynchronizeDevice());
  });
}

TEST_P(DeviceTest, ResetOfADeviceNeverSetIsContextReleaseError) {
  for (int32_t id = 0; id < static_cast<int32_t>(deviceCount()); ++id) {
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(id)) << "device " << id;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDeviceForce(id)) << "device " << id;
  }
}

TEST_P(DeviceTest, SetDeviceIsReferenceCounted) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  // One reference left: the device and its default context are still usable.
  int32_t current = -1;
  EXPECT_ACL_OK(aclrtGetDevice(&current));
  EXPECT_EQ(0, current);
  void *dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
  auto data = pattern(256, 3);
  writeDevice(dev, data);
  EXPECT_EQ(data, readDevice(dev, data.size()));
  EXPECT_ACL_OK(aclrtFree(dev));
  aclrtStream stream = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&stream));
  EXPECT_ACL_OK(aclrtDestroyStream(stream));
  EXPECT_ACL_OK(aclrtSynchronizeDevice());
  // Last reference: released; one more reset is an error.
  EXPECT_ACL_OK(aclrtResetDevice(0));
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(0));
  // The device can be set again after a full reset.
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtResetDevice(0));
}

TEST_P(DeviceTest, ReferenceCountIsPerDeviceAcrossThreads) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  inNewThread([] {
    ASSERT_ACL_OK(aclrtSetDevice(0));
    EXPECT_ACL_OK(aclrtResetDevice(0));
  });
  // The other thread dropped only its own reference.
  void *dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 128, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL_OK(aclrtResetDevice(0));
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(0));
}

TEST_P(DeviceTest, ResetDeviceForceReleasesAllReferences) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_ACL_OK(aclrtResetDeviceForce(0));
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(0));
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDeviceForce(0));
  // Mixed use: plain resets first, the force reset last.
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_ACL_OK(aclrtResetDevice(0));
  EXPECT_ACL_OK(aclrtResetDeviceForce(0));
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(0));
  // Usable again after being set again.
  ASSERT_ACL_OK(aclrtSetDevice(0));
  void *dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(DeviceTest, ResetWaitsForDefaultStreamWork) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  Gate &gate = newGate();
  Probe after;
  ASSERT_ACL_OK(launchGate(nullptr, gate));
  ASSERT_ACL_OK(launchProbe(nullptr, after));
  std::thread opener([&gate] {
    if (gate.waitEntered(1)) std::this_thread::sleep_for(20ms);
    gate.open();
  });
  EXPECT_ACL_OK(aclrtResetDevice(0));
  opener.join();
  EXPECT_TRUE(after.ran.load()) << "aclrtResetDevice returned before the default stream drained";
}

TEST_P(DeviceTest, DeviceInfoNeedsNoDevice) {
  for (uint32_t id = 0; id < deviceCount(); ++id) {
    SCOPED_TRACE("device " + std::to_string(id));
    int64_t cores = -1, mem = -1;
    ASSERT_ACL_OK(aclrtGetDeviceInfo(id, ACL_DEV_ATTR_AICORE_CORE_NUM, &cores));
    EXPECT_GT(cores, 0);
    ASSERT_ACL_OK(aclrtGetDeviceInfo(id, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &mem));
    EXPECT_GT(mem, 0);
    // Other attributes are either reported (non-negative) or unsupported on the part.
    for (aclrtDevAttr attr : {ACL_DEV_ATTR_AICPU_CORE_NUM, ACL_DEV_ATTR_CUBE_CORE_NUM, ACL_DEV_ATTR_VECTOR_CORE_NUM,
                              ACL_DEV_ATTR_L2_CACHE_SIZE, ACL_DEV_ATTR_PHY_CHIP_ID, ACL_DEV_ATTR_IS_VIRTUAL}) {
      int64_t value = -1;
      aclError rc = aclrtGetDeviceInfo(id, attr, &value);
      EXPECT_TRUE(rc == ACL_SUCCESS || rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
          << "attr " << static_cast<int>(attr) << " returned " << rc;
      if (rc == ACL_SUCCESS) {
        EXPECT_GE(value, 0) << "attr " << static_cast<int>(attr);
      }
    }
  }
  int32_t current = -1;
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&current)) << "aclrtGetDeviceInfo must not set a device";
}

TEST_P(DeviceTest, DeviceInfoArgumentRules) {
  int64_t value = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceInfo(0, static_cast<aclrtDevAttr>(12345), &value));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceInfo(0, static_cast<aclrtDevAttr>(0), &value));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetDeviceInfo(deviceCount(), ACL_DEV_ATTR_AICORE_CORE_NUM, &value));
}

TEST_P(DeviceTest, DeviceInfoIsConsistentWithMemInfo) {
  for (int32_t id = 0; id < static_cast<int32_t>(deviceCount()); ++id) {
    SCOPED_TRACE("device " + std::to_string(id));
    int64_t global = 0;
    ASSERT_ACL_OK(aclrtGetDeviceInfo(static_cast<uint32_t>(id), ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &global));
    ASSERT_ACL_OK(aclrtSetDevice(id));
    size_t freeBytes = 0, totalBytes = 0;
    ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeBytes, &totalBytes));
    EXPECT_GT(totalBytes, 0u);
    EXPECT_LE(freeBytes, totalBytes);
    // aclrtGetMemInfo excludes system-reserved memory, so it can only be smaller.
    EXPECT_LE(totalBytes, static_cast<uint64_t>(global));
  }
}

TEST_P(DeviceTest, QueryDeviceStatusIsNormal) {
  for (int32_t id = 0; id < static_cast<int32_t>(deviceCount()); ++id) {
    ASSERT_ACL_OK(aclrtSetDevice(id));
    aclrtDeviceStatus status = ACL_RT_DEVICE_STATUS_END;
    EXPECT_ACL_OK(aclrtQueryDeviceStatus(id, &status));
    EXPECT_EQ(ACL_RT_DEVICE_STATUS_NORMAL, status) << "device " << id;
  }
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtQueryDeviceStatus(0, nullptr));
}

TEST_P(DeviceTest, StreamPriorityRangeIsSevenToZero) {
  int32_t least = -1, greatest = -1;
  ASSERT_ACL_OK(aclrtDeviceGetStreamPriorityRange(&least, &greatest));
  EXPECT_EQ(7, least);
  EXPECT_EQ(0, greatest);
  EXPECT_ACL_OK(aclrtDeviceGetStreamPriorityRange(nullptr, nullptr));
  least = -1;
  EXPECT_ACL_OK(aclrtDeviceGetStreamPriorityRange(&least, nullptr));
  EXPECT_EQ(7, least);
  greatest = -1;
  EXPECT_ACL_OK(aclrtDeviceGetStreamPriorityRange(nullptr, &greatest));
  EXPECT_EQ(0, greatest);
}

TEST_P(DeviceTest, SynchronizeDeviceWithTimeout) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeDeviceWithTimeout(-2));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeDeviceWithTimeout(INT32_MIN));
  EXPECT_ACL_OK(aclrtSynchronizeDeviceWithTimeout(-1));
  EXPECT_ACL_OK(aclrtSynchronizeDeviceWithTimeout(10));
  Gate &gate = newGate();
  ASSERT_ACL_OK(launchGate(nullptr, gate));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeDeviceWithTimeout(10));
  EXPECT_FALSE(gate.watchdogFired());
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeDeviceWithTimeout(-1));
  EXPECT_EQ(1, gate.exited());
}

TEST_P(DeviceTest, SynchronizeDeviceWaitsForEveryStream) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtStream s1 = nullptr, s2 = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s1));
  ASSERT_ACL_OK(aclrtCreateStream(&s2));
  Gate &gate = newGate();
  Probe p1, p2, p0;
  ASSERT_ACL_OK(launchGate(s1, gate));
  ASSERT_ACL_OK(launchProbe(s1, p1));
  ASSERT_ACL_OK(launchProbe(s2, p2));
  ASSERT_ACL_OK(launchProbe(nullptr, p0));
  std::thread opener([&gate] {
    if (gate.waitEntered(1)) std::this_thread::sleep_for(20ms);
    gate.open();
  });
  EXPECT_ACL_OK(aclrtSynchronizeDevice());
  opener.join();
  EXPECT_TRUE(p1.ran.load()) << "aclrtSynchronizeDevice returned before a created stream drained";
  EXPECT_TRUE(p2.ran.load());
  EXPECT_TRUE(p0.ran.load());
  EXPECT_ACL_OK(aclrtDestroyStream(s1));
  EXPECT_ACL_OK(aclrtDestroyStream(s2));
}

TEST_P(DeviceTest, UtilizationRate) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtUtilizationInfo info{};
  info.utilizationExtend = nullptr;
  ASSERT_ACL_OK(aclrtGetDeviceUtilizationRate(0, &info));
  for (int32_t v : {info.cubeUtilization, info.vectorUtilization, info.aicpuUtilization, info.memoryUtilization}) {
    EXPECT_GE(v, -1);
    EXPECT_LE(v, 100);
  }
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceUtilizationRate(0, nullptr));
  aclrtUtilizationInfo withExtend{};
  withExtend.utilizationExtend = reinterpret_cast<aclrtUtilizationExtendInfo *>(&withExtend);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceUtilizationRate(0, &withExtend));
}

TEST_P(DeviceTest, PeerAccessQueries) {
  if (deviceCount() < 2) GTEST_SKIP() << "needs 2 devices";
  const int32_t count = static_cast<int32_t>(deviceCount());
  int32_t can = -1;
  ASSERT_ACL_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
  EXPECT_TRUE(can == 0 || can == 1) << can;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceCanAccessPeer(nullptr, 0, 1));
  EXPECT_ACL_EITHER(ACL_ERROR_RT_INVALID_DEVICEID, ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceCanAccessPeer(&can, 0, 0));
  EXPECT_ACL_EITHER(ACL_ERROR_RT_INVALID_DEVICEID, ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceCanAccessPeer(&can, 0, count));
  EXPECT_ACL_EITHER(ACL_ERROR_RT_INVALID_DEVICEID, ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceCanAccessPeer(&can, -1, 1));
}

TEST_P(DeviceTest, PeerAccessEnableDisable) {
  if (deviceCount() < 2) GTEST_SKIP() << "needs 2 devices";
  inNewThread([] { EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtDeviceEnablePeerAccess(1, 0)); });
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceEnablePeerAccess(1, 1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceEnablePeerAccess(0, 0));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceEnablePeerAccess(static_cast<int32_t>(deviceCount()), 0));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceEnablePeerAccess(-1, 0));
  EXPECT_NE(ACL_SUCCESS, aclrtDeviceDisablePeerAccess(1)) << "disabling a link never enabled must fail";
  aclError rc = aclrtDeviceEnablePeerAccess(1, 0);
  EXPECT_TRUE(rc == ACL_SUCCESS || rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) << rc;
  if (rc == ACL_SUCCESS) {
    EXPECT_ACL_OK(aclrtDeviceDisablePeerAccess(1));
  }
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceDisablePeerAccess(0));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceDisablePeerAccess(static_cast<int32_t>(deviceCount())));
}

TEST_P(DeviceTest, PeerCopiesNeedPeerAccessAndMoveTheData) {
  if (deviceCount() < 2) GTEST_SKIP() << "needs 2 devices";
  constexpr size_t kBytes = 256 * 1024;
  const std::vector<uint8_t> data = pattern(kBytes, 42);
  ASSERT_ACL_OK(aclrtSetDevice(1));
  void *onPeer = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&onPeer, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMemset(onPeer, kBytes, 0, kBytes));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  void *local = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&local, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  writeDevice(local, data);
  int32_t can = 0;
  ASSERT_ACL_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
  if (can == 0) GTEST_SKIP() << "device 0 cannot reach device 1 on this backend";

  // Without peer access the copy is refused, synchronously and asynchronously, and nothing moves.
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclError refused = aclrtMemcpy(onPeer, kBytes, local, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE);
  EXPECT_NE(ACL_SUCCESS, refused);
  EXPECT_NE(nullptr, aclGetRecentErrMsg());
  EXPECT_ACL(refused, aclrtMemcpyAsync(onPeer, kBytes, local, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, s));

  ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
  ASSERT_ACL_OK(aclrtMemcpyAsync(onPeer, kBytes, local, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtSetDevice(1));
  EXPECT_EQ(data, readDevice(onPeer, kBytes)) << "the copy landed in device 1's memory";
  // The other direction was not enabled: device 1 may not copy back into device 0.
  EXPECT_NE(ACL_SUCCESS, aclrtMemcpy(local, kBytes, onPeer, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE));

  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtDeviceDisablePeerAccess(1));
  EXPECT_ACL(refused, aclrtMemcpy(onPeer, kBytes, local, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtFree(local));
  ASSERT_ACL_OK(aclrtSetDevice(1));
  EXPECT_ACL_OK(aclrtFree(onPeer));
}

TEST_P(DeviceTest, EachDeviceHasItsOwnExecutionUnits) {
  if (deviceCount() < 2) GTEST_SKIP() << "needs 2 devices";
  // Device 0's compute queue is held by a gated task; device 1 still runs its own work.
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtStream s0 = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s0));
  Gate &gate = newGate();
  ASSERT_ACL_OK(launchGate(s0, gate));
  ASSERT_TRUE(gate.waitEntered(1));
  ASSERT_ACL_OK(aclrtSetDevice(1));
  aclrtStream s1 = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s1));
  Probe probe;
  ASSERT_ACL_OK(launchProbe(s1, probe));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s1));
  EXPECT_TRUE(probe.ran.load());
  EXPECT_EQ(0, gate.exited()) << "device 1's work must not wait for device 0";
  gate.open();
  EXPECT_ACL_OK(aclrtDestroyStream(s1));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s0));
  EXPECT_FALSE(gate.watchdogFired());
  EXPECT_ACL_OK(aclrtDestroyStream(s0));
}

TEST_P(DeviceTest, SaturationMode) {
  inNewThread([] {
    aclrtFloatOverflowMode m = ACL_RT_OVERFLOW_MODE_UNDEF;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDeviceSatMode(&m));
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));
  });
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtFloatOverflowMode mode = ACL_RT_OVERFLOW_MODE_UNDEF;
  ASSERT_ACL_OK(aclrtGetDeviceSatMode(&mode));
  EXPECT_TRUE(mode == ACL_RT_OVERFLOW_MODE_SATURATION || mode == ACL_RT_OVERFLOW_MODE_INFNAN) << mode;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceSatMode(nullptr));
  for (aclrtFloatOverflowMode want : {ACL_RT_OVERFLOW_MODE_SATURATION, ACL_RT_OVERFLOW_MODE_INFNAN}) {
    aclError rc = aclrtSetDeviceSatMode(want);
    EXPECT_TRUE(rc == ACL_SUCCESS || rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) << rc;
    if (rc == ACL_SUCCESS) {
      ASSERT_ACL_OK(aclrtGetDeviceSatMode(&mode));
      EXPECT_EQ(want, mode);
    }
  }
  EXPECT_ACL_EITHER(ACL_ERROR_RT_PARAM_INVALID, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                    aclrtSetDeviceSatMode(static_cast<aclrtFloatOverflowMode>(99)));
}

ARUN_CONFORMANCE_INSTANTIATE(DeviceTest);

}  // namespace
}  // namespace conformance
