# Checks the layering check itself (cmake/check_layering.cmake) on a small tree written here: a
# reach into a core-private header by name and by relative path must fail the check and be named
# with file:line; front-door includes and a header next to the including file must pass.
#   cmake -DCHECK=<check_layering.cmake> -DWORK=<scratch folder> -P layering_test.cmake
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE ${WORK})
file(WRITE ${WORK}/core/src/sched/scheduler.hpp "#pragma once\n")
file(WRITE ${WORK}/core/include/arun/runtime/front_door.hpp "#pragma once\n")
file(WRITE ${WORK}/ops/src/good.cpp "#include \"arun/runtime/front_door.hpp\"\n#include <vector>\n")
# A private header's name that resolves next to the including file is that folder's own header.
file(WRITE ${WORK}/plugins/x/sched/scheduler.hpp "#pragma once\n")
file(WRITE ${WORK}/plugins/x/own.cpp "#include \"sched/scheduler.hpp\"\n")

function(run_check out_rc out_text)
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${WORK} -P ${CHECK}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_text} "${o}${e}" PARENT_SCOPE)
endfunction()

run_check(rc text)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a clean tree failed the layering check:\n${text}")
endif()

file(WRITE ${WORK}/api/src/bad_name.cpp "// reaches past the door\n#include \"sched/scheduler.hpp\"\n")
file(WRITE ${WORK}/model/src/bad_path.cpp "#include \"../../core/src/sched/scheduler.hpp\"\n")
run_check(rc text)
if(rc EQUAL 0)
  message(FATAL_ERROR "the layering check passed a tree that includes core-private headers:\n${text}")
endif()
foreach(expected "api/src/bad_name.cpp:2" "private-name" "model/src/bad_path.cpp:1" "private-path")
  string(FIND "${text}" "${expected}" at)
  if(at LESS 0)
    message(FATAL_ERROR "the layering check's report lacks '${expected}':\n${text}")
  endif()
endforeach()
string(FIND "${text}" "good.cpp" at_good)
string(FIND "${text}" "own.cpp" at_own)
if(NOT at_good EQUAL -1 OR NOT at_own EQUAL -1)
  message(FATAL_ERROR "the layering check flagged an allowed include:\n${text}")
endif()
message(STATUS "layering check: both reaches reported, allowed includes passed")
