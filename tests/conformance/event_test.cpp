// Section 2.5: events.
#include <cmath>

#include "conformance.hpp"

namespace conformance {
namespace {

class EventTest : public AclDeviceTest {
 protected:
  static aclrtEventRecordedStatus status(aclrtEvent event) {
    aclrtEventRecordedStatus s = static_cast<aclrtEventRecordedStatus>(-1);
    EXPECT_ACL_OK(aclrtQueryEventStatus(event, &s));
    return s;
  }
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
// Spec part 2, R2: aclrtQueryEventStatus reports a never-recorded aclrtCreateEvent event as
// NOT_READY; aclrtQueryEvent and the waits still treat it as complete.
TEST_P(EventTest, NeverRecordedEventQueries) {
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&event));
  ASSERT_NE(nullptr, event);
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status(event));
  aclrtEventStatus old = ACL_EVENT_STATUS_RESERVED;
  EXPECT_ACL_OK(aclrtQueryEvent(event, &old));
  EXPECT_EQ(ACL_EVENT_STATUS_COMPLETE, old);
  EXPECT_ACL_OK(aclrtSynchronizeEvent(event));
  EXPECT_ACL_OK(aclrtSynchronizeEventWithTimeout(event, 0));
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
}

TEST_P(EventTest, EventArgumentRules) {
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateEvent(nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateEventWithFlag(nullptr, ACL_EVENT_SYNC));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtCreateEventExWithFlag(nullptr, ACL_EVENT_SYNC));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent(nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtRecordEvent(nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtResetEvent(nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEvent(nullptr));
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&event));
  aclrtEventRecordedStatus rs;
  aclrtEventStatus es;
  aclrtEventWaitStatus ws;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(nullptr, &rs));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(event, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtQueryEvent(nullptr, &es));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtQueryEvent(event, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtQueryEventWaitStatus(nullptr, &ws));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtQueryEventWaitStatus(event, nullptr));
  float ms = 0;
  uint64_t ts = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(nullptr, event, event));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(&ms, nullptr, event));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(&ms, event, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtEventGetTimestamp(nullptr, &ts));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtEventGetTimestamp(event, nullptr));
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
  inNewThread([] {
    aclrtEvent e = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateEvent(&e));
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
  });
}

TEST_P(EventTest, RecordBehindBlockedTaskIsNotReadyUntilItFinishes) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&event));
  Gate &gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(aclrtRecordEvent(event, s));
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status(event));
  aclrtEventStatus old = ACL_EVENT_STATUS_RESERVED;
  EXPECT_ACL_OK(aclrtQueryEvent(event, &old));
  EXPECT_EQ(ACL_EVENT_STATUS_NOT_READY, old);
  EXPECT_ACL(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(event, 10));
  EXPECT_ACL(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(event, 0));
  EXPECT_FALSE(gate.watchdogFired());
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeEvent(event));
  EXPECT_EQ(1, gate.exited()) << "aclrtSynchronizeEvent returned before the captured work finished";
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status(event));
  EXPECT_ACL_OK(aclrtQueryEvent(event, &old));
  EXPECT_EQ(ACL_EVENT_STATUS_COMPLETE, old);
  EXPECT_ACL_OK(aclrtSynchronizeEventWithTimeout(event, -1));
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}
#pragma GCC diagnostic pop

TEST_P(EventTest, SynchronizeEventWithTimeoutChecksTheTimeoutFirst) {
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(nullptr, -2));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEventWithTimeout(nullptr, -1));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEventWithTimeout(nullptr, 10));
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&event));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(event, -2));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(event, INT32_MIN));
  EXPECT_ACL_OK(aclrtSynchronizeEventWithTimeout(event, -1));
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
}

