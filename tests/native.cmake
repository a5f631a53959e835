# Native capture (docs/native.md, docs/calib.md): every proxy app under
# `llamp-trace mpiexec -n 2..4`, verified numerically, its graph built by
# `llamp build` and read back through the checker by `llamp analyze`; the
# request patterns MPICH answers with a shared handle; the tools' errors;
# calib_loggp's model file read by the capture's own loader.  Label
# needs-mpich; each test exits 77 (skipped) without mpiexec or the native
# build.  No timing is asserted.
find_program(LLAMP_TEST_MPIEXEC NAMES mpiexec.mpich mpiexec)
set(_native_mpiexec "${LLAMP_TEST_MPIEXEC}")
if(NOT _native_mpiexec)
  set(_native_mpiexec "")
endif()
set(_native_dir ${CMAKE_CURRENT_SOURCE_DIR}/native)

# llamp_native_test(NAME NP APP [app arguments...])
function(llamp_native_test name np app)
  add_test(NAME native_${name}
           COMMAND sh ${_native_dir}/run_native.sh "${_native_mpiexec}" ${CMAKE_BINARY_DIR}/bin ${np} ${app} ${ARGN})
  set(procs ${np})
  if(procs GREATER 2)
    set(procs 2)
  endif()
  set_tests_properties(native_${name} PROPERTIES LABELS "native;needs-mpich" SKIP_RETURN_CODE 77
                       TIMEOUT 60 PROCESSORS ${procs})
endfunction()

llamp_native_test(latency_example 2 latency_example --iters 20)
llamp_native_test(pingpong 2 pingpong --sizes 0:64K --reps 20)
llamp_native_test(pingpong_3 3 pingpong --sizes 0,8,1K,16K --reps 10 --mode nonblocking)
llamp_native_test(stencil3d 4 stencil3d --weak 12 --iters 30 --check-every 5)
llamp_native_test(stencil3d_2 2 stencil3d --strong 20,16,12 --iters 40 --check-every 10)
llamp_native_test(cg 4 cg --weak 8)
llamp_native_test(cg_2d 2 cg --dim 2 --strong 64,48)
llamp_native_test(lu 4 lu --n 192 --nb 32)
llamp_native_test(lu_1ring 3 lu --n 91 --nb 8 --grid 1x3 --bcast 1ring --depth 1)
llamp_native_test(fft 4 fft --n 16 --iters 2)
llamp_native_test(fft_slab 2 fft --decomp slab --n 32,16,8)
llamp_native_test(sweep 4 sweep --weak 8,8,16)
llamp_native_test(sweep_2 2 sweep --weak 16,16,16 --octants 4)

find_package(MPI COMPONENTS C QUIET)
if(TARGET llamp_capture_native AND TARGET MPI::MPI_C)
  add_executable(native_reqs ${_native_dir}/reqs.c)
  target_link_libraries(native_reqs PRIVATE MPI::MPI_C)
  set_target_properties(native_reqs PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME native_errors_and_requests
           COMMAND sh ${_native_dir}/errors.sh "${_native_mpiexec}" ${CMAKE_BINARY_DIR}/bin
                   $<TARGET_FILE:native_reqs>)
  set_tests_properties(native_errors_and_requests PROPERTIES LABELS "native;needs-mpich"
                       SKIP_RETURN_CODE 77 TIMEOUT 60 PROCESSORS 2)
endif()

# calib_loggp --quick: a model file the capture's loader (config.c) accepts,
# with positive L, o and G
if(TARGET calib_loggp_mpi AND LLAMP_LIBCONFIG_INCLUDE AND LLAMP_LIBCONFIG_LIB)
  add_executable(native_check_model ${_native_dir}/check_model.c
                 ${PROJECT_SOURCE_DIR}/smpi_llamp/capture/config.c)
  target_include_directories(native_check_model PRIVATE ${PROJECT_SOURCE_DIR}/smpi_llamp/capture
                             ${LLAMP_LIBCONFIG_INCLUDE})
  target_link_libraries(native_check_model PRIVATE smpi_llamp_netmodel_file smpi_llamp ${LLAMP_LIBCONFIG_LIB})
  set_target_properties(native_check_model PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME native_calib_loggp
           COMMAND sh -c "[ -x '${_native_mpiexec}' ] || exit 77; f=\$(mktemp) && '${_native_mpiexec}' -n 2 -bind-to core $<TARGET_FILE:calib_loggp_mpi> --quick -o \$f && cat \$f && $<TARGET_FILE:native_check_model> \$f; rc=\$?; rm -f \$f; exit \$rc")
  set_tests_properties(native_calib_loggp PROPERTIES LABELS "native;needs-mpich" SKIP_RETURN_CODE 77
                       TIMEOUT 60 PROCESSORS 2)
endif()

# A Fortran program (MPICH's mpif90) under the native capture
find_program(LLAMP_TEST_MPIF90 NAMES mpif90.mpich mpif90)
set(_native_mpif90 "${LLAMP_TEST_MPIF90}")
if(NOT _native_mpif90)
  set(_native_mpif90 "")
endif()
if(TARGET llamp_capture_native)
  add_test(NAME native_fortran_all_calls
           COMMAND sh ${_native_dir}/fortran.sh "${_native_mpiexec}" "${_native_mpif90}" ${CMAKE_BINARY_DIR}/bin
                   ${CMAKE_BINARY_DIR}/tests/capture_trace_dump ${PROJECT_SOURCE_DIR})
  set_tests_properties(native_fortran_all_calls PROPERTIES LABELS "native;needs-mpich" SKIP_RETURN_CODE 77
                       TIMEOUT 60 PROCESSORS 2)
endif()
