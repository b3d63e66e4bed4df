/*
 * Device memory accounting and what an allocation failure looks like.
 *
 * aclrtGetMemInfo(ACL_HBM_MEM, &free, &total) reports the current device's memory; free drops as
 * aclrtMalloc hands out memory and recovers on aclrtFree. A request the device cannot satisfy
 * fails with ACL_ERROR_RT_MEMORY_ALLOCATION (207001), leaves the pointer untouched and the device
 * usable; aclGetRecentErrMsg() then explains the failure in words, for this thread's last error.
 */
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

static void show(const char* when, size_t* free_out) {
  size_t free_bytes = 0, total_bytes = 0;
  CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes));
  printf("%-28s free %8.2f MiB of %8.2f MiB\n", when, free_bytes / 1048576.0, total_bytes / 1048576.0);
  *free_out = free_bytes;
}

int main(void) {
  CHECK(aclInit(NULL));
  CHECK(aclrtSetDevice(0));

  size_t free0, free1, free2;
  show("before allocating:", &free0);
  enum { kBlocks = 4 };
  const size_t block = 16u << 20; /* 16 MiB: small enough for the null device's 256 MiB too */
  void* blocks[kBlocks];
  for (int i = 0; i < kBlocks; ++i) CHECK(aclrtMalloc(&blocks[i], block, ACL_MEM_MALLOC_HUGE_FIRST));
  show("after 4 x 16 MiB aclrtMalloc:", &free1);
  printf("free dropped by %.2f MiB (each request is padded, then rounded up to whole pages)\n",
         (double)(free0 - free1) / 1048576.0);

  /* Ask for more than the whole device: the call fails, and says why. */
  size_t total = 0, ignored = 0;
  CHECK(aclrtGetMemInfo(ACL_HBM_MEM, &ignored, &total));
  void* huge = NULL;
  const aclError rc = aclrtMalloc(&huge, total + block, ACL_MEM_MALLOC_HUGE_FIRST);
  const char* msg = aclGetRecentErrMsg();
  printf("aclrtMalloc(%.2f MiB) -> %d%s\n", (double)(total + block) / 1048576.0, rc,
         rc == ACL_ERROR_RT_MEMORY_ALLOCATION ? " (ACL_ERROR_RT_MEMORY_ALLOCATION)" : "");
  printf("aclGetRecentErrMsg: %s\n", msg != NULL && msg[0] != '\0' ? msg : "(empty)");
  printf("pointer after the failure: %s\n", huge == NULL ? "still NULL" : "CHANGED");

  for (int i = 0; i < kBlocks; ++i) CHECK(aclrtFree(blocks[i]));
  show("after aclrtFree:", &free2);

  CHECK(aclrtResetDevice(0));
  CHECK(aclFinalize());

  const int ok = free1 < free0 && free2 == free0 && rc == ACL_ERROR_RT_MEMORY_ALLOCATION && huge == NULL &&
                 msg != NULL && msg[0] != '\0';
  printf("memory info: %s\n", ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
