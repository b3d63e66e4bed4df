// Spec part 2, 4.14: IPC events (aclrtIpcGetEventHandle / aclrtIpcOpenEventHandle), recorded in one
// process and waited for in another; and the remaining 4.13 / 4.14 calls (V2 shareable handles,
// address ranges, peer maps, link selection, the no-UC reservation, IPC attributes and inter-server
// allow-lists), which the simulated single-server chip answers as the spec says such chips do.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "conformance.hpp"
#include "ipc_helper_process.hpp"

namespace conformance {
namespace {

// Spec part 2, §2 (sizes on LP64).
static_assert(sizeof(aclrtIpcEventHandle) == 64, "aclrtIpcEventHandle is 64 bytes");
static_assert(sizeof(aclrtMemFabricHandle) == 128, "aclrtMemFabricHandle is 128 bytes");
static_assert(ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT == 1 && ACL_MEM_SHARE_HANDLE_TYPE_FABRIC == 2, "share types");
static_assert(ACL_RT_MEM_ACCESS_LINK_SIO == 0 && ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH == 3, "link types");
static_assert(ACL_RT_IPC_MEM_ATTR_ACCESS_LINK == 0, "IPC attribute types");

// Pinned device memory of device 0, for aclrtMallocPhysical.
aclrtPhysicalMemProp device_memory_prop() {
  aclrtPhysicalMemProp prop{};
  prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
  prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
  prop.memAttr = ACL_MEM_NORMAL;
  prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
  return prop;
}

aclrtIpcEventHandle fromHex(const std::string& s) {
  aclrtIpcEventHandle h{};
  for (size_t i = 0; i < sizeof h.reserved && 2 * i + 1 < s.size(); ++i) {
    unsigned v = 0;
    std::sscanf(s.c_str() + 2 * i, "%2x", &v);
    h.reserved[i] = static_cast<char>(v);
  }
  return h;
}

class IpcEventTest : public AclDeviceTest {};

TEST_P(IpcEventTest, HandleRules) {
  aclrtIpcEventHandle h{};
  aclrtEvent ev = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcGetEventHandle(nullptr, &h));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventWithFlag(&ev, ACL_EVENT_IPC)) << "Ex only";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC | ACL_EVENT_SYNC)) << "alone";
  aclrtEvent plain = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&plain, ACL_EVENT_SYNC));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcGetEventHandle(plain, &h)) << "not an IPC event";
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcGetEventHandle(ev, nullptr));
  ASSERT_ACL_OK(aclrtIpcGetEventHandle(ev, &h));
  aclrtIpcEventHandle again{};
  ASSERT_ACL_OK(aclrtIpcGetEventHandle(ev, &again));
  EXPECT_EQ(0, std::memcmp(&h, &again, sizeof h)) << "one handle per event";

  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtIpcOpenEventHandle(h, nullptr));
  aclrtEvent opened = nullptr;
  aclrtIpcEventHandle junk{};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcOpenEventHandle(junk, &opened)) << "all zero";
  std::memset(junk.reserved, 'x', sizeof junk.reserved);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcOpenEventHandle(junk, &opened)) << "no terminator";
  junk = h;
  junk.reserved[std::strlen(h.reserved) - 1] ^= 1;  // a guess at the random part
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcOpenEventHandle(junk, &opened)) << "unknown name";
  // A process may open its own handle; the opened event follows the exporter's records.
  ASSERT_ACL_OK(aclrtIpcOpenEventHandle(h, &opened));
  aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  EXPECT_ACL_OK(aclrtQueryEventStatus(opened, &st));
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st) << "never recorded";
  EXPECT_ACL_OK(aclrtSynchronizeEvent(opened));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRecordEvent(opened, nullptr)) << "only the exporter records";

  // Destroying the exported event withdraws it: the handle opens nothing any more.
  EXPECT_ACL_OK(aclrtDestroyEvent(ev));
  aclrtEvent late = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcOpenEventHandle(h, &late));
  EXPECT_ACL_OK(aclrtDestroyEvent(opened));
  EXPECT_ACL_OK(aclrtDestroyEvent(plain));
}

