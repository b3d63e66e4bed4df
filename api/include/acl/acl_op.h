/*
 * ascend-run: CANN ACL-compatible public header.
 * Single-operator execution: operator attributes and aclopExecuteV2.
 */
#ifndef INC_EXTERNAL_ACL_ACL_OP_H_
#define INC_EXTERNAL_ACL_ACL_OP_H_

#include "acl_base.h"
#include "acl_rt.h"
#include "acl_dump.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque operator objects. */
typedef struct aclopHandle aclopHandle;
typedef struct aclopAttr aclopAttr;
typedef struct aclopKernelDesc aclopKernelDesc;

/* Frees memory handed over to ACL together with its length. */
typedef void (*aclDataDeallocator)(void *data, size_t length);

/* Compile flag: pick kernels through a registered binary selector. */
static const int ACL_COMPILE_FLAG_BIN_SELECTOR = 1;

/* Engine an operator runs on. The enum tag differs from the typedef name. */
typedef enum aclEngineType {
    ACL_ENGINE_SYS,
    ACL_ENGINE_AICORE,
    ACL_ENGINE_VECTOR,
} aclopEngineType;

/* Attribute set of one operator call. */
ACL_FUNC_VISIBILITY aclopAttr *aclopCreateAttr();
ACL_FUNC_VISIBILITY void aclopDestroyAttr(const aclopAttr *attr);
/* Set (or replace) one attribute. */
ACL_FUNC_VISIBILITY aclError aclopSetAttrBool(aclopAttr *attr, const char *attrName, uint8_t attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrInt(aclopAttr *attr, const char *attrName, int64_t attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrFloat(aclopAttr *attr, const char *attrName, float attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrString(aclopAttr *attr, const char *attrName, const char *attrValue);
ACL_FUNC_VISIBILITY aclError aclopSetAttrListInt(aclopAttr *attr, const char *attrName, int numValues,
                                                 const int64_t *values);

/* Run an operator on a stream; the V2 form may update the output descriptions. */
ACL_DEPRECATED_MESSAGE("aclopExecute is deprecated, use aclopExecuteV2 instead")
ACL_FUNC_VISIBILITY aclError aclopExecute(const char *opType, int numInputs, const aclTensorDesc *const inputDesc[],
                                          const aclDataBuffer *const inputs[], int numOutputs,
                                          const aclTensorDesc *const outputDesc[], aclDataBuffer *const outputs[],
                                          const aclopAttr *attr, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclopExecuteV2(const char *opType, int numInputs, aclTensorDesc *inputDesc[],
                                            aclDataBuffer *inputs[], int numOutputs, aclTensorDesc *outputDesc[],
                                            aclDataBuffer *outputs[], aclopAttr *attr, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_OP_H_ */
