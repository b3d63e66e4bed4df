# The aclnn operator API (aclnn/, issue 21): one executable on the default (Ascend) configuration,
# one ctest per test ("aclnn.<Suite>.<Test>"). Linked as a CANN program links: -lnnopbase -lopapi
# resolve to libascendcl.so.
add_executable(aclnn_test
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/base_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/arithmetic_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/activation_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/conversion_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/matmul_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/reshape_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/norm_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/list_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/select_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/pow_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/argmax_gather_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/rms_norm_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/batch_norm_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/pool_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/conv_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/index_test.cpp)
target_link_libraries(aclnn_test PRIVATE ascendcl GTest::gtest_main)
add_dependencies(aclnn_test arun_aclnn_libs)
arun_add_runtime_deps(aclnn_test arun_device_ascend arun_configs)
gtest_discover_tests(aclnn_test TEST_PREFIX "aclnn." DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 120 LABELS aclnn)

# Every function the aclnn headers declare is defined in the library (a link failure otherwise),
# linked with CANN's ops-math line through the build tree's links.
set(_aclnn_link_c ${CMAKE_CURRENT_BINARY_DIR}/aclnn_link_all_declared.cpp)
file(GLOB_RECURSE _aclnn_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/api/include/aclnn/*.h
     ${PROJECT_SOURCE_DIR}/api/include/aclnnop/*.h)
add_custom_command(
  OUTPUT ${_aclnn_link_c}
  COMMAND ${CMAKE_COMMAND} -DINCLUDE_DIR=${PROJECT_SOURCE_DIR}/api/include -DOUT=${_aclnn_link_c}
          -P ${CMAKE_CURRENT_LIST_DIR}/aclnn/gen_link_check.cmake
  DEPENDS ${CMAKE_CURRENT_LIST_DIR}/aclnn/gen_link_check.cmake ${_aclnn_headers}
  COMMENT "Listing the functions the aclnn headers declare"
  VERBATIM)
add_executable(aclnn_link_all_declared ${_aclnn_link_c})
target_include_directories(aclnn_link_all_declared PRIVATE ${PROJECT_SOURCE_DIR}/api/include)
target_link_directories(aclnn_link_all_declared PRIVATE ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
target_link_libraries(aclnn_link_all_declared PRIVATE -lopapi_math -lascendcl -lnnopbase)
target_compile_options(aclnn_link_all_declared PRIVATE -Wall -Wextra -Werror)
set_target_properties(aclnn_link_all_declared PROPERTIES BUILD_RPATH ${CMAKE_LIBRARY_OUTPUT_DIRECTORY})
add_dependencies(aclnn_link_all_declared arun_aclnn_libs)
add_test(NAME aclnn.link_all_declared COMMAND aclnn_link_all_declared)
set_tests_properties(aclnn.link_all_declared PROPERTIES LABELS aclnn TIMEOUT 30)