// aclFinalize resets the broker and the IPC watcher; the next aclInit starts them afresh. A wait
// on the opened event blocks behind a 50 ms device task, so the watcher has a wait to look after.
TEST_P(IpcEventTest, IpcWorksAgainAfterFinalizeAndInit) {
  aclrtIpcEventHandle before{};
  for (int round = 0; round < 2; ++round) {
    aclrtEvent ev = nullptr, opened = nullptr;
    ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    aclrtIpcEventHandle h{};
    ASSERT_ACL_OK(aclrtIpcGetEventHandle(ev, &h));
    if (round == 1) {
      aclrtEvent stale = nullptr;
      EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcOpenEventHandle(before, &stale)) << "the last runtime's handle";
      EXPECT_NE(0, std::strcmp(before.reserved, h.reserved)) << "a fresh name";
    }
    ASSERT_ACL_OK(aclrtIpcOpenEventHandle(h, &opened));
    aclrtStream a = nullptr, b = nullptr;
    ASSERT_ACL_OK(aclrtCreateStream(&a));
    ASSERT_ACL_OK(aclrtCreateStream(&b));
    std::atomic<bool> slowDone{false};
    ASSERT_ACL_OK(launch(a, [&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      slowDone = true;
    }));
    ASSERT_ACL_OK(aclrtRecordEvent(ev, a));
    ASSERT_ACL_OK(aclrtStreamWaitEvent(b, opened));
    Probe probe;
    ASSERT_ACL_OK(launchProbe(b, probe));
    ASSERT_ACL_OK(aclrtSynchronizeStream(b));
    EXPECT_TRUE(probe.ran);
    EXPECT_TRUE(slowDone) << "round " << round << ": the wait held the stream until the record";
    EXPECT_ACL_OK(aclrtDestroyStream(a));
    EXPECT_ACL_OK(aclrtDestroyStream(b));
    EXPECT_ACL_OK(aclrtDestroyEvent(opened));
    EXPECT_ACL_OK(aclrtDestroyEvent(ev));
    before = h;
    if (round == 0) {
      ASSERT_NO_FATAL_FAILURE(finalize());
      ASSERT_NO_FATAL_FAILURE(reinit());
      ASSERT_ACL_OK(aclrtSetDevice(0));
    }
  }
}

TEST_P(IpcEventTest, OpenedEventFollowsRecordsWaitsAndTimeouts) {
  // Also with a single AI core (configs/single-core.toml): neither the wait nor the record's
  // publication takes an execution unit.
  aclrtEvent ev = nullptr, opened = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
  aclrtIpcEventHandle h{};
  ASSERT_ACL_OK(aclrtIpcGetEventHandle(ev, &h));
  ASSERT_ACL_OK(aclrtIpcOpenEventHandle(h, &opened));
  aclrtStream producer = nullptr, consumer = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&producer));
  ASSERT_ACL_OK(aclrtCreateStream(&consumer));

  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(producer, gate));
  ASSERT_ACL_OK(aclrtRecordEvent(ev, producer));
  aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_COMPLETE;
  EXPECT_ACL_OK(aclrtQueryEventStatus(opened, &st));
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
  EXPECT_ACL(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(opened, 20));
  Probe probe;
  ASSERT_ACL_OK(aclrtStreamWaitEvent(consumer, opened));
  ASSERT_ACL_OK(launchProbe(consumer, probe));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(probe.ran) << "the consumer waits for the exporter's record";
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeStream(consumer));
  EXPECT_TRUE(probe.ran);
  EXPECT_ACL_OK(aclrtSynchronizeEvent(opened));
  EXPECT_ACL_OK(aclrtQueryEventStatus(opened, &st));
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);

  // A timed wait on a record that does not come fails the consumer's stream, which goes on.
  Gate& held = newGate();
  ASSERT_ACL_OK(launchGate(producer, held));
  ASSERT_ACL_OK(aclrtRecordEvent(ev, producer));
  ASSERT_ACL_OK(aclrtStreamWaitEventWithTimeout(consumer, opened, 1));
  EXPECT_ACL(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(consumer));
  held.open();
  EXPECT_ACL_OK(aclrtSynchronizeStream(producer));
  EXPECT_ACL_OK(aclrtSynchronizeEvent(opened));

  // Not on a capturing stream (spec 4.14).
  ASSERT_ACL_OK(aclmdlRICaptureBegin(consumer, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtRecordEvent(ev, consumer));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEvent(consumer, opened));
  aclmdlRI ri = nullptr;
  ASSERT_ACL_OK(aclmdlRICaptureEnd(consumer, &ri));
  EXPECT_ACL_OK(aclmdlRIDestroy(ri));

  EXPECT_ACL_OK(aclrtDestroyEvent(opened));
  EXPECT_ACL_OK(aclrtDestroyEvent(ev));
  EXPECT_ACL_OK(aclrtDestroyStream(producer));
  EXPECT_ACL_OK(aclrtDestroyStream(consumer));
}

