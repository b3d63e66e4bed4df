// Spec part 2, 4.7: exception information — the argument block and function handle of a failed
// kernel, per-binary exception callbacks, and the register / unregister rules of the process-wide
// callbacks (R5: the getters return (aclError)0xFFFFFFFF for a NULL info and leave the last error).
//
// Kernels fail on purpose by trapping (arunBlockFault); copies fail as in failure_test.cpp (the
// source is freed while the copy waits behind a gate).
#include <mutex>
#include <vector>

#include "arun/kernel.h"
#include "conformance.hpp"

namespace conformance {
namespace {

constexpr aclError kNoInfo = static_cast<aclError>(0xFFFFFFFFu);

// What the hook saw, read by the test after the synchronize that reported the failure.
struct Seen {
  std::mutex mu;
  int calls = 0;
  aclError argsRc = ACL_SUCCESS;
  void* args = nullptr;
  uint32_t argsLen = 12345;
  aclError argsNullPtrRc = ACL_SUCCESS;
  aclError argsNullLenRc = ACL_SUCCESS;
  aclError funcRc = ACL_SUCCESS;
  aclError funcNullRc = ACL_SUCCESS;
};
Seen g_seen;

void inspect(aclrtExceptionInfo* info) {
  std::lock_guard lock(g_seen.mu);
  ++g_seen.calls;
  g_seen.argsRc = aclrtGetArgsFromExceptionInfo(info, &g_seen.args, &g_seen.argsLen);
  uint32_t len = 0;
  void* ptr = nullptr;
  g_seen.argsNullPtrRc = aclrtGetArgsFromExceptionInfo(info, nullptr, &len);
  g_seen.argsNullLenRc = aclrtGetArgsFromExceptionInfo(info, &ptr, nullptr);
  aclrtFuncHandle func = nullptr;
  g_seen.funcRc = aclrtGetFuncHandleFromExceptionInfo(info, &func);
  g_seen.funcNullRc = aclrtGetFuncHandleFromExceptionInfo(info, nullptr);
}

int g_counted = 0;
std::mutex g_countMu;
void count(aclrtExceptionInfo*) {
  std::lock_guard lock(g_countMu);
  ++g_counted;
}

void trapKernel(arunBlock* block, void*) {
  arunBlockFault(block, ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, "deliberate trap (exception_info_test)");
}

void opCallback(aclrtExceptionInfo*, void*) {}

class ExceptionInfoTest : public AclDeviceTest {
 protected:
  void SetUp() override {
    AclDeviceTest::SetUp();
    std::lock_guard lock(g_seen.mu);
    g_seen.calls = 0;
    g_seen.args = nullptr;
    g_seen.argsLen = 12345;
  }
  void TearDown() override {
    AclDeviceTest::TearDown();
    (void)aclrtExceptionInfoCallbackUnregister(&inspect);
    (void)aclrtExceptionInfoCallbackUnregister(&count);
  }

