# The installable package (issue 16): `cmake --install BUILD [--prefix DIR]` puts
#   include/oriopt/{ir,ptx,interp,rules,reference,optimized,verify,pipeline}/*.h   the public headers
#   lib/liboriopt_*.a                                                        the libraries
#   bin/oriopt, bin/oriverify, bin/orifuzz                                   the tools
#   lib/cmake/oriopt/                  find_package(oriopt): oriopt::pipeline, oriopt::ir, ...
#   lib/pkgconfig/oriopt.pc            pkg-config --cflags --libs oriopt
# Included last by the top-level CMakeLists.txt, once every target exists.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ORIOPT_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/oriopt)
set(ORIOPT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/oriopt)

# Libraries: oriopt_foo is exported as oriopt::foo.
get_property(_oriopt_libs GLOBAL PROPERTY ORIOPT_LIBS)
foreach(_lib IN LISTS _oriopt_libs)
  string(REGEX REPLACE "^oriopt_" "" _short ${_lib})
  set_target_properties(${_lib} PROPERTIES EXPORT_NAME ${_short})
endforeach()
install(TARGETS ${_oriopt_libs} EXPORT oriopt-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${ORIOPT_INSTALL_INCLUDEDIR})
install(EXPORT oriopt-targets NAMESPACE oriopt:: DESTINATION ${ORIOPT_INSTALL_CMAKEDIR})

# Tools.
foreach(_tool oriopt oriverify orifuzz)
  if(TARGET ${_tool})
    install(TARGETS ${_tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

# Headers of every room, without the private ones: *_impl.h, those that include z3++.h (only
# verify/ may, DESIGN.md), and those that include a private one, so that every installed
# header compiles with the installed ones alone and a user never needs Z3's headers.
set(_pub_headers "")
set(_private "z3\\+\\+\\.h")
foreach(_room ir ptx interp rules reference optimized verify pipeline)
  file(GLOB _h CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${_room}/*.h ${PROJECT_SOURCE_DIR}/${_room}/*.def)
  foreach(_impl IN LISTS _h)
    if(_impl MATCHES "_impl\\.h$")
      cmake_path(GET _impl FILENAME _name)
      string(REPLACE "." "\\." _name "${_room}/${_name}")
      string(APPEND _private "|${_name}")
    endif()
  endforeach()
  list(FILTER _h EXCLUDE REGEX "_impl\\.h$")
  list(APPEND _pub_headers ${_h})
endforeach()
set(_changed TRUE)
while(_changed)
  set(_changed FALSE)
  set(_keep "")
  foreach(_h IN LISTS _pub_headers)
    file(READ ${_h} _text)
    if(_text MATCHES "#include [<\"](${_private})[>\"]")
      file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR} ${_h})
      string(REPLACE "." "\\." _rel ${_rel})
      string(APPEND _private "|${_rel}")
      set(_changed TRUE)
    else()
      list(APPEND _keep ${_h})
    endif()
  endforeach()
  set(_pub_headers ${_keep})
endwhile()
foreach(_h IN LISTS _pub_headers)
  file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR} ${_h})
  cmake_path(GET _rel PARENT_PATH _dir)
  install(FILES ${_h} DESTINATION ${ORIOPT_INSTALL_INCLUDEDIR}/${_dir})
endforeach()

# The CMake package.
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/orioptConfig.cmake.in
  ${CMAKE_BINARY_DIR}/orioptConfig.cmake INSTALL_DESTINATION ${ORIOPT_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/orioptConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/orioptConfig.cmake ${CMAKE_BINARY_DIR}/orioptConfigVersion.cmake
  DESTINATION ${ORIOPT_INSTALL_CMAKEDIR})

# pkg-config: relocatable (the prefix is found from the .pc file's own place), libraries in
# link order (each before the ones it uses).
file(RELATIVE_PATH ORIOPT_PC_TO_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
string(REGEX REPLACE "/$" "" ORIOPT_PC_TO_PREFIX "${ORIOPT_PC_TO_PREFIX}")
set(ORIOPT_PC_LIBS "")
foreach(_lib oriopt_pipeline oriopt_verify oriopt_optimized oriopt_reference oriopt_rules oriopt_interp oriopt_ptx oriopt_ir)
  if(TARGET ${_lib})
    string(APPEND ORIOPT_PC_LIBS " -l${_lib}")
  endif()
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/cmake/oriopt.pc.in ${CMAKE_BINARY_DIR}/oriopt.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/oriopt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
