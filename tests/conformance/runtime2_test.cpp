// Spec part 2 (acl-api-runtime-2.md), section 4: the functions our headers declared without
// libascendcl defining them — one test per error rule, plus what each call does where this runtime
// can do it. Rule R2 (query of a never-recorded event) is covered in event_test.cpp.
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "acl/acl_prof.h"
#include "arun/kernel.h"
#include "conformance.hpp"

namespace conformance {
namespace {

namespace fs = std::filesystem;

class Runtime2Test : public AclDeviceTest {};

// ------------------------------------------------------------------ aclFinalizeReference

TEST_P(Runtime2Test, FinalizeReferenceDropsOneReferenceAndTheLastFinalizes) {
  // The fixture's aclInit is one reference; a repeat (100002) still counts.
  ASSERT_ACL(ACL_ERROR_REPEAT_INITIALIZE, aclInit(config()));
  uint64_t left = 99;
  ASSERT_ACL_OK(aclFinalizeReference(&left));
  EXPECT_EQ(1u, left);
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST)) << "the runtime must still be up";
  ASSERT_ACL_OK(aclrtFree(p));
  left = 99;
  ASSERT_ACL_OK(aclFinalizeReference(&left));
  finalizedByTest();
  EXPECT_EQ(0u, left);
  EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST)) << "the last reference finalizes";
}

TEST_P(Runtime2Test, FinalizeReferenceWithoutRuntimeIsRepeatFinalize) {
  finalize();
  uint64_t left = 99;
  EXPECT_ACL(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(&left));
  EXPECT_EQ(0u, left);
  EXPECT_ACL(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(nullptr)) << "refCount is optional";
}

TEST_P(Runtime2Test, FinalizeReferenceAcceptsNullRefCount) {
  ASSERT_ACL_OK(aclFinalizeReference(nullptr));
  finalizedByTest();
  EXPECT_ACL(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
}

// ------------------------------------------------------------------ aclsysGetCANNVersion

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

// ASCEND_HOME_PATH set to a scratch installation for one test; restored afterwards.
class CannHome {
 public:
  CannHome() : root_(fs::path(::testing::TempDir()) / ("arun_cann_home_" + std::to_string(::getpid()))) {
    if (const char* old = std::getenv("ASCEND_HOME_PATH")) old_ = old;
    fs::remove_all(root_);
    fs::create_directories(root_);
    ::setenv("ASCEND_HOME_PATH", root_.c_str(), 1);
  }
  ~CannHome() {
    if (old_) {
      ::setenv("ASCEND_HOME_PATH", old_->c_str(), 1);
    } else {
      ::unsetenv("ASCEND_HOME_PATH");
    }
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  void write(const std::string& package, const std::string& content) {
    fs::create_directories(root_ / "share" / "info" / package);
    std::ofstream(root_ / "share" / "info" / package / "version.info") << content;
  }

 private:
  fs::path root_;
  std::optional<std::string> old_;
};

TEST_P(Runtime2Test, CannVersionNullVersionIsInvalidParam) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclsysGetCANNVersion(ACL_PKG_NAME_CANN, nullptr));
}

TEST_P(Runtime2Test, CannVersionUnknownNameIsInvalidParam) {
  CannHome home;
  home.write("runtime", "Version=8.0.0\n");
  aclCANNPackageVersion v;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclsysGetCANNVersion(static_cast<aclCANNPackageName>(8), &v));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclsysGetCANNVersion(static_cast<aclCANNPackageName>(-1), &v));
}

TEST_P(Runtime2Test, CannVersionWithoutAscendHomeIsInvalidFile) {
  std::optional<CannHome> home;
  home.emplace();
  ::unsetenv("ASCEND_HOME_PATH");
  aclCANNPackageVersion v;
  EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, &v));
}

TEST_P(Runtime2Test, CannVersionMissingFileOrLineOrPartsIsInvalidFile) {
  CannHome home;
  aclCANNPackageVersion v;
  EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetCANNVersion(ACL_PKG_NAME_HCCL, &v)) << "no version file";
  home.write("hccl", "Name=hccl\n");
  EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetCANNVersion(ACL_PKG_NAME_HCCL, &v)) << "no Version= line";
  home.write("hccl", "Version=8\n");
  EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetCANNVersion(ACL_PKG_NAME_HCCL, &v)) << "one part only";
}

