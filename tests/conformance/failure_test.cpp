// Sections 2.4 and 2.8: what happens when a task fails — failure modes, exception-info hooks and
// their accessors, aclrtStreamAbort / aclrtStreamStop, and that other streams keep working.
//
// A task is made to fail without any timing: a device-to-device copy is enqueued behind a gate,
// its source is freed while it waits, and the gate is opened — the copy engine then finds no live
// allocation and faults with ACL_ERROR_RT_COPY_DATA.
#include <sys/syscall.h>
#include <unistd.h>

#include "conformance.hpp"

namespace conformance {
namespace {

std::mutex g_infoMutex;
std::vector<std::vector<uint32_t>> g_infos;  // task, stream, thread, device, code per call

void recordInfo(aclrtExceptionInfo *info) {
  std::lock_guard lock(g_infoMutex);
  g_infos.push_back({aclrtGetTaskIdFromExceptionInfo(info), aclrtGetStreamIdFromExceptionInfo(info),
                     aclrtGetThreadIdFromExceptionInfo(info), aclrtGetDeviceIdFromExceptionInfo(info),
                     aclrtGetErrorCodeFromExceptionInfo(info)});
}

void recordInfoToo(aclrtExceptionInfo *info) { recordInfo(info); }

class FailureTest : public AclDeviceTest {
 protected:
  void TearDown() override {
    AclDeviceTest::TearDown();
    (void)aclrtExceptionInfoCallbackUnregister(&recordInfo);
    (void)aclrtExceptionInfoCallbackUnregister(&recordInfoToo);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    (void)aclrtSetExceptionInfoCallback(nullptr);
#pragma GCC diagnostic pop
    std::lock_guard lock(g_infoMutex);
    g_infos.clear();
  }