void waitForRelease(void* flag) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);  // never hang the suite
  while (!static_cast<std::atomic<bool>*>(flag)->load() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST_P(IpcEventTest, WaitsHoldNoExecutionUnit) {
  // More blocked waits than the device has AI cores: other streams' kernels still run.
  int64_t cores = 0;
  ASSERT_ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &cores));
  const size_t waits = static_cast<size_t>(std::min<int64_t>(std::max<int64_t>(cores, 1) + 1, 33));
  aclrtEvent ev = nullptr, opened = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
  aclrtIpcEventHandle h{};
  ASSERT_ACL_OK(aclrtIpcGetEventHandle(ev, &h));
  ASSERT_ACL_OK(aclrtIpcOpenEventHandle(h, &opened));
  aclrtStream producer = nullptr, other = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&producer));
  ASSERT_ACL_OK(aclrtCreateStream(&other));
  std::atomic<bool> release{false};
  ASSERT_ACL_OK(aclrtLaunchHostFunc(producer, &waitForRelease, &release));  // a host thread, not a core
  ASSERT_ACL_OK(aclrtRecordEvent(ev, producer));
  std::vector<aclrtStream> consumers(waits);
  std::vector<Probe> probes(waits);
  for (size_t i = 0; i < waits; ++i) {
    ASSERT_ACL_OK(aclrtCreateStream(&consumers[i]));
    ASSERT_ACL_OK(aclrtStreamWaitEvent(consumers[i], opened));
    ASSERT_ACL_OK(launchProbe(consumers[i], probes[i]));
  }
  Probe elsewhere;
  ASSERT_ACL_OK(launchProbe(other, elsewhere));
  EXPECT_ACL_OK(aclrtSynchronizeStreamWithTimeout(other, 5000)) << "a core was free for another stream";
  EXPECT_TRUE(elsewhere.ran);
  for (const Probe& p : probes) EXPECT_FALSE(p.ran) << "the waits still hold their streams";
  release = true;
  for (size_t i = 0; i < waits; ++i) {
    EXPECT_ACL_OK(aclrtSynchronizeStream(consumers[i]));
    EXPECT_TRUE(probes[i].ran);
    EXPECT_ACL_OK(aclrtDestroyStream(consumers[i]));
  }
  EXPECT_ACL_OK(aclrtDestroyEvent(opened));
  EXPECT_ACL_OK(aclrtDestroyEvent(ev));
  EXPECT_ACL_OK(aclrtDestroyStream(producer));
  EXPECT_ACL_OK(aclrtDestroyStream(other));
}

