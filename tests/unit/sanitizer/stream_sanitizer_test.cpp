// The stream-order sanitizer (issue 25): each race kind is reported with the right pair, and the
// same programs correctly synchronised report nothing. Timing never decides a result: where a test
// needs a task to have run without creating an ordering, it polls arunStreamGetQueueDepth, which
// the sanitizer does not count as synchronisation.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "arun/arun_ext.h"
#include "arun/kernel.hpp"

namespace {

#define ACL_OK(call) ASSERT_EQ((call), ACL_SUCCESS) << #call << ": " << aclGetRecentErrMsg()

std::vector<std::string> reports() {
  uint32_t n = 0;
  EXPECT_EQ(arunStreamSanitizerReportCount(&n), ACL_SUCCESS);
  std::vector<std::string> out;
  for (uint32_t i = 0; i < n; ++i) {
    std::vector<char> buf(16384);
    EXPECT_EQ(arunStreamSanitizerGetReport(i, buf.data(), buf.size(), nullptr), ACL_SUCCESS);
    out.emplace_back(buf.data());
  }
  return out;
}

std::string joined(const std::vector<std::string>& r) {
  std::string s;
  for (const auto& t : r) s += t + "\n----\n";
  return s;
}

// Holds a stream until opened: work queued behind it has certainly not started.
struct Gate {
  std::atomic<int> open{0};
  static void wait(void* p) {
    auto* g = static_cast<Gate*>(p);
    while (g->open.load() == 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
};

// Waits until the stream has run everything, without synchronising with it.
void drained(aclrtStream s) {
  for (;;) {
    uint32_t depth = 1;
    ASSERT_EQ(arunStreamGetQueueDepth(s, &depth, nullptr), ACL_SUCCESS);
    if (depth == 0) return;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

// One block reads `n` floats (a const view) and writes their sum to `out`.
void launch_sum(aclrtStream s, const float* in, float* out, size_t n) {
  ASSERT_EQ(arun::launch(
                s, 1,
                [](arun::Block b, const float* in, float* out, size_t n) {
                  auto v = b.map(in, n);
                  float acc = 0;
                  for (size_t i = 0; i < n; ++i) acc += v[i];
                  b.at(out) = acc;
                },
                in, out, n),
            ACL_SUCCESS);
}

class StreamSanitizer : public ::testing::Test {
 protected:
  static constexpr size_t kBytes = 64 * 1024;
  void SetUp() override {
    setenv("ASCEND_RUN_STREAM_SANITIZER", mode(), 1);
    ACL_OK(aclInit(nullptr));
    ACL_OK(aclrtSetDevice(0));
    ACL_OK(aclrtCreateStream(&s1));
    ACL_OK(aclrtCreateStream(&s2));
    ACL_OK(aclrtMalloc(&buf, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    ACL_OK(aclrtMalloc(&out, 256, ACL_MEM_MALLOC_HUGE_FIRST));
  }
  void TearDown() override {
    (void)aclrtSynchronizeDevice();  // the tests' own clean-up is ordered
    if (buf != nullptr) (void)aclrtFree(buf);
    (void)aclrtFree(out);
    (void)aclrtDestroyStream(s1);
    (void)aclrtDestroyStream(s2);
    (void)aclrtResetDevice(0);
    (void)aclFinalize();
    unsetenv("ASCEND_RUN_STREAM_SANITIZER");
    unsetenv("ASCEND_RUN_ALLOC");
  }
  virtual const char* mode() const { return "report"; }
  aclrtStream s1 = nullptr, s2 = nullptr;
  void* buf = nullptr;
  void* out = nullptr;
};

// ---------------------------------------------------------------- races

TEST_F(StreamSanitizer, CrossStreamReadAfterWrite) {
  ACL_OK(aclrtMemsetAsync(buf, kBytes, 1, kBytes, s1));
  launch_sum(s2, static_cast<const float*>(buf), static_cast<float*>(out), kBytes / 4);
  ACL_OK(aclrtSynchronizeDevice());
  auto r = reports();
  ASSERT_EQ(r.size(), 1u) << joined(r);
  EXPECT_NE(r[0].find("cross-stream read after write"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("write by aclrtMemsetAsync (memset)"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("read by arunLaunchKernel (kernel)"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("Fix: record an event on stream"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("aclrtStreamWaitEvent"), std::string::npos) << r[0];
  // The call sites resolve to this file (the test is built with debug info).
  EXPECT_NE(r[0].find("stream_sanitizer_test.cpp:"), std::string::npos) << r[0];
}

TEST_F(StreamSanitizer, CrossStreamWriteAfterRead) {
  launch_sum(s1, static_cast<const float*>(buf), static_cast<float*>(out), kBytes / 4);
  drained(s1);
  ACL_OK(aclrtMemsetAsync(buf, kBytes, 2, kBytes, s2));
  ACL_OK(aclrtSynchronizeDevice());
  auto r = reports();
  ASSERT_EQ(r.size(), 1u) << joined(r);
  EXPECT_NE(r[0].find("cross-stream write after read"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("first:  read by"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("second: write by aclrtMemsetAsync"), std::string::npos) << r[0];
}

TEST_F(StreamSanitizer, CrossStreamWriteAfterWriteReportedOnceWithCount) {
  for (int i = 0; i < 3; ++i) {
    ACL_OK(aclrtMemsetAsync(buf, kBytes, 1, 4096, s1));
    drained(s1);
    ACL_OK(aclrtMemsetAsync(static_cast<char*>(buf) + 1024, kBytes, 2, 1024, s2));
    drained(s2);
  }
  ACL_OK(aclrtSynchronizeDevice());
  auto r = reports();
  // s2's fill races with s1's of the same iteration, and s1's next fill with s2's: two pairs.
  ASSERT_EQ(r.size(), 2u) << joined(r);
  EXPECT_NE(r[0].find("cross-stream write after write"), std::string::npos) << r[0];
  uint64_t count = 0;
  std::vector<char> text(16384);
  ACL_OK(arunStreamSanitizerGetReport(0, text.data(), text.size(), &count));
  EXPECT_EQ(count, 3u);
  // Only the overlap's owners are named: bytes of each access.
  EXPECT_NE(r[0].find("(4096 bytes)"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("(1024 bytes)"), std::string::npos) << r[0];
}

TEST_F(StreamSanitizer, HostReadOfInFlightPinnedMemory) {
  unsigned char* host = nullptr;
  ACL_OK(aclrtMallocHost(reinterpret_cast<void**>(&host), kBytes));
  std::memset(host, 0, kBytes);
  ACL_OK(aclrtMemset(buf, kBytes, 0xAB, kBytes));
  Gate gate;
  ACL_OK(arunLaunchDeviceTask(&Gate::wait, &gate, s1));
  ACL_OK(aclrtMemcpyAsync(host, kBytes, buf, kBytes, ACL_MEMCPY_DEVICE_TO_HOST, s1));
  const unsigned char seen = *reinterpret_cast<volatile unsigned char*>(host + 100);  // the bug
  gate.open = 1;
  ACL_OK(aclrtSynchronizeStream(s1));
  EXPECT_EQ(seen, 0);  // stale: the copy had not run
  EXPECT_EQ(host[100], 0xAB);
  auto r = reports();
  ASSERT_EQ(r.size(), 1u) << joined(r);
  EXPECT_NE(r[0].find("host access of in-flight pinned memory"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("write by aclrtMemcpyAsync (copy device->host)"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("second: read by host load"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("aclrtSynchronizeStream(stream"), std::string::npos) << r[0];
  ACL_OK(aclrtFreeHost(host));
}

TEST_F(StreamSanitizer, HostWriteOfPinnedSourceInFlight) {
  unsigned char* host = nullptr;
  ACL_OK(aclrtMallocHost(reinterpret_cast<void**>(&host), kBytes));
  Gate gate;
  ACL_OK(arunLaunchDeviceTask(&Gate::wait, &gate, s1));
  ACL_OK(aclrtMemcpyAsync(buf, kBytes, host, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, s1));
  (void)host[7];                                          // reading a copy's source is fine
  *reinterpret_cast<volatile unsigned char*>(host) = 42;  // writing it is not
  gate.open = 1;
  ACL_OK(aclrtSynchronizeStream(s1));
  auto r = reports();
  ASSERT_EQ(r.size(), 1u) << joined(r);
  EXPECT_NE(r[0].find("host access of in-flight pinned memory"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("second: write by host store"), std::string::npos) << r[0];
  ACL_OK(aclrtFreeHost(host));
}

TEST_F(StreamSanitizer, FreeWhileInUse) {
  void* other = nullptr;
  ACL_OK(aclrtMalloc(&other, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  Gate gate;
  ACL_OK(arunLaunchDeviceTask(&Gate::wait, &gate, s1));
  ACL_OK(aclrtMemcpyAsync(other, kBytes, buf, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
  ACL_OK(aclrtFree(buf));  // the bug: the copy still reads it
  buf = nullptr;
  gate.open = 1;
  (void)aclrtSynchronizeStream(s1);  // the copy faults on the freed block
  auto r = reports();
  ASSERT_EQ(r.size(), 1u) << joined(r);
  EXPECT_NE(r[0].find("free while in use"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("first:  read by aclrtMemcpyAsync (copy device->device)"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("second: write by aclrtFree"), std::string::npos) << r[0];
  ACL_OK(aclrtFree(other));
}

TEST_F(StreamSanitizer, FreeHostWhileInUse) {
  void* host = nullptr;
  ACL_OK(aclrtMallocHost(&host, kBytes));
  Gate gate;
  ACL_OK(arunLaunchDeviceTask(&Gate::wait, &gate, s1));
  ACL_OK(aclrtMemcpyAsync(buf, kBytes, host, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, s1));
  ACL_OK(aclrtFreeHost(host));
  gate.open = 1;
  ACL_OK(aclrtSynchronizeStream(s1));
  auto r = reports();
  ASSERT_EQ(r.size(), 1u) << joined(r);
  EXPECT_NE(r[0].find("free while in use"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("aclrtFreeHost"), std::string::npos) << r[0];
}

TEST_F(StreamSanitizer, ReuseThroughTheAllocatorCache) {
  // A caching allocator (fresh runtime): a block freed on s1 is handed out again on s1 at once.
  (void)aclrtFree(buf);
  (void)aclrtFree(out);
  buf = out = nullptr;
  (void)aclrtDestroyStream(s1);
  (void)aclrtDestroyStream(s2);
  (void)aclrtResetDevice(0);
  ACL_OK(aclFinalize());
  setenv("ASCEND_RUN_ALLOC", "caching", 1);
  ACL_OK(aclInit(nullptr));
  ACL_OK(aclrtSetDevice(0));
  ACL_OK(aclrtCreateStream(&s1));
  ACL_OK(aclrtCreateStream(&s2));
  ACL_OK(aclrtMalloc(&out, 256, ACL_MEM_MALLOC_HUGE_FIRST));
  void* p = nullptr;
  ACL_OK(arunMallocAsync(&p, kBytes, ACL_MEM_MALLOC_HUGE_FIRST, s1));
  ACL_OK(aclrtMemsetAsync(p, kBytes, 1, kBytes, s1));
  ACL_OK(aclrtSynchronizeStream(s1));
  launch_sum(s2, static_cast<const float*>(p), static_cast<float*>(out), kBytes / 4);  // s2 reads it
  drained(s2);
  ACL_OK(arunFreeAsync(p, s1));  // the bug: s2's use is not recorded (arunMemRecordStream)
  void* q = nullptr;
  ACL_OK(arunMallocAsync(&q, kBytes, ACL_MEM_MALLOC_HUGE_FIRST, s1));
  ASSERT_EQ(q, p) << "the caching allocator did not hand the block out again";
  ACL_OK(aclrtMemsetAsync(q, kBytes, 2, kBytes, s1));
  ACL_OK(aclrtSynchronizeDevice());
  auto r = reports();
  ASSERT_EQ(r.size(), 1u) << joined(r);
  EXPECT_NE(r[0].find("reuse through the allocator's cache"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("first:  read by"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("second: write by aclrtMemsetAsync"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("freed by arunFreeAsync"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("arunMemRecordStream"), std::string::npos) << r[0];
  ACL_OK(aclrtFree(q));
}

TEST_F(StreamSanitizer, SynchronousCopyRacingQueuedWork) {
  std::vector<unsigned char> host(kBytes);
  ACL_OK(aclrtMemsetAsync(buf, kBytes, 3, kBytes, s1));
  drained(s1);
  ACL_OK(aclrtMemcpy(host.data(), kBytes, buf, kBytes, ACL_MEMCPY_DEVICE_TO_HOST));
  auto r = reports();
  ASSERT_EQ(r.size(), 1u) << joined(r);
  EXPECT_NE(r[0].find("synchronous access racing queued work"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("second: read by aclrtMemcpy (synchronous copy)"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("on host thread"), std::string::npos) << r[0];
}

TEST_F(StreamSanitizer, FreeOfMemoryAQueuedKernelMaps) {
  // The kernel's ranges are known only when it runs: it is queued behind an event wait, the block
  // is freed, then the wait is released and the kernel maps the freed block.
  aclrtEvent ev = nullptr;
  ACL_OK(aclrtCreateEvent(&ev));
  Gate gate;
  ACL_OK(arunLaunchDeviceTask(&Gate::wait, &gate, s2));
  ACL_OK(aclrtRecordEvent(ev, s2));
  ACL_OK(aclrtStreamWaitEvent(s1, ev));
  launch_sum(s1, static_cast<const float*>(buf), static_cast<float*>(out), kBytes / 4);
  ACL_OK(aclrtFree(buf));  // the bug: the queued kernel will read it
  buf = nullptr;
  gate.open = 1;
  (void)aclrtSynchronizeDevice();  // the kernel faults on the freed block (or reads a reused one)
  auto r = reports();
  ASSERT_EQ(r.size(), 1u) << joined(r);
  EXPECT_NE(r[0].find("free while in use"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("first:  read by arunLaunchKernel (kernel)"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("second: write by aclrtFree"), std::string::npos) << r[0];
  EXPECT_NE(r[0].find("before freeing"), std::string::npos) << r[0];
  // The same kernel behind the same wait, freed only after a synchronize: nothing.
  ACL_OK(aclrtMalloc(&buf, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
  Gate gate2;
  ACL_OK(arunLaunchDeviceTask(&Gate::wait, &gate2, s2));
  ACL_OK(aclrtRecordEvent(ev, s2));
  ACL_OK(aclrtStreamWaitEvent(s1, ev));
  launch_sum(s1, static_cast<const float*>(buf), static_cast<float*>(out), kBytes / 4);
  gate2.open = 1;
  (void)aclrtSynchronizeDevice();
  ACL_OK(aclrtFree(buf));
  buf = nullptr;
  EXPECT_EQ(reports().size(), 1u) << joined(reports());
  ACL_OK(aclrtDestroyEvent(ev));
}

// Each host thread has its own clock: a thread that did not synchronise is not ordered after
// device work another thread synchronised with.
TEST_F(StreamSanitizer, HostThreadsHaveTheirOwnClocks) {
  aclrtContext ctx = nullptr;
  ACL_OK(aclrtGetCurrentContext(&ctx));
  aclrtEvent ev = nullptr;
  ACL_OK(aclrtCreateEvent(&ev));
  for (const bool sync_in_reader : {false, true}) {
    std::atomic<int> step{0};
    std::thread reader([&] {
      ASSERT_EQ(aclrtSetCurrentContext(ctx), ACL_SUCCESS);
      ASSERT_EQ(aclrtSynchronizeStream(s2), ACL_SUCCESS);  // the sanitizer sees this thread from here
      step = 1;
      while (step.load() != 2) std::this_thread::sleep_for(std::chrono::microseconds(100));
      if (sync_in_reader) {
        ASSERT_EQ(aclrtSynchronizeEvent(ev), ACL_SUCCESS);
      }
      std::vector<unsigned char> host(kBytes);
      ASSERT_EQ(aclrtMemcpy(host.data(), kBytes, buf, kBytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
      EXPECT_EQ(host[kBytes - 1], sync_in_reader ? 5 : 4);
    });
    while (step.load() != 1) std::this_thread::sleep_for(std::chrono::microseconds(100));
    ACL_OK(aclrtMemsetAsync(buf, kBytes, sync_in_reader ? 5 : 4, kBytes, s1));
    ACL_OK(aclrtRecordEvent(ev, s1));
    ACL_OK(aclrtSynchronizeStream(s1));  // orders this thread, not the reader
    step = 2;
    reader.join();
    auto r = reports();
    ASSERT_EQ(r.size(), 1u) << joined(r);  // the first round's race; the second round adds nothing
    EXPECT_NE(r[0].find("synchronous access racing queued work"), std::string::npos) << r[0];
    EXPECT_NE(r[0].find("first:  write by aclrtMemsetAsync (memset)"), std::string::npos) << r[0];
    EXPECT_NE(r[0].find("second: read by aclrtMemcpy (synchronous copy) on host thread"), std::string::npos) << r[0];
  }
  // The reader exited: this thread is ordered after what it did (its copy), so the free is clean.
  ACL_OK(aclrtFree(buf));
  buf = nullptr;
  EXPECT_EQ(reports().size(), 1u) << joined(reports());
  ACL_OK(aclrtDestroyEvent(ev));
}

// arunSyncRelease / arunSyncAcquire: a kernel that spins on a flag another stream's kernel sets
// orders the two streams for the sanitizer (what HCCL's sync points do across devices).
TEST_F(StreamSanitizer, SyncReleaseAcquireOrdersStreams) {
  static std::atomic<int> flag;
  for (const bool hinted : {true, false}) {
    flag = 0;
    const size_t before = reports().size();
    ACL_OK(aclrtMemsetAsync(buf, kBytes, 1, kBytes, s1));
    ASSERT_EQ(arun::launch(
                  s1, 1,
                  [](arun::Block b, bool hint) {
                    if (hint) b.sync_release(&flag, 1);
                    flag = 1;
                  },
                  hinted),
              ACL_SUCCESS);
    ASSERT_EQ(arun::launch(
                  s2, 1,
                  [](arun::Block b, bool hint) {
                    while (flag.load() == 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
                    if (hint) b.sync_acquire(&flag, 1);
                  },
                  hinted),
              ACL_SUCCESS);
    launch_sum(s2, static_cast<const float*>(buf), static_cast<float*>(out), kBytes / 4);
    ACL_OK(aclrtSynchronizeDevice());
    auto r = reports();
    ASSERT_EQ(r.size(), before + (hinted ? 0 : 1)) << joined(r);
    if (!hinted) {
      EXPECT_NE(r.back().find("cross-stream read after write"), std::string::npos) << r.back();
    }
  }
}

// ---------------------------------------------------------------- the same programs, ordered

TEST_F(StreamSanitizer, OrderedByEvent) {
  aclrtEvent ev;
  ACL_OK(aclrtCreateEvent(&ev));
  ACL_OK(aclrtMemsetAsync(buf, kBytes, 1, kBytes, s1));
  ACL_OK(aclrtRecordEvent(ev, s1));
  ACL_OK(aclrtStreamWaitEvent(s2, ev));
  launch_sum(s2, static_cast<const float*>(buf), static_cast<float*>(out), kBytes / 4);
  ACL_OK(aclrtRecordEvent(ev, s2));
  ACL_OK(aclrtStreamWaitEvent(s1, ev));
  ACL_OK(aclrtMemsetAsync(buf, kBytes, 2, kBytes, s1));
  ACL_OK(aclrtSynchronizeEvent(ev));
  ACL_OK(aclrtSynchronizeStream(s1));
  ACL_OK(aclrtDestroyEvent(ev));
  EXPECT_TRUE(reports().empty()) << joined(reports());
}

TEST_F(StreamSanitizer, OrderedByAnIpcEventOpenedInThisProcess) {
  aclrtEvent ev = nullptr, opened = nullptr;
  ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
  aclrtIpcEventHandle handle{};
  ACL_OK(aclrtIpcGetEventHandle(ev, &handle));
  ACL_OK(aclrtIpcOpenEventHandle(handle, &opened));
  ACL_OK(aclrtMemsetAsync(buf, kBytes, 1, kBytes, s1));
  ACL_OK(aclrtRecordEvent(ev, s1));
  ACL_OK(aclrtStreamWaitEvent(s2, opened));  // an IpcWait: orders s2 after the record
  launch_sum(s2, static_cast<const float*>(buf), static_cast<float*>(out), kBytes / 4);
  ACL_OK(aclrtSynchronizeDevice());
  EXPECT_TRUE(reports().empty()) << joined(reports());
  // The same pair without the wait is the race.
  ACL_OK(aclrtMemsetAsync(buf, kBytes, 2, kBytes, s1));
  ACL_OK(aclrtRecordEvent(ev, s1));
  launch_sum(s2, static_cast<const float*>(buf), static_cast<float*>(out), kBytes / 4);
  ACL_OK(aclrtSynchronizeDevice());
  auto r = reports();
  ASSERT_EQ(r.size(), 1u) << joined(r);
  EXPECT_NE(r[0].find("cross-stream read after write"), std::string::npos) << r[0];
  ACL_OK(aclrtDestroyEvent(opened));
  ACL_OK(aclrtDestroyEvent(ev));
}

TEST_F(StreamSanitizer, OrderedByStreamAndDeviceSync) {
  ACL_OK(aclrtMemsetAsync(buf, kBytes, 1, kBytes, s1));
  ACL_OK(aclrtSynchronizeStream(s1));
  launch_sum(s2, static_cast<const float*>(buf), static_cast<float*>(out), kBytes / 4);
  ACL_OK(aclrtSynchronizeDevice());
  ACL_OK(aclrtMemsetAsync(buf, kBytes, 2, kBytes, s1));
  std::vector<unsigned char> host(kBytes);
  ACL_OK(aclrtSynchronizeStream(s1));
  ACL_OK(aclrtMemcpy(host.data(), kBytes, buf, kBytes, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(host[5], 2);
  EXPECT_TRUE(reports().empty()) << joined(reports());
}

TEST_F(StreamSanitizer, OrderedBySameStreamAndQueries) {
  // Same stream: fill, read, fill again.
  ACL_OK(aclrtMemsetAsync(buf, kBytes, 1, kBytes, s1));
  launch_sum(s1, static_cast<const float*>(buf), static_cast<float*>(out), kBytes / 4);
  ACL_OK(aclrtMemsetAsync(buf, kBytes, 2, kBytes, s1));
  // A host loop on aclrtQueryEvent that sees "complete" orders like a synchronize.
  aclrtEvent ev;
  ACL_OK(aclrtCreateEvent(&ev));
  ACL_OK(aclrtRecordEvent(ev, s1));
  aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  do {
    ACL_OK(aclrtQueryEventStatus(ev, &st));
  } while (st != ACL_EVENT_RECORDED_STATUS_COMPLETE);
  launch_sum(s2, static_cast<const float*>(buf), static_cast<float*>(out), kBytes / 4);
  aclrtStreamStatus ss = ACL_STREAM_STATUS_NOT_READY;
  do {
    ACL_OK(aclrtStreamQuery(s2, &ss));
  } while (ss != ACL_STREAM_STATUS_COMPLETE);
  ACL_OK(aclrtMemsetAsync(buf, kBytes, 3, kBytes, s1));
  ACL_OK(aclrtSynchronizeStream(s1));
  ACL_OK(aclrtDestroyEvent(ev));
  EXPECT_TRUE(reports().empty()) << joined(reports());
}

struct PinnedCheck {
  unsigned char* host;
  int seen = -1;
};

TEST_F(StreamSanitizer, OrderedPinnedAccessAndHostFunc) {
  unsigned char* host = nullptr;
  ACL_OK(aclrtMallocHost(reinterpret_cast<void**>(&host), kBytes));
  ACL_OK(aclrtMemset(buf, kBytes, 0x5A, kBytes));
  // A host function after the copy on the same stream reads the buffer: ordered by the stream.
  ACL_OK(aclrtMemcpyAsync(host, kBytes, buf, kBytes, ACL_MEMCPY_DEVICE_TO_HOST, s1));
  PinnedCheck check{host};
  ACL_OK(aclrtLaunchHostFunc(
      s1, [](void* p) { static_cast<PinnedCheck*>(p)->seen = static_cast<PinnedCheck*>(p)->host[9]; }, &check));
  ACL_OK(aclrtSynchronizeStream(s1));
  EXPECT_EQ(check.seen, 0x5A);
  EXPECT_EQ(host[4000], 0x5A);  // after the synchronize
  // Host writes the source, then copies it: ordered by submission.
  std::memset(host, 7, kBytes);
  ACL_OK(aclrtMemcpyAsync(buf, kBytes, host, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, s2));
  ACL_OK(aclrtSynchronizeStream(s2));
  host[0] = 1;
  ACL_OK(aclrtMemsetAsync(buf, kBytes, 0, kBytes, s2));
  ACL_OK(aclrtSynchronizeStream(s2));
  ACL_OK(aclrtFree(buf));  // after the synchronize: nothing uses it
  buf = nullptr;
  ACL_OK(aclrtFreeHost(host));
  EXPECT_TRUE(reports().empty()) << joined(reports());
}

TEST_F(StreamSanitizer, ReuseOrderedByRecordStream) {
  launch_sum(s2, static_cast<const float*>(buf), static_cast<float*>(out), kBytes / 4);
  drained(s2);
  ACL_OK(arunMemRecordStream(buf, s2));  // the allocator waits for s2 before reusing the block
  ACL_OK(arunFreeAsync(buf, s1));
  buf = nullptr;
  void* q = nullptr;
  ACL_OK(arunMallocAsync(&q, kBytes, ACL_MEM_MALLOC_HUGE_FIRST, s1));
  ACL_OK(aclrtMemsetAsync(q, kBytes, 2, kBytes, s1));
  ACL_OK(aclrtSynchronizeDevice());
  ACL_OK(aclrtFree(q));
  EXPECT_TRUE(reports().empty()) << joined(reports());
}

// ---------------------------------------------------------------- modes and errors

TEST(StreamSanitizerConfig, OffRecordsNothing) {
  unsetenv("ASCEND_RUN_STREAM_SANITIZER");
  ACL_OK(aclInit(nullptr));
  ACL_OK(aclrtSetDevice(0));
  aclrtStream a, b;
  ACL_OK(aclrtCreateStream(&a));
  ACL_OK(aclrtCreateStream(&b));
  void* p;
  ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  ACL_OK(aclrtMemsetAsync(p, 4096, 1, 4096, a));
  ACL_OK(aclrtMemsetAsync(p, 4096, 2, 4096, b));
  ACL_OK(aclrtSynchronizeDevice());
  uint32_t n = 99;
  ACL_OK(arunStreamSanitizerReportCount(&n));
  EXPECT_EQ(n, 0u);
  ACL_OK(aclrtFree(p));
  ACL_OK(aclrtDestroyStream(a));
  ACL_OK(aclrtDestroyStream(b));
  ACL_OK(aclrtResetDevice(0));
  ACL_OK(aclFinalize());
}

TEST(StreamSanitizerConfig, BadModeAndArguments) {
  setenv("ASCEND_RUN_STREAM_SANITIZER", "loud", 1);
  EXPECT_EQ(aclInit(nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("valid: off, report, abort"), std::string::npos);
  unsetenv("ASCEND_RUN_STREAM_SANITIZER");
  EXPECT_EQ(arunStreamSanitizerReportCount(nullptr), ACL_ERROR_INVALID_PARAM);
  char buf[8];
  EXPECT_EQ(arunStreamSanitizerGetReport(0, nullptr, 8, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(arunStreamSanitizerGetReport(0, buf, 0, nullptr), ACL_ERROR_INVALID_PARAM);
  EXPECT_EQ(arunStreamSanitizerGetReport(100000, buf, sizeof buf, nullptr), ACL_ERROR_INVALID_PARAM);
}

// A racing program under stream_sanitizer = abort (run in a child by the death test).
void racing_program_in_abort_mode() {
  setenv("ASCEND_RUN_STREAM_SANITIZER", "abort", 1);
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) std::exit(3);
  aclrtStream a = nullptr;
  aclrtStream b = nullptr;
  void* p = nullptr;
  (void)aclrtCreateStream(&a);
  (void)aclrtCreateStream(&b);
  (void)aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST);
  (void)aclrtMemsetAsync(p, 4096, 1, 4096, a);
  drained(a);
  (void)aclrtMemsetAsync(p, 4096, 2, 4096, b);
  (void)aclrtSynchronizeDevice();
  std::exit(0);
}

TEST(StreamSanitizerDeathTest, AbortModeStopsAtTheFirstRace) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(racing_program_in_abort_mode(), "cross-stream write after write(.|\n)*stream sanitizer: aborting");
}

}  // namespace