TEST_P(EventTest, ElapsedTimeAndTimestampsOfTwoEventsOnOneStream) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclrtEvent start = nullptr, end = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&start));
  ASSERT_ACL_OK(aclrtCreateEvent(&end));
  ASSERT_ACL_OK(aclrtRecordEvent(start, s));
  ASSERT_ACL_OK(launch(s, [] {
    // Some device time between the two records.
    volatile uint64_t x = 0;
    for (int i = 0; i < 200000; ++i) x = x + static_cast<uint64_t>(i);
  }));
  ASSERT_ACL_OK(aclrtRecordEvent(end, s));
  ASSERT_ACL_OK(aclrtSynchronizeEvent(end));
  ASSERT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status(start));
  float ms = -1.0f;
  ASSERT_ACL_OK(aclrtEventElapsedTime(&ms, start, end));
  EXPECT_GE(ms, 0.0f);
  uint64_t tStart = 0, tEnd = 0;
  ASSERT_ACL_OK(aclrtEventGetTimestamp(start, &tStart));
  ASSERT_ACL_OK(aclrtEventGetTimestamp(end, &tEnd));
  EXPECT_LE(tStart, tEnd);
  // Both read the same device clock: microsecond timestamps and the millisecond difference agree.
  const double fromTimestamps = static_cast<double>(tEnd - tStart) / 1000.0;
  EXPECT_NEAR(fromTimestamps, static_cast<double>(ms), 0.002 + 0.001 * fromTimestamps);
  if (ms > 0.0f) {
    float reversed = 0;
    EXPECT_ACL(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL, aclrtEventElapsedTime(&reversed, end, start));
  }
  float same = -1.0f;
  EXPECT_ACL_OK(aclrtEventElapsedTime(&same, start, start));
  EXPECT_EQ(0.0f, same);
  EXPECT_ACL_OK(aclrtDestroyEvent(start));
  EXPECT_ACL_OK(aclrtDestroyEvent(end));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(EventTest, ElapsedTimeAndTimestampNeedCompletedEvents) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclrtEvent a = nullptr, b = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&a));
  ASSERT_ACL_OK(aclrtCreateEvent(&b));
  float ms = 0;
  uint64_t ts = 0;
  // Never recorded: no timestamps.
  EXPECT_ACL_EITHER(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, ACL_ERROR_RT_EVENT_NOT_COMPLETE, aclrtEventElapsedTime(&ms, a, b));
  EXPECT_ACL_EITHER(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, ACL_ERROR_RT_EVENT_NOT_COMPLETE, aclrtEventGetTimestamp(a, &ts));
  // Recorded behind a blocked task: not complete yet.
  Gate &gate = newGate();
  ASSERT_ACL_OK(aclrtRecordEvent(a, s));
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(aclrtRecordEvent(b, s));
  EXPECT_ACL_EITHER(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, ACL_ERROR_RT_EVENT_NOT_COMPLETE, aclrtEventElapsedTime(&ms, a, b));
  EXPECT_ACL_EITHER(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, ACL_ERROR_RT_EVENT_NOT_COMPLETE, aclrtEventGetTimestamp(b, &ts));
  EXPECT_FALSE(gate.watchdogFired()) << "aclrtEventElapsedTime/GetTimestamp must not wait";
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeEvent(b));
  EXPECT_ACL_OK(aclrtEventElapsedTime(&ms, a, b));
  EXPECT_GE(ms, 0.0f);
  EXPECT_ACL_OK(aclrtEventGetTimestamp(b, &ts));
  EXPECT_ACL_OK(aclrtDestroyEvent(a));
  EXPECT_ACL_OK(aclrtDestroyEvent(b));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(EventTest, DestroyedEventIsInvalidHandle) {
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&event, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE));
  aclrtEvent other = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&other));
  ASSERT_ACL_OK(aclrtDestroyEvent(event));
  aclrtEventRecordedStatus rs;
  aclrtEventWaitStatus ws;
  float ms = 0;
  uint64_t ts = 0;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyEvent(event));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEvent(event, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetEvent(event, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtQueryEventStatus(event, &rs));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtQueryEventWaitStatus(event, &ws));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeEvent(event));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeEventWithTimeout(event, 10));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEvent(nullptr, event));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtEventElapsedTime(&ms, event, other));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtEventElapsedTime(&ms, other, event));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtEventGetTimestamp(event, &ts));
  int bogus = 0;
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtQueryEventStatus(&bogus, &rs));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyEvent(&bogus));
  EXPECT_ACL_OK(aclrtDestroyEvent(other));
}

