# The layering check: no source outside core/ may include a core-private header (core/src/...).
# The core's one door for api/, ops/, model/, tools/ and everything else is
# core/include/arun/runtime/ (the front door) and the installed headers under core/include.
#
#   cmake -DSOURCE_DIR=<repository root> -P cmake/check_layering.cmake
#
# Run by the `arun_check_layering` target (part of ALL when ARUN_CHECK_LAYERING is ON). Two rules:
#   private-name  #include "sub/x.hpp" (or <sub/x.hpp>) where core/src/sub/x.hpp exists and the name
#                 does not resolve next to the including file: a reach into the core's private tree
#                 through an include path (sub = runtime, sched, alloc, ...).
#   private-path  an include whose path contains "core/src": a reach by relative path.
# Sources that test the core's internals are exempt (ARUN_LAYERING_EXEMPT below).
# Every offence is printed as <file>:<line>: <rule>: <include>, then the check fails.
cmake_minimum_required(VERSION 3.20)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "check_layering.cmake: pass -DSOURCE_DIR=<repository root>")
endif()

set(ARUN_LAYERING_DIRS api aclnn ops model tools plugins bench examples tests hccl)
# Relative to SOURCE_DIR: folders (ending in /) and files that test core internals on purpose.
set(ARUN_LAYERING_EXEMPT
  tests/unit/core/
  tests/unit/config/
  tests/unit/loader_test.cpp
  tests/unit/profiler/collection_test.cpp
  tests/fuzz/config/fuzz_config.cpp)

set(globs)
foreach(dir IN LISTS ARUN_LAYERING_DIRS)
  foreach(ext c cc cpp cxx h hh hpp hxx inc ipp)
    list(APPEND globs ${SOURCE_DIR}/${dir}/*.${ext})
  endforeach()
endforeach()
file(GLOB_RECURSE sources LIST_DIRECTORIES false ${globs})
list(SORT sources)

set(offences 0)
foreach(source IN LISTS sources)
  file(RELATIVE_PATH rel ${SOURCE_DIR} ${source})
  set(exempt FALSE)
  foreach(ex IN LISTS ARUN_LAYERING_EXEMPT)
    string(FIND "${rel}" "${ex}" at)
    if(at EQUAL 0)
      set(exempt TRUE)
      break()
    endif()
  endforeach()
  if(exempt)
    continue()
  endif()
  # Cheap first pass: only the #include lines.
  file(STRINGS ${source} includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
  if(NOT includes)
    continue()
  endif()
  set(suspects)
  foreach(line IN LISTS includes)
    if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]+)[\">]")
      continue()
    endif()
    set(name "${CMAKE_MATCH_1}")
    get_filename_component(here ${source} DIRECTORY)
    if(name MATCHES "core/src")
      list(APPEND suspects "${name}|private-path")
    elseif(EXISTS ${SOURCE_DIR}/core/src/${name} AND NOT IS_DIRECTORY ${SOURCE_DIR}/core/src/${name}
           AND NOT EXISTS ${here}/${name})
      list(APPEND suspects "${name}|private-name")
    endif()
  endforeach()
  if(NOT suspects)
    continue()
  endif()
  # Second pass, for offending files only: line numbers.
  file(READ ${source} text)
  # CMake lists: ';' separates, and an unbalanced '[' or ']' would keep lines from splitting.
  string(REPLACE ";" "," text "${text}")
  string(REPLACE "[" "(" text "${text}")
  string(REPLACE "]" ")" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(NOT line MATCHES "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]+)[\">]")
      continue()
    endif()
    foreach(suspect IN LISTS suspects)
      string(REPLACE "|" ";" parts "${suspect}")
      list(GET parts 0 name)
      list(GET parts 1 rule)
      if(CMAKE_MATCH_1 STREQUAL name)
        if(rule STREQUAL "private-path")
          set(why "includes a core-private header by a path into core/src")
        else()
          set(why "includes the core-private header core/src/${name}")
        endif()
        message("${rel}:${number}: ${rule}: #include \"${name}\": ${why}; use the front door (arun/runtime/...)")
        math(EXPR offences "${offences} + 1")
        break()
      endif()
    endforeach()
  endforeach()
endforeach()

if(offences GREATER 0)
  message(FATAL_ERROR "layering check: ${offences} include(s) of core-private headers from outside core/ "
                      "(rule: only core/ and the exempt core tests may include core/src headers)")
endif()
list(LENGTH sources count)
message(STATUS "layering check: ${count} files outside core/ include no core-private header")
