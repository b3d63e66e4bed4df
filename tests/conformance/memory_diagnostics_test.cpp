// Memory diagnostics: the leak report (aclrtResetDevice / aclFinalize), the out-of-memory message,
// and the allocator statistics (arunGetMemStats / arunMemReport).
//
// The report is checked through [runtime] leak_report = "error", under which the call that found
// leaks returns ACL_ERROR_FAILURE with the report as its message; each test writes a copy of the
// configuration under test with that key set.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "arun/kernel.hpp"
#include "arun/memory.hpp"
#include "conformance.hpp"

namespace conformance {
namespace {

class MemoryDiagnosticsTest : public AclTest {
 protected:
  void TearDown() override {
    AclTest::TearDown();
    for (const std::string& f : files_) std::remove(f.c_str());
  }

  // The configuration under test with extra [runtime] keys.
  std::string configWith(const std::string& runtimeKeys) {
    std::ifstream in(config());
    std::stringstream text;
    text << in.rdbuf();
    // Drop the keys being set, wherever the file already sets them.
    std::string body, out, line;
    std::istringstream lines(text.str());
    while (std::getline(lines, line)) {
      if (line.rfind("leak_report", 0) == 0 || line.rfind("leak_call_sites", 0) == 0 ||
          line.rfind("memory_report", 0) == 0) {
        continue;
      }
      body += line + "\n";
    }
    const size_t at = body.find("[runtime]\n");
    if (at == std::string::npos) {
      out = "[runtime]\n" + runtimeKeys + "\n" + body;
    } else {
      out = body.substr(0, at + 10) + runtimeKeys + "\n" + body.substr(at + 10);
    }
    // Next to the original, so relative plugin paths in it still resolve; named per process, since
    // the test job runs several suites on the same configuration at once.
    std::string path =
        std::string(config()) + ".leak" + std::to_string(getpid()) + "-" + std::to_string(files_.size()) + ".toml";
    std::ofstream(path) << out;
    files_.push_back(path);
    return path;
  }

  // Restarts the runtime on `path` (the fixture's runtime is finalized first, and must be clean).
  void restartOn(const std::string& path) {
    finalize();
    reinitWith(path);
  }
  // aclFinalize, called by the test; then the plain configuration again for the fixture.
  aclError finalizeHere() {
    aclError rc = aclFinalize();
    finalizedByTest();
    const char* raw = aclGetRecentErrMsg();  // reading consumes the messages
    report_ = raw != nullptr ? raw : "";
    reinit();
    return rc;
  }
  std::string report_;

  std::vector<std::string> files_;
};

void expectContains(const std::string& text, const std::string& part) {
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
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 3000, ACL_MEM_MALLOC_NORMAL_ONLY));
  EXPECT_ACL(ACL_ERROR_FAILURE, aclrtResetDevice(0));
  const char* raw = aclGetRecentErrMsg();  // reading consumes the messages
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
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  // The created context still holds the device, so the block is still valid: not a leak yet.
  EXPECT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
  EXPECT_ACL_OK(aclrtFree(p));
  EXPECT_ACL_OK(aclrtDestroyContext(ctx));
  EXPECT_ACL_OK(finalizeHere());
}

TEST_P(MemoryDiagnosticsTest, WarnAndOffReportWithoutFailing) {
  for (const char* mode : {"warn", "off"}) {
    restartOn(configWith(std::string("leak_report = \"") + mode + "\""));
    ASSERT_ACL_OK(aclrtSetDevice(0));
    void* p = nullptr;
    ASSERT_ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_ACL_OK(finalizeHere()) << mode;
  }
}

