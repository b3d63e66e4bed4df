# Conformance tests of the public ACL headers (api/include/acl, api/include/ge) against the
# API spec: values, spellings, types, struct layouts, declarations, include graph, export
# macros and deprecation markers. The check lists under headers/generated/ are produced by
# tools/gen_header_checks.py from the spec and committed, so no Python is needed here.

set(ARUN_HDR_DIR ${CMAKE_CURRENT_LIST_DIR}/headers)
include(${ARUN_HDR_DIR}/generated/sources.cmake)
include(${ARUN_HDR_DIR}/generated/deprecation_probes.cmake)

set(ARUN_HDR_STRICT -Wall -Wextra -Werror -pedantic)

# Compile-only translation units: C in one standard, or C++ in one standard.
function(arun_header_objects name lang std)
  add_library(${name} OBJECT ${ARGN})
  target_link_libraries(${name} PRIVATE acl_headers)
  target_include_directories(${name} PRIVATE ${ARUN_HDR_DIR})
  target_compile_options(${name} PRIVATE ${ARUN_HDR_STRICT})
  # Each file checks one header alone: never merged into a unity source.
  set_target_properties(${name} PROPERTIES
    ${lang}_STANDARD ${std} ${lang}_STANDARD_REQUIRED ON ${lang}_EXTENSIONS OFF UNITY_BUILD OFF)
endfunction()

# (1) Every header together, in C99, C11, C++11 and C++17.
arun_header_objects(acl_headers_c99 C 99 ${ARUN_HDR_DIR}/all_headers.c)
arun_header_objects(acl_headers_c11 C 11 ${ARUN_HDR_DIR}/all_headers.c)
arun_header_objects(acl_headers_cxx11 CXX 11 ${ARUN_HDR_DIR}/all_headers.cpp)
arun_header_objects(acl_headers_cxx17 CXX 17 ${ARUN_HDR_DIR}/all_headers.cpp)
# The same with the export macros switched on, as our libraries build them.
arun_header_objects(acl_headers_c99_export C 99 ${ARUN_HDR_DIR}/all_headers.c)
target_compile_definitions(acl_headers_c99_export PRIVATE FUNC_VISIBILITY)
target_compile_options(acl_headers_c99_export PRIVATE -fvisibility=hidden)
arun_header_objects(acl_headers_cxx11_export CXX 11 ${ARUN_HDR_DIR}/all_headers.cpp)
target_compile_definitions(acl_headers_cxx11_export PRIVATE FUNC_VISIBILITY)
target_compile_options(acl_headers_cxx11_export PRIVATE -fvisibility=hidden)
# Each header on its own: self-contained, declares what the spec puts in it (C++ checks
# the exact types), and pulls in exactly the headers of the spec's include graph.
arun_header_objects(acl_headers_each_c99 C 99 ${ARUN_HEADER_ONLY_C_SOURCES})
arun_header_objects(acl_headers_each_cxx11 CXX 11 ${ARUN_HEADER_ONLY_CXX_SOURCES})
# Special configurations: user-provided profiling tensor types; device compilation.
arun_header_objects(acl_headers_special C 99
  ${ARUN_HDR_DIR}/prof_tensor_info_user.c ${ARUN_HDR_DIR}/device_compiler_user.c)

# The ascend-run kernel headers: C on its own, the C++ layer with typical user kernels.
arun_header_objects(arun_kernel_header_c99 C 99 ${ARUN_HDR_DIR}/arun_kernel_user.c)
arun_header_objects(arun_kernel_header_cxx20 CXX 20 ${ARUN_HDR_DIR}/arun_kernel_user.cpp)

set(ARUN_HDR_COMPILE_TARGETS arun_kernel_header_c99 arun_kernel_header_cxx20 acl_headers_c99 acl_headers_c11 acl_headers_cxx11 acl_headers_cxx17
    acl_headers_c99_export acl_headers_cxx11_export acl_headers_each_c99 acl_headers_each_cxx11
    acl_headers_special)

# Stub definitions of every declared function, built with hidden default visibility, with
# and without FUNC_VISIBILITY: the test dlopens both to check export macros and C linkage.
foreach(variant vis novis)
  set(lib arun_acl_header_stubs_${variant})
  add_library(${lib} MODULE ${ARUN_HDR_DIR}/generated/visibility_stubs.cpp)
  target_link_libraries(${lib} PRIVATE acl_headers)
  target_compile_options(${lib} PRIVATE -Wall -Wextra -Werror -Wno-unused-parameter)
  set_target_properties(${lib} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/header_stubs)
  if(variant STREQUAL "vis")
    target_compile_definitions(${lib} PRIVATE FUNC_VISIBILITY)
  endif()
