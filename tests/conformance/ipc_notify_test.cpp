// Spec part 2, 4.5: notifies shared across processes (aclrtNotifyGetExportKey /
// aclrtNotifySetImportPid / aclrtNotifyImportByKey). The other process is ipc_helper (fork + exec).
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "conformance.hpp"
#include "ipc_helper_process.hpp"

namespace conformance {
namespace {

class IpcNotifyTest : public AclDeviceTest {
 protected:
  // A notify of this process exported by key, and a stream with a wait on it queued.
  struct ExportedWait {
    aclrtNotify notify = nullptr;
    char key[65] = {};
    aclrtStream stream = nullptr;
  };
  void exportAndWait(uint64_t exportFlags, ExportedWait* w) {
    ASSERT_ACL_OK(aclrtCreateNotify(&w->notify, ACL_NOTIFY_DEFAULT));
    ASSERT_ACL_OK(aclrtNotifyGetExportKey(w->notify, w->key, sizeof w->key, exportFlags));
    ASSERT_ACL_OK(aclrtCreateStream(&w->stream));
    ASSERT_ACL_OK(aclrtWaitAndResetNotify(w->notify, w->stream, 0));
  }
};

TEST_P(IpcNotifyTest, RecordInAnotherProcessOrdersAWaitAndACopyHere) {
  constexpr size_t kSize = 1u << 20;
  Helper h({config(), "notify", "-", std::to_string(kSize), "53", "0"});
  const std::string key = h.line();
  const std::string notifyKey = h.line();
  ASSERT_EQ("recorded", h.line());
  ASSERT_EQ(0u, notifyKey.rfind("arun-ipc-" + std::to_string(h.pid()) + "-", 0)) << notifyKey;
  aclrtNotify n = nullptr;
  ASSERT_ACL_OK(aclrtNotifyImportByKey(&n, notifyKey.c_str(), ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT)) << "allowed";
  uint32_t id = UINT32_MAX;
  EXPECT_ACL_OK(aclrtGetNotifyId(n, &id));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, s, 0));
  expectWrittenBeforeTheRecord(key, s, kSize, 53);
  // The wait consumed the record: a second wait blocks until its timeout.
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, s, 1));
  EXPECT_ACL(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(s));
  h.go();
  EXPECT_EQ(0, h.wait());
  EXPECT_ACL_OK(aclrtDestroyNotify(n));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(IpcNotifyTest, ImporterRecordsTheExportersWaitGoesOn) {
  ExportedWait w;
  ASSERT_NO_FATAL_FAILURE(exportAndWait(ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT, &w));
  aclrtNotify n = w.notify;
  aclrtStream s = w.stream;
  Helper h({config(), "notify-record", w.key, "0", "0", "0"});
  int32_t child = h.pid();
  ASSERT_ACL_OK(aclrtNotifySetImportPid(n, &child, 1));  // the helper imports only after go()
  Probe probe;
  ASSERT_ACL_OK(launchProbe(s, probe));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(probe.ran) << "nobody recorded yet";
  h.go();
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(probe.ran);
  EXPECT_EQ(0, h.wait());
  EXPECT_ACL_OK(aclrtDestroyNotify(n));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(IpcNotifyTest, WaitOnAKeyNobodyImportedDoesNotHoldUpDestruction) {
  // No other process has the page, so nothing can set the notify: destroying the stream drops the
  // wait as it does for a local notify.
  ExportedWait w;
  ASSERT_NO_FATAL_FAILURE(exportAndWait(ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION, &w));
  aclrtNotify n = w.notify;
  aclrtStream s = w.stream;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)) << "no hang";
  EXPECT_ACL_OK(aclrtDestroyNotify(n));
}

// The exporter records which processes imported its notify: when every one of them has exited,
// a wait here that only they could have satisfied fails instead of blocking its stream forever.
TEST_P(IpcNotifyTest, ImportersThatAllExitFailTheExportersWait) {
  ExportedWait w;
  ASSERT_NO_FATAL_FAILURE(exportAndWait(ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION, &w));
  Helper h({config(), "notify-import-exit", w.key, "0", "0", "0"});
  h.go();
  ASSERT_EQ("imported", h.line());
  Probe probe;
  ASSERT_ACL_OK(launchProbe(w.stream, probe));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(probe.ran) << "an importer is alive: the wait holds the stream";
  h.go();
  EXPECT_EQ(0, h.wait());
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStream(w.stream)) << aclGetRecentErrMsg();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)) << "no hang";
  EXPECT_TRUE(probe.ran) << "the stream goes on after the failed wait";
  // The notify itself still works in this process.
  ASSERT_ACL_OK(aclrtRecordNotify(w.notify, w.stream));
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(w.notify, w.stream, 0));
  EXPECT_ACL_OK(aclrtSynchronizeStream(w.stream));
  EXPECT_ACL_OK(aclrtDestroyNotify(w.notify));
  EXPECT_ACL_OK(aclrtDestroyStream(w.stream));
}

TEST_P(IpcNotifyTest, ProcessNotOnTheAllowListIsRefused) {
  Helper h({config(), "notify-deny", "-", "0", "0", "0"});
  const std::string key = h.line();
  ASSERT_FALSE(key.empty());
  aclrtNotify n = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_NO_PERMISSION, aclrtNotifyImportByKey(&n, key.c_str(), 0)) << aclGetRecentErrMsg();
  std::string guess = key;
  guess.back() = guess.back() == '0' ? '1' : '0';
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&n, guess.c_str(), 0)) << "unknown name";
  h.go();
  EXPECT_EQ(0, h.wait());
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&n, key.c_str(), 0)) << "exporter gone";
}

TEST_P(IpcNotifyTest, ExporterThatExitsLeavesACleanError) {
  Helper h({config(), "notify-exit", "-", "0", "0", "0"});
  const std::string key = h.line();
  aclrtNotify n = nullptr;
  ASSERT_ACL_OK(aclrtNotifyImportByKey(&n, key.c_str(), 0));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, s, 0));
  Probe probe;
  ASSERT_ACL_OK(launchProbe(s, probe));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(probe.ran) << "the wait holds the stream";
  h.go();
  EXPECT_EQ(0, h.wait());
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStream(s)) << aclGetRecentErrMsg();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)) << "no hang";
  EXPECT_TRUE(probe.ran) << "the stream goes on after the failed wait";
  // A record through the import still works (the page outlives its exporter), and frees a wait.
  ASSERT_ACL_OK(aclrtRecordNotify(n, s));
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, s, 0));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  aclrtNotify again = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&again, key.c_str(), 0)) << "nobody to ask";
  EXPECT_ACL_OK(aclrtDestroyNotify(n));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

}  // namespace

ARUN_CONFORMANCE_INSTANTIATE(IpcNotifyTest);

}  // namespace conformance
