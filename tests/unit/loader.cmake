add_executable(loader_test ${CMAKE_CURRENT_LIST_DIR}/loader_test.cpp)
target_link_libraries(loader_test PRIVATE arun_core_internals GTest::gtest_main)
target_compile_definitions(loader_test PRIVATE
  ARUN_BROKEN_PLUGIN_DIR="${ARUN_BROKEN_PLUGIN_DIR}"
  ARUN_MARKER_PLUGIN_DIR="${ARUN_MARKER_PLUGIN_DIR}"
  ARUN_BUILD_PLUGIN_DIR="${ARUN_BUILD_PLUGIN_DIR}"
  ARUN_NULL_PLUGIN="${ARUN_BUILD_PLUGIN_DIR}/libarun_device_null.so")
add_dependencies(loader_test arun_broken_plugins arun_device_null)
gtest_discover_tests(loader_test DISCOVERY_TIMEOUT 30)
