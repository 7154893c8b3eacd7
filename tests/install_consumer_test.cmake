# ctest install_consumer (issue 16): stages `cmake --install` of the build tree, builds
# examples/consumer against it with find_package(oriopt) and again with pkg-config, runs both
# on a small PTX file, and checks the number of instructions phase 16 removed against the
# count oriopt's --summary gives before and after the phase.
# -D: BUILD_DIR, SOURCE_DIR, ORIOPT (the built oriopt), INPUT, GENERATOR, CXX.
set(stage ${BUILD_DIR}/staged)
set(work ${BUILD_DIR}/consumer-test)
file(REMOVE_RECURSE ${stage} ${work})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run("staged install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${stage})
foreach(f include/oriopt/pipeline/oriopt.h include/oriopt/ir/ir.h include/oriopt/ir/opcodes.def
          include/oriopt/verify/tv.h bin/oriopt bin/oriverify bin/orifuzz)
  if(NOT EXISTS ${stage}/${f})
    message(FATAL_ERROR "the staged install has no ${f}")
  endif()
endforeach()
# Headers that need Z3's own headers stay private.
if(EXISTS ${stage}/include/oriopt/verify/smt.h)
  message(FATAL_ERROR "verify/smt.h (it includes z3++.h) was installed")
endif()

# Every installed header compiles with the installed ones alone (none includes a private one).
file(GLOB_RECURSE headers RELATIVE ${stage}/include/oriopt ${stage}/include/oriopt/*.h)
set(all "")
foreach(h IN LISTS headers)
  string(APPEND all "#include \"${h}\"\n")
endforeach()
file(WRITE ${work}/all_headers.cpp "${all}")
run("compiling every installed header" ${CXX} -std=c++20 -fsyntax-only -I${stage}/include/oriopt
    ${work}/all_headers.cpp)

# The independent count: instructions in the module after phase 3 (which changes nothing)
# and after phase 16, as `oriopt --summary` counts them.
foreach(p 3 16)
  run("oriopt --phases=${p}" ${ORIOPT} --summary --phases=${p} ${INPUT})
  if(NOT out MATCHES "function[s]?, ([0-9]+) instructions")
    message(FATAL_ERROR "oriopt --summary printed no instruction count:\n${out}")
  endif()
  set(count${p} ${CMAKE_MATCH_1})
endforeach()
math(EXPR expected "${count3} - ${count16}")
if(expected LESS 1)
  message(FATAL_ERROR "${INPUT}: phase 16 removes nothing (${count3} -> ${count16}); the test proves nothing")
endif()

# 1. find_package(oriopt) in the consumer's own CMake project.
run("configuring examples/consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/consumer -B ${work}/cmake
    -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${stage}
    -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON)
run("building examples/consumer" ${CMAKE_COMMAND} --build ${work}/cmake)
run("running the consumer" ${work}/cmake/consumer ${INPUT})
if(NOT out STREQUAL "removed ${expected} instructions\n")
  message(FATAL_ERROR "consumer printed '${out}', expected 'removed ${expected} instructions' "
                      "(oriopt --summary: ${count3} before phase 16, ${count16} after)")
endif()
message(STATUS "find_package consumer: ${out}")

# 2. pkg-config: the same program from the command line.
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} ${stage}/lib/pkgconfig)
  run("pkg-config" ${PKG_CONFIG} --cflags --libs oriopt)
  string(STRIP "${out}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run("building the consumer with pkg-config" ${CXX} -O1 -o ${work}/consumer-pc
      ${SOURCE_DIR}/examples/consumer/main.cpp ${flags})
  run("running the pkg-config consumer" ${work}/consumer-pc ${INPUT})
  if(NOT out STREQUAL "removed ${expected} instructions\n")
    message(FATAL_ERROR "the pkg-config consumer printed '${out}', expected 'removed ${expected} instructions'")
  endif()
  message(STATUS "pkg-config consumer: ${out}")
endif()
