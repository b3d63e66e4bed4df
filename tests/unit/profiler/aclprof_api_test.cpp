// The aclprof / msproftx API's error paths: the exact codes of spec 2.10 and a message that says
// what was wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "acl/acl.h"
#include "acl/acl_prof.h"

namespace fs = std::filesystem;

namespace {

std::string last_message() {
  const char* m = aclGetRecentErrMsg();
  return m ? m : "";
}

class AclprofApi : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("arun-aclprof-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    ASSERT_EQ(aclInit(ARUN_TEST_CONFIG), ACL_SUCCESS);
    path_ = dir_.string();
  }
  void TearDown() override {
    aclprofFinalize();  // whatever the test left
    EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
    fs::remove_all(dir_);
  }
  aclError init() { return aclprofInit(path_.c_str(), path_.size()); }
  aclprofConfig* config(uint64_t mask) {
    uint32_t devices[] = {0};
    return aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, nullptr, mask);
  }
  fs::path dir_;
  std::string path_;
};

TEST_F(AclprofApi, StartAndStopBeforeInitAreNotRun) {
  aclprofConfig* cfg = config(ACL_PROF_TASK_TIME);
  ASSERT_NE(cfg, nullptr);
  EXPECT_EQ(aclprofStart(cfg), ACL_ERROR_PROF_NOT_RUN);
  EXPECT_NE(last_message().find("aclprofInit has not been called"), std::string::npos);
  EXPECT_EQ(aclprofStop(cfg), ACL_ERROR_PROF_NOT_RUN);
  EXPECT_EQ(aclprofFinalize(), ACL_ERROR_PROF_NOT_RUN);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "500", 3), ACL_ERROR_PROF_NOT_RUN);
  EXPECT_EQ(aclprofDestroyConfig(cfg), ACL_SUCCESS);
}

TEST_F(AclprofApi, InitChecksItsPathAndRefusesARepeat) {
  EXPECT_EQ(aclprofInit(nullptr, 4), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofInit(path_.c_str(), 0), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofInit(path_.c_str(), 4097), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofInit(path_.c_str(), path_.size() + 3), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(last_message().find("does not match the path's length"), std::string::npos) << last_message();
  std::ofstream(dir_.string() + "-file") << "x";  // a file where a folder is needed
  std::string under_file = dir_.string() + "-file/sub";
  EXPECT_EQ(aclprofInit(under_file.c_str(), under_file.size()), ACL_ERROR_INVALID_FILE);
  fs::remove(dir_.string() + "-file");
  ASSERT_EQ(init(), ACL_SUCCESS);
  EXPECT_TRUE(fs::is_directory(dir_));
  EXPECT_EQ(init(), ACL_ERROR_REPEAT_INITIALIZE);
  EXPECT_EQ(aclprofFinalize(), ACL_SUCCESS);
  EXPECT_EQ(aclprofFinalize(), ACL_ERROR_PROF_NOT_RUN);
}

TEST_F(AclprofApi, CreateConfigRejectsBadArguments) {
  uint32_t devices[] = {0, 0};
  EXPECT_EQ(aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, nullptr, 0x0400ULL), nullptr);  // unassigned bit
  EXPECT_NE(last_message().find("no ACL_PROF_* switch: 0x400"), std::string::npos) << last_message();
  EXPECT_EQ(aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, nullptr, 1ULL << 40), nullptr);
  EXPECT_EQ(aclprofCreateConfig(nullptr, 1, ACL_AICORE_NONE, nullptr, ACL_PROF_TASK_TIME), nullptr);
  EXPECT_EQ(aclprofCreateConfig(devices, 0, ACL_AICORE_NONE, nullptr, ACL_PROF_TASK_TIME), nullptr);
  EXPECT_EQ(aclprofCreateConfig(devices, 2, ACL_AICORE_NONE, nullptr, ACL_PROF_TASK_TIME), nullptr);
  EXPECT_NE(last_message().find("twice"), std::string::npos) << last_message();
  uint32_t bad_device[] = {99};
  EXPECT_EQ(aclprofCreateConfig(bad_device, 1, ACL_AICORE_NONE, nullptr, ACL_PROF_TASK_TIME), nullptr);
  EXPECT_NE(last_message().find("99 is not a device id"), std::string::npos) << last_message();
  EXPECT_EQ(aclprofCreateConfig(devices, 1, static_cast<aclprofAicoreMetrics>(42), nullptr, ACL_PROF_TASK_TIME),
            nullptr);
  EXPECT_EQ(aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, reinterpret_cast<const aclprofAicoreEvents*>(devices),
                                ACL_PROF_TASK_TIME),
            nullptr);
  EXPECT_EQ(aclprofDestroyConfig(nullptr), ACL_ERROR_INVALID_PARAM);
  aclprofConfig* cfg = config(ACL_PROF_TASK_TIME | ACL_PROF_AICORE_METRICS);
  ASSERT_NE(cfg, nullptr);
  EXPECT_EQ(aclprofDestroyConfig(cfg), ACL_SUCCESS);
  EXPECT_EQ(aclprofDestroyConfig(cfg), ACL_ERROR_INVALID_PARAM);  // destroyed twice: refused, not freed again
}