TEST_P(Runtime2Test, CannVersionSplitsAndRewritesPreRelease) {
  CannHome home;
  home.write("runtime", "Name=runtime\nVersion=8.0.0-rc.1\n");
  aclCANNPackageVersion v;
  std::memset(&v, 0x55, sizeof v);
  for (aclCANNPackageName name : {ACL_PKG_NAME_CANN, ACL_PKG_NAME_RUNTIME}) {
    ASSERT_ACL_OK(aclsysGetCANNVersion(name, &v));
    EXPECT_STREQ("8.0.0.rc1", v.version);
    EXPECT_STREQ("8", v.majorVersion);
    EXPECT_STREQ("0", v.minorVersion);
    EXPECT_STREQ("0", v.releaseVersion);
    EXPECT_STREQ("rc1", v.patchVersion);
    EXPECT_EQ('\0', v.reserved[0]);
  }
}

TEST_P(Runtime2Test, CannVersionFallsBackToUnderscoreDirectoryAndFillsMissingParts) {
  CannHome home;
  home.write("bisheng_compiler", "Version=7.3\n");
  aclCANNPackageVersion v;
  ASSERT_ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_COMPILER, &v));
  EXPECT_STREQ("7.3", v.version);
  EXPECT_STREQ("7", v.majorVersion);
  EXPECT_STREQ("3", v.minorVersion);
  EXPECT_STREQ("0", v.releaseVersion);
  EXPECT_STREQ("0", v.patchVersion);
  home.write("ops-legacy", "Version=1.2.3.4.5\n");
  ASSERT_ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_OPP_KERNEL, &v));
  EXPECT_STREQ("1.2.3.4.5", v.version);
  EXPECT_STREQ("4", v.patchVersion);
}

#pragma GCC diagnostic pop

// ------------------------------------------------------------------ aclGetDeviceCapability

TEST_P(Runtime2Test, DeviceCapabilityNullValueIsInvalidParam) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, nullptr));
}

TEST_P(Runtime2Test, DeviceCapabilityDeviceOutOfRangeIsInvalidParam) {
  int64_t value = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetDeviceCapability(deviceCount(), ACL_DEVICE_INFO_AI_CORE_NUM, &value));
}

TEST_P(Runtime2Test, DeviceCapabilityUnknownInfoIsInvalidParam) {
  int64_t value = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetDeviceCapability(0, static_cast<aclDeviceInfo>(3), &value));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclGetDeviceCapability(0, ACL_DEVICE_INFO_UNDEFINED, &value));
}

TEST_P(Runtime2Test, DeviceCapabilityMatchesDeviceInfoWithoutAContext) {
  const std::pair<aclDeviceInfo, aclrtDevAttr> pairs[] = {
      {ACL_DEVICE_INFO_AI_CORE_NUM, ACL_DEV_ATTR_AICORE_CORE_NUM},
      {ACL_DEVICE_INFO_VECTOR_CORE_NUM, ACL_DEV_ATTR_VECTOR_CORE_NUM},
      {ACL_DEVICE_INFO_L2_SIZE, ACL_DEV_ATTR_L2_CACHE_SIZE},
  };
  const uint32_t device = static_cast<uint32_t>(lastDevice());
  for (const auto& [info, attr] : pairs) {
    int64_t expected = -1;
    const aclError code = aclrtGetDeviceInfo(device, attr, &expected);
    inNewThread([&, info = info] {  // no current context on this thread
      int64_t value = -2;
      EXPECT_ACL(code, aclGetDeviceCapability(device, info, &value)) << "info " << info;
      if (code == ACL_SUCCESS) {
        EXPECT_EQ(expected, value) << "info " << info;
      }
    });
  }
}

// ------------------------------------------------------------------ aclrtDeviceSetLimit / GetLimit

bool socHasSimt() {
  const char* soc = aclrtGetSocName();
  return soc != nullptr && std::string(soc).rfind("Ascend950", 0) == 0;
}

size_t getLimit(aclrtDeviceLimit limit) {
  size_t value = 0;
  EXPECT_ACL_OK(aclrtDeviceGetLimit(limit, &value));
  return value;
}