TEST_P(EventTest, DestroyingAPendingEventReturnsAtOnce) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&event));
  Gate &gate = newGate();
  Probe after;
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(aclrtRecordEvent(event, s));
  ASSERT_ACL_OK(launchProbe(s, after));
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
  EXPECT_FALSE(gate.watchdogFired()) << "aclrtDestroyEvent waited for the captured work";
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(after.ran.load());
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(EventTest, ReRecordingOverwritesTheCapture) {
  aclrtStream blocked = nullptr, idle = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&blocked));
  ASSERT_ACL_OK(aclrtCreateStream(&idle));
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&event));
  Gate &gate = newGate();
  ASSERT_ACL_OK(launchGate(blocked, gate));
  ASSERT_ACL_OK(aclrtRecordEvent(event, blocked));
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status(event));
  // Re-record on a stream with nothing pending: the event now captures only that (empty) work.
  ASSERT_ACL_OK(aclrtRecordEvent(event, idle));
  EXPECT_ACL_OK(aclrtSynchronizeEventWithTimeout(event, 10000));
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status(event));
  EXPECT_EQ(0, gate.exited()) << "the blocked task cannot have finished";
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeStream(blocked));
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
  EXPECT_ACL_OK(aclrtDestroyStream(blocked));
  EXPECT_ACL_OK(aclrtDestroyStream(idle));
}

TEST_P(EventTest, CreateEventWithFlag) {
  for (uint32_t flag : {ACL_EVENT_SYNC, ACL_EVENT_TIME_LINE, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE}) {
    SCOPED_TRACE("flag " + std::to_string(flag));
    aclrtEvent event = nullptr;
    ASSERT_ACL_OK(aclrtCreateEventWithFlag(&event, flag));
    ASSERT_NE(nullptr, event);
    EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status(event)) << "never recorded (R2)";
    ASSERT_ACL_OK(aclrtRecordEvent(event, nullptr));
    EXPECT_ACL_OK(aclrtSynchronizeEvent(event));
    EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status(event));
    EXPECT_ACL_OK(aclrtDestroyEvent(event));
  }
  aclrtEvent event = nullptr;
  EXPECT_ACL_EITHER(ACL_ERROR_RT_PARAM_INVALID, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                    aclrtCreateEventWithFlag(&event, ACL_EVENT_EXTERNAL | ACL_EVENT_SYNC));
}

TEST_P(EventTest, TimeLineFlagControlsTimestamps) {
  aclrtEvent t1 = nullptr, t2 = nullptr, s1 = nullptr, s2 = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&t1, ACL_EVENT_TIME_LINE));
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&t2, ACL_EVENT_TIME_LINE));
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&s1, ACL_EVENT_SYNC));
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&s2, ACL_EVENT_SYNC));
  for (aclrtEvent e : {t1, s1, t2, s2}) ASSERT_ACL_OK(aclrtRecordEvent(e, nullptr));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  float ms = -1.0f;
  EXPECT_ACL_OK(aclrtEventElapsedTime(&ms, t1, t2));
  EXPECT_GE(ms, 0.0f);
  // Without TIME_LINE the events complete but carry no timestamp.
  EXPECT_ACL_EITHER(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, ACL_ERROR_RT_EVENT_NOT_COMPLETE, aclrtEventElapsedTime(&ms, s1, s2));
  uint64_t ts = 0;
  EXPECT_ACL_EITHER(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, ACL_ERROR_RT_EVENT_NOT_COMPLETE, aclrtEventGetTimestamp(s1, &ts));
  for (aclrtEvent e : {t1, s1, t2, s2}) EXPECT_ACL_OK(aclrtDestroyEvent(e));
}

