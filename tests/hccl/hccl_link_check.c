/* Compiles hccl/hccl.h as C11 and takes the address of every function it declares: a declared
   function missing from libhccl.so fails the link (the weak declarations would otherwise resolve
   to NULL, which the program counts). */
#include <stdio.h>

#include "hccl/hccl.h"

int main(void) {
  void* fns[] = {(void*)HcclGetRootInfo,
                 (void*)HcclCommInitRootInfo,
                 (void*)HcclCommInitRootInfoConfig,
                 (void*)HcclCommInitClusterInfo,
                 (void*)HcclCommInitClusterInfoConfig,
                 (void*)HcclCommInitAll,
                 (void*)HcclCreateSubCommConfig,
                 (void*)HcclCommDestroy,
                 (void*)HcclGetRankSize,
                 (void*)HcclGetRankId,
                 (void*)HcclGetCommName,
                 (void*)HcclCommGetHandleWithName,
                 (void*)HcclCommGetStatus,
                 (void*)HcclGetCommAsyncError,
                 (void*)HcclGetErrorString,
                 (void*)HcclGetCommConfigCapability,
                 (void*)HcclSetConfig,
                 (void*)HcclGetConfig,
                 (void*)HcclConfigGetInfo,
                 (void*)HcclBarrier,
                 (void*)HcclAllReduce,
                 (void*)HcclBroadcast,
                 (void*)HcclAllGather,
                 (void*)HcclAllGatherV,
                 (void*)HcclReduceScatter,
                 (void*)HcclReduceScatterV,
                 (void*)HcclReduce,
                 (void*)HcclScatter,
                 (void*)HcclAlltoAll,
                 (void*)HcclAlltoAllV,
                 (void*)HcclAlltoAllVC,
                 (void*)HcclSend,
                 (void*)HcclRecv,
                 (void*)HcclBatchSendRecv,
                 (void*)HcclGroupStart,
                 (void*)HcclGroupEnd,
                 (void*)HcclGroupStatusGet,
                 (void*)HcclCommSuspend,
                 (void*)HcclCommResume,
                 (void*)HcclCommRegCommStateCallback,
                 (void*)HcclCommWorkingDevNicSet,
                 (void*)HcclCommSetMemoryRange,
                 (void*)HcclCommUnsetMemoryRange,
                 (void*)HcclCommActivateCommMemory,
                 (void*)HcclCommDeactivateCommMemory,
                 (void*)HcclCommSymWinRegister,
                 (void*)HcclCommSymWinDeregister,
                 (void*)HcclCommSymWinGet};
  size_t missing = 0, n = sizeof fns / sizeof fns[0];
  for (size_t i = 0; i < n; ++i) missing += fns[i] == NULL;
  HcclCommConfig config;
  HcclCommConfigInit(&config);
  printf(
      "%zu functions, %zu not defined, sizeof(HcclCommConfig) %zu, sizeof(HcclRootInfo) %zu, "
      "sizeof(HcclSendRecvItem) %zu\n",
      n, missing, sizeof(HcclCommConfig), sizeof(HcclRootInfo), sizeof(HcclSendRecvItem));
  return missing == 0 && sizeof(HcclCommConfig) == 2248 && sizeof(HcclRootInfo) == 4108 &&
                 sizeof(HcclSendRecvItem) == 32 && config.hcclSymWinMaxMemSizePerRank == 16
             ? 0
             : 1;
}
