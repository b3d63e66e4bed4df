# The build's layering check (cmake/check_layering.cmake) reports reaches into the core's private
# headers and passes the front door: checked on a scratch tree.
add_test(NAME layering.check
  COMMAND ${CMAKE_COMMAND} -DCHECK=${PROJECT_SOURCE_DIR}/cmake/check_layering.cmake
          -DWORK=${CMAKE_CURRENT_BINARY_DIR}/layering_scratch -P ${CMAKE_CURRENT_LIST_DIR}/layering/layering_test.cmake)