TEST_P(EventTest, ResetEventRules) {
  // Only SYNC events from aclrtCreateEventWithFlag can be reset.
  aclrtEvent plain = nullptr, timeline = nullptr;
  ASSERT_ACL_OK(aclrtCreateEvent(&plain));
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&timeline, ACL_EVENT_TIME_LINE));
  EXPECT_ACL_EITHER(ACL_ERROR_RT_PARAM_INVALID, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(plain, nullptr));
  EXPECT_ACL_EITHER(ACL_ERROR_RT_PARAM_INVALID, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(timeline, nullptr));
  EXPECT_ACL_OK(aclrtDestroyEvent(plain));
  EXPECT_ACL_OK(aclrtDestroyEvent(timeline));

  // The documented pattern: record on A, wait and reset on B, record again.
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateStream(&b));
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&event, ACL_EVENT_SYNC));
  Gate &gate = newGate();
  std::atomic<bool> aDone{false}, bSawADone{false};
  ASSERT_ACL_OK(launchGate(a, gate));
  ASSERT_ACL_OK(launch(a, [&aDone] { aDone.store(true); }));
  ASSERT_ACL_OK(aclrtRecordEvent(event, a));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(b, event));
  ASSERT_ACL_OK(aclrtResetEvent(event, b));
  ASSERT_ACL_OK(launch(b, [&] { bSawADone.store(aDone.load()); }));
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(b));
  ASSERT_ACL_OK(aclrtSynchronizeStream(a));
  EXPECT_TRUE(bSawADone.load()) << "the reset enqueued behind the wait released the wait early";
  ASSERT_ACL_OK(aclrtRecordEvent(event, a));
  EXPECT_ACL_OK(aclrtSynchronizeEvent(event));
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status(event));
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
  EXPECT_ACL_OK(aclrtDestroyStream(a));
  EXPECT_ACL_OK(aclrtDestroyStream(b));
}

TEST_P(EventTest, QueryEventWaitStatus) {
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateStream(&b));
  aclrtEvent event = nullptr;
  ASSERT_ACL_OK(aclrtCreateEventWithFlag(&event, ACL_EVENT_SYNC));
  Gate &gate = newGate();
  ASSERT_ACL_OK(launchGate(a, gate));
  ASSERT_ACL_OK(aclrtRecordEvent(event, a));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(b, event));
  aclrtEventWaitStatus ws = ACL_EVENT_WAIT_STATUS_RESERVED;
  ASSERT_ACL_OK(aclrtQueryEventWaitStatus(event, &ws));
  EXPECT_EQ(ACL_EVENT_WAIT_STATUS_NOT_READY, ws);
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(b));
  ASSERT_ACL_OK(aclrtQueryEventWaitStatus(event, &ws));
  EXPECT_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, ws);
  EXPECT_ACL_OK(aclrtSynchronizeStream(a));
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
  EXPECT_ACL_OK(aclrtDestroyStream(a));
  EXPECT_ACL_OK(aclrtDestroyStream(b));
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST_P(EventTest, ExEventRules) {
  aclrtEvent event = nullptr;
  EXPECT_ACL_EITHER(ACL_ERROR_RT_PARAM_INVALID, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                    aclrtCreateEventExWithFlag(&event, ACL_EVENT_IPC | ACL_EVENT_SYNC));
  ASSERT_ACL_OK(aclrtCreateEventExWithFlag(&event, ACL_EVENT_SYNC));
  ASSERT_NE(nullptr, event);
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status(event)) << "a never-recorded Ex event is COMPLETE (R2)";
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&a));
  ASSERT_ACL_OK(aclrtCreateStream(&b));
  Gate &gate = newGate();
  std::atomic<bool> aDone{false}, bSawADone{false};
  ASSERT_ACL_OK(launchGate(a, gate));
  ASSERT_ACL_OK(launch(a, [&aDone] { aDone.store(true); }));
  ASSERT_ACL_OK(aclrtRecordEvent(event, a));
  ASSERT_ACL_OK(aclrtStreamWaitEvent(b, event));
  ASSERT_ACL_OK(launch(b, [&] { bSawADone.store(aDone.load()); }));
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status(event));
  // Not available for Ex events.
  EXPECT_ACL_EITHER(ACL_ERROR_RT_PARAM_INVALID, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(event, b));
  aclrtEventStatus old;
  EXPECT_NE(ACL_SUCCESS, aclrtQueryEvent(event, &old));
  aclrtEventWaitStatus ws;
  EXPECT_NE(ACL_SUCCESS, aclrtQueryEventWaitStatus(event, &ws));
  gate.open();
  ASSERT_ACL_OK(aclrtSynchronizeStream(b));
  EXPECT_TRUE(bSawADone.load());
  EXPECT_ACL_OK(aclrtSynchronizeEvent(event));
  EXPECT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status(event));
  EXPECT_ACL_OK(aclrtDestroyEvent(event));
  EXPECT_ACL_OK(aclrtDestroyStream(a));
  EXPECT_ACL_OK(aclrtDestroyStream(b));
}
#pragma GCC diagnostic pop

ARUN_CONFORMANCE_INSTANTIATE(EventTest);

}  // namespace
}  // namespace conformance
