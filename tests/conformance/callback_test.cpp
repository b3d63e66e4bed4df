// Section 2.7: host callbacks (aclrtLaunchCallback, served by a thread subscribed with
// aclrtSubscribeReport that loops on aclrtProcessReport) and host functions (aclrtLaunchHostFunc,
// run by the runtime's own thread or by a thread subscribed with aclrtSubscribeHostFunc).
#include <pthread.h>

#include <future>

#include "conformance.hpp"

namespace conformance {
namespace {

uint64_t selfId() { return static_cast<uint64_t>(pthread_self()); }

// A thread that serves one stream's callbacks (or host functions) until stopped.
class ReportThread {
 public:
  ReportThread(aclrtContext ctx, aclrtStream stream, bool hostFunc = false) : stream_(stream), hostFunc_(hostFunc) {
    std::promise<void> subscribed;
    auto ready = subscribed.get_future();
    thread_ = std::thread([this, ctx, &subscribed] {
      EXPECT_ACL_OK(aclrtSetCurrentContext(ctx));
      EXPECT_ACL_OK(hostFunc_ ? aclrtSubscribeHostFunc(selfId(), stream_) : aclrtSubscribeReport(selfId(), stream_));
      id_ = selfId();
      subscribed.set_value();
      while (!stop_) {
        aclError rc = hostFunc_ ? aclrtProcessHostFunc(10) : aclrtProcessReport(10);
        if (rc == ACL_SUCCESS) ++processed_;
        else EXPECT_ACL(ACL_ERROR_RT_REPORT_TIMEOUT, rc);
      }
      EXPECT_ACL_OK(hostFunc_ ? aclrtUnSubscribeHostFunc(selfId(), stream_) : aclrtUnSubscribeReport(selfId(), stream_));
    });
    ready.wait();
  }
  ~ReportThread() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  uint64_t id() const { return id_; }
  int processed() const { return processed_; }

 private:
  aclrtStream stream_;
  bool hostFunc_;
  std::atomic<bool> stop_{false};
  std::atomic<int> processed_{0};
  uint64_t id_ = 0;
  std::thread thread_;
};

struct CallbackLog {
  std::mutex mutex;
  std::vector<int> order;
  std::vector<uint64_t> threads;
};

struct Entry {
  CallbackLog *log;
  int index;
  Gate *gate = nullptr;
};

void logCallback(void *arg) {
  auto *e = static_cast<Entry *>(arg);
  if (e->gate) Gate::taskFn(e->gate);
  std::lock_guard lock(e->log->mutex);
  e->log->order.push_back(e->index);
  e->log->threads.push_back(selfId());
}

class CallbackTest : public AclDeviceTest {
 protected:
  aclrtContext context() {
    aclrtContext ctx = nullptr;
    EXPECT_ACL_OK(aclrtGetCurrentContext(&ctx));
    return ctx;
  }
};

TEST_P(CallbackTest, ArgumentAndSubscriptionErrors) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  CallbackLog log;
  Entry e{&log, 0};
  EXPECT_ACL(ACL_ERROR_RT_STREAM_NO_CB_REG, aclrtLaunchCallback(&logCallback, &e, ACL_CALLBACK_BLOCK, s))
      << "nobody subscribed to the stream";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtLaunchCallback(nullptr, &e, ACL_CALLBACK_BLOCK, s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtLaunchCallback(&logCallback, &e, static_cast<aclrtCallbackBlockType>(2), s));
  EXPECT_ACL(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessReport(10)) << "this thread serves no stream";
  EXPECT_ACL(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessHostFunc(10));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtProcessReport(0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtProcessReport(-2));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtProcessHostFunc(0));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtProcessHostFunc(-5));

  ASSERT_ACL_OK(aclrtSubscribeReport(selfId(), s));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeReport(selfId(), s)) << "already subscribed";
  EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeReport(selfId() + 1, s)) << "one thread per stream";
  EXPECT_ACL(ACL_ERROR_RT_REPORT_TIMEOUT, aclrtProcessReport(10)) << "nothing was launched";
  EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtUnSubscribeReport(selfId() + 1, s));
  ASSERT_ACL_OK(aclrtUnSubscribeReport(selfId(), s));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtUnSubscribeReport(selfId(), s)) << "no longer subscribed";

  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchHostFunc(s, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSubscribeHostFunc(selfId(), nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtUnSubscribeHostFunc(selfId(), nullptr));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtUnSubscribeHostFunc(selfId(), s));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(CallbackTest, AThreadServesOneDeviceOnly) {
  if (deviceCount() < 2) GTEST_SKIP() << "needs two devices";
  aclrtStream s0 = nullptr, s1 = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s0));
  ASSERT_ACL_OK(aclrtSetDevice(1));
  ASSERT_ACL_OK(aclrtCreateStream(&s1));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  ASSERT_ACL_OK(aclrtSubscribeReport(selfId(), s0));
  ASSERT_ACL_OK(aclrtSetDevice(1));
  EXPECT_ACL(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeReport(selfId(), s1));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_ACL_OK(aclrtUnSubscribeReport(selfId(), s0));
  ASSERT_ACL_OK(aclrtSetDevice(1));
  EXPECT_ACL_OK(aclrtSubscribeReport(selfId(), s1)) << "free again once its last stream went";
  EXPECT_ACL_OK(aclrtUnSubscribeReport(selfId(), s1));
  EXPECT_ACL_OK(aclrtDestroyStream(s1));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_ACL_OK(aclrtDestroyStream(s0));
}

