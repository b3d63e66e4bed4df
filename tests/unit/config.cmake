# Configuration parser tests (core/src/config/): TOML format, acl.json, plugin option
# validation, byte sizes, ASCEND_GLOBAL_LOG_LEVEL, and the shipped configs/*.toml.
add_executable(config_test ${CMAKE_CURRENT_SOURCE_DIR}/config/config_test.cpp)
target_link_libraries(config_test PRIVATE arun_core_internals GTest::gtest_main)
target_compile_definitions(config_test PRIVATE
  ARUN_TEST_CONFIG_DIR="${PROJECT_SOURCE_DIR}/configs"
  ARUN_TEST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/config/data")
gtest_discover_tests(config_test DISCOVERY_TIMEOUT 30)
