# Profiler: the aclprof API, the collection layer and the bundled sinks, through the C API.
add_executable(profiler_test
  ${CMAKE_CURRENT_LIST_DIR}/profiler/aclprof_api_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profiler/csv_summary_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profiler/timeline_test.cpp)
target_link_libraries(profiler_test PRIVATE ascendcl nlohmann_json::nlohmann_json GTest::gtest_main)
target_compile_definitions(profiler_test PRIVATE
  ARUN_TEST_CONFIG="${ARUN_BUILD_CONFIG_DIR}/default.toml"
  ARUN_EXAMPLE_BIN="$<TARGET_FILE:cross_stream_events>")
arun_add_runtime_deps(profiler_test arun_device_ascend arun_profiler_timeline arun_profiler_summary
                      arun_profiler_msprof_csv cross_stream_events arun_configs)
gtest_discover_tests(profiler_test DISCOVERY_TIMEOUT 30 PROPERTIES TIMEOUT 120)

# The collection layer itself (rings, record clock, API-span records), linked to the core directly.
add_executable(profiler_collection_test ${CMAKE_CURRENT_LIST_DIR}/profiler/collection_test.cpp)
target_link_libraries(profiler_collection_test PRIVATE arun_core_internals GTest::gtest_main)
gtest_discover_tests(profiler_collection_test DISCOVERY_TIMEOUT 30 PROPERTIES TIMEOUT 60)

# msprof_csv's operator columns (shapes, dtypes, formats, node names, model id/name) from an
# aclopExecuteV2 and a model run; needs the generated test models.
if(TARGET arun_model)
  add_executable(profiler_msprof_ops_test ${CMAKE_CURRENT_LIST_DIR}/profiler/msprof_ops_test.cpp)
  target_link_libraries(profiler_msprof_ops_test PRIVATE ascendcl GTest::gtest_main)
  target_compile_definitions(profiler_msprof_ops_test PRIVATE ARUN_TEST_MODELS_DIR="${ARUN_TEST_MODELS_DIR}")
  arun_add_runtime_deps(profiler_msprof_ops_test arun_device_ascend arun_profiler_msprof_csv arun_configs)
  add_test(NAME profiler.msprof_ops COMMAND profiler_msprof_ops_test)
  set_tests_properties(profiler.msprof_ops PROPERTIES FIXTURES_REQUIRED arun_test_models LABELS profiler TIMEOUT 120)
endif()
