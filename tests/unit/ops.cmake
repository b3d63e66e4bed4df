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
# The vector math (ops/src/vector_math.hpp, issue 20): SLEEF, AVX2 and AVX-512 where the CPU has
# them, against float64 references, the scalar path and float16.hpp's conversions.
add_executable(ops_vector_math_test ${CMAKE_CURRENT_LIST_DIR}/ops/vector_math_test.cpp)
target_include_directories(ops_vector_math_test PRIVATE ${PROJECT_SOURCE_DIR}/ops/src ${PROJECT_SOURCE_DIR}/core/include)
target_link_libraries(ops_vector_math_test PRIVATE arun_vector_math acl_headers GTest::gtest_main)
add_test(NAME ops.vector_math COMMAND ops_vector_math_test)
# The switch: ARUN_VECTOR_MATH=scalar turns the vector path off, =avx2 caps it.
foreach(mode scalar avx2)
  add_test(NAME ops.vector_math_${mode} COMMAND ops_vector_math_test --gtest_filter=VectorMathSwitch.*)
  set_tests_properties(ops.vector_math_${mode} PROPERTIES ENVIRONMENT ARUN_VECTOR_MATH=${mode})
endforeach()
set_tests_properties(ops.vector_math ops.vector_math_scalar ops.vector_math_avx2 PROPERTIES LABELS ops TIMEOUT 300)
# oneDNN's convolution on its NCHW and blocked paths against a float64 reference; again with every
# shape on NCHW (ARUN_CONV_LAYOUT=plain).
add_executable(ops_onednn_conv_test ${CMAKE_CURRENT_LIST_DIR}/ops/onednn_conv_test.cpp)
target_include_directories(ops_onednn_conv_test PRIVATE ${PROJECT_SOURCE_DIR}/ops/src)
target_link_libraries(ops_onednn_conv_test PRIVATE arun_ops ascendcl GTest::gtest_main)
add_test(NAME ops.onednn_conv COMMAND ops_onednn_conv_test)
add_test(NAME ops.onednn_conv_plain COMMAND ops_onednn_conv_test)
set_tests_properties(ops.onednn_conv_plain PROPERTIES ENVIRONMENT ARUN_CONV_LAYOUT=plain)
set_tests_properties(ops.onednn_conv ops.onednn_conv_plain PROPERTIES LABELS ops TIMEOUT 120)
