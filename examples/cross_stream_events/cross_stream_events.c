/*
 * Events order work across streams.
 *
 * Streams are independent queues: nothing stops a consumer stream from reading a buffer before a
 * producer stream has written it. aclrtRecordEvent(event, producer) marks a point in the producer's
 * queue; aclrtStreamWaitEvent(consumer, event) makes the consumer's later work wait for that point,
 * on the device, without blocking the host. Here the producer is held by a device task that waits
 * for the host, so the consumer is provably stalled on the event; once the producer runs, the
 * consumer's copies see the producer's data.
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

static void gate_task(void* arg) {
  atomic_int* open = (atomic_int*)arg;
  const struct timespec nap = {0, 100000}; /* 0.1 ms */
  while (!atomic_load(open)) nanosleep(&nap, NULL);
}

static int pending(aclrtStream stream) {
  aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
  CHECK(aclrtStreamQuery(stream, &status));
  return status == ACL_STREAM_STATUS_NOT_READY;
}

int main(void) {
  const size_t n = 1u << 20, bytes = n * sizeof(int32_t);
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));
  aclrtStream producer, consumer;
  CHECK(aclrtCreateStream(&producer));
  CHECK(aclrtCreateStream(&consumer));
  aclrtEvent produced;
  CHECK(aclrtCreateEvent(&produced));

  int32_t *input, *output;
  CHECK(aclrtMallocHost((void**)&input, bytes));
  CHECK(aclrtMallocHost((void**)&output, bytes));
  for (size_t i = 0; i < n; ++i) input[i] = (int32_t)(i * 3 + 1);
  memset(output, 0, bytes);
  void *shared, *result;
  CHECK(aclrtMalloc(&shared, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMalloc(&result, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
  CHECK(aclrtMemset(shared, bytes, 0, bytes)); /* what the consumer would read without the event */

  /* Producer: (held by the gate) upload the input into `shared`, then mark the point. */
  atomic_int open = 0;
  CHECK(arunLaunchDeviceTask(gate_task, &open, producer));
  CHECK(aclrtMemcpyAsync(shared, bytes, input, bytes, ACL_MEMCPY_HOST_TO_DEVICE, producer));
  CHECK(aclrtRecordEvent(produced, producer));

  /* Consumer: wait for the producer's mark, then read `shared`. */
  CHECK(aclrtStreamWaitEvent(consumer, produced));
  CHECK(aclrtMemcpyAsync(result, bytes, shared, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, consumer));
  CHECK(aclrtMemcpyAsync(output, bytes, result, bytes, ACL_MEMCPY_DEVICE_TO_HOST, consumer));

  const int stalled = pending(consumer);
  printf("producer held by a gate: consumer stream %s\n",
         stalled ? "waits on the event (pending)" : "already complete (WRONG)");

  atomic_store(&open, 1);
  CHECK(aclrtSynchronizeStream(consumer)); /* waiting on the consumer alone is enough */
  aclrtEventRecordedStatus recorded = ACL_EVENT_RECORDED_STATUS_NOT_READY;
  CHECK(aclrtQueryEventStatus(produced, &recorded));
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += output[i] != input[i];
  printf("after the producer ran: event %s, consumer read %zu values, %zu mismatches\n",
         recorded == ACL_EVENT_RECORDED_STATUS_COMPLETE ? "complete" : "NOT complete", n, bad);

  CHECK(aclrtFree(shared));
  CHECK(aclrtFree(result));
  CHECK(aclrtFreeHost(input));
  CHECK(aclrtFreeHost(output));
  CHECK(aclrtDestroyEvent(produced));
  CHECK(aclrtDestroyStream(producer));
  CHECK(aclrtDestroyStream(consumer));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());

  const int ok = stalled && bad == 0 && recorded == ACL_EVENT_RECORDED_STATUS_COMPLETE;
  printf("cross-stream events: %s\n", ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
