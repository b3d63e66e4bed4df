/*
 * ascend-run: CANN ACL-compatible public header.
 * Tensor descriptions shared by the model and single-operator APIs.
 */
#ifndef INC_EXTERNAL_ACL_ACL_BASE_MDL_H_
#define INC_EXTERNAL_ACL_ACL_BASE_MDL_H_

#include <stdint.h>
#include <stddef.h>
#include "acl/acl_base_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Entries per dimension in a shape range and a value range: [min, max]. */
#define ACL_TENSOR_SHAPE_RANGE_NUM 2
#define ACL_TENSOR_VALUE_RANGE_NUM 2
/* aclGetTensorDescNumDims result for a tensor whose rank is not known. */
#define ACL_UNKNOWN_RANK 0xFFFFFFFFFFFFFFFE

/* Type, shape and format of one tensor; layout is private. */
typedef struct aclTensorDesc aclTensorDesc;

/*
 * Create a description. dims may hold -1 for a dynamic dimension, or the single value -2
 * for "rank unknown". Returns NULL on failure.
 */
ACL_FUNC_VISIBILITY aclTensorDesc *aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t *dims,
                                                       aclFormat format);
ACL_FUNC_VISIBILITY void aclDestroyTensorDesc(const aclTensorDesc *desc);

/* Accessors; they return ACL_DT_UNDEFINED / ACL_FORMAT_UNDEFINED / 0 for a NULL description. */
ACL_FUNC_VISIBILITY aclDataType aclGetTensorDescType(const aclTensorDesc *desc);
ACL_FUNC_VISIBILITY aclFormat aclGetTensorDescFormat(const aclTensorDesc *desc);
ACL_FUNC_VISIBILITY size_t aclGetTensorDescSize(const aclTensorDesc *desc);
ACL_FUNC_VISIBILITY size_t aclGetTensorDescElementCount(const aclTensorDesc *desc);
ACL_FUNC_VISIBILITY size_t aclGetTensorDescNumDims(const aclTensorDesc *desc);
ACL_DEPRECATED_MESSAGE("aclGetTensorDescDim is deprecated, use aclGetTensorDescDimV2 instead")
ACL_FUNC_VISIBILITY int64_t aclGetTensorDescDim(const aclTensorDesc *desc, size_t index);
ACL_FUNC_VISIBILITY aclError aclGetTensorDescDimV2(const aclTensorDesc *desc, size_t index, int64_t *dimSize);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_BASE_MDL_H_ */
