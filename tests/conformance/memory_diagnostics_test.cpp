// Memory diagnostics: the leak report (aclrtResetDevice / aclFinalize), the out-of-memory message,
// and the allocator statistics (arunGetMemStats / arunMemReport).
//
// The report is checked through [runtime] leak_report = "error", under which the call that found
// leaks returns ACL_ERROR_FAILURE with the report as its message; each test writes a copy of the
// configuration under test with that key set.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "arun/kernel.hpp"
#include "conformance.hpp"

namespace conformance {
namespace {

class MemoryDiagnosticsTest : public AclTest {
 protected:
  void TearDown() override {
    AclTest::TearDown();
    for (const std::string &f : files_) std::remove(f.c_str());
  }

  // The configuration under test with extra [runtime] keys.
  std::string configWith(const std::string &runtimeKeys) {
    std::ifstream in(config());
    std::stringstream text;
    text << in.rdbuf();
    // Drop the keys being set, wherever the file already sets them.
    std::string body, out, line;
    std::istringstream lines(text.str());
    while (std::getline(lines, line)) {
      if (line.rfind("leak_report", 0) == 0 || line.rfind("leak_call_sites", 0) == 0) continue;
      body += line + "\n";
    }
    const size_t at = body.find("[runtime]\n");
    if (at == std::string::npos) {
      out = "[runtime]\n" + runtimeKeys + "\n" + body;
    } else {
      out = body.substr(0, at + 10) + runtimeKeys + "\n" + body.substr(at + 10);
    }
    // Next to the original, so relative plugin paths in it still resolve.
    std::string path = std::string(config()) + ".leak" + std::to_string(files_.size()) + ".toml";
    std::ofstream(path) << out;
    files_.push_back(path);
    return path;
  }

  // Restarts the runtime on `path` (the fixture's runtime is finalized first, and must be clean).
  void restartOn(const std::string &path) {
    finalize();
    reinitWith(path);
  }
  // aclFinalize, called by the test; then the plain configuration again for the fixture.
  aclError finalizeHere() {
    aclError rc = aclFinalize();
    finalizedByTest();
    const char *raw = aclGetRecentErrMsg();  // reading consumes the messages
    report_ = raw != nullptr ? raw : "";
    reinit();
    return rc;
  }
  std::string report_;

  std::vector<std::string> files_;
};

void expectContains(const std::string &text, const std::string &part) {
  EXPECT_NE(std::string::npos, text.find(part)) << "missing \"" << part << "\" in:\n" << text;
}

TEST_P(MemoryDiagnosticsTest, FinalizeReportsEverythingTheProgramDidNotRelease) {
  restartOn(configWith("leak_report = \"error\"\nleak_call_sites = true"));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  void *a = nullptr, *b = nullptr, *freed = nullptr, *pinned = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&a, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&b, 100, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&freed, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtFree(freed));
  ASSERT_ACL_OK(aclrtMallocHost(&pinned, 8192));
  aclrtStream s = nullptr, destroyed = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&destroyed));
  ASSERT_ACL_OK(aclrtDestroyStream(destroyed));
  int32_t sid = -1;
  ASSERT_ACL_OK(aclrtStreamGetId(s, &sid));
  aclrtEvent e = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&e));
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));

  EXPECT_ACL(ACL_ERROR_FAILURE, finalizeHere()) << "leak_report = \"error\" makes the call fail";
  const std::string report = report_;
  expectContains(report, "leak report at aclFinalize");
  expectContains(report, "device 0 memory (aclrtMalloc): 2 blocks, 1.0 MiB");
  expectContains(report, "1048576 bytes  allocated at ");
  expectContains(report, "100 bytes  allocated at ");
  expectContains(report, "conformance_tests");  // the allocating code's module
  expectContains(report, "pinned host memory (aclrtMallocHost): 1 block, 8.0 KiB");
  expectContains(report, "device 0: 1 stream never destroyed (ids " + std::to_string(sid) + ")");
  expectContains(report, "device 0: 1 event never destroyed");
  expectContains(report, "device 0: 1 context never destroyed");
  expectContains(report, "device 0 still set (aclrtSetDevice without aclrtResetDevice)");
  EXPECT_EQ(std::string::npos, report.find("4096 bytes")) << "a freed block is not a leak";
}

TEST_P(MemoryDiagnosticsTest, ResetDeviceReportsTheMemoryOfTheDeviceItCloses) {
  restartOn(configWith("leak_report = \"error\""));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  void *p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 3000, ACL_MEM_MALLOC_NORMAL_ONLY));
  EXPECT_ACL(ACL_ERROR_FAILURE, aclrtResetDevice(0));
  const char *raw = aclGetRecentErrMsg();  // reading consumes the messages
  const std::string report = raw != nullptr ? raw : "";
  expectContains(report, "leak report at aclrtResetDevice(0)");
  expectContains(report, "device 0 memory (aclrtMalloc): 1 block");
  expectContains(report, "3000 bytes");
  expectContains(report, "leak_call_sites = true");  // how to see where it came from
  EXPECT_EQ(std::string::npos, report.find("allocated at")) << "no call sites unless asked for";
  // The device was reset and its memory reclaimed: finalizing now finds nothing.
  EXPECT_ACL_OK(finalizeHere());
}

TEST_P(MemoryDiagnosticsTest, ResetWhileAnotherContextKeepsTheDeviceOpenReportsNoMemory) {
  restartOn(configWith("leak_report = \"error\""));
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  void *p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  // The created context still holds the device, so the block is still valid: not a leak yet.
  EXPECT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
  EXPECT_ACL_OK(aclrtFree(p));
  EXPECT_ACL_OK(aclrtDestroyContext(ctx));
  EXPECT_ACL_OK(finalizeHere());
}

