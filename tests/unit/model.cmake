# The model library without a device: ONNX import and execution plans (streams, events, memory).
if(TARGET arun_model)
  add_executable(model_plan_test ${CMAKE_CURRENT_LIST_DIR}/model/plan_test.cpp)
  # ascendcl: the C functions the op library calls (aclDataTypeSize, the kernel ABI); no runtime is started.
  target_link_libraries(model_plan_test PRIVATE arun_model ascendcl GTest::gtest_main)
  target_compile_definitions(model_plan_test PRIVATE ARUN_TEST_MODELS_DIR="${ARUN_TEST_MODELS_DIR}")
  add_test(NAME model_plan COMMAND model_plan_test)
  set_tests_properties(model_plan PROPERTIES FIXTURES_REQUIRED arun_test_models LABELS model TIMEOUT 120)
  # Hostile ONNX models and model files, refused before libonnx's shape inference sees them (issue 24).
  find_package(Protobuf REQUIRED)
  find_package(ONNX REQUIRED CONFIG)
  add_executable(model_import_validation_test ${CMAKE_CURRENT_LIST_DIR}/model/import_validation_test.cpp
                                             ${CMAKE_CURRENT_LIST_DIR}/model/fold_test.cpp
                                             ${CMAKE_CURRENT_LIST_DIR}/model/fuse_conv_test.cpp)
  target_link_libraries(model_import_validation_test PRIVATE arun_model ascendcl onnx_proto protobuf::libprotobuf
                                                             GTest::gtest_main)
  add_test(NAME model_import_validation COMMAND model_import_validation_test)
  set_tests_properties(model_import_validation PROPERTIES LABELS model TIMEOUT 120)
endif()
# Issue 20, pointwise breadth: one-element tensor attributes (ConstantOfShape's value), Clip / Dropout opsets.
if(TARGET arun_model)
  add_executable(model_import_pointwise_test ${CMAKE_CURRENT_LIST_DIR}/model/import_pointwise_test.cpp)
  target_link_libraries(model_import_pointwise_test PRIVATE arun_model ascendcl onnx_proto protobuf::libprotobuf
                                                            GTest::gtest_main)
  add_test(NAME model_import_pointwise COMMAND model_import_pointwise_test)
  set_tests_properties(model_import_pointwise PROPERTIES LABELS model TIMEOUT 120)
endif()

# The importer's opset paths for attributes that became inputs (Squeeze, ReduceSum axes), run
# through aclmdlLoadFromMem on the default configuration.
if(TARGET arun_model)
  add_executable(model_import_opset_test ${CMAKE_CURRENT_LIST_DIR}/model/import_opset_test.cpp)
  target_link_libraries(model_import_opset_test PRIVATE ascendcl onnx_proto protobuf::libprotobuf GTest::gtest_main)
  arun_add_runtime_deps(model_import_opset_test arun_device_ascend arun_configs)
  add_test(NAME model_import_opset COMMAND model_import_opset_test)
  set_tests_properties(model_import_opset PROPERTIES LABELS model TIMEOUT 120)
endif()

# Conv fusion at load: fused and unfused models give the same results, on oneDNN and on the
# OpenBLAS fallback.
if(TARGET arun_model)
  add_executable(model_fuse_conv_run_test ${CMAKE_CURRENT_LIST_DIR}/model/fuse_conv_run_test.cpp)
  target_link_libraries(model_fuse_conv_run_test PRIVATE ascendcl onnx_proto protobuf::libprotobuf GTest::gtest_main)
  arun_add_runtime_deps(model_fuse_conv_run_test arun_device_ascend arun_configs)
  add_test(NAME model_fuse_conv_run COMMAND model_fuse_conv_run_test)
  add_test(NAME model_fuse_conv_run_openblas COMMAND model_fuse_conv_run_test)
  set_tests_properties(model_fuse_conv_run_openblas PROPERTIES ENVIRONMENT ARUN_CONV_ENGINE=openblas)
  set_tests_properties(model_fuse_conv_run model_fuse_conv_run_openblas PROPERTIES LABELS model TIMEOUT 120)
endif()

# LayerNorm / GELU fusion at load: what fuses (import only), and fused and unfused models give the
# same results (small patterns in float32 / float16, the test transformer).
if(TARGET arun_model)
  add_executable(model_fuse_transformer_test ${CMAKE_CURRENT_LIST_DIR}/model/fuse_transformer_test.cpp)
  target_link_libraries(model_fuse_transformer_test PRIVATE arun_model ascendcl onnx_proto protobuf::libprotobuf
                                                            GTest::gtest_main)
  target_compile_definitions(model_fuse_transformer_test PRIVATE ARUN_TEST_MODELS_DIR="${ARUN_TEST_MODELS_DIR}")
  add_test(NAME model_fuse_transformer COMMAND model_fuse_transformer_test)
  add_executable(model_fuse_transformer_run_test ${CMAKE_CURRENT_LIST_DIR}/model/fuse_transformer_run_test.cpp)
  target_link_libraries(model_fuse_transformer_run_test PRIVATE ascendcl onnx_proto protobuf::libprotobuf
                                                                GTest::gtest_main)
  target_compile_definitions(model_fuse_transformer_run_test PRIVATE ARUN_TEST_MODELS_DIR="${ARUN_TEST_MODELS_DIR}")
  arun_add_runtime_deps(model_fuse_transformer_run_test arun_device_ascend arun_configs)
  add_test(NAME model_fuse_transformer_run COMMAND model_fuse_transformer_run_test)
  set_tests_properties(model_fuse_transformer model_fuse_transformer_run PROPERTIES FIXTURES_REQUIRED arun_test_models
                                                                                   LABELS model TIMEOUT 120)
endif()
