# SPDX-License-Identifier: GPL-2.0-only
# What a user does with the installed package, run by ctest (test own-program-install):
# install this build into a fresh prefix, configure examples/own-program against it with only
# -DCMAKE_PREFIX_PATH=<prefix>, build it and run the program.
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... [-DSANITIZE_FLAGS=...] -P own-program-test.cmake
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "own-program-test: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(own ${WORK_DIR}/build)

function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("== ${name}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "own-program-test: ${name} failed (${rc})")
  endif()
endfunction()

step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f lib/cmake/AiFabric/AiFabricConfig.cmake include/ns3/zcube-module.h
          include/ns3/roce-traffic-helper.h)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "own-program-test: ${prefix}/${f} was not installed")
  endif()
endforeach()
set(launcher "")
if(CCACHE)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${CCACHE})
endif()
# A sanitized build's libraries need the sanitizer runtime loaded first: the program is
# compiled and linked with the same -fsanitize flags (SANITIZE_FLAGS, empty otherwise).
set(sanitize "")
if(SANITIZE_FLAGS)
  set(sanitize "-DCMAKE_CXX_FLAGS=${SANITIZE_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZE_FLAGS}")
endif()
step("configure" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/own-program -B ${own}
     -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release ${launcher} ${sanitize})
step("build" ${CMAKE_COMMAND} --build ${own})
step("run" ${own}/my-fabric)
