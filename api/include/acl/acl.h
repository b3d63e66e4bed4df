/*
 * ascend-run: CANN ACL-compatible public header.
 * Umbrella header: runtime, single-operator and model APIs. Profiling (acl_prof.h) and
 * operator compilation (acl_op_compiler.h) are separate includes.
 */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_rt.h"
#include "acl_op.h"
#include "acl_mdl.h"

#endif /* INC_EXTERNAL_ACL_ACL_H_ */