  // Enqueues on `s` a copy that fails once `gate` opens (see the file comment).
  void enqueueFailingCopy(aclrtStream s, Gate &gate) {
    void *src = nullptr, *dst = nullptr;
    ASSERT_ACL_OK(aclrtMalloc(&src, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ASSERT_ACL_OK(aclrtMalloc(&dst, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ASSERT_ACL_OK(launchGate(s, gate));
    ASSERT_ACL_OK(aclrtMemcpyAsync(dst, 4096, src, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    ASSERT_ACL_OK(aclrtFree(src));
    dsts_.push_back(dst);
  }
  void freeCopyTargets() {
    for (void *p : dsts_) EXPECT_ACL_OK(aclrtFree(p));
    dsts_.clear();
  }

 private:
  std::vector<void *> dsts_;
};

TEST_P(FailureTest, ContinueOnFailureRunsLaterTasksAndReportsTheErrorOnce) {
  aclrtStream s = nullptr, other = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&other));
  Gate &gate = newGate();
  enqueueFailingCopy(s, gate);
  Probe after;
  ASSERT_ACL_OK(launchProbe(s, after));
  gate.open();
  EXPECT_ACL(ACL_ERROR_RT_COPY_DATA, aclrtSynchronizeStream(s));
  EXPECT_TRUE(after.ran.load()) << "ACL_CONTINUE_ON_FAILURE (the default) runs the tasks after a failure";
  EXPECT_ACL_OK(aclrtSynchronizeStream(s)) << "an error is reported by one synchronize only";
  // The stream, other streams and the device keep working.
  Probe again, elsewhere;
  ASSERT_ACL_OK(launchProbe(s, again));
  ASSERT_ACL_OK(launchProbe(other, elsewhere));
  EXPECT_ACL_OK(aclrtSynchronizeDevice());
  EXPECT_TRUE(again.ran.load());
  EXPECT_TRUE(elsewhere.ran.load());
  freeCopyTargets();
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(other));
}

TEST_P(FailureTest, SynchronizeDeviceReportsAFailureOnAnyStream) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate &gate = newGate();
  enqueueFailingCopy(s, gate);
  gate.open();
  EXPECT_ACL(ACL_ERROR_RT_COPY_DATA, aclrtSynchronizeDevice());
  EXPECT_ACL_OK(aclrtSynchronizeDevice());
  freeCopyTargets();
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(FailureTest, StopOnFailureDropsQueuedTasksAndRefusesNewOnesUntilAbort) {
  aclrtStream s = nullptr, other = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&other));
  ASSERT_ACL_OK(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
  ASSERT_ACL_OK(aclrtSetStreamFailureMode(other, ACL_CONTINUE_ON_FAILURE));
  Gate &gate = newGate();
  enqueueFailingCopy(s, gate);
  Probe after;
  ASSERT_ACL_OK(launchProbe(s, after));
  gate.open();
  EXPECT_ACL(ACL_ERROR_RT_COPY_DATA, aclrtSynchronizeStream(s));
  EXPECT_FALSE(after.ran.load()) << "ACL_STOP_ON_FAILURE must not run the tasks queued after the failure";
  Probe refused;
  EXPECT_ACL(ACL_ERROR_RT_COPY_DATA, launchProbe(s, refused)) << "a stopped stream refuses new tasks";
  EXPECT_NE(nullptr, aclGetRecentErrMsg());
  // A stream that chose to continue still runs its work, but (spec part 2, R3) the context is in
  // stop-on-failure mode now, so its synchronize reports the context's sticky failure.
  Probe elsewhere;
  ASSERT_ACL_OK(launchProbe(other, elsewhere));
  EXPECT_ACL(ACL_ERROR_RT_COPY_DATA, aclrtSynchronizeStream(other));
  EXPECT_TRUE(elsewhere.ran.load());
  // aclrtStreamAbort takes the stream back into service; the context's error stays.
  ASSERT_ACL_OK(aclrtStreamAbort(s));
  Probe revived;
  ASSERT_ACL_OK(launchProbe(s, revived));
  EXPECT_ACL(ACL_ERROR_RT_COPY_DATA, aclrtSynchronizeStream(s));
  EXPECT_TRUE(revived.ran.load());
  EXPECT_FALSE(refused.ran.load());
  freeCopyTargets();
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(other));
}

TEST_P(FailureTest, StopOnFailureAppliesToStreamsOfTheContextWithoutAModeOfTheirOwn) {
  aclrtStream chooser = nullptr, follower = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&chooser));
  ASSERT_ACL_OK(aclrtCreateStream(&follower));
  ASSERT_ACL_OK(aclrtSetStreamFailureMode(chooser, ACL_STOP_ON_FAILURE));
  Gate &gate = newGate();
  enqueueFailingCopy(follower, gate);
  Probe after;
  ASSERT_ACL_OK(launchProbe(follower, after));
  gate.open();
  EXPECT_ACL(ACL_ERROR_RT_COPY_DATA, aclrtSynchronizeStream(follower));
  EXPECT_FALSE(after.ran.load());
  freeCopyTargets();
  EXPECT_ACL_OK(aclrtDestroyStream(chooser));
  EXPECT_ACL_OK(aclrtDestroyStream(follower));
}

TEST_P(FailureTest, ExceptionInfoReachesEveryHookWithTheFailedTask) {
  ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(&recordInfo));
  // Spec part 2, 4.7: a second registration keeps one; unregistering an unknown pointer succeeds.
  EXPECT_ACL_OK(aclrtExceptionInfoCallbackRegister(&recordInfo)) << "registered twice";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtExceptionInfoCallbackRegister(nullptr));
  EXPECT_ACL_OK(aclrtExceptionInfoCallbackUnregister(&recordInfoToo)) << "never registered";
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  ASSERT_ACL_OK(aclrtSetExceptionInfoCallback(&recordInfoToo));
#pragma GCC diagnostic pop
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  int32_t streamId = -1;
  ASSERT_ACL_OK(aclrtStreamGetId(s, &streamId));
  Gate &gate = newGate();
  enqueueFailingCopy(s, gate);
  uint32_t taskId = 0;
  ASSERT_ACL_OK(aclrtGetThreadLastTaskId(&taskId));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetThreadLastTaskId(nullptr));
  gate.open();
  EXPECT_ACL(ACL_ERROR_RT_COPY_DATA, aclrtSynchronizeStream(s));
  {
    std::lock_guard lock(g_infoMutex);
    ASSERT_EQ(2u, g_infos.size()) << "the registered hook and the legacy hook each run once";
    for (auto &info : g_infos) {
      EXPECT_EQ(taskId, info[0]) << "task id (aclrtGetThreadLastTaskId after enqueueing the copy)";
      EXPECT_EQ(static_cast<uint32_t>(streamId), info[1]);
      EXPECT_EQ(static_cast<uint32_t>(syscall(SYS_gettid)), info[2]) << "the thread that submitted the task";
      EXPECT_EQ(0u, info[3]);
      EXPECT_EQ(static_cast<uint32_t>(ACL_ERROR_RT_COPY_DATA), info[4]);
    }
  }
  aclrtErrorInfo verbose{};
  EXPECT_ACL_OK(aclrtGetErrorVerbose(0, &verbose));
  EXPECT_NE(ACL_RT_NO_ERROR, verbose.errorType);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetErrorVerbose(0, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetErrorVerbose(-1, &verbose));

  // Unregistered and cleared hooks are not called again.
  ASSERT_ACL_OK(aclrtExceptionInfoCallbackUnregister(&recordInfo));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  ASSERT_ACL_OK(aclrtSetExceptionInfoCallback(nullptr));
