// Spec part 2, 4.8: floating-point overflow detection — the per-stream switch, the device's
// overflow status read and cleared by stream-ordered tasks, what sets it (a kernel reporting an
// overflow, an operator writing Inf / NaN, a float reduce overflowing), the older parts' float
// status registers (absent on our A2-class part) and the context's overflow word.
#include <cmath>
#include <cstring>
#include <limits>

#include "arun/kernel.hpp"
#include "conformance.hpp"
#include "op_support.hpp"

namespace conformance {
namespace {

class OverflowTest : public OpTest {
 protected:
  void SetUp() override {
    OpTest::SetUp();
    ASSERT_ACL_OK(aclrtMalloc(&status_, 64, ACL_MEM_MALLOC_HUGE_FIRST));
  }
  void TearDown() override {
    if (status_ != nullptr && initialized()) {
      EXPECT_ACL_OK(aclrtFree(status_));
    }
    OpTest::TearDown();
  }

  // The status record as read by aclrtGetOverflowStatus on `s` (synchronised). Word 0 first.
  std::vector<uint32_t> readStatus(aclrtStream s, bool floatVariant = false) {
    std::vector<uint8_t> poison(64, 0xAB);
    writeDevice(status_, poison);
    const aclError rc =
        floatVariant ? aclrtGetFloatOverflowStatus(status_, 64, s) : aclrtGetOverflowStatus(status_, 64, s);
    EXPECT_ACL_OK(rc);
    EXPECT_ACL_OK(aclrtSynchronizeStream(s));
    const auto bytes = readDevice(status_, 64);
    std::vector<uint32_t> words(16);
    std::memcpy(words.data(), bytes.data(), 64);
    return words;
  }
  // Launches a kernel that reports the overflow of a float computation.
  aclError launchOverflowingKernel(aclrtStream s) {
    return arun::launch(
        s, 2,
        [](arun::Block b, float big) {
          const float v = big * big;  // +Inf
          b.check_finite(v);
        },
        std::numeric_limits<float>::max());
  }

  void* status_ = nullptr;
};

TEST_P(OverflowTest, SwitchDefaultsOffAndRoundTrips) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  uint32_t flag = 7;
  ASSERT_ACL_OK(aclrtGetStreamOverflowSwitch(s, &flag));
  EXPECT_EQ(0u, flag);
  ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(s, 1));
  ASSERT_ACL_OK(aclrtGetStreamOverflowSwitch(s, &flag));
  EXPECT_EQ(1u, flag);
  ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(s, 0));
  ASSERT_ACL_OK(aclrtGetStreamOverflowSwitch(s, &flag));
  EXPECT_EQ(0u, flag);
  // The default stream too (NULL).
  ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(nullptr, 1));
  ASSERT_ACL_OK(aclrtGetStreamOverflowSwitch(nullptr, &flag));
  EXPECT_EQ(1u, flag);
  // The stream attribute is the same switch.
  aclrtStreamAttrValue value{};
  ASSERT_ACL_OK(aclrtGetStreamAttribute(nullptr, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &value));
  EXPECT_EQ(1u, value.overflowSwitch);
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(OverflowTest, SwitchErrors) {
  uint32_t flag = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtSetStreamOverflowSwitch(nullptr, 2));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetStreamOverflowSwitch(nullptr, nullptr));
  aclrtStream dead = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&dead));
  ASSERT_ACL_OK(aclrtDestroyStream(dead));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetStreamOverflowSwitch(dead, 1));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetStreamOverflowSwitch(dead, &flag));
  inNewThread([&] {
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtSetStreamOverflowSwitch(nullptr, 1)) << "no current context";
    uint32_t f = 0;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetStreamOverflowSwitch(nullptr, &f));
  });
}

TEST_P(OverflowTest, StatusErrors) {
  int host = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtGetOverflowStatus(nullptr, 64, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetOverflowStatus(status_, 63, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetOverflowStatus(status_, 128, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetOverflowStatus(&host, 64, nullptr)) << "not device memory";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFloatOverflowStatus(nullptr, 64, nullptr)) << "107000, not 100000";
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFloatOverflowStatus(status_, 0, nullptr));
  aclrtStream dead = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&dead));
  ASSERT_ACL_OK(aclrtDestroyStream(dead));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetOverflowStatus(status_, 64, dead));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetOverflowStatus(dead));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetFloatOverflowStatus(dead));
  inNewThread([&] { EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtResetOverflowStatus(nullptr)); });
}

