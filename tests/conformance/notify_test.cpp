// Spec part 2, 4.5 (Notify and CntNotify) and 4.6 (aclrtValueWrite / aclrtValueWait): every error
// rule of each entry, and the behaviour: records and waits are stream tasks, a wait blocks only its
// stream, one record releases one wait, timeouts fire, a value wait is released by another stream's
// value write or copy, and a wait nothing will release does not hang destroy / reset / finalize.
//
// "Still blocked" is observed with aclrtSynchronizeStreamWithTimeout returning
// ACL_ERROR_RT_STREAM_SYNC_TIMEOUT after a short wait; "released" with a synchronize that succeeds.
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "arun/kernel.hpp"
#include "conformance.hpp"

namespace conformance {
namespace {

using Clock = std::chrono::steady_clock;

class NotifyTest : public AclDeviceTest {
 protected:
  aclrtNotify newNotify() {
    aclrtNotify n = nullptr;
    EXPECT_ACL_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    return n;
  }
  aclrtStream newStream() {
    aclrtStream s = nullptr;
    EXPECT_ACL_OK(aclrtCreateStream(&s));
    return s;
  }
  // The stream is still blocked (its synchronize times out).
  static void expectBlocked(aclrtStream s) {
    EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 100));
  }
  uint64_t* newWord(uint64_t value) {
    void* p = nullptr;
    EXPECT_ACL_OK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT_ACL_OK(aclrtMemcpy(p, 8, &value, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    return static_cast<uint64_t*>(p);
  }
  static uint64_t readWord(const uint64_t* dev) {
    uint64_t v = 0;
    EXPECT_ACL_OK(aclrtMemcpy(&v, 8, dev, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
  }
};

// ---------------------------------------------------------------- notify: arguments

TEST_P(NotifyTest, CreateAndDestroyChecks) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateNotify(nullptr, ACL_NOTIFY_DEFAULT));
  aclrtNotify n = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateNotify(&n, 0x2));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateNotify(&n, 0x100000000ULL));
  inNewThread([] {
    aclrtNotify none = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateNotify(&none, ACL_NOTIFY_DEFAULT));
  });
  ASSERT_ACL_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEVICE_USE_ONLY));
  ASSERT_NE(nullptr, n);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDestroyNotify(nullptr));
  EXPECT_ACL_OK(aclrtDestroyNotify(n));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyNotify(n));
  EXPECT_NE(nullptr, aclGetRecentErrMsg());
  // A handle of another kind is not a notify.
  aclrtStream s = newStream();
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyNotify(s));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(NotifyTest, RecordWaitAndIdChecks) {
  aclrtNotify n = newNotify();
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRecordNotify(nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtWaitAndResetNotify(nullptr, nullptr, 0));
  uint32_t id = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetNotifyId(nullptr, &id));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetNotifyId(n, nullptr));
  // A stream of another context.
  aclrtContext mine = nullptr, other = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&mine));
  ASSERT_ACL_OK(aclrtCreateContext(&other, 0));
  aclrtStream foreign = newStream();
  ASSERT_ACL_OK(aclrtSetCurrentContext(mine));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordNotify(n, foreign));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtWaitAndResetNotify(n, foreign, 0));
  ASSERT_ACL_OK(aclrtSetCurrentContext(other));
  EXPECT_ACL_OK(aclrtDestroyStream(foreign));
  ASSERT_ACL_OK(aclrtDestroyContext(other));
  ASSERT_ACL_OK(aclrtSetCurrentContext(mine));
  // Ids are distinct among live notifies.
  aclrtNotify m = newNotify();
  uint32_t idN = 0, idM = 0;
  EXPECT_ACL_OK(aclrtGetNotifyId(n, &idN));
  EXPECT_ACL_OK(aclrtGetNotifyId(m, &idM));
  EXPECT_NE(idN, idM);
  // Dead handles.
  EXPECT_ACL_OK(aclrtDestroyNotify(n));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordNotify(n, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtWaitAndResetNotify(n, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetNotifyId(n, &id));
  EXPECT_ACL_OK(aclrtDestroyNotify(m));
  EXPECT_ACL_OK(aclrtSynchronizeStream(nullptr));
}

// ---------------------------------------------------------------- notify: behaviour