TEST_P(MemoryDiagnosticsTest, AnOutOfMemoryMessageExplainsItself) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  size_t freeBytes = 0, total = 0;
  ASSERT_ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &freeBytes, &total));
  void* p = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMalloc(&p, total + (1 << 20), ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_EQ(nullptr, p);
  const char* raw = aclGetRecentErrMsg();  // reading consumes the messages
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
  const char* report = arunMemReport(0);
  ASSERT_NE(nullptr, report);
  expectContains(report, std::string("allocator \"") + st.policy + "\"");
  expectContains(report, "requested");
  expectContains(report, "reserved");
  expectContains(report, "1 live");
  EXPECT_EQ(nullptr, arunMemReport(-1));
  ASSERT_ACL_OK(aclrtFree(small));
  EXPECT_ACL_OK(aclrtResetDevice(0));
}

// arunMemTrim gives cached memory back: after everything is freed and the device is idle, a trim to
// 0 leaves nothing reserved under any policy; what the program holds stays.
TEST_P(MemoryDiagnosticsTest, TrimGivesCachedMemoryBackAndKeepsLiveBlocks) {
  size_t released = 1;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, arunMemTrim(-1, 0, &released));
  ASSERT_ACL_OK(arunMemTrim(0, 0, &released));
  EXPECT_EQ(0u, released) << "a device that is not open has nothing to give back";
  ASSERT_ACL_OK(aclrtSetDevice(0));
  std::vector<void*> blocks;
  for (size_t bytes : {size_t(100), size_t(4096), size_t(3) << 20, size_t(30) << 20}) {
    void* p = nullptr;
    ASSERT_ACL_OK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    blocks.push_back(p);
  }
  void* kept = blocks.back();
  blocks.pop_back();
  for (void* p : blocks) ASSERT_ACL_OK(aclrtFree(p));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  arunMemStats before{}, after{};
  ASSERT_ACL_OK(arunGetMemStats(0, &before));
  ASSERT_ACL_OK(arunMemTrim(0, 0, &released));
  ASSERT_ACL_OK(arunGetMemStats(0, &after));
  EXPECT_EQ(before.reserved.current - after.reserved.current, released);
  EXPECT_GE(after.reserved.current, after.allocated.current) << "the live block's memory stays";
  EXPECT_EQ(uint64_t(30) << 20, after.requested.current);
  // The live block's chunk (30 MiB in 2 MiB pages); under caching:expandable_segments the mappings
  // it spans in the range, the first shared with freed blocks (only the range's end is unmapped).
  EXPECT_LE(after.reserved.current, (uint64_t(34) << 20)) << "only the live block's memory remains";
  // The block that stayed is intact and usable.
  ASSERT_ACL_OK(aclrtMemset(kept, 4096, 0x5a, 4096));
  EXPECT_EQ(std::vector<uint8_t>(4096, 0x5a), readDevice(kept, 4096));
  ASSERT_ACL_OK(aclrtFree(kept));
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  ASSERT_ACL_OK(arunMemTrim(0, 0, nullptr));
  ASSERT_ACL_OK(arunGetMemStats(0, &after));
  EXPECT_EQ(0u, after.reserved.current) << "nothing stays reserved once all is freed and trimmed";
  EXPECT_ACL_OK(aclrtResetDevice(0));
}

