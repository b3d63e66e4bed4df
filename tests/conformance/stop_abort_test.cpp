// Spec part 2, rule R3: aclrtStreamStop / aclrtStreamAbort on a stream whose kernel runs, what
// synchronize returns afterwards, and the context's sticky stop-on-failure error; ends with the
// flow of CANN's sample 1_stream_with_failure_mode.
//
// "Long" kernels run up to 10 s unless stopped: a one-block kernel polls arun::Block::cancelled(),
// a many-block kernel relies on the device stopping between blocks. Each test asserts that the
// stop took effect in well under a second, so a runtime that lets the kernel run to its end fails.
#include <atomic>
#include <chrono>
#include <thread>

#include "arun/kernel.hpp"
#include "conformance.hpp"

namespace conformance {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kLong = std::chrono::seconds(10);
constexpr auto kPrompt = std::chrono::milliseconds(1500);  // "well under" the kernel's 10 s

class StopAbortTest : public AclDeviceTest {
 protected:
  // One block that runs for kLong unless its launch is cancelled; `entered` is set when it starts,
  // `sawCancel` when it returned because of the cancel request.
  aclError launchPollingKernel(aclrtStream s) {
    return arun::launch(s, 1, [this](arun::Block b) {
      entered = true;
      const auto until = Clock::now() + kLong;
      while (Clock::now() < until) {
        if (b.cancelled()) {
          sawCancel = true;
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }
  // Many short blocks adding up to far more than kLong on any number of cores.
  aclError launchManyBlocks(aclrtStream s, std::atomic<uint32_t>& ran) {
    return arun::launch(s, 100000, [this, &ran](arun::Block) {
      entered = true;
      ran++;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
  }
  // A kernel that fails with `code`.
  static aclError launchFailing(aclrtStream s, aclError code) {
    return arun::launch(s, 1, [code](arun::Block b) { b.fail(code, "deliberate failure"); });
  }
  void waitEntered() {
    const auto until = Clock::now() + std::chrono::seconds(20);
    while (!entered && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_TRUE(entered.load()) << "the kernel never started";
  }

  std::atomic<bool> entered{false};
  std::atomic<bool> sawCancel{false};
};

TEST_P(StopAbortTest, StopHaltsALongSingleBlockKernelThatPollsCancelled) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(launchPollingKernel(s));
  Probe behind;
  ASSERT_ACL_OK(launchProbe(s, behind));
  waitEntered();
  const auto t0 = Clock::now();
  ASSERT_ACL_OK(aclrtStreamStop(s));
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtSynchronizeStream(s));
  EXPECT_LT(Clock::now() - t0, kPrompt) << "the stopped kernel ran on";
  EXPECT_TRUE(sawCancel.load()) << "arun::Block::cancelled() never became true";
  EXPECT_FALSE(behind.ran.load()) << "tasks queued behind the halted one must not run";
  // Abnormal until destroyed: every synchronize says so, with and without a timeout.
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtSynchronizeStream(s));
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtSynchronizeStreamWithTimeout(s, 100));
  EXPECT_NE(nullptr, aclGetRecentErrMsg());
  // New work is refused with the same code (our choice) and never runs.
  Probe refused;
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, launchProbe(s, refused));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_FALSE(refused.ran.load());
  // Other streams of the context are not affected.
  EXPECT_ACL_OK(aclrtSynchronizeStream(nullptr));
}

TEST_P(StopAbortTest, StopHaltsAManyBlockKernelBetweenBlocks) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  std::atomic<uint32_t> ran{0};
  ASSERT_ACL_OK(launchManyBlocks(s, ran));
  waitEntered();
  const auto t0 = Clock::now();
  ASSERT_ACL_OK(aclrtStreamStop(s));
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtSynchronizeStream(s));
  EXPECT_LT(Clock::now() - t0, kPrompt);
  EXPECT_LT(ran.load(), 100000u);
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(StopAbortTest, StopOfAStreamWithNothingRunningChangesNothing) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  EXPECT_ACL_OK(aclrtStreamStop(s));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s)) << "a stream on which nothing ran is not marked abnormal";
  Probe later;
  ASSERT_ACL_OK(launchProbe(s, later));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(later.ran.load());
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamStop(nullptr));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(StopAbortTest, AbortHaltsALongKernelAndReturnsTheStreamToNormal) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(launchPollingKernel(s));
  Probe behind;
  ASSERT_ACL_OK(launchProbe(s, behind));
  waitEntered();
  const auto t0 = Clock::now();
  ASSERT_ACL_OK(aclrtStreamAbort(s));
  EXPECT_LT(Clock::now() - t0, kPrompt) << "aclrtStreamAbort waited for the kernel's end";
  EXPECT_TRUE(sawCancel.load());
  EXPECT_ACL_OK(aclrtSynchronizeStream(s)) << "the killed task produces no error of its own";
  EXPECT_FALSE(behind.ran.load());
  Probe after;
  ASSERT_ACL_OK(launchProbe(s, after));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(after.ran.load());
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(StopAbortTest, AbortAfterStopReturnsTheStreamToNormal) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(launchPollingKernel(s));
  waitEntered();
  ASSERT_ACL_OK(aclrtStreamStop(s));
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtSynchronizeStream(s));
  ASSERT_ACL_OK(aclrtStreamAbort(s));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  Probe after;
  ASSERT_ACL_OK(launchProbe(s, after));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_TRUE(after.ran.load());
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(StopAbortTest, ASynchronizeConcurrentWithAnAbortReturnsStreamAbort) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(launchPollingKernel(s));
  waitEntered();
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&ctx));
  std::atomic<bool> waiting{false};
  aclError rc = ACL_SUCCESS;
  std::thread waiter([&] {
    EXPECT_ACL_OK(aclrtSetCurrentContext(ctx));
    waiting = true;
    rc = aclrtSynchronizeStream(s);
  });
  while (!waiting) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let it park (the kernel runs 10 s)
  ASSERT_ACL_OK(aclrtStreamAbort(s));
  waiter.join();
  EXPECT_ACL(ACL_ERROR_RT_STREAM_ABORT, rc);
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(StopAbortTest, StopOnFailureMakesTheFirstErrorStickyForEveryStreamOfTheContext) {
  aclrtStream chooser = nullptr, other = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&chooser));
  ASSERT_ACL_OK(aclrtCreateStream(&other));
  // Before the mode is switched a failure is the failing stream's only.
  ASSERT_ACL_OK(launchFailing(other, ACL_ERROR_RT_AICORE_TRAP_EXCEPTION));
  EXPECT_ACL(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, aclrtSynchronizeStream(other));
  EXPECT_ACL_OK(aclrtSynchronizeStream(other));
  EXPECT_ACL_OK(aclrtSynchronizeStream(chooser));

  ASSERT_ACL_OK(aclrtSetStreamFailureMode(chooser, ACL_STOP_ON_FAILURE));
  ASSERT_ACL_OK(launchFailing(other, ACL_ERROR_RT_VECTOR_CORE_EXCEPTION));
  EXPECT_ACL(ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, aclrtSynchronizeStream(other));
  // Every later synchronize of any stream of the context reports it: the failing one, another one
  // (which never failed) and the default stream.
  EXPECT_ACL(ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, aclrtSynchronizeStream(other));
  EXPECT_ACL(ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, aclrtSynchronizeStream(chooser));
  EXPECT_ACL(ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, aclrtSynchronizeStream(nullptr));
  // Precedence: a stream's own error comes first, then the context's (the first one stays).
  aclrtStream third = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&third));
  ASSERT_ACL_OK(aclrtSetStreamFailureMode(third, ACL_CONTINUE_ON_FAILURE));
  ASSERT_ACL_OK(launchFailing(third, ACL_ERROR_RT_AICORE_TRAP_EXCEPTION));
  EXPECT_ACL(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, aclrtSynchronizeStream(third));
  EXPECT_ACL(ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, aclrtSynchronizeStream(third));
  // Another context is not affected.
  aclrtContext mine = nullptr, fresh = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&mine));
  ASSERT_ACL_OK(aclrtCreateContext(&fresh, 0));
  EXPECT_ACL_OK(aclrtSynchronizeStream(nullptr));
  ASSERT_ACL_OK(aclrtDestroyContext(fresh));
  ASSERT_ACL_OK(aclrtSetCurrentContext(mine));
  EXPECT_ACL_OK(aclrtDestroyStream(chooser));
  EXPECT_ACL_OK(aclrtDestroyStream(other));
  EXPECT_ACL_OK(aclrtDestroyStream(third));
  // Resetting the device clears it (its contexts are gone).
  ASSERT_ACL_OK(aclrtResetDevice(0));
  ASSERT_ACL_OK(aclrtSetDevice(0));
  EXPECT_ACL_OK(aclrtSynchronizeStream(nullptr));
}