TEST_P(OverflowTest, KernelOverflowIsRecordedOnlyWithTheSwitchOn) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtResetOverflowStatus(s));
  auto words = readStatus(s);
  EXPECT_EQ(0u, words[0]) << "clean after a reset";
  for (int i = 1; i < 16; ++i) EXPECT_EQ(0u, words[i]) << "bytes 4..63 are zero";

  // Switch off: a kernel's overflow is not recorded, and the launch does not fail.
  ASSERT_ACL_OK(launchOverflowingKernel(s));
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(0u, readStatus(s)[0]);

  // Switch on: recorded; the kernel itself still succeeds.
  ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(s, 1));
  ASSERT_ACL_OK(arun::launch(
      s, 1, [](arun::Block b, float x) { EXPECT_TRUE(b.check_finite(x)); }, 1.0f));
  EXPECT_EQ(0u, readStatus(s)[0]) << "finite values are not an overflow";
  ASSERT_ACL_OK(launchOverflowingKernel(s));
  words = readStatus(s);
  EXPECT_NE(0u, words[0]);
  for (int i = 1; i < 16; ++i) EXPECT_EQ(0u, words[i]);
  EXPECT_NE(0u, readStatus(s, true)[0]) << "aclrtGetFloatOverflowStatus reads the same status";

  // The status is per device: another stream (switch off) reads it too, until a reset.
  aclrtStream other = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&other));
  EXPECT_NE(0u, readStatus(other)[0]);
  ASSERT_ACL_OK(aclrtResetFloatOverflowStatus(other));
  EXPECT_ACL_OK(aclrtSynchronizeStream(other));
  EXPECT_EQ(0u, readStatus(s)[0]);

  // NaN counts too (report_overflow directly).
  ASSERT_ACL_OK(arun::launch(s, 1, [](arun::Block b) { b.check_finite(std::nan("")); }));
  EXPECT_NE(0u, readStatus(s)[0]);
  ASSERT_ACL_OK(aclrtResetOverflowStatus(s));
  ASSERT_ACL_OK(arun::launch(s, 1, [](arun::Block b) { b.report_overflow(); }));
  EXPECT_NE(0u, readStatus(s)[0]);

  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(other));
}

TEST_P(OverflowTest, SwitchAppliesToTasksSubmittedAfterIt) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtResetOverflowStatus(s));
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(launchOverflowingKernel(s));  // submitted with the switch off
  ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(s, 1));
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_EQ(0u, readStatus(s)[0]) << "the kernel was submitted before the switch went on";

  // And the other way: submitted while on, switch turned off before it runs -> recorded.
  Gate& gate2 = newGate();
  ASSERT_ACL_OK(launchGate(s, gate2));
  ASSERT_ACL_OK(launchOverflowingKernel(s));
  ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(s, 0));
  gate2.open();
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  EXPECT_NE(0u, readStatus(s)[0]);
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(OverflowTest, StatusTasksAreStreamOrdered) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(s, 1));
  ASSERT_ACL_OK(aclrtResetOverflowStatus(s));
  std::vector<uint8_t> poison(64, 0xAB);
  writeDevice(status_, poison);
  Gate& gate = newGate();
  ASSERT_ACL_OK(launchGate(s, gate));
  ASSERT_ACL_OK(launchOverflowingKernel(s));
  ASSERT_ACL_OK(aclrtGetOverflowStatus(status_, 64, s));  // reads after the kernel
  ASSERT_ACL_OK(aclrtResetOverflowStatus(s));             // then clears
  EXPECT_EQ(poison, readDevice(status_, 64)) << "nothing written before the stream gets there";
  gate.open();
  EXPECT_ACL_OK(aclrtSynchronizeStream(s));
  const auto bytes = readDevice(status_, 64);
  uint32_t word0 = 0;
  std::memcpy(&word0, bytes.data(), 4);
  EXPECT_NE(0u, word0) << "the read ran after the overflowing kernel";
  EXPECT_EQ(0u, readStatus(s)[0]) << "and the reset after the read";
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(OverflowTest, OperatorWritingInfOrNanSetsTheStatus) {
  ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(nullptr, 1));  // OpTest runs ops on the default stream
  ASSERT_ACL_OK(aclrtResetOverflowStatus(nullptr));
  auto got = runOk("Div", {f32({4}, {1, 2, 3, 4}), f32({4}, {1, 2, 3, 4})}, like(ACL_FLOAT, {4}));
  EXPECT_EQ(0u, readStatus(nullptr)[0]) << "finite outputs";
  got = runOk("Div", {f32({4}, {1, 2, 3, 4}), f32({4}, {1, 0, 3, 4})}, like(ACL_FLOAT, {4}));
  EXPECT_TRUE(std::isinf(got[1]));
  EXPECT_NE(0u, readStatus(nullptr)[0]) << "1/0 wrote +Inf";
  ASSERT_ACL_OK(aclrtResetOverflowStatus(nullptr));
  got = runOk("Mul", {f16({2}, {60000, 1}), f16({2}, {2, 1})}, like(ACL_FLOAT16, {2}));
  EXPECT_NE(0u, readStatus(nullptr)[0]) << "float16 overflow (120000 > 65504)";
  // Switch off: the same op records nothing.
  ASSERT_ACL_OK(aclrtResetOverflowStatus(nullptr));
  ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(nullptr, 0));
  got = runOk("Div", {f32({4}, {1, 2, 3, 4}), f32({4}, {0, 0, 0, 0})}, like(ACL_FLOAT, {4}));
  EXPECT_EQ(0u, readStatus(nullptr)[0]);
}

