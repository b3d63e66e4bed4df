/* arun/kernel.h compiles on its own as strict C and its types are what a C kernel needs. */
#include "arun/kernel.h"

static void fill(arunBlock *block, void *args) {
  int *p = (int *)arunBlockMap(block, args, sizeof(int));
  if (p == NULL) return;
  *p = (int)(arunBlockIdx(block) + arunBlockDim(block));
  if (*p < 0) arunBlockFault(block, ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, "negative");
}

static void release(void *args) { (void)args; }

aclError arun_kernel_c_user(aclrtStream stream, int *devPtr);
aclError arun_kernel_c_user(aclrtStream stream, int *devPtr) {
  arunKernelFn fn = &fill;
  arunFreeArgsFn free_fn = &release;
  return arunLaunchKernel(stream, 4u, fn, devPtr, free_fn);
}