// arunMemSnapshot walks the policy's blocks: what the program holds is there as live blocks, no two
// blocks overlap, and a freed block is no longer live.
TEST_P(MemoryDiagnosticsTest, SnapshotShowsLiveBlocksWithoutOverlap) {
  size_t count = 7;
  arunMemBlock one{};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, arunMemSnapshot(0, nullptr, 0, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, arunMemSnapshot(0, nullptr, 1, &count));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, arunMemSnapshot(-1, &one, 1, &count));
  ASSERT_ACL_OK(arunMemSnapshot(0, nullptr, 0, &count));
  EXPECT_EQ(0u, count) << "a device that is not open has no blocks";
  ASSERT_ACL_OK(aclrtSetDevice(0));
  std::vector<std::pair<void*, size_t>> held;
  for (size_t bytes : {size_t(64), size_t(5000), size_t(1) << 20, size_t(3) << 20}) {
    void* p = nullptr;
    ASSERT_ACL_OK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    held.emplace_back(p, bytes);
  }
  void* freed = held[1].first;
  ASSERT_ACL_OK(aclrtFree(freed));
  held.erase(held.begin() + 1);
  ASSERT_ACL_OK(aclrtSynchronizeDevice());
  const std::vector<arunMemBlock> blocks = arun::memory_snapshot(0);
  ASSERT_GE(blocks.size(), held.size());
  for (auto [p, bytes] : held) {
    const auto addr = reinterpret_cast<uint64_t>(p);
    auto it = std::find_if(blocks.begin(), blocks.end(), [&](const arunMemBlock& b) { return b.addr == addr; });
    ASSERT_NE(blocks.end(), it) << "a live block is missing";
    EXPECT_EQ(ARUN_MEM_BLOCK_LIVE, it->state);
    EXPECT_GE(it->size, bytes);
    EXPECT_LE(it->chunk, it->addr);
  }
  for (const arunMemBlock& b : blocks) {
    if (b.addr == reinterpret_cast<uint64_t>(freed)) {
      EXPECT_NE(ARUN_MEM_BLOCK_LIVE, b.state) << "freed, yet live";
    }
  }
  std::vector<arunMemBlock> sorted = blocks;
  std::sort(sorted.begin(), sorted.end(), [](const arunMemBlock& a, const arunMemBlock& b) { return a.addr < b.addr; });
  for (size_t i = 1; i < sorted.size(); ++i) {
    EXPECT_LE(sorted[i - 1].addr + sorted[i - 1].size, sorted[i].addr) << "blocks overlap";
  }
  // A short array gets the first blocks and the full count.
  count = 0;
  ASSERT_ACL_OK(arunMemSnapshot(0, &one, 1, &count));
  EXPECT_EQ(blocks.size(), count);
  EXPECT_EQ(blocks[0].addr, one.addr);
  for (auto [p, bytes] : held) ASSERT_ACL_OK(aclrtFree(p));
  EXPECT_ACL_OK(aclrtResetDevice(0));
}

// The C++ layer (arun/memory.hpp) reports what the C API reports.
TEST_P(MemoryDiagnosticsTest, CppMemoryStatsMatchTheCApi) {
  arun::MemoryStats cpp;
  EXPECT_EQ(ACL_ERROR_RT_INVALID_DEVICEID, arun::memory_stats(-1, &cpp));
  EXPECT_EQ("", arun::memory_report(-1));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 5000, ACL_MEM_MALLOC_HUGE_FIRST));
  arunMemStats c{};
  ASSERT_ACL_OK(arunGetMemStats(0, &c));
  ASSERT_EQ(ACL_SUCCESS, arun::memory_stats(0, &cpp));
  EXPECT_EQ(std::string(c.policy), cpp.policy);
  EXPECT_EQ(5000u, cpp.requested.current);
  EXPECT_EQ(c.allocated.current, cpp.allocated.current);
  EXPECT_EQ(c.reserved.peak, cpp.reserved.peak);
  EXPECT_EQ(1u, cpp.live_blocks);
  EXPECT_EQ(c.chunkAcquires, cpp.chunk_acquires);
  EXPECT_DOUBLE_EQ(double(c.reserved.peak) / 5000.0, cpp.overhead());
  EXPECT_GE(cpp.overhead(), 1.0) << "a policy holds at least what it hands out";
  expectContains(arun::memory_report(0), "1 live");
  ASSERT_ACL_OK(aclrtFree(p));
  EXPECT_ACL_OK(aclrtResetDevice(0));
}

