# Unit tests of the simulated Ascend NPU model (plugins/device/ascend), linked against the static model.
add_executable(ascend_device_test ${CMAKE_CURRENT_LIST_DIR}/ascend_device_test.cpp)
target_link_libraries(ascend_device_test PRIVATE arun_ascend_model GTest::gtest_main)
# Death tests re-run the binary; give discovery and each test room under sanitizers.
gtest_discover_tests(ascend_device_test DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT 300)