TEST_P(IpcEventTest, AnotherProcessRecordsThisProcessWaitsThenReads) {
  constexpr size_t kSize = 1u << 20;
  Helper h({config(), "event", "-", std::to_string(kSize), "51", "0"});
  const std::string key = h.line();
  const std::string handle = h.line();
  ASSERT_EQ("recorded", h.line());
  ASSERT_EQ(2 * sizeof(aclrtIpcEventHandle), handle.size());
  aclrtEvent ev = nullptr;
  ASSERT_ACL_OK(aclrtIpcOpenEventHandle(fromHex(handle), &ev));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s, ev));
  expectWrittenBeforeTheRecord(key, s, kSize, 51);
  aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  EXPECT_ACL_OK(aclrtQueryEventStatus(ev, &st));
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
  h.go();
  EXPECT_EQ(0, h.wait());
  EXPECT_ACL_OK(aclrtSynchronizeEvent(ev)) << "complete records stay complete after the exporter left";
  EXPECT_ACL_OK(aclrtDestroyEvent(ev));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(IpcEventTest, ExporterThatExitsLeavesACleanError) {
  Helper h({config(), "event-exit", "-", "0", "0", "0"});
  const std::string handle = h.line();
  ASSERT_EQ(2 * sizeof(aclrtIpcEventHandle), handle.size());
  ASSERT_EQ("recorded", h.line());
  aclrtEvent ev = nullptr;
  ASSERT_ACL_OK(aclrtIpcOpenEventHandle(fromHex(handle), &ev));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s, ev));  // the record sits behind a 30 s task over there
  h.go();
  EXPECT_EQ(0, h.wait());
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStream(s)) << aclGetRecentErrMsg();
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEvent(ev));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)) << "no hang";
  aclrtEvent again = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcOpenEventHandle(fromHex(handle), &again)) << "nobody to ask";
  EXPECT_ACL_OK(aclrtDestroyEvent(ev));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

// ---- the remaining 4.13 / 4.14 calls

TEST_P(IpcEventTest, IpcMemAttrAndInterServerAllowList) {
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
  char key[65] = {};
  const aclError e = aclrtIpcMemGetExportKey(dev, 4096, key, sizeof key, 0);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetAttr(nullptr, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetAttr("arun-ipc-1-00", static_cast<aclrtIpcMemAttrType>(1), 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetAttr("arun-ipc-1-00", ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 4));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetAttr("arun-ipc-1-00", ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0))
      << "unknown key";
  if (e == ACL_SUCCESS) {
    EXPECT_ACL_OK(aclrtIpcMemSetAttr(key, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_SIO));
    EXPECT_ACL(ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED,
               aclrtIpcMemSetAttr(key, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_HCCS));
  } else {
    EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, e);
  }
  int32_t pid = getpid();
  aclrtServerPid sp{0, &pid, 1};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(nullptr, &sp, 1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, nullptr, 1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, &sp, 0));
  aclrtServerPid bad{0, nullptr, 1};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, &bad, 1));
  bad = {0, &pid, 2};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportPidInterServer(key, &bad, 1));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtIpcMemImportPidInterServer(key, &sp, 1)) << "one server";
  if (e == ACL_SUCCESS) {
    EXPECT_ACL_OK(aclrtIpcMemClose(key));
  }
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(IpcEventTest, ShareableHandleV2) {
  const aclrtPhysicalMemProp prop = device_memory_prop();
  aclrtDrvMemHandle ph = nullptr;
  constexpr size_t k2M = 2u << 20;
  const aclError e = aclrtMallocPhysical(&ph, k2M, &prop, 0);
  if (e == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) GTEST_SKIP() << "the backend has no device physical memory";
  ASSERT_ACL_OK(e);
  uint64_t sh = 0;
  const auto kDefault = ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT;
  const auto kFabric = ACL_MEM_SHARE_HANDLE_TYPE_FABRIC;
  const auto kBadType = static_cast<aclrtMemSharedHandleType>(3);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandleV2(nullptr, 0, kDefault, &sh));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandleV2(ph, 0, kDefault, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandleV2(ph, 0, kBadType, &sh));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandleV2(ph, 2, kDefault, &sh));
  aclrtMemFabricHandle fh{};
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemExportToShareableHandleV2(ph, 0, kFabric, &fh)) << "not A3";
  ASSERT_ACL_OK(aclrtMemExportToShareableHandleV2(ph, 0, kDefault, &sh));
  EXPECT_NE(0u, sh);
  uint64_t twice = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandleV2(ph, 0, kDefault, &twice));

  int32_t pid = getpid();
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandleV2(nullptr, kDefault, &pid, 1));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandleV2(&sh, kDefault, nullptr, 1));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandleV2(&sh, kDefault, &pid, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandleV2(&sh, kBadType, &pid, 1));
  uint64_t unknown = 12345;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandleV2(&unknown, kDefault, &pid, 1));

  aclrtDrvMemHandle imp = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandleV2(nullptr, kDefault, 0, &imp));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandleV2(&sh, kDefault, 0, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandleV2(&sh, kDefault, 1, &imp));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandleV2(&sh, kBadType, 0, &imp));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemImportFromShareableHandleV2(&fh, kFabric, 0, &imp));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandleV2(&sh, kDefault, 0, &imp)) << "same process";

  // Another process imports through V2, checks what this one wrote and writes back.
  void* va = nullptr;
  ASSERT_ACL_OK(aclrtReserveMemAddress(&va, k2M, 0, nullptr, 0));
  ASSERT_ACL_OK(aclrtMapMem(va, k2M, 0, ph, 0));
  const std::vector<uint8_t> data = ipcPattern(k2M, 60);
  ASSERT_ACL_OK(aclrtMemcpy(va, k2M, data.data(), k2M, ACL_MEMCPY_HOST_TO_DEVICE));
  Helper h({config(), "handle2", std::to_string(sh), std::to_string(k2M), "60", "0"});
  int32_t child = h.pid();
  ASSERT_ACL_OK(aclrtMemSetPidToShareableHandleV2(&sh, kDefault, &child, 1));
  h.go();
  ASSERT_EQ(0, h.wait());
  std::vector<uint8_t> back(k2M);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), k2M, va, k2M, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(ipcPattern(k2M, 61), back) << "what the other process wrote";
  EXPECT_ACL_OK(aclrtUnmapMem(va));
  EXPECT_ACL_OK(aclrtFreePhysical(ph));
  EXPECT_ACL_OK(aclrtReleaseMemAddress(va));
}

