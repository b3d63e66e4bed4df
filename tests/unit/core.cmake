add_executable(core_test
  ${CMAKE_CURRENT_LIST_DIR}/core/scheduler_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/policy_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/backlog_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/scheduler_stress_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/direct_submit_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/primitives_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/runtime_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/visible_devices_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/core/log_output_test.cpp)
target_include_directories(core_test PRIVATE ${CMAKE_CURRENT_LIST_DIR}/core)
target_link_libraries(core_test PRIVATE arun_core_internals GTest::gtest_main)
target_compile_definitions(core_test PRIVATE
  ARUN_BUILD_PLUGIN_DIR="${ARUN_BUILD_PLUGIN_DIR}"
  ARUN_NULL_PLUGIN="${ARUN_BUILD_PLUGIN_DIR}/libarun_device_null.so")
add_dependencies(core_test arun_device_null arun_scheduler_sjf)
gtest_discover_tests(core_test DISCOVERY_TIMEOUT 30 PROPERTIES TIMEOUT 120)
