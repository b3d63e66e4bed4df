/*
 * ascend-run: CANN ACL-compatible public header.
 * Data dump definitions.
 */
#ifndef INC_EXTERNAL_ACL_DUMP_H_
#define INC_EXTERNAL_ACL_DUMP_H_

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Dump switch: record the arguments of AI Core operators. */
#define ACL_OP_DUMP_OP_AICORE_ARGS 0x00000001U

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_DUMP_H_ */