// The configuration under test with the Ascend plugin reporting an A3 SoC (soc_name), written next
// to the build's configs; "" when the configuration has no Ascend device options to change.
std::string a3Config(const std::string& base) {
  std::FILE* f = std::fopen(base.c_str(), "r");
  if (f == nullptr) return "";
  std::string text, line;
  char buf[512];
  bool inserted = false;
  while (std::fgets(buf, sizeof buf, f) != nullptr) {
    line = buf;
    if (line.rfind("soc_name", 0) == 0) continue;  // replaced below
    text += line;
    if (!inserted && line.rfind("[plugin.options]", 0) == 0) {
      text += "soc_name = \"Ascend910_9391\"\n";
      inserted = true;
    }
  }
  std::fclose(f);
  if (!inserted) return "";
  const std::string path = base + ".a3-" + std::to_string(getpid()) + ".toml";
  f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return "";
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return path;
}

// FABRIC handles on an A3 chip: the 128-byte aclrtMemFabricHandle carries the memory to another
// process (on the same simulated server) as a DEFAULT handle does.
TEST_P(IpcEventTest, FabricHandleOnA3) {
  const char* soc = aclrtGetSocName();
  if (soc == nullptr || std::strncmp(soc, "Ascend", 6) != 0) GTEST_SKIP() << "not the Ascend backend";
  const std::string a3 = a3Config(config());
  if (a3.empty()) GTEST_SKIP() << "the configuration sets no Ascend plugin options";
  struct Cleanup {
    std::string path;
    ~Cleanup() { std::remove(path.c_str()); }
  } cleanup{a3};
  ASSERT_NO_FATAL_FAILURE(finalize());
  ASSERT_NO_FATAL_FAILURE(reinitWith(a3));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_STREQ("Ascend910_9391", aclrtGetSocName());
  const aclrtPhysicalMemProp prop = device_memory_prop();
  aclrtDrvMemHandle ph = nullptr;
  constexpr size_t k2M = 2u << 20;
  ASSERT_ACL_OK(aclrtMallocPhysical(&ph, k2M, &prop, 0));
  const auto kFabric = ACL_MEM_SHARE_HANDLE_TYPE_FABRIC;
  aclrtMemFabricHandle fh{};
  ASSERT_ACL_OK(aclrtMemExportToShareableHandleV2(ph, 0, kFabric, &fh));
  aclrtMemFabricHandle forged{};
  int32_t pid = getpid();
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandleV2(&forged, kFabric, &pid, 1));
  aclrtDrvMemHandle imp = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandleV2(&forged, kFabric, 0, &imp))
      << "not a handle the export wrote";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandleV2(&fh, kFabric, 0, &imp)) << "same process";

  void* va = nullptr;
  ASSERT_ACL_OK(aclrtReserveMemAddress(&va, k2M, 0, nullptr, 0));
  ASSERT_ACL_OK(aclrtMapMem(va, k2M, 0, ph, 0));
  const std::vector<uint8_t> data = ipcPattern(k2M, 70);
  ASSERT_ACL_OK(aclrtMemcpy(va, k2M, data.data(), k2M, ACL_MEMCPY_HOST_TO_DEVICE));
  std::string hex;
  for (uint8_t b : fh.data) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", b);
    hex += two;
  }
  Helper h({a3, "fabric", hex, std::to_string(k2M), "70", "0"});
  int32_t child = h.pid();
  ASSERT_ACL_OK(aclrtMemSetPidToShareableHandleV2(&fh, kFabric, &child, 1));
  h.go();
  ASSERT_EQ(0, h.wait());
  std::vector<uint8_t> back(k2M);
  ASSERT_ACL_OK(aclrtMemcpy(back.data(), k2M, va, k2M, ACL_MEMCPY_DEVICE_TO_HOST));
  EXPECT_EQ(ipcPattern(k2M, 71), back) << "what the other process wrote";
  EXPECT_ACL_OK(aclrtUnmapMem(va));
  EXPECT_ACL_OK(aclrtFreePhysical(ph));
  EXPECT_ACL_OK(aclrtReleaseMemAddress(va));
}

