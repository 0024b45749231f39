# SPDX-License-Identifier: GPL-2.0-only
# A stand-in for ns-3.37's build_lib()/build_lib_example() so that each contrib/<module>/CMakeLists.txt
# is written exactly as it would be inside an ns-3 source tree. Inside ns-3 the real functions exist
# and this file is never read.
if(COMMAND build_lib)
  return()
endif()

# ns-3 modules are referred to as ${libcore}, ${libinternet}, ... as in ns-3's own CMake.
foreach(
  _mod
  core network internet point-to-point traffic-control applications flow-monitor stats
  nix-vector-routing bridge)
  set(lib${_mod} ns3::lib${_mod})
endforeach()

set(AIFABRIC_INCLUDE_DIR ${CMAKE_BINARY_DIR}/include)
file(MAKE_DIRECTORY ${AIFABRIC_INCLUDE_DIR}/ns3)

function(build_lib)
  cmake_parse_arguments(BLIB "" "LIBNAME" "SOURCE_FILES;HEADER_FILES;LIBRARIES_TO_LINK;TEST_SOURCES"
                        ${ARGN})
  set(_target lib${BLIB_LIBNAME})
  # Headers are published flat as ns3/<name>.h, as ns-3 does.
  set(_module_header ${AIFABRIC_INCLUDE_DIR}/ns3/${BLIB_LIBNAME}-module.h)
  set(_content "// Generated: includes every public header of the ${BLIB_LIBNAME} module.\n")
  foreach(_h ${BLIB_HEADER_FILES})
    get_filename_component(_name ${_h} NAME)
    configure_file(${CMAKE_CURRENT_SOURCE_DIR}/${_h} ${AIFABRIC_INCLUDE_DIR}/ns3/${_name} COPYONLY)
    string(APPEND _content "#include \"ns3/${_name}\"\n")
  endforeach()
  file(WRITE ${_module_header}.tmp "${_content}")
  configure_file(${_module_header}.tmp ${_module_header} COPYONLY)

  add_library(${_target} SHARED ${BLIB_SOURCE_FILES})
  target_include_directories(${_target} PUBLIC ${AIFABRIC_INCLUDE_DIR})
  target_link_libraries(${_target} PUBLIC ${BLIB_LIBRARIES_TO_LINK})
  set_target_properties(${_target} PROPERTIES OUTPUT_NAME ns3.37-${BLIB_LIBNAME})
  set(lib${BLIB_LIBNAME} ${_target} CACHE INTERNAL "ns-3 contrib module ${BLIB_LIBNAME}")

  # The module's ns-3 TestSuites run through a small runner, registered with ctest.
  if(BLIB_TEST_SOURCES)
    set(_runner ${BLIB_LIBNAME}-test-runner)
    add_executable(${_runner} ${CMAKE_SOURCE_DIR}/cmake/ns3-test-runner.cc ${BLIB_TEST_SOURCES})
    target_link_libraries(${_runner} PRIVATE ${_target})
    set_target_properties(${_runner} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/test-runner)
    add_test(NAME ns3-suite-${BLIB_LIBNAME}
             COMMAND ${_runner} --verbose
             WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  endif()
endfunction()

# Examples: one executable each, in build/bin/.
function(build_lib_example)
  cmake_parse_arguments(BEX "" "NAME" "SOURCE_FILES;HEADER_FILES;LIBRARIES_TO_LINK" ${ARGN})
  add_executable(${BEX_NAME} ${BEX_SOURCE_FILES})
  target_link_libraries(${BEX_NAME} PRIVATE ${BEX_LIBRARIES_TO_LINK})
endfunction()