TEST_P(MemoryDiagnosticsTest, WarnAndOffReportWithoutFailing) {
  for (const char *mode : {"warn", "off"}) {
    restartOn(configWith(std::string("leak_report = \"") + mode + "\""));
    ASSERT_ACL_OK(aclrtSetDevice(0));
    void *p = nullptr;
    ASSERT_ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_ACL_OK(finalizeHere()) << mode;
  }
}

TEST_P(MemoryDiagnosticsTest, AnOutOfMemoryMessageExplainsItself) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  size_t freeBytes = 0, total = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeBytes, &total));
  void *p = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMalloc(&p, total + (1 << 20), ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_EQ(nullptr, p);
  const char *raw = aclGetRecentErrMsg();  // reading consumes the messages
  const std::string msg = raw != nullptr ? raw : "";
  expectContains(msg, "out of memory allocating");
  expectContains(msg, std::to_string(total + (1 << 20)) + " bytes");
  expectContains(msg, "total");
  expectContains(msg, "free");
  expectContains(msg, "largest free range");
  arunMemStats st{};
  ASSERT_ACL_OK(arunGetMemStats(0, &st));
  expectContains(msg, std::string("Allocator \"") + st.policy + "\"");
  expectContains(msg, "reserved");
  expectContains(msg, "allocated");
  expectContains(msg, "fragmentation");
  expectContains(msg, "larger than the whole device");
  EXPECT_ACL_OK(aclrtResetDevice(0));
}

TEST_P(MemoryDiagnosticsTest, MemStatsFollowAllocationsAndFrees) {
  arunMemStats st{};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, arunGetMemStats(0, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, arunGetMemStats(static_cast<int32_t>(deviceCount()), &st));
  ASSERT_ACL_OK(arunGetMemStats(0, &st));
  EXPECT_EQ(0u, st.allocations) << "device 0 is not open yet";
  ASSERT_ACL_OK(aclrtSetDevice(0));
  void *big = nullptr, *small = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&big, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&small, 100, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(arunGetMemStats(0, &st));
  EXPECT_EQ(uint64_t(1 << 20) + 100, st.requested.current);
  EXPECT_GE(st.allocated.current, st.requested.current);
  EXPECT_GE(st.reserved.current, st.allocated.current);
  EXPECT_EQ(2u, st.allocations);
  EXPECT_EQ(2u, st.liveBlocks);
  EXPECT_NE('\0', st.policy[0]) << "the policy is named";
  const uint64_t peak = st.requested.peak;
  ASSERT_ACL_OK(aclrtFree(big));
  ASSERT_ACL_OK(arunGetMemStats(0, &st));
  EXPECT_EQ(100u, st.requested.current);
  EXPECT_EQ(peak, st.requested.peak) << "the peak stays";
  EXPECT_EQ(uint64_t(1 << 20) + 100, st.requested.total);
  EXPECT_EQ(1u, st.frees);
  EXPECT_EQ(1u, st.liveBlocks);
  const char *report = arunMemReport(0);
  ASSERT_NE(nullptr, report);
  expectContains(report, std::string("allocator \"") + st.policy + "\"");
  expectContains(report, "requested");
  expectContains(report, "reserved");
  expectContains(report, "1 live");
  EXPECT_EQ(nullptr, arunMemReport(-1));
  ASSERT_ACL_OK(aclrtFree(small));
  EXPECT_ACL_OK(aclrtResetDevice(0));
}

// Memory freed while a kernel that uses it is still queued or running is never handed to a new
// allocation before that kernel is done, under any allocator policy: the kernel faults on the freed
// block (use after free) instead of writing into somebody else's memory.
TEST_P(MemoryDiagnosticsTest, FreedMemoryIsNotReusedWhileAKernelMayStillUseIt) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  constexpr size_t kBytes = 1 << 20;
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  auto *a = static_cast<uint8_t *>(nullptr);
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void **>(&a), kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  Gate &gate = newGate();
  // The kernel waits at the gate, then writes all of `a`.
  ASSERT_ACL_OK(arun::launch(s, 1, [&gate](arun::Block b, uint8_t *p, size_t n) {
    Gate::taskFn(&gate);
    auto v = b.map(p, n);
    for (size_t i = 0; i < n; ++i) v[i] = 0xee;
  }, a, kBytes));
  ASSERT_TRUE(gate.waitEntered(1));
  ASSERT_ACL_OK(aclrtFree(a));  // the program's bug: the kernel still needs it
  // New allocations of the same size, on this stream's context, while the kernel waits.
  std::vector<uint8_t *> fresh(4, nullptr);
  for (auto &p : fresh) {
    ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void **>(&p), kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_TRUE(p + kBytes <= a || a + kBytes <= p) << "a block the running kernel may still write was handed out";
    ASSERT_ACL_OK(aclrtMemset(p, kBytes, 0x11, kBytes));
  }
  gate.open();
  EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(s)) << "the kernel touched freed memory";
  for (auto *p : fresh) {
    EXPECT_EQ(std::vector<uint8_t>(kBytes, 0x11), readDevice(p, kBytes)) << "another allocation was corrupted";
    EXPECT_ACL_OK(aclrtFree(p));
  }
  // Once the kernel is done, the memory is reusable (and comes back to the device or the cache).
  void *again = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&again, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_OK(aclrtFree(again));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtResetDevice(0));
}

}  // namespace
ARUN_CONFORMANCE_INSTANTIATE(MemoryDiagnosticsTest);
}  // namespace conformance
