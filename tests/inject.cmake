# The latency injector (docs/validation.md): its semantics on hand-built
# cases (tests/inject/inject_check.c under llamp-inject) and its errors.
# Label needs-mpich; skipped (77) without mpiexec or the injector.  The
# assertions are lower bounds the injector guarantees, orders and data;
# the few upper bounds have half a dL of slack at dL = 200-300 ms.
if(NOT TARGET llamp_inject)
  return()
endif()
find_program(LLAMP_TEST_MPIEXEC NAMES mpiexec.mpich mpiexec)
set(_ij_mpiexec "${LLAMP_TEST_MPIEXEC}")
if(NOT _ij_mpiexec)
  set(_ij_mpiexec "")
endif()
set(_ij ${CMAKE_CURRENT_SOURCE_DIR}/inject)
add_executable(inject_check ${_ij}/inject_check.c)
target_link_libraries(inject_check PRIVATE MPI::MPI_C)
# GCC misreads MPICH's array-parameter attributes with MPI_STATUSES_IGNORE
target_compile_options(inject_check PRIVATE -Wno-stringop-overflow)
set_target_properties(inject_check PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

# llamp_inject_test(NAME NP CASE DL_US [llamp-inject options...])
function(llamp_inject_test name np case dl)
  add_test(NAME inject_${name}
           COMMAND sh ${_ij}/run.sh "${_ij_mpiexec}" ${CMAKE_BINARY_DIR}/bin
                   $<TARGET_FILE:inject_check> ${np} ${case} ${dl} ${ARGN})
  set(procs ${np})
  if(procs GREATER 2)
    set(procs 2)
  endif()
  set_tests_properties(inject_${name} PROPERTIES LABELS "inject;needs-mpich" SKIP_RETURN_CODE 77
                       TIMEOUT 60 PROCESSORS ${procs})
endfunction()

llamp_inject_test(pingpong 2 pingpong 200000 -dL 200ms)
llamp_inject_test(back_to_back 2 b2b 200000 -dL 200ms)
llamp_inject_test(waitany_race 3 waitany 300000 --matrix ${_ij}/waitany_matrix.txt)
llamp_inject_test(probe_test 2 probe 100000 -dL 100ms)
llamp_inject_test(persistent 2 persistent 50000 -dL 50ms)
llamp_inject_test(send_modes 2 modes 50000 -dL 50ms)
llamp_inject_test(large_eager 2 large 200000 -dL 200ms)
llamp_inject_test(large_rdma 2 large 50000 -dL 50ms -S 64KiB)
llamp_inject_test(large_direct 2 large 50000 -dL 50ms -S 64KiB --rendezvous direct)
llamp_inject_test(collectives 3 coll 50000 -dL 50ms)
llamp_inject_test(collectives_ring 2 coll 50000 -dL 50ms --coll allreduce=ring,bcast=linear)
llamp_inject_test(collectives_rendezvous 3 coll 20000 -dL 20ms -S 64KiB)
llamp_inject_test(collectives_sync 2 collsync 50000 -dL 50ms)
llamp_inject_test(ranks 3 ranks 300000 -dL 300ms --ranks 2)
llamp_inject_test(pingpong_no_delay 2 pingpong 0 -dL 0)

add_test(NAME inject_errors COMMAND sh ${_ij}/errors.sh "${_ij_mpiexec}" ${CMAKE_BINARY_DIR}/bin
                                   $<TARGET_FILE:inject_check>)
set_tests_properties(inject_errors PROPERTIES LABELS "inject;needs-mpich" SKIP_RETURN_CODE 77
                     TIMEOUT 60 PROCESSORS 2)

# the configuration parser alone (no MPI)
add_executable(inject_config_test ${_ij}/config_test.c ${PROJECT_SOURCE_DIR}/smpi_llamp/inject/config.c)
target_include_directories(inject_config_test PRIVATE ${PROJECT_SOURCE_DIR}/smpi_llamp/inject)
target_link_libraries(inject_config_test PRIVATE smpi_llamp)
set_target_properties(inject_config_test PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_test(NAME inject_config COMMAND inject_config_test)
set_tests_properties(inject_config PROPERTIES LABELS "unit;inject")

# llamp-validate end to end (a fixed model: no calibration in the test)
add_test(NAME inject_validate COMMAND sh ${_ij}/validate.sh "${_ij_mpiexec}" ${CMAKE_BINARY_DIR}/bin
                                     ${_ij}/model.cfg)
set_tests_properties(inject_validate PROPERTIES LABELS "inject;needs-mpich" SKIP_RETURN_CODE 77
                     TIMEOUT 120 PROCESSORS 2)