TEST_P(IpcEventTest, AddressRange) {
  void* base = nullptr;
  size_t size = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemGetAddressRange(nullptr, &base, &size));
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 10000, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(dev, nullptr, nullptr));
  ASSERT_ACL_OK(aclrtMemGetAddressRange(static_cast<char*>(dev) + 4321, &base, &size));
  EXPECT_EQ(dev, base);
  EXPECT_EQ(10000u, size);
  size = 0;
  ASSERT_ACL_OK(aclrtMemGetAddressRange(dev, nullptr, &size));
  EXPECT_EQ(10000u, size);
  void* host = nullptr;
  ASSERT_ACL_OK(aclrtMallocHost(&host, 3000));
  ASSERT_ACL_OK(aclrtMemGetAddressRange(static_cast<char*>(host) + 2999, &base, nullptr));
  EXPECT_EQ(host, base);
  int local = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(&local, &base, &size)) << "not an allocation";
  EXPECT_ACL_OK(aclrtFreeHost(host));
  EXPECT_ACL_OK(aclrtFree(dev));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(dev, &base, &size)) << "freed";
}

TEST_P(IpcEventTest, P2PMapAndLinks) {
  void* dev = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&dev, 8192, ACL_MEM_MALLOC_HUGE_FIRST));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemP2PMap(nullptr, 8192, 0, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemP2PMap(dev, 0, 0, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemP2PMap(dev, 8192, 0, 1));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemP2PMap(dev, 8192, static_cast<int32_t>(deviceCount()), 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemP2PMap(dev, 8192, 0, 0)) << "its own device";
  if (deviceCount() > 1) {
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemP2PMap(dev, 8192, 1, 0)) << "no peer access yet";
    ASSERT_ACL_OK(aclrtSetDevice(1));
    ASSERT_ACL_OK(aclrtDeviceEnablePeerAccess(0, 0));
    EXPECT_ACL_OK(aclrtMemP2PMap(dev, 8192, 1, 0));
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemP2PMap(dev, 8193, 1, 0)) << "runs off the allocation";
    ASSERT_ACL_OK(aclrtDeviceDisablePeerAccess(0));
    ASSERT_ACL_OK(aclrtSetDevice(0));
  }

  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapSetLink(nullptr, ACL_RT_MEM_ACCESS_LINK_SIO));
  int fake = 0;
  auto* bogus = reinterpret_cast<aclrtDrvMemHandle>(&fake);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapSetLink(bogus, static_cast<aclrtMemLinkType>(4)));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemMapSetLink(bogus, ACL_RT_MEM_ACCESS_LINK_HCCS));

  void* va = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapSelectedLink(nullptr, 4096, dev, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapSelectedLink(dev, 4096, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapSelectedLink(dev, 0, dev, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtMemMapSelectedLink(dev, 4096, dev, 2));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapSelectedLink(dev, 4096, dev, 0)) << "not a reservation";

  const aclrtPhysicalMemProp prop = device_memory_prop();
  aclrtDrvMemHandle ph = nullptr;
  constexpr size_t k2M = 2u << 20;
  if (aclrtMallocPhysical(&ph, k2M, &prop, 0) == ACL_SUCCESS) {
    EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemMapSetLink(ph, ACL_RT_MEM_ACCESS_LINK_HCCS)) << "910B";
    void* src = nullptr;
    ASSERT_ACL_OK(aclrtReserveMemAddress(&src, k2M, 0, nullptr, 0));
    ASSERT_ACL_OK(aclrtReserveMemAddress(&va, k2M, 0, nullptr, 0));
    ASSERT_ACL_OK(aclrtMapMem(src, k2M, 0, ph, 0));
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemMapSelectedLink(va, 4096, src, 0)) << "size differs";
    EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemMapSelectedLink(va, k2M, src, ACL_RT_MEM_LINK_IDX_1));
    EXPECT_ACL_OK(aclrtUnmapMem(src));
    EXPECT_ACL_OK(aclrtReleaseMemAddress(src));
    EXPECT_ACL_OK(aclrtReleaseMemAddress(va));
    EXPECT_ACL_OK(aclrtFreePhysical(ph));
  }
  EXPECT_ACL_OK(aclrtFree(dev));
}