TEST_P(NotifyTest, AWaitBlocksOnlyItsStreamUntilARecordAndConsumesIt) {
  aclrtNotify n = newNotify();
  aclrtStream waiter = newStream(), other = newStream();
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, waiter, 0));
  Probe behind;
  ASSERT_ACL_OK(launchProbe(waiter, behind));
  expectBlocked(waiter);
  EXPECT_FALSE(behind.ran.load());
  // Other streams keep running while the wait blocks.
  Probe elsewhere;
  ASSERT_ACL_OK(launchProbe(other, elsewhere));
  EXPECT_ACL_OK(aclrtSynchronizeStream(other));
  EXPECT_TRUE(elsewhere.ran.load());
  ASSERT_ACL_OK(aclrtRecordNotify(n, other));
  EXPECT_ACL_OK(aclrtSynchronizeStream(waiter));
  EXPECT_TRUE(behind.ran.load());
  // The wait cleared it: a second wait blocks again until a second record.
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, waiter, 0));
  expectBlocked(waiter);
  ASSERT_ACL_OK(aclrtRecordNotify(n, other));
  EXPECT_ACL_OK(aclrtSynchronizeStream(waiter));
  EXPECT_ACL_OK(aclrtDestroyStream(waiter));
  EXPECT_ACL_OK(aclrtDestroyStream(other));
  EXPECT_ACL_OK(aclrtDestroyNotify(n));
}

TEST_P(NotifyTest, ARecordBeforeTheWaitIsKeptAndRecordingTwiceSetsOnce) {
  aclrtNotify n = newNotify();
  aclrtStream s = newStream();
  ASSERT_ACL_OK(aclrtRecordNotify(n, s));
  ASSERT_ACL_OK(aclrtRecordNotify(n, s));  // stays set (one bit)
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, s, 0));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, s, 1));
  EXPECT_ACL(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(s)) << "two records make one set, not two";
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyNotify(n));
}

TEST_P(NotifyTest, OneRecordReleasesExactlyOneOfTwoWaits) {
  aclrtNotify n = newNotify();
  aclrtStream a = newStream(), b = newStream(), recorder = newStream();
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, a, 0));
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, b, 0));
  expectBlocked(a);
  ASSERT_ACL_OK(aclrtRecordNotify(n, recorder));
  ASSERT_ACL_OK(aclrtSynchronizeStream(recorder));
  aclrtStreamStatus sa = ACL_STREAM_STATUS_NOT_READY, sb = ACL_STREAM_STATUS_NOT_READY;
  const auto until = Clock::now() + std::chrono::seconds(10);
  while (sa != ACL_STREAM_STATUS_COMPLETE && sb != ACL_STREAM_STATUS_COMPLETE && Clock::now() < until) {
    ASSERT_ACL_OK(aclrtStreamQuery(a, &sa));
    ASSERT_ACL_OK(aclrtStreamQuery(b, &sb));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_ACL_OK(aclrtStreamQuery(a, &sa));
  ASSERT_ACL_OK(aclrtStreamQuery(b, &sb));
  EXPECT_NE(sa == ACL_STREAM_STATUS_COMPLETE, sb == ACL_STREAM_STATUS_COMPLETE) << "exactly one wait is released";
  ASSERT_ACL_OK(aclrtRecordNotify(n, recorder));
  EXPECT_ACL_OK(aclrtSynchronizeStream(a));
  EXPECT_ACL_OK(aclrtSynchronizeStream(b));
  EXPECT_ACL_OK(aclrtDestroyStream(a));
  EXPECT_ACL_OK(aclrtDestroyStream(b));
  EXPECT_ACL_OK(aclrtDestroyStream(recorder));
  EXPECT_ACL_OK(aclrtDestroyNotify(n));
}

TEST_P(NotifyTest, AWaitTimeoutFiresAndIsReportedByTheNextSynchronize) {
  aclrtNotify n = newNotify();
  aclrtStream s = newStream();
  const auto t0 = Clock::now();
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, s, 1));
  Probe behind;
  ASSERT_ACL_OK(launchProbe(s, behind));
  EXPECT_ACL(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(s));
  const auto took = Clock::now() - t0;
  EXPECT_GE(took, std::chrono::milliseconds(900));
  EXPECT_LT(took, std::chrono::seconds(5));
  EXPECT_TRUE(behind.ran.load()) << "the stream goes on after a failed wait (continue-on-failure)";
  EXPECT_ACL_OK(aclrtSynchronizeStream(s)) << "reported once";
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyNotify(n));
}

