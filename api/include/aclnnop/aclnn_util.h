/* ACLNN_API: the export attribute of the operator functions (CANN aclnnop/aclnn_util.h). */
#ifndef OP_API_INC_ACLNN_UTIL_H
#define OP_API_INC_ACLNN_UTIL_H

#define ACLNN_API __attribute__((visibility("default")))

#endif /* OP_API_INC_ACLNN_UTIL_H */
