# The stream-order sanitizer (issue 25): one executable on the default (Ascend) configuration, one
# ctest per test ("sanitizer.<Suite>.<Test>"); each test starts its own runtime with
# ASCEND_RUN_STREAM_SANITIZER set.
add_executable(stream_sanitizer_test ${CMAKE_CURRENT_LIST_DIR}/sanitizer/stream_sanitizer_test.cpp)
target_link_libraries(stream_sanitizer_test PRIVATE ascendcl GTest::gtest_main Threads::Threads)
target_compile_options(stream_sanitizer_test PRIVATE -g)  # the reports resolve call sites to file:line
arun_add_runtime_deps(stream_sanitizer_test arun_device_ascend arun_configs arun_allocator_caching)
gtest_discover_tests(stream_sanitizer_test TEST_PREFIX "sanitizer." DISCOVERY_TIMEOUT 60
  PROPERTIES TIMEOUT 60 LABELS sanitizer
  ENVIRONMENT "ASCEND_RUN_CONFIG=${ARUN_BUILD_CONFIG_DIR}/default.toml")