TEST_P(CallbackTest, BlockingCallbackHoldsBackTheTasksAfterIt) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ReportThread reporter(context(), s);
  CallbackLog log;
  Gate &gate = newGate();
  Entry e{&log, 1, &gate};
  Probe before, after;
  ASSERT_ACL_OK(launchProbe(s, before));
  ASSERT_ACL_OK(aclrtLaunchCallback(&logCallback, &e, ACL_CALLBACK_BLOCK, s));
  ASSERT_ACL_OK(launchProbe(s, after));
  ASSERT_TRUE(gate.waitEntered(1)) << "the callback did not start";
  EXPECT_TRUE(before.ran.load()) << "the callback ran before the task ahead of it";
  aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
  EXPECT_ACL_OK(aclrtStreamQuery(s, &status));
  EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, status);
  EXPECT_FALSE(after.ran.load()) << "a task after a blocking callback ran while the callback was running";
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(after.ran.load());
  std::lock_guard lock(log.mutex);
  ASSERT_EQ(1u, log.threads.size());
  EXPECT_EQ(reporter.id(), log.threads[0]) << "callbacks run on the subscribed thread";
  reporter.stop();
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(CallbackTest, NonBlockingCallbackDoesNotHoldBackTheStream) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ReportThread reporter(context(), s);
  CallbackLog log;
  Gate &gate = newGate();
  Entry e{&log, 1, &gate};
  Probe after;
  ASSERT_ACL_OK(aclrtLaunchCallback(&logCallback, &e, ACL_CALLBACK_NO_BLOCK, s));
  ASSERT_ACL_OK(launchProbe(s, after));
  // The stream completes while its callback is still blocked on the gate.
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(after.ran.load());
  EXPECT_FALSE(gate.watchdogFired()) << "the stream waited for a non-blocking callback";
  gate.open();
  ASSERT_TRUE(gate.waitExited(1));
  reporter.stop();
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(CallbackTest, CallbacksOfManyStreamsRunInStreamOrderOnTheirOwnThreads) {
  constexpr int kStreams = 6, kPerStream = 40;
  std::vector<aclrtStream> streams(kStreams);
  std::vector<std::unique_ptr<ReportThread>> reporters;
  std::vector<CallbackLog> logs(kStreams);
  std::vector<std::vector<Entry>> entries(kStreams);
  std::vector<std::unique_ptr<Probe>> probes;
  for (int i = 0; i < kStreams; ++i) {
    ASSERT_ACL_OK(aclrtCreateStream(&streams[i]));
    reporters.push_back(std::make_unique<ReportThread>(context(), streams[i]));
    for (int k = 0; k < kPerStream; ++k) entries[i].push_back(Entry{&logs[i], k});
  }
  // Interleave streams, blocking and non-blocking callbacks, and device tasks between them.
  for (int k = 0; k < kPerStream; ++k) {
    for (int i = 0; i < kStreams; ++i) {
      auto type = (k + i) % 3 == 0 ? ACL_CALLBACK_NO_BLOCK : ACL_CALLBACK_BLOCK;
      ASSERT_ACL_OK(aclrtLaunchCallback(&logCallback, &entries[i][k], type, streams[i]));
      if (k % 5 == 0) {
        probes.push_back(std::make_unique<Probe>());
        ASSERT_ACL_OK(launchProbe(streams[i], *probes.back()));
      }
    }
  }
  for (int i = 0; i < kStreams; ++i) EXPECT_ACL_OK(aclrtSynchronizeStream(streams[i]));
  for (int i = 0; i < kStreams; ++i) {
    // Non-blocking callbacks may still be queued after the stream completed; wait for them.
    for (int spins = 0; reporters[i]->processed() < kPerStream && spins < 20000; ++spins) {
      std::this_thread::sleep_for(1ms);
    }
    reporters[i]->stop();
    std::lock_guard lock(logs[i].mutex);
    ASSERT_EQ(static_cast<size_t>(kPerStream), logs[i].order.size()) << "stream " << i;
    for (int k = 0; k < kPerStream; ++k) EXPECT_EQ(k, logs[i].order[k]) << "stream " << i;
    for (uint64_t t : logs[i].threads) EXPECT_EQ(reporters[i]->id(), t) << "stream " << i;
  }
  for (auto &p : probes) EXPECT_TRUE(p->ran.load());
  for (auto s : streams) EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(CallbackTest, UnsubscribingSkipsCallbacksThatNeverRanInsteadOfHanging) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtSubscribeReport(selfId(), s));
  CallbackLog log;
  Entry e{&log, 0};
  Probe after;
  ASSERT_ACL_OK(aclrtLaunchCallback(&logCallback, &e, ACL_CALLBACK_BLOCK, s));
  ASSERT_ACL_OK(launchProbe(s, after));
  ASSERT_ACL_OK(aclrtUnSubscribeReport(selfId(), s));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(after.ran.load());
  std::lock_guard lock(log.mutex);
  EXPECT_TRUE(log.order.empty()) << "a callback ran although nobody processed reports";
}