TEST_P(IpcEventTest, ReserveNoUCMemory) {
#if defined(ARUN_TEST_TSAN)
  // ThreadSanitizer's shadow memory lies in the fixed range this call maps at, and its mmap
  // interceptor aborts the process rather than fail the call.
  GTEST_SKIP() << "fixed-address reservations collide with ThreadSanitizer's memory layout";
#endif
  constexpr uint64_t kGiB = uint64_t{1} << 30, kTiB = uint64_t{1} << 40;
  void* va = nullptr;
  auto* at = reinterpret_cast<void*>(64 * kTiB);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddressNoUCMemory(nullptr, kGiB, 0, at, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddressNoUCMemory(&va, kGiB, 0, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddressNoUCMemory(&va, 0, 0, at, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddressNoUCMemory(&va, kGiB + 4096, 0, at, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddressNoUCMemory(&va, kGiB, 1, at, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddressNoUCMemory(&va, kGiB, 0, at, 1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtReserveMemAddressNoUCMemory(&va, kGiB, 0, reinterpret_cast<void*>(16 * kTiB), 0))
      << "outside the window";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID,
             aclrtReserveMemAddressNoUCMemory(&va, kGiB, 0, reinterpret_cast<void*>(64 * kTiB + 4096), 0))
      << "misaligned";
  const aclError e = aclrtReserveMemAddressNoUCMemory(&va, kGiB, 0, at, 0);
  if (e == ACL_SUCCESS) {
    EXPECT_EQ(at, va);
    void* base = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(va, &base, nullptr)) << "nothing mapped";
    void* twice = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddressNoUCMemory(&twice, kGiB, 0, at, 0)) << "taken";
    EXPECT_ACL_OK(aclrtReleaseMemAddress(va));
  } else {
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, e) << "address unavailable on this host";
  }
}

}  // namespace

ARUN_CONFORMANCE_INSTANTIATE(IpcEventTest);

}  // namespace conformance