TEST_P(Runtime2Test, DeviceLimitUnknownLimitIsInvalidParam) {
  size_t value = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceSetLimit(static_cast<aclrtDeviceLimit>(5), 32768));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceSetLimit(static_cast<aclrtDeviceLimit>(-1), 32768));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetLimit(static_cast<aclrtDeviceLimit>(5), &value));
}

TEST_P(Runtime2Test, DeviceGetLimitNullValueIsInvalidParam) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, nullptr));
}

TEST_P(Runtime2Test, DeviceSetLimitValueAboveUint32IsInvalidParam) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, size_t{UINT32_MAX} + 1));
}

TEST_P(Runtime2Test, DeviceLimitSimdStackIsRoundedAndBounded) {
  const size_t max = socHasSimt() ? 131072 : 196608;
  EXPECT_EQ(32768u, getLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE)) << "default";
  ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 100));
  EXPECT_EQ(32768u, getLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE)) << "values up to 32768 mean 32768";
  ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 40000));
  EXPECT_EQ(49152u, getLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE)) << "rounded up to 16384";
  ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, max));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, max + 1));
  EXPECT_EQ(max, getLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE)) << "a refused value changes nothing";
  ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 32768));  // process-wide: restore
}

TEST_P(Runtime2Test, DeviceLimitSimdPrintfFifoRange) {
  EXPECT_EQ(32768u, getLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE)) << "default";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 1023));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 67108865));
  ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 1025));
  EXPECT_EQ(1032u, getLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE)) << "rounded up to 8";
  ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 32768));
}

TEST_P(Runtime2Test, DeviceLimitSimtLimitsNeedASimtChip) {
  if (socHasSimt()) GTEST_SKIP() << "the SoC has SIMT";
  size_t value = 0;
  for (aclrtDeviceLimit limit : {ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE,
                                 ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE}) {
    EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtDeviceSetLimit(limit, 2097152)) << limit;
    EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtDeviceGetLimit(limit, &value)) << limit;
  }
}

TEST_P(Runtime2Test, DeviceLimitSimtStacksCannotBothBeZero) {
  if (!socHasSimt()) GTEST_SKIP() << "SIMT limits exist on SIMT chips only";
  ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE, 0));
  ASSERT_ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, 1152));
}

// ------------------------------------------------------------------ aclrtMallocAlign32

TEST_P(Runtime2Test, MallocAlign32NullOrZeroIsInvalidParam) {
  void* p = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST));
}

TEST_P(Runtime2Test, MallocAlign32RoundingOverflowIsInvalidParam) {
  void* p = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32(&p, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32(&p, SIZE_MAX - 30, ACL_MEM_MALLOC_HUGE_FIRST));
}

TEST_P(Runtime2Test, MallocAlign32AddsNoTailPad) {
  // Rounded to 32 this size fits size_t; with aclrtMalloc's extra 32-byte pad it would not.
  const size_t size = SIZE_MAX - 40;
  void* p = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMallocAlign32(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
}

TEST_P(Runtime2Test, MallocAlign32WithoutContextIsContextNull) {
  inNewThread([] {
    void* p = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtMallocAlign32(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  });
}

TEST_P(Runtime2Test, MallocAlign32AllocatesUsableAlignedMemory) {
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMallocAlign32(&p, 100, ACL_MEM_MALLOC_NORMAL_ONLY));
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(p) % 64);
  const auto data = pattern(100, 7);
  writeDevice(p, data);
  EXPECT_EQ(data, readDevice(p, 100));
  EXPECT_ACL_OK(aclrtFree(p));
}

// ------------------------------------------------------------------ aclrtMallocWithCfg

TEST_P(Runtime2Test, MallocWithCfgNullDevPtrIsInvalidParam) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocWithCfg(nullptr, 64, ACL_MEM_MALLOC_HUGE_FIRST, nullptr));
}

TEST_P(Runtime2Test, MallocWithCfgAttrsNullWithCountIsInvalidParam) {
  void* p = nullptr;
  aclrtMallocConfig cfg{nullptr, 1};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
}

TEST_P(Runtime2Test, MallocWithCfgZeroSizeIsInvalidParam) {
  void* p = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMallocWithCfg(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST, nullptr));
}

TEST_P(Runtime2Test, MallocWithCfgAttrsNullWithoutCountIsRtParamInvalid) {
  void* p = nullptr;
  aclrtMallocConfig cfg{nullptr, 0};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
}