TEST_P(OverflowTest, FloatReduceOverflowSetsTheStatus) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtSetStreamOverflowSwitch(s, 1));
  ASSERT_ACL_OK(aclrtResetOverflowStatus(s));
  void *a = nullptr, *b = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&a, 16, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&b, 16, ACL_MEM_MALLOC_HUGE_FIRST));
  const float big[4] = {1, std::numeric_limits<float>::max(), 2, 3};
  ASSERT_ACL_OK(aclrtMemcpy(a, 16, big, 16, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtMemcpy(b, 16, big, 16, ACL_MEMCPY_HOST_TO_DEVICE));
  ASSERT_ACL_OK(aclrtReduceAsync(a, b, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_FLOAT, s, nullptr));
  EXPECT_EQ(0u, readStatus(s)[0]) << "MAX stays finite";
  ASSERT_ACL_OK(aclrtReduceAsync(a, b, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, nullptr));
  EXPECT_NE(0u, readStatus(s)[0]) << "FLT_MAX + FLT_MAX";
  EXPECT_ACL_OK(aclrtFree(a));
  EXPECT_ACL_OK(aclrtFree(b));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(OverflowTest, NpuFloatStatusRegistersAreAbsentOnThisPart) {
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNpuGetFloatOverFlowStatus(nullptr, 64, 0, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtNpuGetFloatOverFlowStatus(status_, 32, 0, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtNpuGetFloatOverFlowStatus(status_, 64, 0, nullptr));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtNpuGetFloatOverFlowStatus(status_, 64, 12345, nullptr))
      << "checkMode is ignored";
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtNpuClearFloatOverFlowStatus(0, nullptr));
  aclrtStream dead = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&dead));
  ASSERT_ACL_OK(aclrtDestroyStream(dead));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtNpuClearFloatOverFlowStatus(0, dead));
  EXPECT_ACL(ACL_ERROR_RT_INVALID_HANDLE, aclrtNpuGetFloatOverFlowStatus(status_, 64, 0, dead));
  inNewThread([] { EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtNpuClearFloatOverFlowStatus(0, nullptr)); });
}

TEST_P(OverflowTest, ContextOverflowAddressInSaturationMode) {
  EXPECT_ACL(ACL_ERROR_RT_PARAM_INVALID, aclrtCtxGetFloatOverflowAddr(nullptr)) << "no ACL-level check";
  void* addr = nullptr;
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCtxGetFloatOverflowAddr(&addr)) << "INF/NAN mode by default";
  ASSERT_ACL_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
  ASSERT_ACL_OK(aclrtCtxGetFloatOverflowAddr(&addr));
  ASSERT_NE(nullptr, addr);
  void* again = nullptr;
  ASSERT_ACL_OK(aclrtCtxGetFloatOverflowAddr(&again));
  EXPECT_EQ(addr, again) << "one word per context";
  EXPECT_EQ(std::vector<uint8_t>(8, 0), readDevice(addr, 8)) << "zero-initialised device memory";
  // A kernel can take it as a workspace and set it.
  ASSERT_ACL_OK(arun::launch(
      nullptr, 1, [](arun::Block b, uint64_t* flag) { b.at(flag) = 1; }, static_cast<uint64_t*>(addr)));
  ASSERT_ACL_OK(aclrtSynchronizeStream(nullptr));
  EXPECT_EQ(1u, readDevice(addr, 8)[0]);

  // Another context has its own word, freed with it.
  aclrtContext ctx = nullptr, original = nullptr;
  ASSERT_ACL_OK(aclrtGetCurrentContext(&original));
  ASSERT_ACL_OK(aclrtCreateContext(&ctx, 0));
  void* other = nullptr;
  ASSERT_ACL_OK(aclrtCtxGetFloatOverflowAddr(&other));
  EXPECT_NE(addr, other);
  ASSERT_ACL_OK(aclrtDestroyContext(ctx));
  ASSERT_ACL_OK(aclrtSetCurrentContext(original));
  inNewThread([] {
    void* p = nullptr;
    EXPECT_ACL(ACL_ERROR_RT_CONTEXT_NULL, aclrtCtxGetFloatOverflowAddr(&p));
  });
  ASSERT_ACL_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));
  EXPECT_ACL(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCtxGetFloatOverflowAddr(&again));
}

}  // namespace

ARUN_CONFORMANCE_INSTANTIATE(OverflowTest);

}  // namespace conformance
