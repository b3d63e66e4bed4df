/*
 * An unmodified CANN-style ACL program, in C. It uses only the CANN headers (acl/acl.h) and the
 * libascendcl C API, and is built with nothing but
 *     cc -I<prefix>/include acl_smoke.c -L<prefix>/lib64 -Wl,-rpath,<prefix>/lib64 -lascendcl
 * On every device it: allocates pinned host and device memory, copies host -> device -> device ->
 * host asynchronously on a stream, memsets device memory (async and sync), times the work with
 * events, checks aclrtGetMemInfo, verifies every byte, and releases everything.
 * Any failing call prints the call, its error code and aclGetRecentErrMsg(), and exits 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

#define CHECK(call)                                                                    \
  do {                                                                                 \
    aclError rc_ = (call);                                                             \
    if (rc_ != ACL_SUCCESS) {                                                          \
      const char *msg_ = aclGetRecentErrMsg();                                         \
      fprintf(stderr, "FAIL %s:%d: %s returned %d: %s\n", __FILE__, __LINE__, #call,   \
              (int)rc_, msg_ ? msg_ : "(no message)");                                 \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

#define EXPECT(cond, ...)                                                              \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                  \
      fprintf(stderr, __VA_ARGS__);                                                    \
      fputc('\n', stderr);                                                             \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

static size_t count_mismatches(const uint8_t *got, const uint8_t *want, uint8_t fill, size_t n) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += got[i] != (want ? want[i] : fill);
  return bad;
}

static void run_on_device(int32_t device) {
  const size_t bytes = (size_t)4 << 20; /* 4 MiB */

  CHECK(aclrtSetDevice(device));
  int32_t current = -1;
  CHECK(aclrtGetDevice(&current));
  EXPECT(current == device, "aclrtGetDevice gave %d after aclrtSetDevice(%d)", (int)current, (int)device);
  const char *soc = aclrtGetSocName();
  EXPECT(soc != NULL && soc[0] != '\0', "aclrtGetSocName gave no name");

  size_t free_before = 0, total = 0;
  CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &free_before, &total));
  EXPECT(total > 0 && free_before <= total, "aclrtGetMemInfo: free %zu, total %zu", free_before, total);

  aclrtStream stream = NULL;
  CHECK(aclrtCreateStream(&stream));
  aclrtEvent start = NULL, stop = NULL;
  CHECK(aclrtCreateEvent(&start));
  CHECK(aclrtCreateEvent(&stop));

  uint8_t *host_in = NULL, *host_out = NULL, *host_zero = NULL;
  CHECK(aclrtMallocHost((void **)&host_in, bytes));
  CHECK(aclrtMallocHost((void **)&host_out, bytes));
  CHECK(aclrtMallocHost((void **)&host_zero, bytes));
  for (size_t i = 0; i < bytes; ++i) host_in[i] = (uint8_t)(i * 31u + 7u + (unsigned)device);
  memset(host_out, 0xEE, bytes);
  memset(host_zero, 0xEE, bytes);

  void *dev_a = NULL, *dev_b = NULL;
  CHECK(aclrtMalloc(&dev_a, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&dev_b, bytes, ACL_MEM_MALLOC_NORMAL_ONLY));
  EXPECT(dev_a != NULL && dev_b != NULL && dev_a != dev_b, "aclrtMalloc gave %p and %p", dev_a, dev_b);

  size_t free_after = 0, total_after = 0;
  CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &free_after, &total_after));
  EXPECT(total_after == total, "total device memory changed from %zu to %zu", total, total_after);
  EXPECT(free_after < free_before, "free device memory did not drop after allocating 2 x %zu bytes (%zu -> %zu)",
         bytes, free_before, free_after);

  /* Asynchronous work, in stream order. */
  CHECK(aclrtRecordEvent(start, stream));
  CHECK(aclrtMemcpyAsync(dev_a, bytes, host_in, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));
  CHECK(aclrtMemcpyAsync(dev_b, bytes, dev_a, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
  CHECK(aclrtMemsetAsync(dev_a, bytes, 0, bytes, stream));
  CHECK(aclrtMemcpyAsync(host_out, bytes, dev_b, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
  CHECK(aclrtMemcpyAsync(host_zero, bytes, dev_a, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
  CHECK(aclrtRecordEvent(stop, stream));
  CHECK(aclrtSynchronizeEvent(stop));
  CHECK(aclrtSynchronizeStream(stream));

  aclrtEventRecordedStatus recorded = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  CHECK(aclrtQueryEventStatus(stop, &recorded));
  EXPECT(recorded == ACL_EVENT_RECORDED_STATUS_COMPLETE, "stop event not complete after synchronisation");
  float ms = -1.0f;
  CHECK(aclrtEventElapsedTime(&ms, start, stop));
  EXPECT(ms >= 0.0f, "elapsed time %f ms is negative", (double)ms);

  size_t bad = count_mismatches(host_out, host_in, 0, bytes);
  EXPECT(bad == 0, "device %d: H2D + D2D + D2H round trip: %zu of %zu bytes differ", (int)device, bad, bytes);
  bad = count_mismatches(host_zero, NULL, 0, bytes);
  EXPECT(bad == 0, "device %d: aclrtMemsetAsync(0): %zu of %zu bytes are not 0", (int)device, bad, bytes);

  /* Synchronous memset and copy. */
  CHECK(aclrtMemset(dev_b, bytes, 0x5A, bytes / 2));
  CHECK(aclrtMemcpy(host_out, bytes, dev_b, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
  bad = count_mismatches(host_out, NULL, 0x5A, bytes / 2) + count_mismatches(host_out + bytes / 2, host_in + bytes / 2, 0,
                                                                              bytes - bytes / 2);
  EXPECT(bad == 0, "device %d: aclrtMemset(0x5A, half) + aclrtMemcpy: %zu bytes wrong", (int)device, bad);

  printf("device %d (%s): %zu MiB H2D + D2D + memset + D2H in %.3f ms; memory %zu/%zu MiB free: OK\n", (int)device,
         soc, bytes >> 20, (double)ms, free_after >> 20, total >> 20);

  CHECK(aclrtFree(dev_a));
  CHECK(aclrtFree(dev_b));
  CHECK(aclrtFreeHost(host_in));
  CHECK(aclrtFreeHost(host_out));
  CHECK(aclrtFreeHost(host_zero));
  CHECK(aclrtDestroyEvent(start));
  CHECK(aclrtDestroyEvent(stop));
  CHECK(aclrtDestroyStream(stream));

  size_t free_end = 0, total_end = 0;
  CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &free_end, &total_end));
  EXPECT(free_end == free_before, "device %d: free memory %zu after freeing everything, %zu before", (int)device,
         free_end, free_before);
  CHECK(aclrtResetDevice(device));
}

int main(void) {
  CHECK(aclInit(NULL)); /* NULL: $ASCEND_RUN_CONFIG, else the installed default configuration */

  /* share/info/runtime/version.info, found relative to the installed library */
  char version[ACL_PKG_VERSION_MAX_SIZE] = {0};
  CHECK(aclsysGetVersionStr((char *)"runtime", version));
  EXPECT(version[0] != '\0', "aclsysGetVersionStr(\"runtime\") gave an empty version");
  int32_t version_num = 0;
  CHECK(aclsysGetVersionNum((char *)"runtime", &version_num));
  EXPECT(version_num > 0, "aclsysGetVersionNum(\"runtime\") gave %d", (int)version_num);

  uint32_t devices = 0;
  CHECK(aclrtGetDeviceCount(&devices));
  EXPECT(devices >= 1, "aclrtGetDeviceCount gave %u devices", devices);
  printf("ACL interface %d.%d.%d, runtime package %s (%d), %u device(s)\n", ACL_MAJOR_VERSION, ACL_MINOR_VERSION,
         ACL_PATCH_VERSION, version, (int)version_num, devices);

  for (uint32_t d = 0; d < devices; ++d) run_on_device((int32_t)d);

  CHECK(aclFinalize());
  printf("PASS\n");
  return 0;
}
