// Checks the public ACL headers against the values, spellings, types and layouts of the
// API spec. The lists come from generated/values.inc and generated/layout.inc, produced by
// tools/gen_header_checks.py from the spec; most checks run twice: at compile time
// (static_assert, so a wrong header does not even build) and at run time (one GoogleTest
// expectation per item, so a report names every offending item).

#include "acl/acl.h"
#include "acl/acl_dump.h"
#include "acl/acl_op_compiler.h"
#include "acl/acl_prof.h"
#include "acl/acl_rt_allocator.h"
#include "ge/ge_error_codes.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "generated/layout.inc"
#include "generated/values.inc"

// Deprecated items are referenced on purpose; the deprecation tests check the warnings.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace {

#define ARUN_STR_(x) #x
#define ARUN_STR(x) ARUN_STR_(x)

struct Item {
    const char *name;
    unsigned long long actual;
    unsigned long long expected;
};

template <class T>
constexpr unsigned long long Bits(T v) {
    return static_cast<unsigned long long>(v);
}

// ---------------------------------------------------------------- error codes

#define X(name, val)                                                                          \
    static_assert(std::is_same<decltype(name), const int>::value, #name " is a static const int"); \
    static_assert(name == val, #name);
ARUN_ACL_CODES(X)
#undef X

#define X(name, spelling, val)                                              \
    static_assert(std::is_same<decltype(name), int>::value, #name " is int"); \
    static_assert(name == val, #name);
ARUN_RT_CODES(X)
#undef X

#define X(name, val)                                                                         \
    static_assert(std::is_same<decltype(name), const uint32_t>::value, #name " is uint32_t"); \
    static_assert(name == val, #name);
ARUN_GE_CODES(X)
#undef X

TEST(HeaderErrorCodes, AclCodesAreStaticConstIntWithSpecValues) {
    const std::vector<Item> items = {
#define X(name, val) {#name, Bits(name), Bits(val)},
        ARUN_ACL_CODES(X)
#undef X
    };
    ASSERT_EQ(items.size(), static_cast<size_t>(ARUN_COUNT_ACL_CODES));
    for (const Item &it : items) EXPECT_EQ(it.actual, it.expected) << it.name;
    std::printf("checked %zu ACL error codes\n", items.size());
}

TEST(HeaderErrorCodes, RuntimeCodesAreDecimalMacrosWithSpecValues) {
    struct Rt {
        const char *name, *spelling, *expanded;
        long long actual, expected;
    };
    const std::vector<Rt> items = {
#define X(name, spelling, val) {#name, spelling, ARUN_STR(name), name, val},
        ARUN_RT_CODES(X)
#undef X
    };
    ASSERT_EQ(items.size(), static_cast<size_t>(ARUN_COUNT_RT_CODES));
    for (const Rt &it : items) {
        EXPECT_EQ(it.actual, it.expected) << it.name;
        EXPECT_STREQ(it.expanded, it.spelling) << it.name << " must expand to a plain decimal literal";
    }
    std::printf("checked %zu runtime error code macros\n", items.size());
}

TEST(HeaderErrorCodes, GeCodesAreStaticConstUint32WithSpecValues) {
    const std::vector<Item> items = {
#define X(name, val) {#name, Bits(name), Bits(val)},
        ARUN_GE_CODES(X)
#undef X
    };
    ASSERT_EQ(items.size(), static_cast<size_t>(ARUN_COUNT_GE_CODES));
    for (const Item &it : items) EXPECT_EQ(it.actual, it.expected) << it.name;
    std::printf("checked %zu GE error codes\n", items.size());
}

// The three spellings behave differently in the preprocessor: only runtime codes are macros.
#if !defined(ACL_ERROR_RT_PARAM_INVALID) || !defined(ACL_RT_SUCCESS) || \
    !defined(ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC) || !defined(ACL_ERROR_SNAPSHOT_LOCK_TIMEOUT)
#error "runtime error codes must be macros"
#endif
#if ACL_ERROR_RT_PARAM_INVALID != 107000 || ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC != 107041
#error "runtime error codes must work in #if"
#endif
#if defined(ACL_SUCCESS) || defined(ACL_ERROR_NONE) || defined(ACL_ERROR_INVALID_PARAM) || \
    defined(ACL_ERROR_GE_PARAM_INVALID) || defined(ACL_COMPILE_FLAG_BIN_SELECTOR)
#error "ACL and GE error codes must not be macros"
#endif

TEST(HeaderErrorCodes, SpellingRulesHold) {
    // In C++ the constants are usable as case labels (constant expressions).
    auto classify = [](aclError e) {
        switch (e) {
            case ACL_SUCCESS: return 0;
            case ACL_ERROR_INVALID_PARAM: return 1;
            case ACL_ERROR_RT_PARAM_INVALID: return 2;
            case static_cast<aclError>(ACL_ERROR_GE_PARAM_INVALID): return 3;
            default: return -1;
        }
    };
    EXPECT_EQ(classify(0), 0);
    EXPECT_EQ(classify(100000), 1);
    EXPECT_EQ(classify(107000), 2);
    EXPECT_EQ(classify(145000), 3);
    EXPECT_EQ(ACL_ERROR_NONE, ACL_SUCCESS);
    EXPECT_EQ(ACL_RT_SUCCESS, ACL_SUCCESS);
    static_assert(std::is_same<aclError, int>::value, "aclError is int");
    EXPECT_STREQ(ARUN_STR(ACL_ERROR_RT_CAPTURE_MODE_BLOCK_ASYNC), "107041");
}

TEST(HeaderErrorCodes, NumberingClassesMatchTheirGroups) {
    // Every code is 0 or in one of the classes 1xxxxx, 2xxxxx, 3xxxxx, 5xxxxx.
    const std::vector<long long> all = {
#define X(name, ...) static_cast<long long>(name),
        ARUN_ACL_CODES(X) ARUN_RT_CODES(X) ARUN_GE_CODES(X)
#undef X
    };
    for (long long v : all) {
        const long long cls = v / 100000;
        EXPECT_TRUE(v == 0 || ((cls == 1 || cls == 2 || cls == 3 || cls == 5) && v < 600000)) << v;
    }
}

// ---------------------------------------------------------------- enums

#define X(type, name, val, deprecated)                                                   \
    static_assert(std::is_same<decltype(name), type>::value, #name " belongs to " #type); \
    static_assert(static_cast<long long>(name) == val, #name);
ARUN_ENUMERATORS(X)
#undef X

#define X(tag, name) static_assert(std::is_same<enum tag, name>::value, "enum " #tag " is " #name);
ARUN_ENUM_TAGS(X)
#undef X

TEST(HeaderEnums, EveryEnumeratorHasItsSpecValue) {
    struct En {
        const char *type, *name;
        long long actual, expected;
        size_t size;
    };
    const std::vector<En> items = {
#define X(type, name, val, deprecated) {#type, #name, static_cast<long long>(name), val, sizeof(type)},
        ARUN_ENUMERATORS(X)
#undef X
    };
    ASSERT_EQ(items.size(), static_cast<size_t>(ARUN_COUNT_ENUMERATORS));
    for (const En &it : items) {
        EXPECT_EQ(it.actual, it.expected) << it.type << "::" << it.name;
        EXPECT_EQ(it.size, sizeof(int)) << it.type << " must have the size of int";
    }
    std::printf("checked %zu enumerators of %d enums\n", items.size(), ARUN_COUNT_ENUMS);
}

// ---------------------------------------------------------------- macros and constants

#define X(name, spelling, literal) \
    static_assert(std::is_same<decltype(name), decltype(literal)>::value && (name) == (literal), #name);
ARUN_INT_MACROS(X)
#undef X

TEST(HeaderMacros, EveryIntegerMacroHasTheSpecSpellingAndValue) {
    struct Mac {
        const char *name, *spelling, *expanded;
        unsigned long long actual, expected;
    };
    const std::vector<Mac> items = {
#define X(name, spelling, literal) {#name, spelling, ARUN_STR(name), Bits(name), Bits(literal)},
        ARUN_INT_MACROS(X)
#undef X
    };
    ASSERT_EQ(items.size(), static_cast<size_t>(ARUN_COUNT_INT_MACROS));
    for (const Mac &it : items) {
        EXPECT_EQ(it.actual, it.expected) << it.name;
        EXPECT_STREQ(it.expanded, it.spelling) << it.name;
    }
    std::printf("checked %zu integer macros\n", items.size());
}

TEST(HeaderMacros, StringMacros) {
    size_t n = 0;
#define X(name, spelling, literal)                            \
    EXPECT_STREQ(name, literal) << #name;                     \
    EXPECT_STREQ(ARUN_STR(name), spelling) << #name;          \
    static_assert(sizeof(name) == sizeof(literal), #name); \
    ++n;
    ARUN_STRING_MACROS(X)
#undef X
    EXPECT_EQ(n, static_cast<size_t>(ARUN_COUNT_STRING_MACROS));
}

TEST(HeaderMacros, OtherConstants) {
    size_t n = 0;
#define X(type, name, val)                                                       \
    static_assert(std::is_same<decltype(name), const type>::value, #name " type"); \
    EXPECT_EQ(name, val) << #name;                                               \
    ++n;
    ARUN_STATIC_CONSTS(X)
#undef X
    EXPECT_EQ(n, static_cast<size_t>(ARUN_COUNT_STATIC_CONSTS));
}

TEST(HeaderMacros, PortabilityMacros) {
    // Built without FUNC_VISIBILITY: the export macro is empty; the profiling one is not.
    EXPECT_STREQ(ARUN_STR(ACL_FUNC_VISIBILITY), "");
    EXPECT_STREQ(ARUN_STR(GE_FUNC_VISIBILITY), "");
    EXPECT_STREQ(ARUN_STR(MSVP_PROF_API), "__attribute__((visibility(\"default\")))");
    EXPECT_STREQ(ARUN_STR(ACL_DEPRECATED), "__attribute__((deprecated))");
    EXPECT_STREQ(ARUN_STR(ACL_DEPRECATED_MESSAGE("m")), "__attribute__((deprecated(\"m\")))");
    EXPECT_EQ(ACL_PROF_TENSOR_DATA_SHAPE_LEN, 8);
    EXPECT_EQ(ACL_PROF_EVENT_ATTR_VERSION, 1);
#ifndef ACL_PROF_TENSOR_INFO_DEFINED
    ADD_FAILURE() << "acl_prof.h must define ACL_PROF_TENSOR_INFO_DEFINED";
#endif
}

// ---------------------------------------------------------------- typedefs

template <class T, class = void>
struct IsComplete : std::false_type {};
template <class T>
struct IsComplete<T, decltype(void(sizeof(T)))> : std::true_type {};

#define X(name, definition) static_assert(std::is_same<name, definition>::value, #name " is " #definition);
ARUN_TYPEDEFS(X)
#undef X

TEST(HeaderTypes, ScalarTypedefsAndOpaqueStructs) {
    size_t n = 0, opaque = 0;
#define X(name, definition)                                                            \
    ++n;                                                                               \
    if (std::is_class<name>::value) {                                                  \
        ++opaque;                                                                      \
        EXPECT_FALSE(IsComplete<name>::value) << #name " must stay an incomplete type"; \
    }
    ARUN_TYPEDEFS(X)
#undef X
    EXPECT_EQ(n, static_cast<size_t>(ARUN_COUNT_TYPEDEFS));
    EXPECT_GT(opaque, 0u);
    std::printf("checked %zu typedefs (%zu opaque structs)\n", n, opaque);
}

#define X(name) static_assert(std::is_same<::name, arun_spec_fn::name>::value, #name);
ARUN_FN_TYPEDEFS(X)
#undef X

TEST(HeaderTypes, CallbackTypedefs) {
    size_t n = 0;
#define X(name) ++n;
    ARUN_FN_TYPEDEFS(X)
#undef X
    EXPECT_EQ(n, static_cast<size_t>(ARUN_COUNT_FN_TYPEDEFS));
}

// ---------------------------------------------------------------- struct layouts

#define X(type, spec, member, comparable)                                                             \
    static_assert(offsetof(type, member) == offsetof(spec, member), #type "::" #member " offset");   \
    static_assert(sizeof(std::declval<type &>().member) == sizeof(std::declval<spec &>().member),    \
                  #type "::" #member " size");
ARUN_STRUCT_MEMBERS(X)
#undef X
#define X(type, spec)                                                                  \
    static_assert(sizeof(type) == sizeof(spec) && alignof(type) == alignof(spec), #type); \
    static_assert(std::is_standard_layout<type>::value, #type " is standard layout");
ARUN_STRUCTS(X)
#undef X

template <bool Comparable, class A, class B>
struct SameMemberType : std::true_type {};
template <class A, class B>
struct SameMemberType<true, A, B> : std::is_same<A, B> {};

TEST(HeaderLayout, StructsMatchTheSpecMemberByMember) {
    struct Mem {
        const char *name;
        size_t off, spec_off, size, spec_size;
        bool same_type;
    };
    const std::vector<Mem> items = {
#define X(type, spec, member, comparable)                                                   \
    {#type "::" #member, offsetof(type, member), offsetof(spec, member),                     \
     sizeof(std::declval<type &>().member), sizeof(std::declval<spec &>().member),           \
     SameMemberType<comparable != 0, decltype(std::declval<type &>().member),               \
                    decltype(std::declval<spec &>().member)>::value},
        ARUN_STRUCT_MEMBERS(X)
#undef X
    };
    ASSERT_EQ(items.size(), static_cast<size_t>(ARUN_COUNT_STRUCT_MEMBERS));
    for (const Mem &m : items) {
        EXPECT_EQ(m.off, m.spec_off) << m.name;
        EXPECT_EQ(m.size, m.spec_size) << m.name;
        EXPECT_TRUE(m.same_type) << m.name;
    }
    size_t structs = 0;
#define X(type, spec)                        \
    EXPECT_EQ(sizeof(type), sizeof(spec)) << #type; \
    ++structs;
    ARUN_STRUCTS(X)
#undef X
    EXPECT_EQ(structs, static_cast<size_t>(ARUN_COUNT_STRUCTS));
    std::printf("checked %zu members of %zu structs/unions\n", items.size(), structs);
}

TEST(HeaderLayout, AbsoluteSizesOnLp64) {
    if (sizeof(void *) != 8 || sizeof(long) != 8) GTEST_SKIP() << "LP64 only";
    EXPECT_EQ(sizeof(aclrtStreamConfigHandle), 32u);
    EXPECT_EQ(offsetof(aclrtStreamConfigHandle, priority), 24u);
    EXPECT_EQ(sizeof(aclrtUtilizationInfo), 24u);
    EXPECT_EQ(sizeof(aclrtMemLocation), 8u);
    EXPECT_EQ(sizeof(aclrtPtrAttributes), 28u);
    EXPECT_EQ(sizeof(aclrtMemUceInfo), 128u);
    EXPECT_EQ(sizeof(aclrtMemUceInfoArray), 8u + 20u * 128u);
    EXPECT_EQ(offsetof(aclrtErrorInfo, errorType), 4u);
    EXPECT_EQ(offsetof(aclrtErrorInfo, detail), 8u);
    EXPECT_EQ(sizeof(aclrtStreamAttrValue), 16u);
    EXPECT_EQ(sizeof(aclrtMallocAttrValue), 8u);
    EXPECT_EQ(sizeof(aclrtMallocAttribute), 12u);
    EXPECT_EQ(sizeof(aclrtMallocConfig), 16u);
    EXPECT_EQ(sizeof(aclCANNPackageVersion), 2u * 128u + 4u * 64u);
    EXPECT_EQ(sizeof(aclrtMemUsageInfo), 32u + 8u + 8u + 64u);
    EXPECT_EQ(sizeof(MemAttrMapping), 16u);
    EXPECT_EQ(offsetof(MemAttrMapping, memAttr), 12u);
    EXPECT_EQ(sizeof(dim3), 12u);
    EXPECT_EQ(sizeof(aclprofTensor), 48u);
    EXPECT_EQ(sizeof(aclprofTensorInfo), 48u);
    EXPECT_EQ(sizeof(aclprofEventAttributes), 16u);
    EXPECT_EQ(offsetof(aclprofEventAttributes, message), 8u);
    EXPECT_EQ(sizeof(aclmdlIODims), 128u + 8u + 128u * 8u);
    EXPECT_EQ(offsetof(aclmdlIODims, dims), 136u);
    EXPECT_EQ(sizeof(aclmdlIODimsRange), 8u + 128u * 2u * 8u);
    EXPECT_EQ(sizeof(aclmdlBatch), 8u + 128u * 8u);
    EXPECT_EQ(sizeof(aclmdlHW), 8u + 128u * 2u * 8u);
    EXPECT_EQ(sizeof(aclmdlExeOMDesc), 16u * 8u);
}

TEST(HeaderLayout, Dim3DefaultsToOneInCpp) {
    constexpr dim3 d;
    static_assert(d.x == 1 && d.y == 1 && d.z == 1, "dim3 defaults");
    constexpr dim3 e(4, 5);
    static_assert(e.x == 4 && e.y == 5 && e.z == 1, "dim3 partial");
    const dim3 f = {7, 8, 9};
    EXPECT_EQ(f.x + f.y + f.z, 24u);
}

TEST(HeaderLayout, GlobalCompatibilityNames) {
    EXPECT_EQ(NORMAL_PAGE_TYPE, 0);
    EXPECT_EQ(HUGE1G_PAGE_TYPE, 2);
    EXPECT_EQ(P2P_DDR_TYPE, 3);
    MemAttrMapping m{};
    m.isHostAlloc = true;
    m.memAttr = ACL_MEM_HUGE;
    EXPECT_TRUE(m.isHostAlloc);
    static_assert(std::is_same<decltype(m.isHostAlloc), bool>::value, "bool member");
}

// ---------------------------------------------------------------- functions

TEST(HeaderFunctions, CountsMatchTheSpec) {
    size_t n = 0, prof = 0, deprecated = 0;
#define X(name, prefix, header, dep)                                        \
    ++n;                                                                    \
    prof += std::strcmp(#prefix, "MSVP_PROF_API") == 0;                     \
    deprecated += dep;                                                      \
    EXPECT_EQ(std::string(#name).rfind("aclprof", 0) == 0,                  \
              std::strcmp(#prefix, "MSVP_PROF_API") == 0) << #name;
    ARUN_FUNCTIONS(X)
#undef X
    EXPECT_EQ(n, static_cast<size_t>(ARUN_COUNT_FUNCTIONS));
    EXPECT_GE(n, static_cast<size_t>(ARUN_COUNT_SECTION2_FUNCTIONS));
    std::printf("%zu functions declared (%d from spec section 2), %zu with MSVP_PROF_API, %zu deprecated\n", n,
                ARUN_COUNT_SECTION2_FUNCTIONS, prof, deprecated);
}

// Declarations and their types are checked per header by generated/only_*.cpp; here the
// export macro and the C linkage of each one, through stub libraries and dlsym.
class Library {
public:
    explicit Library(const char *path) : handle_(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {}
    ~Library() {
        if (handle_) dlclose(handle_);
    }
    bool ok() const { return handle_ != nullptr; }
    bool has(const char *symbol) const { return dlsym(handle_, symbol) != nullptr; }

private:
    void *handle_;
};

TEST(HeaderFunctions, ExportMacrosAndCLinkage) {
    // Stubs of every function, built with -fvisibility=hidden: once with FUNC_VISIBILITY
    // (every API symbol must be exported under its C name) and once without (only the
    // MSVP_PROF_API functions are exported, since ACL_FUNC_VISIBILITY is then empty).
    Library with(ARUN_STUBS_WITH_VISIBILITY);
    Library without(ARUN_STUBS_WITHOUT_VISIBILITY);
    ASSERT_TRUE(with.ok()) << dlerror();
    ASSERT_TRUE(without.ok()) << dlerror();
    EXPECT_FALSE(with.has("arun_visibility_probe_hidden"));
    EXPECT_FALSE(without.has("arun_visibility_probe_hidden"));
    size_t n = 0;
#define X(name, prefix, header, dep)                                                           \
    ++n;                                                                                       \
    EXPECT_TRUE(with.has(#name)) << #name << " (" << header << ") is not exported as a C symbol"; \
    EXPECT_EQ(without.has(#name), std::strcmp(#prefix, "MSVP_PROF_API") == 0)                \
        << #name << " must be declared with " #prefix;
    ARUN_FUNCTIONS(X)
#undef X
    std::printf("checked export and C linkage of %zu functions\n", n);
}

TEST(HeaderFunctions, AbsentNamesAreListed) {
    // The compile-time probe lives in absent_names.{c,cpp}; here only the count.
    size_t n = 0;
#define X(name) ++n;
    ARUN_ABSENT_NAMES(X)
#undef X
    EXPECT_EQ(n, static_cast<size_t>(ARUN_COUNT_ABSENT_NAMES));
}

}  // namespace