endforeach()

# (2) The value test.
add_executable(header_values_test ${ARUN_HDR_DIR}/header_values_test.cpp)
target_link_libraries(header_values_test PRIVATE acl_headers GTest::gtest_main ${CMAKE_DL_LIBS})
target_include_directories(header_values_test PRIVATE ${ARUN_HDR_DIR})
target_compile_options(header_values_test PRIVATE -Wall -Wextra -Werror)
target_compile_definitions(header_values_test PRIVATE
  "ARUN_STUBS_WITH_VISIBILITY=\"$<TARGET_FILE:arun_acl_header_stubs_vis>\""
  "ARUN_STUBS_WITHOUT_VISIBILITY=\"$<TARGET_FILE:arun_acl_header_stubs_novis>\"")
add_dependencies(header_values_test ${ARUN_HDR_COMPILE_TARGETS}
  arun_acl_header_stubs_vis arun_acl_header_stubs_novis)
gtest_discover_tests(header_values_test TEST_PREFIX "headers.")

# (3) Deprecation markers: compiling one use of each deprecated item must warn with the
# spec's message, in C and in C++ (and produce no error).
get_target_property(_arun_hdr_inc acl_headers INTERFACE_INCLUDE_DIRECTORIES)
set(_arun_hdr_inc_dirs "")
foreach(dir IN LISTS _arun_hdr_inc)
  if(dir MATCHES "^\\$<BUILD_INTERFACE:(.*)>$")
    list(APPEND _arun_hdr_inc_dirs "${CMAKE_MATCH_1}")
  elseif(NOT dir MATCHES "^\\$<")
    list(APPEND _arun_hdr_inc_dirs "${dir}")
  endif()
endforeach()
list(TRANSFORM _arun_hdr_inc_dirs PREPEND "-I" OUTPUT_VARIABLE _arun_hdr_inc_flags)
foreach(probe IN LISTS ARUN_DEPRECATION_PROBES)
  string(REPLACE "|" ";" _parts "${probe}")
  list(GET _parts 0 _idx)
  list(GET _parts 1 _name)
  list(LENGTH _parts _n)
  set(_expect "${_name}[^\n]* is deprecated")
  if(_n GREATER 2)
    list(GET _parts 2 _msg)
    if(NOT _msg STREQUAL "")
      string(APPEND _expect ": ${_msg}")
    endif()
  endif()
  add_test(NAME headers.deprecated.c.${_name}
    COMMAND ${CMAKE_C_COMPILER} -std=c11 -fsyntax-only -Wdeprecated-declarations ${_arun_hdr_inc_flags}
            -DARUN_PROBE=${_idx} ${ARUN_HDR_DIR}/generated/deprecation_probe.c)
  add_test(NAME headers.deprecated.cxx.${_name}
    COMMAND ${CMAKE_CXX_COMPILER} -x c++ -std=c++17 -fsyntax-only -Wdeprecated-declarations
            ${_arun_hdr_inc_flags} -DARUN_PROBE=${_idx} ${ARUN_HDR_DIR}/generated/deprecation_probe.c)
  set_tests_properties(headers.deprecated.c.${_name} headers.deprecated.cxx.${_name} PROPERTIES
    PASS_REGULAR_EXPRESSION "${_expect}" FAIL_REGULAR_EXPRESSION "error:" ENVIRONMENT "LC_ALL=C")
endforeach()

# (4) Inventory: the exact sets of enumerators, functions, macros, constants and typedefs
# the headers declare, and their direct #include lines, against generated/inventory.json.
# Catches additions the compile-time checks cannot see (C++ cannot list an enum). Optional:
# runs only where Python 3 is available.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  list(GET _arun_hdr_inc_dirs 0 _arun_hdr_root)
  add_test(NAME headers.inventory
    COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/../../tools/gen_header_checks.py
            --check-headers ${_arun_hdr_root} --out ${ARUN_HDR_DIR}/generated)
endif()

# (5) Both spellings of the GE error-code header are the same file content.
add_test(NAME headers.ge_error_codes_copies_identical
  COMMAND ${CMAKE_COMMAND} -E compare_files
          ${PROJECT_SOURCE_DIR}/api/include/acl/error_codes/ge_error_codes.h
          ${PROJECT_SOURCE_DIR}/api/include/ge/ge_error_codes.h)