  // Enqueues on `s` a device-to-device copy that fails once `gate` opens.
  void enqueueFailingCopy(aclrtStream s, Gate& gate, void** dstOut) {
    void *src = nullptr, *dst = nullptr;
    ASSERT_ACL_OK(aclrtMalloc(&src, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ASSERT_ACL_OK(aclrtMalloc(&dst, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    ASSERT_ACL_OK(launchGate(s, gate));
    ASSERT_ACL_OK(aclrtMemcpyAsync(dst, 4096, src, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    ASSERT_ACL_OK(aclrtFree(src));
    *dstOut = dst;
  }
};

TEST_P(ExceptionInfoTest, GettersOfNullInfoReturnMinusOneAndKeepTheLastError) {
  // Make a known last error first.
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetStreamOverflowSwitch(nullptr, nullptr));
  void* ptr = nullptr;
  uint32_t len = 0;
  aclrtFuncHandle func = nullptr;
  EXPECT_EQ(kNoInfo, aclrtGetArgsFromExceptionInfo(nullptr, &ptr, &len));
  EXPECT_EQ(kNoInfo, aclrtGetArgsFromExceptionInfo(nullptr, nullptr, nullptr)) << "info is checked first";
  EXPECT_EQ(kNoInfo, aclrtGetFuncHandleFromExceptionInfo(nullptr, &func));
  EXPECT_EQ(kNoInfo, aclrtGetFuncHandleFromExceptionInfo(nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL)) << "the last error is untouched";
}

TEST_P(ExceptionInfoTest, FailedKernelReportsItsArgumentBlock) {
  ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(&inspect));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  static int argBlock = 7;
  ASSERT_ACL_OK(arunLaunchKernel(s, 1, &trapKernel, &argBlock, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, aclrtSynchronizeStream(s));
  {
    std::lock_guard lock(g_seen.mu);
    ASSERT_EQ(1, g_seen.calls);
    EXPECT_ACL_OK(g_seen.argsRc);
    EXPECT_EQ(static_cast<void*>(&argBlock), g_seen.args) << "the argument block the kernel was launched with";
    EXPECT_EQ(0u, g_seen.argsLen) << "arunLaunchKernel does not tell the runtime the block's size";
    EXPECT_ACL(ACL_ERROR_INVALID_PARAM, g_seen.argsNullPtrRc);
    EXPECT_ACL(ACL_ERROR_INVALID_PARAM, g_seen.argsNullLenRc);
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, g_seen.funcRc) << "the kernel came from no binary";
    EXPECT_ACL(ACL_ERROR_INVALID_PARAM, g_seen.funcNullRc);
  }
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(ExceptionInfoTest, FailedCopyHasNoArgumentBlockOrFunction) {
  ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(&inspect));
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  Gate& gate = newGate();
  void* dst = nullptr;
  enqueueFailingCopy(s, gate, &dst);
  gate.open();
  EXPECT_ACL(ACL_ERROR_RT_COPY_DATA, aclrtSynchronizeStream(s));
  {
    std::lock_guard lock(g_seen.mu);
    ASSERT_EQ(1, g_seen.calls);
    EXPECT_EQ(kNoInfo, g_seen.argsRc) << "a copy has no argument block";
    EXPECT_EQ(12345u, g_seen.argsLen) << "outputs untouched";
    EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, g_seen.funcRc) << "no binary or kernel name";
  }
  EXPECT_ACL_OK(aclrtFree(dst));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(ExceptionInfoTest, RegisterKeepsOneRegistrationPerPointer) {
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtExceptionInfoCallbackRegister(nullptr)) << "107000, not 100000";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtExceptionInfoCallbackUnregister(nullptr));
  EXPECT_ACL_OK(aclrtExceptionInfoCallbackUnregister(&count)) << "not registered: succeeds, does nothing";
  ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(&count));
  ASSERT_ACL_OK(aclrtExceptionInfoCallbackRegister(&count));
  {
    std::lock_guard lock(g_countMu);
    g_counted = 0;
  }
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(arunLaunchKernel(s, 1, &trapKernel, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, aclrtSynchronizeStream(s));
  {
    std::lock_guard lock(g_countMu);
    EXPECT_EQ(1, g_counted) << "registered twice, called once";
  }
  ASSERT_ACL_OK(aclrtExceptionInfoCallbackUnregister(&count));
  ASSERT_ACL_OK(arunLaunchKernel(s, 1, &trapKernel, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, aclrtSynchronizeStream(s));
  {
    std::lock_guard lock(g_countMu);
    EXPECT_EQ(1, g_counted) << "one unregister removes the single registration";
  }
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(ExceptionInfoTest, BinarySetExceptionCallbackChecksItsArguments) {
  int forged = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinarySetExceptionCallback(nullptr, &opCallback, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinarySetExceptionCallback(&forged, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtBinarySetExceptionCallback(nullptr, nullptr, nullptr));
  // No binary can be loaded yet, so every handle is dead or forged (R4).
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtBinarySetExceptionCallback(&forged, &opCallback, &forged));
  ASSERT_ACL_OK(aclrtResetDevice(0));
  finalize();
  EXPECT_ACL(ACL_ERROR_UNINITIALIZE, aclrtBinarySetExceptionCallback(&forged, &opCallback, nullptr));
  reinit();
}

}  // namespace

ARUN_CONFORMANCE_INSTANTIATE(ExceptionInfoTest);

}  // namespace conformance