// A stream-ordered free (arunFreeAsync) is legal while work queued before it on its stream still
// uses the block, and on other streams once arunMemRecordStream named them: that work runs without
// a fault, and no allocation gets the block until it is done.
TEST_P(MemoryDiagnosticsTest, StreamOrderedFreeWaitsForEveryStreamThatUsedTheBlock) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  constexpr size_t kBytes = 1 << 20;
  aclrtStream s1 = nullptr, s2 = nullptr, s3 = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s1));
  ASSERT_ACL_OK(aclrtCreateStream(&s2));
  ASSERT_ACL_OK(aclrtCreateStream(&s3));
  auto writer = [](Gate* gate) {
    return [gate](arun::Block b, uint8_t* p, size_t n) {
      if (gate != nullptr) Gate::taskFn(gate);
      auto v = b.map(p, n);
      for (size_t i = 0; i < n; ++i) v[i] = 0xee;
    };
  };
  uint8_t *same = nullptr, *other = nullptr;
  ASSERT_ACL_OK(arunMallocAsync(reinterpret_cast<void**>(&same), kBytes, ACL_MEM_MALLOC_HUGE_FIRST, s1));
  ASSERT_ACL_OK(arunMallocAsync(reinterpret_cast<void**>(&other), kBytes, ACL_MEM_MALLOC_HUGE_FIRST, s1));
  ASSERT_ACL_OK(arunMemRecordStream(other, s2));
  // s2 runs a kernel on `other` that waits at the gate; s1 queues a kernel on `same` behind it (an
  // event), so both are still to finish when the blocks are freed, even on a one-core device.
  Gate& gate = newGate();
  aclrtEvent after_s2 = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&after_s2));
  ASSERT_ACL_OK(arun::launch(s2, 1, writer(&gate), other, kBytes));
  ASSERT_ACL_OK(aclrtRecordEvent(after_s2, s2));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s1, after_s2));
  ASSERT_ACL_OK(arun::launch(s1, 1, writer(nullptr), same, kBytes));
  ASSERT_TRUE(gate.waitEntered(1));
  ASSERT_ACL_OK(arunFreeAsync(same, s1));
  ASSERT_ACL_OK(arunFreeAsync(other, s1));
  // While both kernels are pending: allocations from other streams, and the stream-less aclrtMalloc,
  // never get the blocks; s1 may get `same` (its kernel runs first) but not `other`, which s2 uses.
  auto overlaps = [&](const uint8_t* p, const uint8_t* b) { return !(p + kBytes <= b || b + kBytes <= p); };
  std::vector<std::pair<uint8_t*, aclrtStream>> fresh;
  for (aclrtStream s : {s3, s3, static_cast<aclrtStream>(nullptr), s1, s1}) {
    uint8_t* p = nullptr;
    if (s == nullptr) {
      ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&p), kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    } else {
      ASSERT_ACL_OK(arunMallocAsync(reinterpret_cast<void**>(&p), kBytes, ACL_MEM_MALLOC_HUGE_FIRST, s));
    }
    EXPECT_FALSE(overlaps(p, other)) << "a block stream s2 still writes was handed out";
    if (s != s1) {
      EXPECT_FALSE(overlaps(p, same)) << "a block s1's queued kernel writes went to another stream";
    }
    fresh.emplace_back(p, s);
  }
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeStream(s2)) << "a recorded stream may use the block until it is done";
  EXPECT_ACL_OK(aclrtSynchronizeStream(s1)) << "work queued before a stream-ordered free may use the block";
  EXPECT_ACL_OK(aclrtDestroyEvent(after_s2));
  for (auto& [p, s] : fresh) {
    ASSERT_ACL_OK(aclrtMemset(p, kBytes, 0x11, kBytes));
    EXPECT_EQ(std::vector<uint8_t>(kBytes, 0x11), readDevice(p, kBytes));
    EXPECT_ACL_OK(aclrtFree(p));
  }
  for (aclrtStream s : {s1, s2, s3}) EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtResetDevice(0));
}

