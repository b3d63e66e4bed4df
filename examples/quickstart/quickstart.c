/*
 * Quickstart: the smallest useful ACL program. It brings up a device, moves data to it and back
 * through a stream, times the work with events, and checks the result. Plain C against the
 * CANN-compatible headers only: it builds unchanged against CANN.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

#define CHECK(call)                                                              \
  do {                                                                           \
    aclError rc_ = (call);                                                       \
    if (rc_ != ACL_SUCCESS) {                                                    \
      const char *msg_ = aclGetRecentErrMsg();                                   \
      fprintf(stderr, "%s failed: %d (%s)\n", #call, rc_, msg_ ? msg_ : "");     \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

int main(void) {
  const size_t n = 1 << 20; /* 1 Mi floats = 4 MiB */
  const size_t bytes = n * sizeof(float);

  CHECK(aclInit(NULL)); /* NULL: $ASCEND_RUN_CONFIG or the installed default config */
  uint32_t devices = 0;
  CHECK(aclrtGetDeviceCount(&devices));
  CHECK(aclrtSetDevice(0));
  printf("device 0 of %u: %s\n", devices, aclrtGetSocName());

  aclrtStream stream;
  CHECK(aclrtCreateStream(&stream));
  aclrtEvent start, stop;
  CHECK(aclrtCreateEvent(&start));
  CHECK(aclrtCreateEvent(&stop));

  /* Pinned host memory lets the copies run asynchronously, overlapped with the host. */
  float *host_in, *host_out;
  CHECK(aclrtMallocHost((void **)&host_in, bytes));
  CHECK(aclrtMallocHost((void **)&host_out, bytes));
  for (size_t i = 0; i < n; ++i) host_in[i] = (float)i * 0.5f;

  void *dev_a, *dev_b;
  CHECK(aclrtMalloc(&dev_a, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&dev_b, bytes, ACL_MEM_MALLOC_HUGE_FIRST));

  /* Everything below only enqueues; the stream runs it in order on the device. */
  CHECK(aclrtRecordEvent(start, stream));
  CHECK(aclrtMemcpyAsync(dev_a, bytes, host_in, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));
  CHECK(aclrtMemcpyAsync(dev_b, bytes, dev_a, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
  CHECK(aclrtMemsetAsync(dev_a, bytes, 0, bytes, stream));
  CHECK(aclrtMemcpyAsync(host_out, bytes, dev_b, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
  CHECK(aclrtRecordEvent(stop, stream));
  CHECK(aclrtSynchronizeStream(stream)); /* the pitfall: read host_out only after this */

  float ms = 0;
  CHECK(aclrtEventElapsedTime(&ms, start, stop));
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += host_out[i] != (float)i * 0.5f;

  size_t free_bytes = 0, total_bytes = 0;
  CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes));
  printf("H2D + D2D + memset + D2H of %zu MiB: %.3f ms on the device clock (%.2f GB/s per copy)\n", bytes >> 20,
         ms, ms > 0 ? 3.0 * bytes / (ms * 1e6) : 0.0);
  printf("device memory: %zu MiB free of %zu MiB\n", free_bytes >> 20, total_bytes >> 20);
  printf("result: %s (%zu mismatches)\n", bad == 0 ? "OK" : "WRONG", bad);

  /* Release everything we created: the runtime reports what a program leaks. */
  CHECK(aclrtFree(dev_a));
  CHECK(aclrtFree(dev_b));
  CHECK(aclrtFreeHost(host_in));
  CHECK(aclrtFreeHost(host_out));
  CHECK(aclrtDestroyEvent(start));
  CHECK(aclrtDestroyEvent(stop));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());
  return bad == 0 ? 0 : 1;
}
