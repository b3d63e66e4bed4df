// Section 2.1: aclInit / aclFinalize, versions, error messages and system queries (plus the
// last-error side channel that section 0.3 attaches to every failing call).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "conformance.hpp"

namespace conformance {
namespace {

class InitTest : public AclTest {
 protected:
  // A temporary file holding `content`; removed in TearDown.
  std::string tempFile(const std::string &content, const std::string &suffix) {
    std::string path = ::testing::TempDir() + "arun_conformance_" + std::to_string(::getpid()) + "_" +
                       std::to_string(tempFiles_.size()) + suffix;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
    tempFiles_.push_back(path);
    return path;
  }
  std::string configContent() {
    std::ifstream in(GetParam(), std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  void TearDown() override {
    AclTest::TearDown();
    for (const auto &path : tempFiles_) std::remove(path.c_str());
  }
  std::vector<std::string> tempFiles_;
};

TEST_P(InitTest, RepeatedInitIsReportedAndRuntimeStaysUsable) {
  EXPECT_ACL(ACL_ERROR_REPEAT_INITIALIZE, aclInit(config()));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  void *dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  auto data = pattern(4096, 1);
  writeDevice(dev, data);
  EXPECT_EQ(data, readDevice(dev, data.size()));
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(InitTest, OneFinalizeDropsTheWholeInitCount) {
  EXPECT_ACL(ACL_ERROR_REPEAT_INITIALIZE, aclInit(config()));
  EXPECT_ACL(ACL_ERROR_REPEAT_INITIALIZE, aclInit(config()));
  ASSERT_NO_FATAL_FAILURE(finalize());
  EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtSetDevice(0));
  EXPECT_ACL(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
  ASSERT_NO_FATAL_FAILURE(reinit());
}

TEST_P(InitTest, SecondFinalizeIsRepeatFinalize) {
  ASSERT_NO_FATAL_FAILURE(finalize());
  EXPECT_ACL(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
  EXPECT_ACL(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
  ASSERT_NO_FATAL_FAILURE(reinit());
}

TEST_P(InitTest, SetDeviceAfterFinalizeIsUninitialized) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_NO_FATAL_FAILURE(finalize());
  EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtSetDevice(0));
  EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtSetDevice(lastDevice()));
  ASSERT_NO_FATAL_FAILURE(reinit());
}

TEST_P(InitTest, SequentialReinitStartsFresh) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  void *dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 1024, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_NO_FATAL_FAILURE(finalize());
  // A fresh init is not a repeat: it returns ACL_SUCCESS, and finalize released the thread's device.
  ASSERT_NO_FATAL_FAILURE(reinit());
  int32_t device = -7;
  EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&device));
  uint32_t count = 0;
  ASSERT_ACL_OK(aclrtGetDeviceCount(&count));
  EXPECT_EQ(deviceCount(), count);
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtMalloc(&dev, 1024, ACL_MEM_MALLOC_HUGE_FIRST));
  auto data = pattern(1024, 2);
  writeDevice(dev, data);
  EXPECT_EQ(data, readDevice(dev, data.size()));
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(InitTest, MissingConfigFileIsInvalidFileAndDoesNotInitialize) {
  ASSERT_NO_FATAL_FAILURE(finalize());
  EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclInit("/nonexistent-arun-dir/no-such-config.toml"));
  // The failed call did not initialise anything: APIs still need init, and the next good call is
  // a first init (ACL_SUCCESS, not ACL_ERROR_REPEAT_INITIALIZE).
  EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtSetDevice(0));
  ASSERT_NO_FATAL_FAILURE(reinit());
}

TEST_P(InitTest, NullOrEmptyPathMeansDefaults) {
  ASSERT_NO_FATAL_FAILURE(finalize());
  ASSERT_ACL_OK(aclInit(nullptr));
  uint32_t count = 0;
  EXPECT_ACL_OK(aclrtGetDeviceCount(&count));
  EXPECT_GE(count, 1u);
  ASSERT_ACL_OK(aclFinalize());
  ASSERT_ACL_OK(aclInit(""));
  EXPECT_ACL_OK(aclrtGetDeviceCount(&count));
  EXPECT_GE(count, 1u);
  ASSERT_ACL_OK(aclFinalize());
  ASSERT_NO_FATAL_FAILURE(reinit());
}

TEST_P(InitTest, RepeatedInitWithSameContentIsRepeatWithDifferentContentInvalidParam) {
  std::string content = configContent();
  ASSERT_FALSE(content.empty()) << "could not read " << GetParam();
  std::string same = tempFile(content, ".toml");
  EXPECT_ACL(ACL_ERROR_REPEAT_INITIALIZE, aclInit(same.c_str()));
  std::string different = tempFile(content + "\n# this line makes the content differ\n", ".toml");
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclInit(different.c_str()));
  // Still initialised and usable after the rejected call.
  EXPECT_ACL_OK(aclrtSetDevice(0));
}