TEST_P(CallbackTest, HostFunctionRunsOnARuntimeThreadAndBlocksTheStream) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  CallbackLog log;
  Gate &gate = newGate();
  Entry e{&log, 7, &gate};
  Probe after;
  ASSERT_ACL_OK(aclrtLaunchHostFunc(s, &logCallback, &e));
  ASSERT_ACL_OK(launchProbe(s, after));
  ASSERT_TRUE(gate.waitEntered(1)) << "the host function did not start without any subscribed thread";
  EXPECT_FALSE(after.ran.load()) << "host functions always block the stream";
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(after.ran.load());
  std::lock_guard lock(log.mutex);
  ASSERT_EQ(1u, log.threads.size());
  EXPECT_NE(selfId(), log.threads[0]);
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(CallbackTest, HostFunctionsRunOnTheSubscribedThreadInOrder) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ReportThread worker(context(), s, /*hostFunc=*/true);
  CallbackLog log;
  std::vector<Entry> entries;
  for (int k = 0; k < 20; ++k) entries.push_back(Entry{&log, k});
  for (auto &e : entries) ASSERT_ACL_OK(aclrtLaunchHostFunc(s, &logCallback, &e));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  worker.stop();
  std::lock_guard lock(log.mutex);
  ASSERT_EQ(entries.size(), log.order.size());
  for (size_t k = 0; k < entries.size(); ++k) {
    EXPECT_EQ(static_cast<int>(k), log.order[k]);
    EXPECT_EQ(worker.id(), log.threads[k]);
  }
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

// Spec 2.7: host functions and callbacks must not synchronise or tear down. The calls that would
// wait for the running host call itself get an error instead of a deadlock.
struct ForbiddenCalls {
  aclrtStream stream = nullptr;
  aclrtContext context = nullptr;  // made current first: the runtime's host-function thread has none
  int32_t device = 0;
  aclError syncOwnStream = ACL_SUCCESS, syncDevice = ACL_SUCCESS, resetDevice = ACL_SUCCESS, finalize = ACL_SUCCESS;
};

void callForbidden(void* arg) {
  auto* f = static_cast<ForbiddenCalls*>(arg);
  if (aclrtSetCurrentContext(f->context) != ACL_SUCCESS) return;
  f->syncOwnStream = aclrtSynchronizeStream(f->stream);
  f->syncDevice = aclrtSynchronizeDevice();
  f->resetDevice = aclrtResetDevice(f->device);
  f->finalize = aclFinalize();
}

TEST_P(CallbackTest, HostFunctionCallingForbiddenApisGetsAnErrorInsteadOfADeadlock) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ForbiddenCalls f;
  f.stream = s;
  f.context = context();
  ASSERT_ACL_OK(aclrtGetDevice(&f.device));
  ASSERT_ACL_OK(aclrtLaunchHostFunc(s, &callForbidden, &f));
  ASSERT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 20000)) << "the host function deadlocked";
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f.syncOwnStream);
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f.syncDevice);
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f.resetDevice);
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f.finalize);
  // Nothing was torn down: the stream still works.
  ASSERT_ACL_OK(aclrtLaunchHostFunc(
      s, [](void*) {}, nullptr));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(CallbackTest, CallbackCallingForbiddenApisGetsAnErrorInsteadOfADeadlock) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ForbiddenCalls f;
  f.stream = s;
  f.context = context();
  ASSERT_ACL_OK(aclrtGetDevice(&f.device));
  {
    ReportThread reporter(context(), s);
    ASSERT_ACL_OK(aclrtLaunchCallback(&callForbidden, &f, ACL_CALLBACK_BLOCK, s));
    ASSERT_ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 20000)) << "the callback deadlocked";
  }
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f.syncOwnStream);
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f.syncDevice);
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f.resetDevice);
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f.finalize);
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

}  // namespace
ARUN_CONFORMANCE_INSTANTIATE(CallbackTest);
}  // namespace conformance
