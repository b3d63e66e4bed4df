/*
 * ascend-run: CANN ACL-compatible public header.
 * Umbrella for the base definitions: runtime base, tensor descriptions and both
 * error-code headers.
 */
#ifndef INC_EXTERNAL_ACL_ACL_BASE_H_
#define INC_EXTERNAL_ACL_ACL_BASE_H_

#include "acl/acl_base_rt.h"
#include "acl/acl_base_mdl.h"
#include "error_codes/rt_error_codes.h"
#include "error_codes/ge_error_codes.h"

#endif /* INC_EXTERNAL_ACL_ACL_BASE_H_ */
