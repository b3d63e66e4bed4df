// Kernel binaries (spec part 2, 4.11): load a binary of C++ kernels, look its kernels up by name,
// pack their arguments (ordinary values, a device pointer, a placeholder table), launch with
// aclrtLaunchKernelWithConfig and verify the results against the host.
//
//   load_and_launch [/absolute/path/kernel_binary_kernels.so]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "acl/acl.h"

#ifndef KERNEL_BINARY_PATH
#define KERNEL_BINARY_PATH ""
#endif

#define CHECK(call)                                                                       \
  do {                                                                                    \
    aclError e_ = (call);                                                                 \
    if (e_ != ACL_SUCCESS) {                                                              \
      std::fprintf(stderr, "%s failed: %d (%s)\n", #call, int(e_), aclGetRecentErrMsg()); \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : KERNEL_BINARY_PATH;
  CHECK(aclInit(nullptr));
  CHECK(aclrtSetDevice(0));
  aclrtStream stream = nullptr;
  CHECK(aclrtCreateStream(&stream));

  // Loading is explicit: the program names the file (an absolute path), nothing is searched.
  aclrtBinHandle bin = nullptr;
  CHECK(aclrtBinaryLoadFromFile(path, nullptr, &bin));
  aclrtFuncHandle saxpy = nullptr, lookup = nullptr;
  CHECK(aclrtBinaryGetFunction(bin, "saxpy_f32", &saxpy));
  CHECK(aclrtBinaryGetFunction(bin, "lookup_f32", &lookup));

  const uint32_t n = 4096;
  std::vector<float> x(n), y(n);
  std::vector<uint32_t> in(n);
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = float(i) * 0.5f;
    y[i] = 1.0f;
    in[i] = i * 7;
  }
  float *dx = nullptr, *dy = nullptr, *dout = nullptr;
  uint32_t* din = nullptr;
  CHECK(aclrtMalloc(reinterpret_cast<void**>(&dx), n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(reinterpret_cast<void**>(&dy), n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(reinterpret_cast<void**>(&dout), n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(reinterpret_cast<void**>(&din), n * 4, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMemcpy(dx, n * 4, x.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(aclrtMemcpy(dy, n * 4, y.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE));
  CHECK(aclrtMemcpy(din, n * 4, in.data(), n * 4, ACL_MEMCPY_HOST_TO_DEVICE));

  // saxpy_f32(a, x, y, n): the runtime-managed argument handle of this thread.
  aclrtArgsHandle args = nullptr;
  aclrtParamHandle p = nullptr, aParam = nullptr;
  float a = 2.0f;
  CHECK(aclrtKernelArgsInit(saxpy, &args));
  CHECK(aclrtKernelArgsAppend(args, &a, sizeof a, &aParam));
  CHECK(aclrtKernelArgsAppend(args, &dx, sizeof dx, &p));
  CHECK(aclrtKernelArgsAppend(args, &dy, sizeof dy, &p));
  CHECK(aclrtKernelArgsAppend(args, const_cast<uint32_t*>(&n), sizeof n, &p));
  CHECK(aclrtKernelArgsFinalize(args));
  aclrtLaunchKernelAttr attr{};
  attr.id = ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE;
  attr.value.schemMode = 0;
  aclrtLaunchKernelCfg cfg{&attr, 1};
  CHECK(aclrtLaunchKernelWithConfig(saxpy, 8, stream, &cfg, args, nullptr));
  // A second launch with a = 3: the first launch's arguments were copied when it was made.
  a = 3.0f;
  CHECK(aclrtKernelArgsParaUpdate(args, aParam, &a, sizeof a));
  CHECK(aclrtLaunchKernelWithConfig(saxpy, 8, stream, &cfg, args, nullptr));

  // lookup_f32(in, lut, lutSize, out, n): `lut` is a placeholder filled on the host.
  const uint32_t lutSize = 16;
  aclrtArgsHandle largs = nullptr;
  aclrtParamHandle lut = nullptr;
  CHECK(aclrtKernelArgsInit(lookup, &largs));
  CHECK(aclrtKernelArgsAppend(largs, &din, sizeof din, &p));
  CHECK(aclrtKernelArgsAppendPlaceHolder(largs, &lut));
  CHECK(aclrtKernelArgsAppend(largs, const_cast<uint32_t*>(&lutSize), sizeof lutSize, &p));
  CHECK(aclrtKernelArgsAppend(largs, &dout, sizeof dout, &p));
  CHECK(aclrtKernelArgsAppend(largs, const_cast<uint32_t*>(&n), sizeof n, &p));
  void* lutData = nullptr;
  CHECK(aclrtKernelArgsGetPlaceHolderBuffer(largs, lut, lutSize * sizeof(float), &lutData));
  for (uint32_t i = 0; i < lutSize; ++i) static_cast<float*>(lutData)[i] = std::sqrt(float(i));
  CHECK(aclrtKernelArgsFinalize(largs));
  CHECK(aclrtLaunchKernelWithConfig(lookup, 4, stream, nullptr, largs, nullptr));
  CHECK(aclrtSynchronizeStream(stream));

  std::vector<float> gotY(n), gotOut(n);
  CHECK(aclrtMemcpy(gotY.data(), n * 4, dy, n * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  CHECK(aclrtMemcpy(gotOut.data(), n * 4, dout, n * 4, ACL_MEMCPY_DEVICE_TO_HOST));
  size_t bad = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (gotY[i] != 3.0f * x[i] + (2.0f * x[i] + y[i])) ++bad;
    if (gotOut[i] != std::sqrt(float(in[i] % lutSize))) ++bad;
  }
  std::printf("kernel binary: 2 kernels, 3 launches, %u elements: %s\n", n,
              bad == 0 ? "results match the host" : "MISMATCH");

  CHECK(aclrtBinaryUnLoad(bin));
  CHECK(aclrtFree(dx));
  CHECK(aclrtFree(dy));
  CHECK(aclrtFree(dout));
  CHECK(aclrtFree(din));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  return bad == 0 ? 0 : 1;
}
