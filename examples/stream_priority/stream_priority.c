/*
 * Stream priorities.
 *
 * A stream's priority is fixed when it is created: aclrtCreateStreamWithConfig(&s, priority,
 * flags). aclrtDeviceGetStreamPriorityRange says which numbers the device accepts; on Ascend a
 * *smaller* number is *more* urgent (0 is the highest), and an out-of-range value is clamped to
 * the lowest priority, not rejected. aclrtStreamGetPriority reads a stream's priority back.
 * Priority is a hint to the device's scheduler about which ready work to start first; it never
 * reorders work within a stream and gives no ordering guarantee between streams, so this program
 * only shows the API and does not rely on any ordering.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

#define CHECK(call)                                                          \
  do {                                                                       \
    aclError rc_ = (call);                                                   \
    if (rc_ != ACL_SUCCESS) {                                                \
      const char* msg_ = aclGetRecentErrMsg();                               \
      fprintf(stderr, "%s failed: %d (%s)\n", #call, rc_, msg_ ? msg_ : ""); \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

int main(void) {
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));

  int32_t least = 0, greatest = 0;
  CHECK(aclrtDeviceGetStreamPriorityRange(&least, &greatest));
  printf("priority range: least urgent %d, most urgent %d\n", least, greatest);

  /* One stream per end of the range, one in the middle, and one out of range (clamped). */
  const uint32_t asked[4] = {(uint32_t)greatest, (uint32_t)((least + greatest) / 2), (uint32_t)least,
                             (uint32_t)least + 100};
  aclrtStream streams[4];
  int clamped_ok = 1;
  for (int i = 0; i < 4; ++i) {
    CHECK(aclrtCreateStreamWithConfig(&streams[i], asked[i], ACL_STREAM_FAST_LAUNCH));
    uint32_t got = 0;
    CHECK(aclrtStreamGetPriority(streams[i], &got));
    printf("aclrtCreateStreamWithConfig(priority %u) -> aclrtStreamGetPriority %u\n", asked[i], got);
    const uint32_t want = asked[i] > (uint32_t)least ? (uint32_t)least : asked[i];
    clamped_ok = clamped_ok && got == want;
  }

  /* The same work on every stream, all completing; which stream the device starts first is the
   * scheduler's business. */
  const size_t bytes = 1u << 20;
  unsigned char* host;
  CHECK(aclrtMallocHost((void**)&host, 4 * bytes));
  memset(host, 0, 4 * bytes);
  void* dev[4];
  for (int i = 0; i < 4; ++i) {
    CHECK(aclrtMalloc(&dev[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemsetAsync(dev[i], bytes, 0x40 + i, bytes, streams[i]));
    CHECK(aclrtMemcpyAsync(host + i * bytes, bytes, dev[i], bytes, ACL_MEMCPY_DEVICE_TO_HOST, streams[i]));
  }
  size_t bad = 0;
  for (int i = 0; i < 4; ++i) {
    CHECK(aclrtSynchronizeStream(streams[i]));
    for (size_t j = 0; j < bytes; ++j) bad += host[i * bytes + j] != 0x40 + i;
  }
  printf("work on all 4 streams completed: %zu wrong bytes\n", bad);

  for (int i = 0; i < 4; ++i) {
    CHECK(aclrtFree(dev[i]));
    CHECK(aclrtDestroyStream(streams[i]));
  }
  CHECK(aclrtFreeHost(host));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());

  const int ok = clamped_ok && bad == 0;
  printf("stream priorities: %s\n", ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
