# Every function the installed headers declare (ACL_FUNC_VISIBILITY / MSVP_PROF_API in
# api/include/acl/**/*.h and api/include/arun/*.h) is defined in libascendcl.so: a C program that
# takes the address of each one is generated from the headers at build time and linked against
# ascendcl. A declared but missing function fails the build of link_all_declared (an undefined
# reference) and so the test that runs it; the program itself also counts NULL addresses.
set(_arun_link_inc ${PROJECT_SOURCE_DIR}/api/include)
set(_arun_link_gen ${CMAKE_CURRENT_LIST_DIR}/link/gen_link_check.cmake)
set(_arun_link_c ${CMAKE_CURRENT_BINARY_DIR}/link_all_declared.c)
file(GLOB_RECURSE _arun_link_headers CONFIGURE_DEPENDS ${_arun_link_inc}/acl/*.h ${_arun_link_inc}/arun/*.h)
add_custom_command(
  OUTPUT ${_arun_link_c}
  COMMAND ${CMAKE_COMMAND} -DINCLUDE_DIR=${_arun_link_inc} -DOUT=${_arun_link_c} -P ${_arun_link_gen}
  DEPENDS ${_arun_link_gen} ${_arun_link_headers}
  COMMENT "Listing the functions the public headers declare"
  VERBATIM)
add_executable(link_all_declared ${_arun_link_c})
target_link_libraries(link_all_declared PRIVATE ascendcl)
# Deprecated functions are listed too; taking their address is not a use worth a warning.
target_compile_options(link_all_declared PRIVATE -Wall -Wextra -Werror -Wno-deprecated-declarations)
target_link_options(link_all_declared PRIVATE -Wl,--no-undefined)
set_target_properties(link_all_declared PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
add_test(NAME link.all_declared_functions_defined COMMAND link_all_declared)
set_tests_properties(link.all_declared_functions_defined PROPERTIES PASS_REGULAR_EXPRESSION " 0 not defined")
