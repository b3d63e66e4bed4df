# The aclnn operator API (aclnn/, issue 21): one executable on the default (Ascend) configuration,
# one ctest per test ("aclnn.<Suite>.<Test>"). Linked as a CANN program links: -lnnopbase -lopapi
# resolve to libascendcl.so.
add_executable(aclnn_test
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/base_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/arithmetic_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/activation_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/conversion_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/matmul_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/aclnn/reshape_test.cpp)
target_link_libraries(aclnn_test PRIVATE ascendcl GTest::gtest_main)
add_dependencies(aclnn_test arun_aclnn_libs)
arun_add_runtime_deps(aclnn_test arun_device_ascend arun_configs)
gtest_discover_tests(aclnn_test TEST_PREFIX "aclnn." DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 120 LABELS aclnn)
