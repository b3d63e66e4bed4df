/*
 * The missing-synchronisation pitfall, and its fix.
 *
 * aclrtMemcpyAsync(..., ACL_MEMCPY_DEVICE_TO_HOST, stream) returns as soon as the copy is queued.
 * Reading the host buffer right after it reads whatever was there before: stale data, or a torn
 * mix if the copy happens to be running. On a fast device the bug hides, because the copy usually
 * wins the race; it shows up later under load. To make it visible every time, this program puts a
 * device task that waits for the host in front of the copy, so the copy has certainly not run when
 * the buggy read happens. The fix is to wait for the stream (aclrtSynchronizeStream, or an event
 * recorded after the copy) before touching the buffer.
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

/* Stands in for whatever keeps a real device busy: everything queued behind it waits. */
static void busy_device_task(void* arg) {
  atomic_int* open = (atomic_int*)arg;
  const struct timespec nap = {0, 100000}; /* 0.1 ms */
  while (!atomic_load(open)) nanosleep(&nap, NULL);
}

static size_t count_value(const unsigned char* p, size_t n, unsigned char v) {
  size_t c = 0;
  for (size_t i = 0; i < n; ++i) c += p[i] == v;
  return c;
}

int main(void) {
  const size_t bytes = 4u << 20;
  const unsigned char fresh = 0xAB, stale = 0x00;
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  aclrtStream stream;
  CHECK(aclrtCreateStream(&stream));
  void* dev;
  CHECK(aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMemset(dev, bytes, fresh, bytes)); /* the device holds the result we want */
  unsigned char* host;
  CHECK(aclrtMallocHost((void**)&host, bytes));
  memset(host, stale, bytes);

  /* The bug: enqueue the D2H copy, then read the buffer without waiting for the stream. */
  atomic_int open = 0;
  CHECK(arunLaunchDeviceTask(busy_device_task, &open, stream));
  CHECK(aclrtMemcpyAsync(host, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream));
  const size_t seen_fresh = count_value(host, bytes, fresh);
  printf("without synchronizing: %zu of %zu bytes are the result, host[0] = 0x%02X (stale data)\n", seen_fresh, bytes,
         host[0]);

  /* The fix: wait for the stream, then read. (The device is released first, or we would wait forever.) */
  atomic_store(&open, 1);
  CHECK(aclrtSynchronizeStream(stream));
  const size_t synced_fresh = count_value(host, bytes, fresh);
  printf("after aclrtSynchronizeStream: %zu of %zu bytes are the result, host[0] = 0x%02X\n", synced_fresh, bytes,
         host[0]);

  CHECK(aclrtFreeHost(host));
  CHECK(aclrtFree(dev));
  CHECK(aclrtDestroyStream(stream));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());

  /* Success means the demonstration worked: stale before the wait, complete after it. */
  const int ok = seen_fresh == 0 && synced_fresh == bytes;
  printf("missing sync: %s\n", ok ? "pitfall shown, fix verified" : "WRONG");
  return ok ? 0 : 1;
}