// ASCEND_RUN_ALLOC_TRACE records every allocation, free, cross-stream use and synchronisation, in order, naming
// blocks by id and streams by their process-wide id: what `ascend-run replay` reads.
TEST_P(MemoryDiagnosticsTest, AllocationTraceRecordsAllocationsFreesUsesAndStreams) {
  const std::string path = std::string(config()) + ".trace" + std::to_string(getpid());
  files_.push_back(path);
  finalize();
  setenv("ASCEND_RUN_ALLOC_TRACE", path.c_str(), 1);
  reinitWith(config());
  unsetenv("ASCEND_RUN_ALLOC_TRACE");
  ASSERT_ACL_OK(aclrtSetDevice(0));
  aclrtStream s1 = nullptr, s2 = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s1));
  ASSERT_ACL_OK(aclrtCreateStream(&s2));
  void *a = nullptr, *b = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&a, 1000, ACL_MEM_MALLOC_NORMAL_ONLY));
  ASSERT_ACL_OK(arunMallocAsync(&b, 2000, ACL_MEM_MALLOC_HUGE_FIRST, s1));
  ASSERT_ACL_OK(arunMemRecordStream(b, s2));
  ASSERT_ACL_OK(arunFreeAsync(b, s1));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s1));
  EXPECT_ACL(ACL_ERROR_RT_MEMORY_FREE, aclrtFree(b)) << "a failed free is not traced";
  ASSERT_ACL_OK(aclrtFree(a));
  ASSERT_ACL_OK(aclrtDestroyStream(s1));
  ASSERT_ACL_OK(aclrtDestroyStream(s2));
  ASSERT_ACL_OK(aclrtResetDevice(0));

  std::ifstream in(path);
  std::string line;
  std::vector<std::vector<std::string>> events;  // fields after the time stamp
  uint64_t last_t = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    uint64_t t = 0;
    fields >> t;
    EXPECT_GE(t, last_t) << "times never go back: " << line;
    last_t = t;
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    events.push_back(f);
  }
  ASSERT_EQ(9u, events.size());
  using V = std::vector<std::string>;
  EXPECT_EQ((V{"a", "0", "0", "1000", "0", "1"}), events[0]);
  ASSERT_EQ(6u, events[1].size());
  const std::string stream1 = events[1][2];
  EXPECT_NE("0", stream1);
  EXPECT_EQ((V{"a", "0", stream1, "2000", "0", "2"}), events[1]) << "HUGE_FIRST under 1 MiB takes normal pages";
  ASSERT_EQ(4u, events[2].size());
  const std::string stream2 = events[2][2];
  EXPECT_NE(stream1, stream2);
  EXPECT_EQ((V{"u", "0", stream2, "2"}), events[2]);
  EXPECT_EQ((V{"f", "0", stream1, "2"}), events[3]);
  EXPECT_EQ((V{"s", "0", stream1}), events[4]);
  EXPECT_EQ((V{"f", "0", "0", "1"}), events[5]);
  EXPECT_EQ((V{"x", "0", stream1}), events[6]);
  EXPECT_EQ((V{"x", "0", stream2}), events[7]);
  ASSERT_EQ(3u, events[8].size());  // the default stream, at aclrtResetDevice
  EXPECT_EQ("x", events[8][0]);
  EXPECT_NE(stream1, events[8][2]);
  EXPECT_NE(stream2, events[8][2]);
}

TEST_P(MemoryDiagnosticsTest, AnUnwritableTracePathFailsInitWithTheReason) {
  finalize();
  setenv("ASCEND_RUN_ALLOC_TRACE", "/nonexistent-dir/trace.txt", 1);
  const aclError rc = aclInit(config());
  unsetenv("ASCEND_RUN_ALLOC_TRACE");
  const char* raw = aclGetRecentErrMsg();
  const std::string msg = raw != nullptr ? raw : "";
  if (rc == ACL_SUCCESS) aclFinalize();
  EXPECT_EQ(ACL_ERROR_INVALID_PARAM, rc);
  expectContains(msg, "ASCEND_RUN_ALLOC_TRACE");
  expectContains(msg, "/nonexistent-dir/trace.txt");
  reinit();
}

