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
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
# Modules built so far, in dependency order (for the package config).
set_property(GLOBAL PROPERTY AIFABRIC_MODULES "")

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
  target_include_directories(${_target} PUBLIC $<BUILD_INTERFACE:${AIFABRIC_INCLUDE_DIR}>
                                               $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${_target} PUBLIC ${BLIB_LIBRARIES_TO_LINK})
  # Installed libraries find each other next to themselves ($ORIGIN).
  set_target_properties(${_target} PROPERTIES OUTPUT_NAME ns3.37-${BLIB_LIBNAME}
                                              EXPORT_NAME ${BLIB_LIBNAME} INSTALL_RPATH "$ORIGIN")
  set(lib${BLIB_LIBNAME} ${_target} CACHE INTERNAL "ns-3 contrib module ${BLIB_LIBNAME}")

  # cmake --install: the library (exported as AiFabric::<module>), its headers flat in
  # include/ns3/ and the generated <module>-module.h. See aifabric_install_package().
  install(TARGETS ${_target} EXPORT AiFabricTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set(_installed_headers ${_module_header})
  foreach(_h ${BLIB_HEADER_FILES})
    list(APPEND _installed_headers ${CMAKE_CURRENT_SOURCE_DIR}/${_h})
  endforeach()
  install(FILES ${_installed_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ns3)
  set_property(GLOBAL APPEND PROPERTY AIFABRIC_MODULES ${BLIB_LIBNAME})

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

# The CMake package: <prefix>/lib/cmake/AiFabric/AiFabricConfig.cmake (+ version and targets
# files), so that a user's CMakeLists.txt says find_package(AiFabric) and links AiFabric::zcube,
# AiFabric::roce, ... Called once from the top-level CMakeLists.txt after every module.
function(aifabric_install_package)
  get_property(_modules GLOBAL PROPERTY AIFABRIC_MODULES)
  set(AIFABRIC_INSTALLED_MODULES ${_modules})
  set(_dir ${CMAKE_INSTALL_LIBDIR}/cmake/AiFabric)
  install(EXPORT AiFabricTargets NAMESPACE AiFabric:: DESTINATION ${_dir})
  configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/AiFabricConfig.cmake.in
                                ${CMAKE_BINARY_DIR}/AiFabricConfig.cmake INSTALL_DESTINATION ${_dir})
  write_basic_package_version_file(${CMAKE_BINARY_DIR}/AiFabricConfigVersion.cmake
                                   VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
  install(FILES ${CMAKE_BINARY_DIR}/AiFabricConfig.cmake
                ${CMAKE_BINARY_DIR}/AiFabricConfigVersion.cmake DESTINATION ${_dir})
endfunction()