TEST_P(NotifyTest, DestroyingTheHandleDefersToQueuedTasks) {
  aclrtNotify n = newNotify();
  aclrtStream waiter = newStream(), recorder = newStream();
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(recorder, gate));
  ASSERT_ACL_OK(aclrtRecordNotify(n, recorder));
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, waiter, 0));
  EXPECT_ACL_OK(aclrtDestroyNotify(n));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordNotify(n, recorder)) << "the handle is dead at once";
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeStream(recorder));
  EXPECT_ACL_OK(aclrtSynchronizeStream(waiter)) << "the queued record still released the wait";
  EXPECT_ACL_OK(aclrtDestroyStream(waiter));
  EXPECT_ACL_OK(aclrtDestroyStream(recorder));
}

TEST_P(NotifyTest, BatchResetClearsFromTheHostInOrder) {
  aclrtNotify a = newNotify(), b = newNotify();
  aclrtStream s = newStream();
  ASSERT_ACL_OK(aclrtRecordNotify(a, s));
  ASSERT_ACL_OK(aclrtRecordNotify(b, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtNotifyBatchReset(nullptr, 1));
  aclrtNotify both[2] = {a, b};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyBatchReset(both, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyBatchReset(both, size_t{UINT32_MAX} + 1));
  aclrtNotify withNull[2] = {a, nullptr};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyBatchReset(withNull, 2));
  // `a` was cleared before the NULL element stopped the call: a wait on it times out; b is still set.
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(b, s, 0));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(a, s, 1));
  EXPECT_ACL(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtRecordNotify(a, s));
  ASSERT_ACL_OK(aclrtRecordNotify(b, s));
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_ACL_OK(aclrtNotifyBatchReset(both, 2));
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(b, s, 1));
  EXPECT_ACL(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(s));
  aclrtNotify dead = newNotify();
  ASSERT_ACL_OK(aclrtDestroyNotify(dead));
  aclrtNotify withDead[2] = {a, dead};
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtNotifyBatchReset(withDead, 2));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyNotify(a));
  EXPECT_ACL_OK(aclrtDestroyNotify(b));
}

TEST_P(NotifyTest, AWaitNothingReleasesDoesNotHangDestroyResetOrFinalize) {
  aclrtNotify n = newNotify();
  aclrtStream s = newStream();
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, s, 0));
  expectBlocked(s);
  auto t0 = Clock::now();
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  // On the default stream, then a device reset.
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, nullptr, 0));
  t0 = Clock::now();
  EXPECT_ACL_OK(aclrtResetDevice(0));
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  // And aclFinalize.
  aclrtStream t = newStream();
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(n, t, 0));
  t0 = Clock::now();
  finalize();
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
}

// ---------------------------------------------------------------- notify: IPC within the process