// CANN sample 1_basic_features/stream/1_stream_with_failure_mode: a kernel fails in a context in
// stop-on-failure mode; then a long kernel is stopped (synchronize: 507000, the stream's own
// abnormal state comes first); then a long kernel is aborted (synchronize: 507035, the context's
// sticky error from the first step), as the sample's README shows.
TEST_P(StopAbortTest, TheStreamWithFailureModeSampleFlow) {
  aclrtContext ctx = nullptr;
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
  aclrtStream failing = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&failing));
  ASSERT_ACL_OK(aclrtSetStreamFailureMode(failing, ACL_STOP_ON_FAILURE));
  ASSERT_ACL_OK(launchFailing(failing, ACL_ERROR_RT_VECTOR_CORE_EXCEPTION));
  EXPECT_ACL(ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, aclrtSynchronizeStream(failing));

  aclrtStream stopped = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&stopped));
  ASSERT_ACL_OK(launchPollingKernel(stopped));
  waitEntered();
  auto t0 = Clock::now();
  ASSERT_ACL_OK(aclrtStreamStop(stopped));
  EXPECT_ACL(ACL_ERROR_RT_INTERNAL_ERROR, aclrtSynchronizeStream(stopped));
  EXPECT_LT(Clock::now() - t0, kPrompt);

  entered = false;
  aclrtStream aborted = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&aborted));
  ASSERT_ACL_OK(launchPollingKernel(aborted));
  waitEntered();
  t0 = Clock::now();
  ASSERT_ACL_OK(aclrtStreamAbort(aborted));
  EXPECT_ACL(ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, aclrtSynchronizeStream(aborted));
  EXPECT_LT(Clock::now() - t0, kPrompt);

  EXPECT_ACL_OK(aclrtDestroyStream(failing));
  EXPECT_ACL_OK(aclrtDestroyStream(stopped));
  EXPECT_ACL_OK(aclrtDestroyStream(aborted));
  EXPECT_ACL_OK(aclrtDestroyContext(ctx));
}

}  // namespace
ARUN_CONFORMANCE_INSTANTIATE(StopAbortTest);
}  // namespace conformance
