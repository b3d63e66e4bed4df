/*
 * A program that brings its own profiling tensor-info types: defining
 * ACL_PROF_TENSOR_INFO_DEFINED first must suppress ours (and the version macro that
 * goes with them) without any conflict.
 */
#include <stdint.h>

#define ACL_PROF_TENSOR_INFO_DEFINED
typedef struct aclprofTensor {
    int mine;
} aclprofTensor;
typedef struct aclprofTensorInfo {
    int mine;
} aclprofTensorInfo;
typedef struct aclprofEventAttributes {
    int mine;
} aclprofEventAttributes;

#include "acl/acl_prof.h"

#ifdef ACL_PROF_EVENT_ATTR_VERSION
#error "ACL_PROF_EVENT_ATTR_VERSION belongs to the suppressed block"
#endif

extern aclprofTensor arun_user_tensor;
extern char arun_user_check[(sizeof(aclprofTensor) == sizeof(int)) ? 1 : -1];