TEST_P(InitTest, RecentErrMsgDescribesTheLastFailureAndIsConsumed) {
  (void)aclGetRecentErrMsg();  // drain anything earlier calls left
  EXPECT_EQ(nullptr, aclGetRecentErrMsg());
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1));
  const char *msg = aclGetRecentErrMsg();
  ASSERT_NE(nullptr, msg);
  EXPECT_GT(std::strlen(msg), 0u);
  EXPECT_EQ(nullptr, aclGetRecentErrMsg()) << "reading the message must consume it";
}

TEST_P(InitTest, RecentErrMsgIsPerThreadByDefault) {
  (void)aclGetRecentErrMsg();
  inNewThread([] {
    (void)aclGetRecentErrMsg();
    EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1));
    // The message stays with the failing thread; read it there.
    const char *msg = aclGetRecentErrMsg();
    EXPECT_NE(nullptr, msg);
  });
  inNewThread([] { EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1)); });
  EXPECT_EQ(nullptr, aclGetRecentErrMsg()) << "another thread's failure leaked into this thread";
}

TEST_P(InitTest, LastErrorRecordsTheFailingCode) {
  (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
  EXPECT_ACL_OK(aclrtGetLastError(ACL_RT_THREAD_LEVEL));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(static_cast<int32_t>(deviceCount())));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL)) << "peek must not clear";
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
  EXPECT_ACL_OK(aclrtGetLastError(ACL_RT_THREAD_LEVEL)) << "get must clear";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetLastError(static_cast<aclrtLastErrLevel>(1)));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtPeekAtLastError(static_cast<aclrtLastErrLevel>(7)));
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST_P(InitTest, RtGetVersionReportsInterfaceVersion) {
  int32_t major = -1, minor = -1, patch = -1;
  ASSERT_ACL_OK(aclrtGetVersion(&major, &minor, &patch));
  EXPECT_EQ(ACL_MAJOR_VERSION, major);
  EXPECT_EQ(ACL_MINOR_VERSION, minor);
  EXPECT_EQ(ACL_PATCH_VERSION, patch);
  EXPECT_EQ(1, major);
  EXPECT_EQ(17, minor);
  EXPECT_EQ(0, patch);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetVersion(nullptr, &minor, &patch));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetVersion(&major, nullptr, &patch));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetVersion(&major, &minor, nullptr));
}
#pragma GCC diagnostic pop

TEST_P(InitTest, SysGetVersionArgumentRules) {
  char pkg[] = "no_such_arun_package_xyz";
  char version[ACL_PKG_VERSION_MAX_SIZE] = {};
  int32_t num = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclsysGetVersionStr(nullptr, version));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclsysGetVersionStr(pkg, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetVersionStr(pkg, version));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclsysGetVersionNum(nullptr, &num));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclsysGetVersionNum(pkg, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_FILE, aclsysGetVersionNum(pkg, &num));
}

TEST_P(InitTest, SocNameIsNonEmptyWithoutADevice) {
  const char *name = aclrtGetSocName();
  ASSERT_NE(nullptr, name);
  EXPECT_GT(std::strlen(name), 0u);
  std::string first(name);
  ASSERT_ACL_OK(aclrtSetDevice(lastDevice()));
  const char *again = aclrtGetSocName();
  ASSERT_NE(nullptr, again);
  EXPECT_EQ(first, std::string(again)) << "the SoC name always describes device 0";
}

TEST_P(InitTest, DataTypeSizeTable) {
  const std::pair<aclDataType, size_t> table[] = {
      {ACL_DT_UNDEFINED, 0}, {ACL_FLOAT, 4},          {ACL_FLOAT16, 2},       {ACL_INT8, 1},
      {ACL_INT32, 4},        {ACL_UINT8, 1},          {ACL_INT16, 2},         {ACL_UINT16, 2},
      {ACL_UINT32, 4},       {ACL_INT64, 8},          {ACL_UINT64, 8},        {ACL_DOUBLE, 8},
      {ACL_BOOL, 1},         {ACL_STRING, 0},         {ACL_COMPLEX64, 8},     {ACL_COMPLEX128, 16},
      {ACL_BF16, 2},         {ACL_INT4, 1},           {ACL_UINT1, 1},         {ACL_COMPLEX32, 4},
      {ACL_HIFLOAT8, 1},     {ACL_FLOAT8_E5M2, 1},    {ACL_FLOAT8_E4M3FN, 1}, {ACL_FLOAT8_E8M0, 1},
      {ACL_FLOAT6_E3M2, 8},  {ACL_FLOAT6_E2M3, 8},    {ACL_FLOAT4_E2M1, 8},   {ACL_FLOAT4_E1M2, 8},
  };
  for (const auto &[type, size] : table) {
    EXPECT_EQ(size, aclDataTypeSize(type)) << "aclDataType " << static_cast<int>(type);
  }
}

TEST_P(InitTest, RunModeIsHost) {
  aclrtRunMode mode = ACL_DEVICE;
  ASSERT_ACL_OK(aclrtGetRunMode(&mode));
  EXPECT_EQ(ACL_HOST, mode);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetRunMode(nullptr));
}

ARUN_CONFORMANCE_INSTANTIATE(InitTest);

}  // namespace
}  // namespace conformance