TEST_P(Runtime2Test, MallocWithCfgRejectsForeignDeviceVaFlagAndUnknownAttributes) {
  void* p = nullptr;
  int32_t device = -1;
  ASSERT_ACL_OK(aclrtGetDevice(&device));
  aclrtMallocAttribute attr{};
  aclrtMallocConfig cfg{&attr, 1};
  attr.attr = ACL_RT_MEM_ATTR_DEVICE_ID;
  attr.value.deviceId = static_cast<uint32_t>(device) + 1;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
  attr = aclrtMallocAttribute{};
  attr.attr = ACL_RT_MEM_ATTR_VA_FLAG;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
  attr = aclrtMallocAttribute{};
  attr.attr = static_cast<aclrtMallocAttrType>(4);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
}

TEST_P(Runtime2Test, MallocWithCfgInvalidPolicyCombinationIsRtParamInvalid) {
  void* p = nullptr;
  const auto both = static_cast<aclrtMemMallocPolicy>(ACL_MEM_MALLOC_HUGE_FIRST | ACL_MEM_TYPE_LOW_BAND_WIDTH |
                                                      ACL_MEM_TYPE_HIGH_BAND_WIDTH);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocWithCfg(&p, 64, both, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMallocWithCfg(&p, 64, static_cast<aclrtMemMallocPolicy>(0x2000), nullptr));
}

TEST_P(Runtime2Test, MallocWithCfgWithoutContextIsContextNull) {
  inNewThread([] {
    void* p = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, nullptr));
  });
}

TEST_P(Runtime2Test, MallocWithCfgOutOfMemoryIsMemoryAllocation) {
  size_t freeBytes = 0, total = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeBytes, &total));
  void* p = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION,
             aclrtMallocWithCfg(&p, total + (size_t{1} << 30), ACL_MEM_MALLOC_HUGE_FIRST, nullptr));
}

TEST_P(Runtime2Test, MallocWithCfgAllocatesWithValidOptions) {
  int32_t device = -1;
  ASSERT_ACL_OK(aclrtGetDevice(&device));
  aclrtMallocAttribute attrs[3] = {};
  attrs[0].attr = ACL_RT_MEM_ATTR_RSV;
  attrs[1].attr = ACL_RT_MEM_ATTR_MODULE_ID;
  attrs[1].value.moduleId = 65535;  // out of range: replaced, not refused
  attrs[2].attr = ACL_RT_MEM_ATTR_DEVICE_ID;
  attrs[2].value.deviceId = static_cast<uint32_t>(device);
  aclrtMallocConfig cfg{attrs, 3};
  const auto policy = static_cast<aclrtMemMallocPolicy>(ACL_MEM_MALLOC_HUGE_FIRST | ACL_MEM_TYPE_HIGH_BAND_WIDTH |
                                                        ACL_MEM_ACCESS_USER_SPACE_READONLY);
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMallocWithCfg(&p, 100, policy, &cfg));
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(p) % 64);
  EXPECT_ACL_OK(aclrtFreeWithDevSync(p));
  ASSERT_ACL_OK(aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_NORMAL_ONLY, nullptr));
  EXPECT_ACL_OK(aclrtFree(p));
}

// ------------------------------------------------------------------ aclrtFreeWithDevSync

TEST_P(Runtime2Test, FreeWithDevSyncNullIsInvalidParam) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtFreeWithDevSync(nullptr));
}

TEST_P(Runtime2Test, FreeWithDevSyncWithoutContextIsContextNull) {
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  inNewThread([p] { EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtFreeWithDevSync(p)); });
  EXPECT_ACL_OK(aclrtFree(p)) << "the refused call freed nothing";
}

TEST_P(Runtime2Test, FreeWithDevSyncForeignPointerIsRtParamInvalid) {
  int host = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeWithDevSync(&host));
}

