# The operator library's internals, without a device.
# sgemm.hpp's two engines against a float64 reference; run twice, the second time with every product
# forced onto OpenBLAS (ARUN_GEMM_ENGINE=openblas).
add_executable(ops_sgemm_test ${CMAKE_CURRENT_LIST_DIR}/ops/sgemm_test.cpp)
target_include_directories(ops_sgemm_test PRIVATE ${PROJECT_SOURCE_DIR}/ops/src)
target_link_libraries(ops_sgemm_test PRIVATE arun_ops ascendcl GTest::gtest_main)
add_test(NAME ops.sgemm COMMAND ops_sgemm_test)
add_test(NAME ops.sgemm_openblas COMMAND ops_sgemm_test)
set_tests_properties(ops.sgemm_openblas PROPERTIES ENVIRONMENT ARUN_GEMM_ENGINE=openblas)
set_tests_properties(ops.sgemm ops.sgemm_openblas PROPERTIES LABELS ops TIMEOUT 120)
