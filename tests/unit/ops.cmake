# The operator library's internals, without a device.
# arun_ops_engine_test(NAME SUFFIX SWITCH): ops/NAME_test.cpp against arun_ops, run as ops.NAME and as
# ops.NAME_SUFFIX with the environment setting SWITCH (VAR=value) that moves it to the other path.
function(arun_ops_engine_test name suffix switch)
  add_executable(ops_${name}_test ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/ops/${name}_test.cpp)
  target_include_directories(ops_${name}_test PRIVATE ${PROJECT_SOURCE_DIR}/ops/src)
  target_link_libraries(ops_${name}_test PRIVATE arun_ops ascendcl GTest::gtest_main)
  add_test(NAME ops.${name} COMMAND ops_${name}_test)
  add_test(NAME ops.${name}_${suffix} COMMAND ops_${name}_test)
  set_tests_properties(ops.${name}_${suffix} PROPERTIES ENVIRONMENT ${switch})
  set_tests_properties(ops.${name} ops.${name}_${suffix} PROPERTIES LABELS ops TIMEOUT 120)
endfunction()
# sgemm.hpp's two engines against a float64 reference; the second run with every product forced
# onto OpenBLAS.
arun_ops_engine_test(sgemm openblas ARUN_GEMM_ENGINE=openblas)
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
# oneDNN's convolution on its NCHW and blocked paths against a float64 reference; the second run
# with every shape on NCHW.
arun_ops_engine_test(onednn_conv plain ARUN_CONV_LAYOUT=plain)
