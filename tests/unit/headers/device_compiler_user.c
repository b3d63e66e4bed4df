/*
 * Device-code compilation (__BISHENG_CCEC__ defined): acl_rt.h must leave dim3 to the
 * device compiler, so a dim3 of its own may follow. Also: including the GE error codes
 * through the ge/ spelling first, then through acl/, must not redefine anything.
 */
#define __BISHENG_CCEC__ 1
#include "ge/ge_error_codes.h"
#include "acl/acl.h"
#include "acl/error_codes/ge_error_codes.h"

typedef struct dim3 {
    unsigned short only_mine;
} dim3;

extern char arun_dim3_check[(sizeof(dim3) == sizeof(unsigned short)) ? 1 : -1];
