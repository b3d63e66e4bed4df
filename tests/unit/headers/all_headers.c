/*
 * C view of the whole ACL header set in one translation unit. Built as C99 and as C11
 * with -Wall -Wextra -Werror -pedantic, and again with FUNC_VISIBILITY defined.
 */
#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "acl/acl_op_compiler.h"
#include "acl/acl_rt_allocator.h"
#include "acl/acl_dump.h"
#include "ge/ge_error_codes.h"

#include <stddef.h>

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define ARUN_C_CHECK(tag, cond) _Static_assert(cond, #tag)
#else
#define ARUN_C_CHECK(tag, cond) extern char arun_check_##tag[(cond) ? 1 : -1]
#endif

/* Spec struct layouts, seen from C. */
#include "generated/c_layout.inc"

/* Names that do not exist in CANN must not exist here either. */
#include "generated/absent_names.inc"

/* acl.h must not pull in the profiling and compiler headers by itself: checked per header. */

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* Spellings: ACL codes are int constants, GE codes uint32_t constants, RT codes int literals. */
_Static_assert(_Generic(ACL_SUCCESS, int: 1, default: 0), "ACL codes are int");
_Static_assert(_Generic(ACL_ERROR_INTERNAL_ERROR, int: 1, default: 0), "ACL codes are int");
_Static_assert(_Generic(ACL_ERROR_GE_PARAM_INVALID, uint32_t: 1, default: 0), "GE codes are uint32_t");
_Static_assert(_Generic(ACL_ERROR_RT_PARAM_INVALID, int: 1, default: 0), "RT codes are int literals");
_Static_assert(_Generic(ACL_EVENT_TIME_LINE, unsigned int: 1, default: 0), "U suffix");
_Static_assert(_Generic(ACL_HOST_REG_PINNED, unsigned long: 1, default: 0), "UL suffix");
_Static_assert(_Generic(ACL_PROF_ACL_API, unsigned long long: 1, default: 0), "ULL suffix");
_Static_assert(_Generic((aclFloat16)0, uint16_t: 1, default: 0), "aclFloat16");
_Static_assert(sizeof(aclDataType) == sizeof(int), "enum size");
#endif

/* Runtime codes are macros, so C can switch on them. */
int arun_classify_rt(aclError e);
int arun_classify_rt(aclError e)
{
    switch (e) {
        case ACL_RT_SUCCESS:
            return 0;
        case ACL_ERROR_RT_PARAM_INVALID:
            return 1;
        case ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC:
            return 2;
        case ACL_ERROR_RT_STREAM_SYNC_TIMEOUT:
            return 3;
        default:
            return -1;
    }
}

/* The other types as C code uses them. */
int arun_use_types(void);
int arun_use_types(void)
{
    dim3 grid = {1, 2, 3};
    struct MemAttrMapping map = {0, 0, true, ACL_HBM_MEM};
    enum aclrtMemPgType pg = HUGE_PAGE_TYPE;
    enum aclrtMemType mt = DDR_TYPE;
    enum aclEngineType engine = ACL_ENGINE_AICORE;
    aclopEngineType engine2 = engine;
    enum aclCompileType compile = ACL_COMPILE_SYS;
    enum aclCompileFlag flag = ACL_OP_COMPILE_FUZZ;
    union Message msg;
    aclprofEventAttributes attrs;
    aclrtStreamAttrValue value;
    aclmdlIODims dims;
    aclrtStreamConfigHandle *handle = NULL;
    aclrtCallback cb = NULL;
    aclrtAllocatorAllocFunc alloc = NULL;
    int sum = 0;

    msg.tensorInfo = NULL;
    attrs.message = msg;
    attrs.version = ACL_PROF_EVENT_ATTR_VERSION;
    value.streamPriority = 3;
    dims.dimCount = 0;
    sum += (int)grid.z + (int)map.isHostAlloc + (int)pg + (int)mt + (int)engine2 + (int)compile + (int)flag;
    sum += (int)attrs.version + (int)value.streamPriority + (int)dims.dimCount;
    sum += (handle == NULL) + (cb == NULL) + (alloc == NULL);
    sum += (ACL_SUCCESS == 0) + (ACL_ERROR_GE_PARAM_INVALID == 145000U);
    return sum;
}
