/*
 * HCCL communicator management (CANN hcomm's include/hccl/hccl_comm.h): creation, destruction,
 * queries, configuration, barrier, groups, fault handling, zero-copy ranges (hccl-api.md §2).
 * ascend-run ships neither hccl_res.h nor hccl_launch.h (operator-development APIs, Appendix A).
 */
#ifndef HCCL_COMM_H_
#define HCCL_COMM_H_

#include <stdbool.h>
#include <stddef.h>

#include <hccl/hccl_types.h>
#include <acl/acl.h>

#ifndef HCOMM_WEAK_SYMBOL
#define HCOMM_WEAK_SYMBOL __attribute__((weak))
#endif

#ifdef __cplusplus
extern "C" {
#endif

extern HcclResult HcclGetRootInfo(HcclRootInfo* rootInfo) HCOMM_WEAK_SYMBOL;
extern HcclResult
HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank, HcclComm* comm) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommInitRootInfoConfig(
    uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank, const HcclCommConfig* config,
    HcclComm* comm) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommInitClusterInfo(const char* clusterInfo, uint32_t rank, HcclComm* comm) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommInitClusterInfoConfig(
    const char* clusterInfo, uint32_t rank, HcclCommConfig* config, HcclComm* comm) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommInitAll(uint32_t ndev, int32_t* devices, HcclComm* comms) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCreateSubCommConfig(
    HcclComm* comm, uint32_t rankNum, uint32_t* rankIds, uint64_t subCommId, uint32_t subCommRankId,
    HcclCommConfig* config, HcclComm* subComm) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommDestroy(HcclComm comm) HCOMM_WEAK_SYMBOL;

#ifdef __cplusplus
static inline void HcclCommConfigInit(HcclCommConfig* config)
{
    if (config == nullptr) {
        return;
    }
#else
static inline void HcclCommConfigInit(HcclCommConfig* config)
{
    if (config == NULL) {
        return;
    }
#endif

    typedef struct {
        size_t size;
        uint32_t magicWord;
        uint32_t version;
        uint64_t reserved;
    } configInfo_t;

    configInfo_t* info = (configInfo_t*)config;

    info->size = sizeof(HcclCommConfig);
    info->magicWord = HCCL_COMM_CONFIG_MAGIC_WORD;
    info->version = HCCL_COMM_CONFIG_VERSION;
    info->reserved = 0;

    config->hcclBufferSize = HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET;
    config->hcclDeterministic = HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;
    config->hcclCommName[0] = '\0';
    config->hcclUdi[0] = '\0';
    config->hcclOpExpansionMode = HCCL_COMM_DEFAULT_OP_EXPANSION_MODE;
    config->hcclRdmaTrafficClass = HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET;
    config->hcclRdmaServiceLevel = HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET;
    config->hcclWorldRankID = 0;
    config->hcclJobID = 0;
    config->aclGraphZeroCopyEnable = 0;
    config->hcclExecTimeOut = HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET;
    config->hcclAlgo[0] = '\0';
    config->hcclRetryEnable[0] = '\0';
    config->hcclRetryParams[0] = '\0';
    config->hcclBufferName[0] = '\0';
    config->hcclQos = HCCL_COMM_QOS_CONFIG_NOT_SET;
    config->hcclSymWinMaxMemSizePerRank = HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE;
    config->hcclChannelSqDepth = HCCL_COMM_SQ_DEPTH_CONFIG_NOT_SET;
}

extern HcclResult HcclGetRankSize(HcclComm comm, uint32_t* rankSize) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclGetRankId(HcclComm comm, uint32_t* rank) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclGetCommName(HcclComm comm, char* commName) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommGetHandleWithName(const char* commName, HcclComm* comm);
extern HcclResult HcclCommGetStatus(const char* commId, HcclCommStatus* status);
extern HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult* asyncError) HCOMM_WEAK_SYMBOL;
extern const char* HcclGetErrorString(HcclResult code) HCOMM_WEAK_SYMBOL;
extern uint32_t HcclGetCommConfigCapability() HCOMM_WEAK_SYMBOL;
#ifdef __cplusplus
extern HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue) HCOMM_WEAK_SYMBOL;
#else
extern HcclResult HcclSetConfig(HcclConfig config, union HcclConfigValue configValue) HCOMM_WEAK_SYMBOL;
#endif
extern HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue* configValue) HCOMM_WEAK_SYMBOL;

extern HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) HCOMM_WEAK_SYMBOL;

extern HcclResult HcclGroupStart();
extern HcclResult HcclGroupEnd();
extern HcclResult HcclGroupStatusGet(bool* isGroupEnabled);

extern HcclResult HcclCommSuspend(HcclComm comm) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommResume(HcclComm comm) HCOMM_WEAK_SYMBOL;
extern HcclResult
HcclCommWorkingDevNicSet(HcclComm comm, uint32_t* ranks, bool* useBackup, uint32_t nRanks) HCOMM_WEAK_SYMBOL;

extern HcclResult HcclCommSetMemoryRange(HcclComm comm, void* baseVirPtr, size_t size, size_t alignment, uint64_t flags)
    HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void* baseVirPtr) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommActivateCommMemory(
    HcclComm comm, void* virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
    uint64_t flags) HCOMM_WEAK_SYMBOL;
extern HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void* virPtr) HCOMM_WEAK_SYMBOL;
extern HcclResult
HcclCommSymWinRegister(HcclComm comm, void* addr, uint64_t size, HcclCommSymWindow* winHandle, uint32_t flag);
extern HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle);
extern HcclResult
HcclCommSymWinGet(HcclComm comm, void* ptr, size_t size, HcclCommSymWindow* winHandle, size_t* offset);

typedef HcclResult (*HcclCommStateCallback)(HcclComm comm, HcclCommStatePhase state, void* args);
extern HcclResult HcclCommRegCommStateCallback(const char* regName, HcclCommStateCallback cb, void* args);

typedef enum {
    HCCL_OP_EXPANSION_MODE_INVALID = -1,
    HCCL_OP_EXPANSION_MODE_AI_CPU = 0,
    HCCL_OP_EXPANSION_MODE_AIV = 1,
    HCCL_OP_EXPANSION_MODE_HOST = 2,
    HCCL_OP_EXPANSION_MODE_HOST_TS = 3,
    HCCL_OP_EXPANSION_MODE_CCU_MS = 4,
    HCCL_OP_EXPANSION_MODE_CCU_SCHED = 5,
    HCCL_OP_EXPANSION_AIV_ONLY = 6
} HcclOpExpansionMode;

typedef enum {
    HCCL_CONFIG_TYPE_INVALID = -1,
    HCCL_CONFIG_TYPE_OP_EXPANSION_MODE = 0,
    HCCL_CONFIG_TYPE_HCCL_ALGO = 1
} HcclConfigType;

typedef HcclOpExpansionMode HcclConfigTypeOpExpansionMode;

extern HcclResult HcclConfigGetInfo(HcclComm comm, HcclConfigType cfgType, uint32_t infoLen, void* info);

#ifdef __cplusplus
}
#endif

#endif  // HCCL_COMM_H_
