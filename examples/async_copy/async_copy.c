/*
 * Async copies need pinned host memory.
 *
 * aclrtMemcpyAsync only enqueues a copy when the host side came from aclrtMallocHost (pinned,
 * page-locked memory the DMA engines can read at any time). With ordinary pageable memory
 * (malloc) the runtime must finish the copy before the call returns, so "async" silently becomes
 * synchronous and the host loses the overlap. This program shows both: a device task that waits
 * for the host holds the stream, so a pinned copy queued behind it is provably still pending when
 * the call returns, and the host does its own work meanwhile. Events around the copy give its
 * duration on the device clock (aclrtEventElapsedTime).
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep under -std=c11 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "arun/arun_ext.h" /* arunLaunchDeviceTask: an ascend-run extension, used here as a gate */

#define CHECK(call)                                                          \
  do {                                                                       \
    aclError rc_ = (call);                                                   \
    if (rc_ != ACL_SUCCESS) {                                                \
      const char* msg_ = aclGetRecentErrMsg();                               \
      fprintf(stderr, "%s failed: %d (%s)\n", #call, rc_, msg_ ? msg_ : ""); \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

/* A device task that spins until the host opens the gate: it keeps everything behind it queued. */
static void gate_task(void* arg) {
  atomic_int* open = (atomic_int*)arg;
  const struct timespec nap = {0, 100000}; /* 0.1 ms */
  while (!atomic_load(open)) nanosleep(&nap, NULL);
}

static const char* stream_state(aclrtStream stream) {
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  CHECK(aclrtStreamQuery(stream, &status));
  return status == ACL_STREAM_STATUS_COMPLETE ? "complete" : "still pending";
}

int main(void) {
  const size_t bytes = 16u << 20; /* 16 MiB */
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  aclrtStream stream;
  CHECK(aclrtCreateStream(&stream));
  void* dev;
  CHECK(aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST));

  /* 1. Pageable memory: the call returns only once the copy is done. */
  unsigned char* pageable = (unsigned char*)malloc(bytes);
  if (pageable == NULL) return 1;
  memset(pageable, 0x11, bytes);
  CHECK(aclrtMemcpyAsync(dev, bytes, pageable, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));
  const char* pageable_state = stream_state(stream);
  printf("pageable malloc buffer: aclrtMemcpyAsync returned, stream %s (the call waited for the copy)\n",
         pageable_state);

  /* 2. Pinned memory: the copy is queued behind a gate and the call returns at once. */
  unsigned char *pinned, *back;
  CHECK(aclrtMallocHost((void**)&pinned, bytes));
  CHECK(aclrtMallocHost((void**)&back, bytes));
  for (size_t i = 0; i < bytes; ++i) pinned[i] = (unsigned char)(i * 7u);
  memset(back, 0, bytes);

  aclrtEvent start, stop;
  CHECK(aclrtCreateEvent(&start));
  CHECK(aclrtCreateEvent(&stop));
  atomic_int open = 0;
  CHECK(arunLaunchDeviceTask(gate_task, &open, stream));
  CHECK(aclrtRecordEvent(start, stream));
  CHECK(aclrtMemcpyAsync(dev, bytes, pinned, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream));
  CHECK(aclrtMemcpyAsync(back, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
  CHECK(aclrtRecordEvent(stop, stream));
  const char* pinned_state = stream_state(stream);
  printf("pinned aclrtMallocHost buffer: 2 copies enqueued, stream %s (the host is free)\n", pinned_state);

  /* The overlap the pinned buffer buys: host work while the device has the copies queued. */
  unsigned long checksum = 0;
  for (size_t i = 0; i < bytes; ++i) checksum += pinned[i];
  printf("host computed a checksum meanwhile: %lu\n", checksum);

  atomic_store(&open, 1);
  CHECK(aclrtSynchronizeStream(stream));
  float ms = 0;
  CHECK(aclrtEventElapsedTime(&ms, start, stop));
  const int same = memcmp(pinned, back, bytes) == 0;
  printf("H2D + D2H of %zu MiB: %.3f ms on the device clock, round trip %s\n", bytes >> 20, ms,
         same ? "matches" : "DIFFERS");

  CHECK(aclrtDestroyEvent(start));
  CHECK(aclrtDestroyEvent(stop));
  CHECK(aclrtFreeHost(pinned));
  CHECK(aclrtFreeHost(back));
  free(pageable);
  CHECK(aclrtFree(dev));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());

  const int ok = same && strcmp(pageable_state, "complete") == 0 && strcmp(pinned_state, "still pending") == 0;
  printf("async copy: %s\n", ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
