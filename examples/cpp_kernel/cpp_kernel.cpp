// cpp_kernel: writing a device kernel as an ordinary C++ function (ascend-run extension,
// arun/kernel.hpp).
//
// What it teaches:
//  - a kernel takes arun::Block first, then its arguments; arun::launch copies the arguments and
//    enqueues one task of `blockDim` blocks on a stream, in order with the copies around it;
//  - device memory is reached through Block::map, a checked view: the host can never dereference
//    a device pointer directly, and neither can a kernel;
//  - a kernel that touches memory outside its allocation faults instead of corrupting anything:
//    the next synchronize of its stream returns ACL_ERROR_RT_AICORE_EXCEPTION (507015), and the
//    stream keeps working afterwards.
#include <cmath>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "arun/kernel.hpp"

#define CHECK(expr)                                                                            \
  do {                                                                                         \
    aclError rc_ = (expr);                                                                     \
    if (rc_ != ACL_SUCCESS) {                                                                  \
      const char* msg_ = aclGetRecentErrMsg();                                                 \
      std::printf("%s:%d: %s failed: %d %s\n", __FILE__, __LINE__, #expr, rc_, msg_ ? msg_ : ""); \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

// y[i] = clamp(a * x[i] + b, lo, hi), each block on its own share of the elements.
void scale_clamp(arun::Block block, const float* x, float* y, size_t n, float a, float b, float lo, float hi) {
  auto xs = block.map(x, n);
  auto ys = block.map(y, n);
  for (size_t i : block.range(n)) ys[i] = std::fmin(hi, std::fmax(lo, a * xs[i] + b));
}

int main() {
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream));

  const size_t n = 1 << 20;
  std::vector<float> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = float(i % 1000) / 100.0f - 5.0f;
  float *x = nullptr, *y = nullptr;
  CHECK(aclrtMalloc(reinterpret_cast<void**>(&x), n * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(reinterpret_cast<void**>(&y), n * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));

  // Copy in, compute with 16 blocks, copy out: three tasks in stream order.
  CHECK(aclrtMemcpyAsync(x, n * sizeof(float), host.data(), n * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE, stream));
  CHECK(arun::launch(stream, 16, scale_clamp, x, y, n, 0.5f, 1.0f, -1.0f, 2.0f));
  std::vector<float> out(n);
  CHECK(aclrtMemcpyAsync(out.data(), n * sizeof(float), y, n * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST, stream));
  CHECK(aclrtSynchronizeStream(stream));
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += out[i] != std::fmin(2.0f, std::fmax(-1.0f, 0.5f * host[i] + 1.0f));
  std::printf("scale_clamp over %zu elements in 16 blocks: %zu mismatches\n", n, wrong);

  // A bug: the kernel asks for twice the elements the buffer holds. The view is refused, nothing
  // is written, and the stream reports the fault.
  CHECK(arun::launch(stream, 4, [](arun::Block block, float* p, size_t count) {
    auto v = block.map(p, 2 * count);
    v[0] = 0;
  }, y, n));
  aclError fault = aclrtSynchronizeStream(stream);
  std::printf("out-of-bounds access -> %d (%s)\n", fault,
              fault == ACL_ERROR_RT_AICORE_EXCEPTION ? "ACL_ERROR_RT_AICORE_EXCEPTION, as expected" : "unexpected");
  // The stream is still usable, and y still holds the earlier result.
  CHECK(aclrtMemcpyAsync(out.data(), sizeof(float), y, sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST, stream));
  CHECK(aclrtSynchronizeStream(stream));

  CHECK(aclrtFree(x));
  CHECK(aclrtFree(y));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  const bool ok = wrong == 0 && fault == ACL_ERROR_RT_AICORE_EXCEPTION && out[0] == std::fmin(2.0f, std::fmax(-1.0f, 0.5f * host[0] + 1.0f));
  std::printf("cpp kernel: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