TEST_F(AclprofApi, StartStopPairing) {
  ASSERT_EQ(init(), ACL_SUCCESS);
  EXPECT_EQ(aclprofStart(nullptr), ACL_ERROR_INVALID_PARAM);
  aclprofConfig* cfg = config(ACL_PROF_ACL_API | ACL_PROF_TASK_TIME);
  aclprofConfig* other = config(ACL_PROF_MSPROFTX);
  ASSERT_TRUE(cfg && other);
  EXPECT_EQ(aclprofStop(cfg), ACL_ERROR_PROF_NOT_RUN);  // stop without start
  EXPECT_NE(last_message().find("no session was started"), std::string::npos) << last_message();
  ASSERT_EQ(aclprofStart(cfg), ACL_SUCCESS) << last_message();
  EXPECT_EQ(aclprofStart(cfg), ACL_ERROR_PROF_ALREADY_RUN);
  EXPECT_EQ(aclprofStart(other), ACL_ERROR_PROF_ALREADY_RUN);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "500", 3), ACL_ERROR_PROF_ALREADY_RUN);
  EXPECT_EQ(aclprofStop(other), ACL_ERROR_INVALID_PROFILING_CONFIG);
  EXPECT_EQ(aclprofStop(cfg), ACL_SUCCESS);
  EXPECT_EQ(aclprofStop(cfg), ACL_ERROR_PROF_NOT_RUN);
  // A configuration that selects nothing this device model has data for.
  aclprofConfig* l2 = config(ACL_PROF_L2CACHE);
  ASSERT_NE(l2, nullptr);
  EXPECT_EQ(aclprofStart(l2), ACL_ERROR_PROF_MODULES_UNSUPPORTED);
  for (auto* c : {cfg, other, l2}) EXPECT_EQ(aclprofDestroyConfig(c), ACL_SUCCESS);
  EXPECT_EQ(aclprofFinalize(), ACL_SUCCESS);
}

TEST_F(AclprofApi, SetConfigChecksTypeAndValue) {
  ASSERT_EQ(init(), ACL_SUCCESS);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "500", 3), ACL_SUCCESS);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "200MB", 5), ACL_SUCCESS);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "199", 3), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(last_message().find("[200, 4294967295]"), std::string::npos) << last_message();
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_SYS_IO_FREQ, "100", 3), ACL_SUCCESS);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_SYS_IO_FREQ, "101", 3), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_HOST_SYS_USAGE_FREQ, "51", 2), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_LLC_MODE, "read", 4), ACL_SUCCESS);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_LLC_MODE, "both", 4), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_NTS_METRICS, "Other", 5), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofSetConfig(static_cast<aclprofConfigType>(2), "1", 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_ARGS_MAX, "1", 1), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, nullptr, 3), ACL_ERROR_INVALID_PARAM);
  std::string big(257, '1');
  EXPECT_EQ(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, big.c_str(), big.size()), ACL_ERROR_INVALID_PARAM);
}

