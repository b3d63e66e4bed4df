/*
 * Device binding: how a program picks a device, and why the answer is per thread.
 *
 * aclInit starts the runtime once per process. aclrtSetDevice(n) binds the *calling thread* to
 * device n through that device's default context; aclrtCreateContext makes an extra context and
 * makes it current. The current context is thread-local state: a freshly started thread has none,
 * so device calls there fail with ACL_ERROR_RT_CONTEXT_NULL until it calls aclrtSetDevice or
 * aclrtSetCurrentContext itself. Forgetting that in worker threads is a classic first bug.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

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

/* What a worker thread sees before and after it binds itself to the context it was given. */
struct worker {
  aclrtContext context; /* in */
  aclError before;      /* out: aclrtGetDevice before binding */
  int32_t device;       /* out: aclrtGetDevice after binding */
};

static void* worker_main(void* arg) {
  struct worker* w = (struct worker*)arg;
  int32_t device = -1;
  w->before = aclrtGetDevice(&device); /* no current context on a new thread: expected to fail */
  CHECK(aclrtSetCurrentContext(w->context));
  CHECK(aclrtGetDevice(&w->device));
  return NULL;
}

int main(void) {
  CHECK(aclInit(NULL));
  uint32_t count = 0;
  CHECK(aclrtGetDeviceCount(&count));
  printf("devices: %u\n", count);

  /* Bind this thread to device 0: its default context becomes current. */
  CHECK(aclrtSetDevice(0));
  int32_t device = -1;
  CHECK(aclrtGetDevice(&device));
  aclrtContext default_ctx = NULL;
  CHECK(aclrtGetCurrentContext(&default_ctx));
  printf("main thread: aclrtSetDevice(0) -> current device %d (default context %p)\n", device, default_ctx);

  /* An extra context on the last device; creating it also makes it current on this thread. */
  const int32_t other = (int32_t)count - 1;
  aclrtContext ctx = NULL;
  CHECK(aclrtCreateContext(&ctx, other));
  CHECK(aclrtGetDevice(&device));
  printf("main thread: aclrtCreateContext(device %d) -> current device %d\n", other, device);

  /* A new thread starts with no current context, whatever the main thread did. */
  struct worker w = {ctx, ACL_SUCCESS, -1};
  pthread_t thread;
  if (pthread_create(&thread, NULL, worker_main, &w) != 0) {
    fprintf(stderr, "pthread_create failed\n");
    return 1;
  }
  pthread_join(thread, NULL);
  printf("worker thread: aclrtGetDevice before binding -> %d (%s)\n", w.before,
         w.before == ACL_ERROR_RT_CONTEXT_NULL ? "ACL_ERROR_RT_CONTEXT_NULL, as expected" : "unexpected");
  printf("worker thread: after aclrtSetCurrentContext -> current device %d\n", w.device);

  /* Switching back is just another aclrtSetCurrentContext on this thread. */
  CHECK(aclrtSetCurrentContext(default_ctx));
  CHECK(aclrtGetDevice(&device));
  printf("main thread: back on the default context -> current device %d\n", device);

  CHECK(aclrtDestroyContext(ctx));
  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());

  const int ok = w.before == ACL_ERROR_RT_CONTEXT_NULL && w.device == other && device == 0;
  printf("device binding: %s\n", ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