TEST_P(Runtime2Test, FreeWithDevSyncWaitsForTheDeviceThenFrees) {
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::atomic<bool> ran{false};
  ASSERT_ACL_OK(launch(s, [&ran] {
    std::this_thread::sleep_for(50ms);
    ran.store(true);
  }));
  ASSERT_ACL_OK(aclrtFreeWithDevSync(p));
  EXPECT_TRUE(ran.load()) << "the free returned before the device's work was done";
  EXPECT_NE(ACL_SUCCESS, aclrtFree(p)) << "the block was freed";
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

void faultingKernel(arunBlock* block, void*) {
  arunBlockFault(block, ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, "test fault");
}

TEST_P(Runtime2Test, FreeWithDevSyncPassesTheSyncErrorAndKeepsTheMemory) {
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(arunLaunchKernel(s, 1, &faultingKernel, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, aclrtFreeWithDevSync(p));
  EXPECT_ACL_OK(aclrtFree(p)) << "the memory stays allocated after a failed synchronisation";
  (void)aclrtSynchronizeStream(s);
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

// ------------------------------------------------------------------ aclrtRecordEventWithFlag

TEST_P(Runtime2Test, RecordEventWithFlagNullEventIsInvalidParam) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRecordEventWithFlag(nullptr, nullptr, ACL_EVENT_RECORD_DEFAULT));
}

TEST_P(Runtime2Test, RecordEventWithFlagUnknownFlagIsInvalidParam) {
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRecordEventWithFlag(e, nullptr, 2));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
}

TEST_P(Runtime2Test, RecordEventWithFlagDeadEventIsInvalidHandle) {
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  ASSERT_ACL_OK(aclrtDestroyEvent(e));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEventWithFlag(e, nullptr, ACL_EVENT_RECORD_DEFAULT));
}

TEST_P(Runtime2Test, RecordEventWithFlagExternalNeedsAnExSyncEvent) {
  aclrtEvent plain = nullptr, ex = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&plain));
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtRecordEventWithFlag(plain, nullptr, ACL_EVENT_RECORD_EXTERNAL));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtRecordEventWithFlag(ex, nullptr, ACL_EVENT_RECORD_EXTERNAL));
  EXPECT_ACL_OK(aclrtDestroyEvent(plain));
  EXPECT_ACL_OK(aclrtDestroyEvent(ex));
}

TEST_P(Runtime2Test, RecordEventWithFlagFirstCallFixesTheFlag) {
  aclrtEvent a = nullptr, b = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&a, ACL_EVENT_SYNC));
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&b, ACL_EVENT_SYNC));
  ASSERT_ACL_OK(aclrtRecordEventWithFlag(a, nullptr, ACL_EVENT_RECORD_DEFAULT));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRecordEventWithFlag(a, nullptr, ACL_EVENT_RECORD_EXTERNAL));
  // A first call that fails fixes the flag too.
  EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclrtRecordEventWithFlag(b, nullptr, ACL_EVENT_RECORD_EXTERNAL));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRecordEventWithFlag(b, nullptr, ACL_EVENT_RECORD_DEFAULT));
  EXPECT_ACL_OK(aclrtSynchronizeDevice());
  EXPECT_ACL_OK(aclrtDestroyEvent(a));
  EXPECT_ACL_OK(aclrtDestroyEvent(b));
}

TEST_P(Runtime2Test, RecordEventWithFlagExternalOnAStreamNotCapturedIsNotCaptured) {
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclrtRecordEventWithFlag(e, s, ACL_EVENT_RECORD_EXTERNAL));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
}

TEST_P(Runtime2Test, RecordEventWithFlagStreamOfAnotherContextIsStreamContext) {
  aclrtContext primary = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclrtContext other = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&other, 0));  // now current
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordEventWithFlag(e, s, ACL_EVENT_RECORD_DEFAULT));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
  ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
  EXPECT_ACL_OK(aclrtDestroyContext(other));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(Runtime2Test, RecordEventWithFlagDefaultRecords) {
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(aclrtRecordEventWithFlag(e, s, ACL_EVENT_RECORD_DEFAULT));
  aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_COMPLETE;
  EXPECT_ACL_OK(aclrtQueryEventStatus(e, &status));
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status) << "the record sits behind the gate";
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeEvent(e));
  EXPECT_ACL_OK(aclrtQueryEventStatus(e, &status));
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status);
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
}

// ------------------------------------------------------------------ aclrtStreamWaitEventWithTimeout

TEST_P(Runtime2Test, StreamWaitEventWithTimeoutNegativeTimeoutIsCheckedFirst) {
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(nullptr, nullptr, -1));
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  ASSERT_ACL_OK(aclrtDestroyEvent(e));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(nullptr, e, -1)) << "before the handle";
}

