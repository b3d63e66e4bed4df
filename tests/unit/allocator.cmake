# Unit tests of the allocator policies (plugins/allocator), linked against their static models.
add_executable(allocator_test ${CMAKE_CURRENT_LIST_DIR}/allocator/caching_policy_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/allocator/bins_policy_test.cpp)
target_link_libraries(allocator_test PRIVATE arun_caching_model arun_bins_model GTest::gtest_main)
gtest_discover_tests(allocator_test DISCOVERY_TIMEOUT 60)