TEST_F(AclprofApi, MsproftxNeedsASessionCollectingIt) {
  char not_a_stamp[16] = {};
  EXPECT_EQ(aclprofCreateStamp(), nullptr);  // nothing runs
  EXPECT_EQ(aclprofMark(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofMark(not_a_stamp), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofPop(), ACL_ERROR_PROF_NOT_RUN);
  EXPECT_EQ(aclprofRangeStop(12345), ACL_ERROR_INVALID_PARAM);
  aclprofDestroyStamp(nullptr);       // ignored
  aclprofDestroyStamp(not_a_stamp);   // ignored, not freed
  ASSERT_EQ(init(), ACL_SUCCESS);
  aclprofConfig* tasks_only = config(ACL_PROF_TASK_TIME);
  ASSERT_EQ(aclprofStart(tasks_only), ACL_SUCCESS);
  EXPECT_EQ(aclprofCreateStamp(), nullptr);  // the mask lacks ACL_PROF_MSPROFTX
  EXPECT_NE(last_message().find("ACL_PROF_MSPROFTX"), std::string::npos) << last_message();
  ASSERT_EQ(aclprofStop(tasks_only), ACL_SUCCESS);
  aclprofConfig* tx = config(ACL_PROF_MSPROFTX);
  ASSERT_EQ(aclprofStart(tx), ACL_SUCCESS);
  void* stamp = aclprofCreateStamp();
  ASSERT_NE(stamp, nullptr);
  EXPECT_EQ(aclprofSetStampTraceMessage(stamp, nullptr, 3), ACL_ERROR_INVALID_PARAM);
  std::string long_msg(128, 'm');
  EXPECT_EQ(aclprofSetStampTraceMessage(stamp, long_msg.c_str(), 128), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofSetStampTraceMessage(stamp, long_msg.c_str(), 127), ACL_SUCCESS);
  EXPECT_EQ(aclprofPop(), ACL_ERROR_INVALID_PARAM);  // nothing pushed on this thread
  EXPECT_EQ(aclprofPush(stamp), ACL_SUCCESS);
  EXPECT_EQ(aclprofPop(), ACL_SUCCESS);
  uint32_t a = 0, b = 0;
  EXPECT_EQ(aclprofRangeStart(stamp, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofRangeStart(stamp, &a), ACL_SUCCESS);
  EXPECT_EQ(aclprofRangeStart(stamp, &b), ACL_SUCCESS);
  EXPECT_NE(a, b);
  EXPECT_EQ(aclprofRangeStop(b), ACL_SUCCESS);
  EXPECT_EQ(aclprofRangeStop(b), ACL_ERROR_INVALID_PARAM);  // already closed
  EXPECT_EQ(aclprofRangeStop(a), ACL_SUCCESS);
  EXPECT_EQ(aclprofMark(stamp), ACL_SUCCESS);
  aclprofDestroyStamp(stamp);
  EXPECT_EQ(aclprofMark(stamp), ACL_ERROR_INVALID_PARAM);  // destroyed
  ASSERT_EQ(aclprofStop(tx), ACL_SUCCESS);
  for (auto* c : {tasks_only, tx}) EXPECT_EQ(aclprofDestroyConfig(c), ACL_SUCCESS);
}

TEST_F(AclprofApi, StepInfoTagsOncePerObjectAndNeedsASession) {
  aclprofStepInfo* step = aclprofCreateStepInfo();
  ASSERT_NE(step, nullptr);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclprofGetStepTimestamp(step, ACL_STEP_START, nullptr), ACL_ERROR_PROF_NOT_RUN);
  ASSERT_EQ(init(), ACL_SUCCESS);
  aclprofConfig* cfg = config(ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX);
  ASSERT_EQ(aclprofStart(cfg), ACL_SUCCESS);
  EXPECT_EQ(aclprofGetStepTimestamp(nullptr, ACL_STEP_START, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofGetStepTimestamp(step, static_cast<aclprofStepTag>(7), nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(aclprofGetStepTimestamp(step, ACL_STEP_START, nullptr), ACL_SUCCESS);
  EXPECT_EQ(aclprofGetStepTimestamp(step, ACL_STEP_START, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(last_message().find("already taken"), std::string::npos) << last_message();
  EXPECT_EQ(aclprofGetStepTimestamp(step, ACL_STEP_END, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclprofStop(cfg), ACL_SUCCESS);
  EXPECT_EQ(aclprofDestroyConfig(cfg), ACL_SUCCESS);
  aclprofDestroyStepInfo(step);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

TEST(AclprofConflict, ApiProfilingRefusedWhileTheEnvironmentDrivesIt) {
  fs::path dir = fs::temp_directory_path() / ("arun-aclprof-env-" + std::to_string(::getpid()));
  ASSERT_EQ(setenv("ASCEND_RUN_PROFILING", "timeline", 1), 0);
  fs::path cwd = fs::current_path();
  fs::create_directories(dir);
  fs::current_path(dir);
  ASSERT_EQ(aclInit(ARUN_TEST_CONFIG), ACL_SUCCESS);
  unsetenv("ASCEND_RUN_PROFILING");
  std::string path = (dir / "api").string();
  EXPECT_EQ(aclprofInit(path.c_str(), path.size()), ACL_ERROR_PROF_ALREADY_RUN);
  EXPECT_NE(last_message().find("ASCEND_RUN_PROFILING"), std::string::npos) << last_message();
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
  fs::current_path(cwd);
  EXPECT_FALSE(fs::is_empty(dir / "ascend-run-profile"));
  fs::remove_all(dir);
}

TEST(AclprofConfigFile, BadProfilerKeysFailInitNamingTheKey) {
  fs::path dir = fs::temp_directory_path() / ("arun-aclprof-cfg-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct Case {
    const char* body;
    const char* expect;
  } cases[] = {
      {"[profiler]\nbuffer_size = \"1KiB\"\n", "profiler.buffer_size"},
      {"[profiler]\nbuffer_size = \"lots\"\n", "not a byte size"},
      {"[profiler]\nduration_ms = -1\n", "profiler.duration_ms"},
      {"[profiler]\nwindow = 3\n", "start_after_ms, duration_ms"},
      {"[profiler]\nenabled = true\nsinks = [\"nosuch\"]\n", "unknown profiler sink \"nosuch\""},
  };
  for (const auto& c : cases) {
    fs::path file = dir / "bad.toml";
    std::ofstream(file) << "[[plugin]]\nkind = \"device\"\nname = \"ascend\"\n" << c.body;
    EXPECT_EQ(aclInit(file.string().c_str()), ACL_ERROR_FILE_ATTR_INVALID) << c.body;
    std::string msg = last_message();
    EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
  }
  fs::remove_all(dir);
}

}  // namespace

namespace {

// aclFinalize ends what aclprofInit began, even without aclprofStop / aclprofFinalize: the next
// aclInit .. aclprofInit cycle in the same process starts from nothing.
TEST(AclprofLifecycle, AclFinalizeResetsAclprofForTheNextInit) {
  const fs::path dir = fs::temp_directory_path() / ("arun-aclprof-cycle-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string path = dir.string();
  uint32_t devices[] = {0};
  aclprofConfig* stale = nullptr;
  void* stale_stamp = nullptr;
  for (int cycle = 0; cycle < 2; ++cycle) {
    SCOPED_TRACE("cycle " + std::to_string(cycle));
    ASSERT_EQ(aclInit(ARUN_TEST_CONFIG), ACL_SUCCESS);
    ASSERT_EQ(aclprofInit(path.c_str(), path.size()), ACL_SUCCESS) << last_message();
    if (cycle == 1) {
      // The first cycle's config and stamp died with its runtime (checked before anything new is
      // allocated, which could reuse their addresses).
      EXPECT_EQ(aclprofDestroyConfig(stale), ACL_ERROR_INVALID_PARAM);
      EXPECT_NE(last_message().find("not a live configuration"), std::string::npos) << last_message();
      EXPECT_EQ(aclprofSetStampTraceMessage(stale_stamp, "old", 3), ACL_ERROR_INVALID_PARAM);
      EXPECT_NE(last_message().find("not a live stamp"), std::string::npos) << last_message();
    }
    aclprofConfig* cfg =
        aclprofCreateConfig(devices, 1, ACL_AICORE_NONE, nullptr, ACL_PROF_ACL_API | ACL_PROF_MSPROFTX);
    ASSERT_NE(cfg, nullptr) << last_message();
    ASSERT_EQ(aclprofStart(cfg), ACL_SUCCESS) << last_message();
    void* stamp = aclprofCreateStamp();
    ASSERT_NE(stamp, nullptr);
    if (cycle == 1) {
      ASSERT_EQ(aclprofStop(cfg), ACL_SUCCESS) << last_message();
      ASSERT_EQ(aclprofDestroyConfig(cfg), ACL_SUCCESS);
      aclprofDestroyStamp(stamp);
      ASSERT_EQ(aclprofFinalize(), ACL_SUCCESS);
    } else {
      // Left running, with its stamp: aclFinalize stops the session and drops both (without the
      // reset, the next cycle's aclprofInit would fail with ACL_ERROR_REPEAT_INITIALIZE and its
      // aclprofStart with ACL_ERROR_PROF_ALREADY_RUN).
      stale = cfg;
      stale_stamp = stamp;
    }
    ASSERT_EQ(aclFinalize(), ACL_SUCCESS);
  }
  fs::remove_all(dir);
}

}  // namespace