#pragma GCC diagnostic pop
  Gate &gate2 = newGate();
  enqueueFailingCopy(s, gate2);
  gate2.open();
  EXPECT_ACL(ACL_ERROR_RT_COPY_DATA, aclrtSynchronizeStream(s));
  {
    std::lock_guard lock(g_infoMutex);
    EXPECT_EQ(2u, g_infos.size());
  }
  freeCopyTargets();
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(FailureTest, ExceptionInfoAccessorsOfNull) {
  EXPECT_EQ(0xFFFFFFFFu, aclrtGetTaskIdFromExceptionInfo(nullptr));
  EXPECT_EQ(0xFFFFFFFFu, aclrtGetStreamIdFromExceptionInfo(nullptr));
  EXPECT_EQ(0xFFFFFFFFu, aclrtGetThreadIdFromExceptionInfo(nullptr));
  EXPECT_EQ(0xFFFFFFFFu, aclrtGetDeviceIdFromExceptionInfo(nullptr));
  EXPECT_EQ(0xFFFFFFFFu, aclrtGetErrorCodeFromExceptionInfo(nullptr));
}

TEST_P(FailureTest, LastErrorLevels) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateStream(nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL)) << "peek leaves it in place";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetLastError(static_cast<aclrtLastErrLevel>(1)));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
  EXPECT_ACL_OK(aclrtGetLastError(ACL_RT_THREAD_LEVEL)) << "get clears it";
  // An asynchronous failure becomes the last error of the thread whose synchronize reports it.
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate &gate = newGate();
  enqueueFailingCopy(s, gate);
  gate.open();
  EXPECT_ACL(ACL_ERROR_RT_COPY_DATA, aclrtSynchronizeStream(s));
  EXPECT_ACL(ACL_ERROR_RT_COPY_DATA, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
  inNewThread([] { EXPECT_ACL_OK(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL)) << "the last error is per thread"; });
  freeCopyTargets();
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(FailureTest, AbortMakesAConcurrentSynchronizeReturnStreamAbort) {
  aclrtStream blocker = nullptr, s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&blocker));
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&event));
  Gate &gate = newGate();
  // s waits for work gated on another stream, so nothing of s runs and the abort does not wait.
  ASSERT_ACL_OK(launchGate(blocker, gate));
  ASSERT_ACL_OK(aclrtRecordEvent(event, blocker));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(s, event));
  Probe queued;
  ASSERT_ACL_OK(launchProbe(s, queued));
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  std::atomic<bool> waiting{false};
  aclError syncRc = ACL_SUCCESS;
  std::thread waiter([&] {
    ASSERT_ACL_OK(aclrtSetCurrentContext(ctx));
    waiting = true;
    syncRc = aclrtSynchronizeStream(s);
  });
  while (!waiting) std::this_thread::yield();
  // Give the waiter time to enter its wait; if it had not, it would see an empty stream and the
  // check below would fail rather than pass by accident.
  std::this_thread::sleep_for(50ms);
  ASSERT_ACL_OK(aclrtStreamAbort(s));
  waiter.join();
  EXPECT_ACL(ACL_ERROR_RT_STREAM_ABORT, syncRc);
  EXPECT_FALSE(gate.watchdogFired()) << "the abort waited for another stream";
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeStream(blocker));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_FALSE(queued.ran.load());
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
  EXPECT_ACL_OK(aclrtDestroyStream(blocker));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(FailureTest, StopDropsTheQueueAndMarksTheStreamAbnormal) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamStop(nullptr));
  EXPECT_ACL_OK(aclrtStreamStop(s)) << "stopping an idle stream is a no-op";
  Gate &gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  Probe behind;
  ASSERT_ACL_OK(launchProbe(s, behind));
  ASSERT_TRUE(gate.waitEntered(1));
  // A host task cannot be halted half-way, but what is queued behind it is dropped and the stream
  // is abnormal (spec part 2, R3) until it is destroyed.
  EXPECT_ACL_OK(aclrtStreamStop(s));
  gate.open();
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtSynchronizeStream(s));
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtSynchronizeStream(s)) << "every later synchronize";
  EXPECT_FALSE(behind.ran.load()) << "aclrtStreamStop drops the tasks behind the halted one";
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

}  // namespace
ARUN_CONFORMANCE_INSTANTIATE(FailureTest);
}  // namespace conformance