TEST_P(NotifyTest, ExportAndImportByKey) {
  aclrtNotify n = newNotify();
  char key[65] = {};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtNotifyGetExportKey(nullptr, key, sizeof key, 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtNotifyGetExportKey(n, nullptr, sizeof key, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(n, key, 0, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(n, key, 64, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(n, key, sizeof key, 0x1));
  aclrtNotify imported = nullptr;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtNotifyImportByKey(nullptr, "x", 0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtNotifyImportByKey(&imported, nullptr, 0));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&imported, "no-such-notify", 0));
  int32_t pid = static_cast<int32_t>(getpid());
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPid(n, &pid, 1)) << "not exported yet";

  ASSERT_ACL_OK(aclrtNotifyGetExportKey(n, key, sizeof key, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
  ASSERT_GT(std::strlen(key), 0u);
  char again[100] = {};
  ASSERT_ACL_OK(aclrtNotifyGetExportKey(n, again, sizeof again, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
  EXPECT_STREQ(key, again) << "the same name on every call";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&imported, key, 0x4));
  EXPECT_ACL(ACL_ERROR_RT_NO_PERMISSION, aclrtNotifyImportByKey(&imported, key, 0)) << "pid not whitelisted";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPid(nullptr, &pid, 1));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPid(n, nullptr, 1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPid(n, &pid, 0));
  ASSERT_ACL_OK(aclrtNotifySetImportPid(n, &pid, 1));
  ASSERT_ACL_OK(aclrtNotifyImportByKey(&imported, key, ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT));
  ASSERT_NE(nullptr, imported);
  EXPECT_NE(n, imported);
  uint32_t id1 = 0, id2 = 0;
  EXPECT_ACL_OK(aclrtGetNotifyId(n, &id1));
  EXPECT_ACL_OK(aclrtGetNotifyId(imported, &id2));
  EXPECT_EQ(id1, id2) << "an import names the same notify";
  // A record through one handle releases a wait through the other.
  aclrtStream waiter = newStream(), recorder = newStream();
  ASSERT_ACL_OK(aclrtWaitAndResetNotify(imported, waiter, 0));
  expectBlocked(waiter);
  ASSERT_ACL_OK(aclrtRecordNotify(n, recorder));
  EXPECT_ACL_OK(aclrtSynchronizeStream(waiter));
  // Closing the import leaves the original; destroying the original retires the key.
  EXPECT_ACL_OK(aclrtDestroyNotify(imported));
  EXPECT_ACL_OK(aclrtGetNotifyId(n, &id1));
  EXPECT_ACL_OK(aclrtDestroyNotify(n));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&imported, key, 0));

  // Without pid validation anybody may import.
  aclrtNotify open = newNotify();
  char openKey[65] = {};
  ASSERT_ACL_OK(
      aclrtNotifyGetExportKey(open, openKey, sizeof openKey, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
  ASSERT_ACL_OK(aclrtNotifyImportByKey(&imported, openKey, ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS));
  EXPECT_ACL_OK(aclrtDestroyNotify(imported));
  EXPECT_ACL_OK(aclrtDestroyNotify(open));
  EXPECT_ACL_OK(aclrtDestroyStream(waiter));
  EXPECT_ACL_OK(aclrtDestroyStream(recorder));
}

TEST_P(NotifyTest, SetImportPidInterServerChecksThenIsNotSupported) {
  aclrtNotify n = newNotify();
  int32_t pid = static_cast<int32_t>(getpid());
  aclrtServerPid entry{0, &pid, 1};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPidInterServer(nullptr, &entry, 1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPidInterServer(n, nullptr, 1));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPidInterServer(n, &entry, 0));
  aclrtServerPid noPid{0, nullptr, 1};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPidInterServer(n, &noPid, 1));
  int32_t two[2] = {pid, pid};
  aclrtServerPid twoPids{0, two, 2};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPidInterServer(n, &twoPids, 1));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtNotifySetImportPidInterServer(n, &entry, 1));
  EXPECT_ACL_OK(aclrtDestroyNotify(n));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtNotifySetImportPidInterServer(n, &entry, 1));
}

// ---------------------------------------------------------------- CntNotify (Ascend 950 only)

TEST_P(NotifyTest, CountingNotifiesCheckTheirArgumentsThenAreNotSupported) {
  aclrtCntNotify c = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyCreate(&c, 1)) << "flag first";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyCreate(nullptr, 0)) << "no ACL-level NULL check";
  inNewThread([] {
    aclrtCntNotify none = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCntNotifyCreate(&none, 0));
  });
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCntNotifyCreate(&c, 0));
  EXPECT_EQ(nullptr, c);
  // Any non-NULL handle: the chip has none.
  aclrtCntNotify fake = reinterpret_cast<aclrtCntNotify>(0x1234);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyDestroy(nullptr));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCntNotifyDestroy(fake));
  aclrtCntNotifyRecordInfo rec{ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCntNotifyRecord(fake, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyRecord(nullptr, nullptr, &rec));
  aclrtCntNotifyRecordInfo badRec{static_cast<aclrtCntNotifyRecordMode>(3), 1};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyRecord(fake, nullptr, &badRec));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCntNotifyRecord(fake, nullptr, &rec));
  aclrtCntNotifyWaitInfo wait{ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 1, 0, 0, {0, 0, 0}};
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCntNotifyWaitWithTimeout(fake, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyWaitWithTimeout(nullptr, nullptr, &wait));
  aclrtCntNotifyWaitInfo badWait{static_cast<aclrtCntNotifyWaitMode>(5), 1, 0, 0, {0, 0, 0}};
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyWaitWithTimeout(fake, nullptr, &badWait));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCntNotifyWaitWithTimeout(fake, nullptr, &wait));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyReset(nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCntNotifyReset(fake, nullptr));
  uint32_t id = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyGetId(nullptr, &id));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyGetId(fake, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCntNotifyGetId(fake, &id));
  EXPECT_EQ(8u, sizeof(aclrtCntNotifyRecordInfo));
  EXPECT_EQ(16u, sizeof(aclrtCntNotifyWaitInfo));
  EXPECT_EQ(24u, sizeof(aclrtServerPid));
}