// [runtime] memory_report = true (or ASCEND_RUN_MEM_REPORT=1) prints the allocator report to
// stderr when the device closes, whatever the log level.
TEST_P(MemoryDiagnosticsTest, MemoryReportIsPrintedWhenTheDeviceCloses) {
  restartOn(configWith("memory_report = true"));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  void* p = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&p, 3 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtFree(p));
  testing::internal::CaptureStderr();
  const aclError rc = aclrtResetDevice(0);
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_ACL_OK(rc);
  expectContains(err, "device 0 memory, allocator");
  expectContains(err, "3.0 MiB");  // the requested peak
  expectContains(err, "1 allocations, 1 frees");
  expectContains(err, "peak reserved / peak requested");

  // Off again through the environment, which wins over the file; a bad value is refused.
  finalize();
  setenv("ASCEND_RUN_MEM_REPORT", "0", 1);
  reinitWith(files_.back());
  ASSERT_ACL_OK(aclrtSetDevice(0));
  testing::internal::CaptureStderr();
  ASSERT_ACL_OK(aclrtResetDevice(0));
  EXPECT_EQ(std::string::npos, testing::internal::GetCapturedStderr().find("memory, allocator"));
  finalize();
  setenv("ASCEND_RUN_MEM_REPORT", "loud", 1);
  const aclError bad = aclInit(config());
  unsetenv("ASCEND_RUN_MEM_REPORT");
  const char* raw = aclGetRecentErrMsg();
  const std::string msg = raw != nullptr ? raw : "";
  if (bad == ACL_SUCCESS) aclFinalize();
  EXPECT_EQ(ACL_ERROR_INVALID_PARAM, bad);
  expectContains(msg, "ASCEND_RUN_MEM_REPORT=\"loud\"");
  reinit();
}

// Memory freed while a kernel that uses it is still queued or running is never handed to a new
// allocation before that kernel is done, under any allocator policy: the kernel faults on the freed
// block (use after free) instead of writing into somebody else's memory.
TEST_P(MemoryDiagnosticsTest, FreedMemoryIsNotReusedWhileAKernelMayStillUseIt) {
  ASSERT_ACL_OK(aclrtSetDevice(0));
  constexpr size_t kBytes = 1 << 20;
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  auto* a = static_cast<uint8_t*>(nullptr);
  ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&a), kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  Gate& gate = newGate();
  // The kernel waits at the gate, then writes all of `a`.
  ASSERT_ACL_OK(arun::launch(
      s, 1,
      [&gate](arun::Block b, uint8_t* p, size_t n) {
        Gate::taskFn(&gate);
        auto v = b.map(p, n);
        for (size_t i = 0; i < n; ++i) v[i] = 0xee;
      },
      a, kBytes));
  ASSERT_TRUE(gate.waitEntered(1));
  ASSERT_ACL_OK(aclrtFree(a));  // the program's bug: the kernel still needs it
  // New allocations of the same size, on this stream's context, while the kernel waits.
  std::vector<uint8_t*> fresh(4, nullptr);
  for (auto& p : fresh) {
    ASSERT_ACL_OK(aclrtMalloc(reinterpret_cast<void**>(&p), kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_TRUE(p + kBytes <= a || a + kBytes <= p) << "a block the running kernel may still write was handed out";
    ASSERT_ACL_OK(aclrtMemset(p, kBytes, 0x11, kBytes));
  }
  gate.open();
  EXPECT_ACL(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(s)) << "the kernel touched freed memory";
  for (auto* p : fresh) {
    EXPECT_EQ(std::vector<uint8_t>(kBytes, 0x11), readDevice(p, kBytes)) << "another allocation was corrupted";
    EXPECT_ACL_OK(aclrtFree(p));
  }
  // Once the kernel is done, the memory is reusable (and comes back to the device or the cache).
  void* again = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&again, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL_OK(aclrtFree(again));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtResetDevice(0));
}

}  // namespace
ARUN_CONFORMANCE_INSTANTIATE(MemoryDiagnosticsTest);
}  // namespace conformance
