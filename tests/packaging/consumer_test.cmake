# CTest driver (cmake -P): installs the current build to a temporary prefix, checks that the installed program loads
# its installed plugins, builds tests/packaging/consumer against it with find_package(chorus), runs it and checks
# the ring All-Gather time it prints.
# Inputs: -DCHORUS_BUILD_DIR=... -DCONSUMER_SOURCE_DIR=... -DWORK_DIR=... [-DGENERATOR=...] [-DLAUNCHER=...]
cmake_minimum_required(VERSION 3.22)

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${ARGN}\n${out}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
run_step(${CMAKE_COMMAND} --install "${CHORUS_BUILD_DIR}" --prefix "${prefix}")
foreach(installed bin/chorus lib/libchorus.a include/chorus/core/error.hpp include/chorus/core/version.hpp
                  lib/cmake/chorus/chorusConfig.cmake lib/cmake/chorus/chorusConfigVersion.cmake
                  share/man/man1/chorus.1 share/bash-completion/completions/chorus)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "install is missing ${installed}")
  endif()
endforeach()
# The plugins (src/chorus/plugin): the installed program loads its own, not the build tree's.
file(GLOB plugins "${prefix}/lib*/chorus/libchorus_glpk.so")
if(NOT plugins)
  message(FATAL_ERROR "install is missing the GLPK plugin lib/chorus/libchorus_glpk.so")
endif()
file(REAL_PATH "${plugins}" glpk_plugin)
run_step(${CMAKE_COMMAND} -E env LD_DEBUG=libs "${prefix}/bin/chorus" synth --topology ring:4 --bandwidth 50GB/s
         --latency 1us --collective all_to_all --size 1MiB --json)
string(FIND "${step_output}" "calling init: ${glpk_plugin}" found)
if(found EQUAL -1)
  message(FATAL_ERROR "the installed chorus did not load ${glpk_plugin}:\n${step_output}")
endif()
file(GLOB_RECURSE private_headers "${prefix}/include/*.pb.h")
if(private_headers)
  message(FATAL_ERROR "the generated Chakra protobuf header must stay private: ${private_headers}")
endif()

set(configure_args -S "${CONSUMER_SOURCE_DIR}" -B "${WORK_DIR}/build" "-DCMAKE_PREFIX_PATH=${prefix}"
                   -DCMAKE_BUILD_TYPE=Release)
if(GENERATOR)
  list(APPEND configure_args -G "${GENERATOR}")
endif()
if(LAUNCHER)
  list(APPEND configure_args "-DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER}")
endif()
run_step(${CMAKE_COMMAND} ${configure_args})
run_step(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
run_step("${WORK_DIR}/build/consumer")

# Ring All-Gather of D = 8 MB on ring:8 (alpha = 1 us, B = 50 GB/s): (p - 1)(alpha + D / (p B)) = 7 (1 + 20) us.
set(expected "time_ps=147000000")
string(FIND "${step_output}" "${expected}" found)
if(found EQUAL -1)
  message(FATAL_ERROR "consumer printed '${step_output}', expected ${expected}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
message(STATUS "consumer: ${step_output}")