// ---------------------------------------------------------------- value write / wait (4.6)

TEST_P(NotifyTest, ValueWriteAndWaitChecks) {
  uint64_t* word = newWord(0);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtValueWrite(nullptr, 1, 0, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtValueWait(nullptr, 1, 0, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite(word, 1, 1, nullptr)) << "flag is reserved";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWait(word, 1, 4, nullptr)) << "flag > 3";
  uint64_t host = 0;
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite(&host, 1, 0, nullptr)) << "host memory";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWait(&host, 1, 0, nullptr)) << "host memory";
  auto* odd = reinterpret_cast<uint64_t*>(reinterpret_cast<char*>(word) + 4);
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite(odd, 1, 0, nullptr)) << "misaligned";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWait(odd, 1, 0, nullptr)) << "misaligned";
  // A stream of another context.
  aclrtContext mine = nullptr, other = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&mine));
  ASSERT_ACL_OK(aclrtCreateContext(&other, 0));
  aclrtStream foreign = newStream();
  ASSERT_ACL_OK(aclrtSetCurrentContext(mine));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtValueWrite(word, 1, 0, foreign));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_CONTEXT, aclrtValueWait(word, 1, 0, foreign));
  ASSERT_ACL_OK(aclrtSetCurrentContext(other));
  EXPECT_ACL_OK(aclrtDestroyStream(foreign));
  ASSERT_ACL_OK(aclrtDestroyContext(other));
  ASSERT_ACL_OK(aclrtSetCurrentContext(mine));
  EXPECT_ACL_OK(aclrtFree(word));
}

TEST_P(NotifyTest, ValueWriteStoresTheWordInStreamOrder) {
  uint64_t* word = newWord(0);
  aclrtStream s = newStream();
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(aclrtValueWrite(word, 0x1122334455667788ULL, 0, s));
  EXPECT_EQ(0u, readWord(word)) << "not before the gated task";
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(0x1122334455667788ULL, readWord(word));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtFree(word));
}

TEST_P(NotifyTest, AValueWaitIsReleasedByAnotherStreamsValueWriteOrCopy) {
  uint64_t* word = newWord(0);
  aclrtStream waiter = newStream(), writer = newStream();
  ASSERT_ACL_OK(aclrtValueWait(word, 5, ACL_STREAM_WAIT_VALUE_GEQ, waiter));
  Probe behind;
  ASSERT_ACL_OK(launchProbe(waiter, behind));
  expectBlocked(waiter);
  ASSERT_ACL_OK(aclrtValueWrite(word, 4, 0, writer));
  ASSERT_ACL_OK(aclrtSynchronizeStream(writer));
  expectBlocked(waiter);  // 4 >= 5 does not hold
  EXPECT_FALSE(behind.ran.load());
  ASSERT_ACL_OK(aclrtValueWrite(word, 7, 0, writer));
  EXPECT_ACL_OK(aclrtSynchronizeStream(waiter));
  EXPECT_TRUE(behind.ran.load());
  // Released by an asynchronous copy into the word.
  ASSERT_ACL_OK(aclrtValueWait(word, 9, ACL_STREAM_WAIT_VALUE_EQ, waiter));
  expectBlocked(waiter);
  static const uint64_t nine = 9;
  ASSERT_ACL_OK(aclrtMemcpyAsync(word, 8, &nine, 8, ACL_MEMCPY_HOST_TO_DEVICE, writer));
  EXPECT_ACL_OK(aclrtSynchronizeStream(waiter));
  EXPECT_ACL_OK(aclrtSynchronizeStream(writer));
  EXPECT_ACL_OK(aclrtDestroyStream(waiter));
  EXPECT_ACL_OK(aclrtDestroyStream(writer));
  EXPECT_ACL_OK(aclrtFree(word));
}

