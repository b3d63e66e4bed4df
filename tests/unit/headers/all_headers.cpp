// C++ view of the whole ACL header set in one translation unit. Built as C++11 and C++17
// with -Wall -Wextra -Werror -pedantic.
#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "acl/acl_op_compiler.h"
#include "acl/acl_rt_allocator.h"
#include "acl/acl_dump.h"
#include "ge/ge_error_codes.h"

#include <type_traits>

#include "generated/absent_names.inc"

static_assert(std::is_same<decltype(ACL_SUCCESS), const int>::value, "ACL codes are static const int");
static_assert(std::is_same<decltype(ACL_ERROR_GE_PARAM_INVALID), const uint32_t>::value, "GE codes");
static_assert(std::is_same<decltype(ACL_ERROR_RT_PARAM_INVALID), int>::value, "RT codes are int literals");
static_assert(std::is_same<enum aclEngineType, aclopEngineType>::value, "enum tag");
static_assert(sizeof(dim3) == 3 * sizeof(uint32_t), "dim3");

// The C++ constructor of dim3 is constexpr from C++11 on.
constexpr dim3 kGrid(2);
static_assert(kGrid.x == 2 && kGrid.y == 1 && kGrid.z == 1, "dim3 defaults");

// Constants are constant expressions in C++ (usable as case labels and array bounds).
static char arun_bound[ACL_ERROR_INVALID_PARAM == 100000 ? 1 : -1] __attribute__((unused));

int arun_cxx_classify(aclError e);
int arun_cxx_classify(aclError e) {
    switch (e) {
        case ACL_SUCCESS: return 0;
        case ACL_ERROR_INVALID_PARAM: return 1;
        case ACL_ERROR_RT_PARAM_INVALID: return 2;
        default: return -1;
    }
}