TEST_P(Runtime2Test, StreamWaitEventWithTimeoutNullEventIsRtParamInvalid) {
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(nullptr, nullptr, 0));
}

TEST_P(Runtime2Test, StreamWaitEventWithTimeoutDeadEventIsInvalidHandle) {
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  ASSERT_ACL_OK(aclrtDestroyEvent(e));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEventWithTimeout(nullptr, e, 0));
}

TEST_P(Runtime2Test, StreamWaitEventWithTimeoutDeviceOnlyEventIsRtParamInvalid) {
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC | ACL_EVENT_DEVICE_USE_ONLY));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(nullptr, e, 0));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
}

TEST_P(Runtime2Test, StreamWaitEventWithTimeoutEventWithoutSyncIsFeatureNotSupport) {
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_TIME_LINE));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEventWithTimeout(nullptr, e, 0));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
}

TEST_P(Runtime2Test, StreamWaitEventWithTimeoutStreamOfAnotherContextIsStreamContext) {
  aclrtContext primary = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&primary));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclrtContext other = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&other, 0));
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtStreamWaitEventWithTimeout(s, e, 5));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
  ASSERT_ACL_OK(aclrtSetCurrentContext(primary));
  EXPECT_ACL_OK(aclrtDestroyContext(other));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(Runtime2Test, StreamWaitEventWithTimeoutOrdersTheStreams) {
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
  ASSERT_ACL_OK(aclrtStreamWaitEventWithTimeout(b, e, 0));
  ASSERT_ACL_OK(launch(b, [&] { bSawADone.store(aDone.load()); }));
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(b));
  EXPECT_TRUE(bSawADone.load()) << "stream b ran past the wait before the event's work was done";
  EXPECT_ACL_OK(aclrtSynchronizeStream(a));
  EXPECT_ACL_OK(aclrtDestroyEvent(e));
  EXPECT_ACL_OK(aclrtDestroyStream(a));
  EXPECT_ACL_OK(aclrtDestroyStream(b));
}

// ------------------------------------------------------------------ aclprofModelSubscribe / UnSubscribe
// Loaded-model cases are in model_test.cpp (they need a model file).

TEST_P(Runtime2Test, ModelSubscribeUnloadedModelIsCheckedFirst) {
  EXPECT_ACL(ACL_ERROR_INVALID_MODEL_ID, aclprofModelSubscribe(987654, nullptr));
}

TEST_P(Runtime2Test, ModelUnSubscribeUnloadedModelIsInvalidModelId) {
  EXPECT_ACL(ACL_ERROR_INVALID_MODEL_ID, aclprofModelUnSubscribe(987654));
}

// ------------------------------------------------------------------ aclrtKernelArgs*

// A forged function handle (never returned by aclrtBinaryGetFunction) is a dead one (R4); live
// handles are tested in kernel_binary_test.cpp.
aclrtFuncHandle forgedFunction() {
  static int object = 0;
  return &object;
}

TEST_P(Runtime2Test, KernelArgsGetMemSizeNullArgumentsAreInvalidParam) {
  size_t size = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsGetMemSize(nullptr, 8, &size));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsGetMemSize(forgedFunction(), 8, nullptr));
}

TEST_P(Runtime2Test, KernelArgsGetMemSizeDeadHandleIsInvalidHandle) {
  size_t size = 0;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsGetMemSize(forgedFunction(), 8, &size));
}

TEST_P(Runtime2Test, KernelArgsInitByUserMemNullOrZeroIsInvalidParam) {
  alignas(8) unsigned char handle[256];
  alignas(8) unsigned char data[256];
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsInitByUserMem(nullptr, handle, data, sizeof data));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsInitByUserMem(forgedFunction(), nullptr, data, sizeof data));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsInitByUserMem(forgedFunction(), handle, nullptr, sizeof data));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtKernelArgsInitByUserMem(forgedFunction(), handle, data, 0));
}

TEST_P(Runtime2Test, KernelArgsInitByUserMemDeadHandleIsInvalidHandle) {
  alignas(8) unsigned char handle[256];
  alignas(8) unsigned char data[256];
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtKernelArgsInitByUserMem(forgedFunction(), handle, data, sizeof data));
}

ARUN_CONFORMANCE_INSTANTIATE(Runtime2Test);

}  // namespace
}  // namespace conformance