TEST_P(NotifyTest, AValueWaitIsReleasedByASynchronousCopyOrAKernelsWrite) {
  uint64_t* word = newWord(0);
  aclrtStream waiter = newStream(), writer = newStream();
  ASSERT_ACL_OK(aclrtValueWait(word, 3, ACL_STREAM_WAIT_VALUE_EQ, waiter));
  expectBlocked(waiter);
  const uint64_t three = 3;
  ASSERT_ACL_OK(aclrtMemcpy(word, 8, &three, 8, ACL_MEMCPY_HOST_TO_DEVICE));
  EXPECT_ACL_OK(aclrtSynchronizeStream(waiter)) << "released by aclrtMemcpy";
  ASSERT_ACL_OK(aclrtValueWait(word, 4, ACL_STREAM_WAIT_VALUE_EQ, waiter));
  expectBlocked(waiter);
  ASSERT_ACL_OK(arun::launch(
      writer, 1, [](arun::Block b, uint64_t* w) { b.at(w) = 4; }, word));
  EXPECT_ACL_OK(aclrtSynchronizeStream(writer));
  EXPECT_ACL_OK(aclrtSynchronizeStream(waiter)) << "released by a kernel's store";
  EXPECT_ACL_OK(aclrtDestroyStream(waiter));
  EXPECT_ACL_OK(aclrtDestroyStream(writer));
  EXPECT_ACL_OK(aclrtFree(word));
}

TEST_P(NotifyTest, ValueWaitConditions) {
  struct Case {
    uint64_t word, value;
    uint32_t flag;
    bool holds;
  } cases[] = {
      {5, 5, ACL_STREAM_WAIT_VALUE_GEQ, true},
      {6, 5, ACL_STREAM_WAIT_VALUE_GEQ, true},
      {4, 5, ACL_STREAM_WAIT_VALUE_GEQ, false},
      {2, UINT64_MAX - 1, ACL_STREAM_WAIT_VALUE_GEQ, true},  // wrapped around: reached
      {UINT64_MAX, 1, ACL_STREAM_WAIT_VALUE_GEQ, false},     // "before" 1 in wrap-around order
      {7, 7, ACL_STREAM_WAIT_VALUE_EQ, true},
      {8, 7, ACL_STREAM_WAIT_VALUE_EQ, false},
      {0x6, 0x2, ACL_STREAM_WAIT_VALUE_AND, true},
      {0x4, 0x2, ACL_STREAM_WAIT_VALUE_AND, false},
      {0x0, 0x0, ACL_STREAM_WAIT_VALUE_NOR, true},
      {UINT64_MAX, 0, ACL_STREAM_WAIT_VALUE_NOR, false},
      {0xFFFFFFFF00000000ULL, 0x00000000FFFFFFFFULL, ACL_STREAM_WAIT_VALUE_NOR, false},
      {0xFFFFFFFF00000000ULL, 0x00000000FFFFFFFEULL, ACL_STREAM_WAIT_VALUE_NOR, true},
  };
  aclrtStream s = newStream(), writer = newStream();
  for (const Case& c : cases) {
    uint64_t* word = newWord(c.word);
    ASSERT_ACL_OK(aclrtValueWait(word, c.value, c.flag, s));
    if (c.holds) {
      EXPECT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 5000))
          << "word " << c.word << " value " << c.value << " flag " << c.flag;
    } else {
      EXPECT_ACL(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 100))
          << "word " << c.word << " value " << c.value << " flag " << c.flag;
      // Make it hold from another stream: the wait is checked again.
      const uint64_t fix = c.flag == ACL_STREAM_WAIT_VALUE_NOR ? 0 : c.value;
      ASSERT_ACL_OK(aclrtValueWrite(word, fix, 0, writer));
      EXPECT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 5000)) << "released by the write";
    }
    ASSERT_ACL_OK(aclrtSynchronizeStream(writer));
    EXPECT_ACL_OK(aclrtFree(word));
  }
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(writer));
}

TEST_P(NotifyTest, AValueWaitNothingReleasesDoesNotHangDestroyAndStopKillsIt) {
  uint64_t* word = newWord(0);
  aclrtStream s = newStream();
  ASSERT_ACL_OK(aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
  expectBlocked(s);
  auto t0 = Clock::now();
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  aclrtStream t = newStream();
  ASSERT_ACL_OK(aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_EQ, t));
  // aclrtStreamStop kills a blocked wait: the stream is abnormal afterwards (R3).
  EXPECT_ACL_OK(aclrtStreamStop(t));
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtSynchronizeStream(t));
  EXPECT_ACL_OK(aclrtStreamAbort(t));
  EXPECT_ACL_OK(aclrtSynchronizeStream(t));
  EXPECT_ACL_OK(aclrtDestroyStream(t));
  EXPECT_ACL_OK(aclrtFree(word));
}

}  // namespace
ARUN_CONFORMANCE_INSTANTIATE(NotifyTest);
}  // namespace conformance
