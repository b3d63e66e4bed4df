# The command line's helpers that are libraries of their own (tools/ascend-run).
add_executable(npy_test ${CMAKE_CURRENT_LIST_DIR}/tools/npy_test.cpp)
target_link_libraries(npy_test PRIVATE arun_npy GTest::gtest_main)
gtest_discover_tests(npy_test DISCOVERY_TIMEOUT 30)
