/*
 * ascend-run: CANN ACL-compatible public header.
 * Operator compilation. Not included by acl/acl.h; include it explicitly.
 */
#ifndef INC_EXTERNAL_ACL_ACL_OP_COMPILER_H_
#define INC_EXTERNAL_ACL_ACL_OP_COMPILER_H_

#include "acl_base.h"
#include "acl_op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether an operator is compiled from the system package or an unregistered path. */
typedef enum aclCompileType {
    ACL_COMPILE_SYS,
    ACL_COMPILE_UNREGISTERED,
} aclopCompileType;

/* Compile strategy. */
typedef enum aclCompileFlag {
    ACL_OP_COMPILE_DEFAULT,
    ACL_OP_COMPILE_FUZZ,
} aclOpCompileFlag;

/* Options for dumping an operator's graph; layout is private. */
typedef struct aclGraphDumpOption aclGraphDumpOption;

/* Compile (or reuse a cached compilation of) an operator, then launch it on stream. */
ACL_FUNC_VISIBILITY aclError aclopCompileAndExecute(const char *opType, int numInputs,
                                                    const aclTensorDesc *const inputDesc[],
                                                    const aclDataBuffer *const inputs[], int numOutputs,
                                                    const aclTensorDesc *const outputDesc[],
                                                    aclDataBuffer *const outputs[], const aclopAttr *attr,
                                                    aclopEngineType engineType, aclopCompileType compileFlag,
                                                    const char *opPath, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_OP_COMPILER_H_ */
