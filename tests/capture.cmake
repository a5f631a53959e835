# End-to-end tests of the SMPI capture layer (docs/capture.md): SMPI programs
# built with smpi_llamp-cc and run with smpi_llamp-run.  Label needs-simgrid;
# each exits 77 (skipped) when smpicc or the capture build is missing.
add_executable(capture_trace_dump ${CMAKE_CURRENT_SOURCE_DIR}/capture/trace_dump.c)
target_link_libraries(capture_trace_dump PRIVATE smpi_llamp)
set_target_properties(capture_trace_dump PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
foreach(t paper_example all_calls unchanged_time spill cxx errors count_only noncommutative compute_accuracy compute_modes
          compute_threshold errhandler smpi_timer stream_measured partial_testall
          fortran_all_calls fortran_unchanged_time fortran_io fortran_mixed fortran_concurrent
          kernels_seed kernels_compute_accuracy kernels_errors)
  add_test(NAME capture_${t}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/capture/run_test.sh ${t} ${CMAKE_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR})
  set_tests_properties(capture_${t} PROPERTIES LABELS "needs-simgrid;capture" SKIP_RETURN_CODE 77
                       TIMEOUT 120)
endforeach()
# It compares CPU time measured under SMPI with MPICH's: with another test
# beside it (ctest -j2; test_corrupt's reads on the other core) the simulated
# kernels took 11-24 % more than the native ones, their per-iteration median
# too, on this 2-core VM; alone, 0.96-1.03.  So it runs alone.
set_tests_properties(capture_compute_accuracy PROPERTIES RUN_SERIAL TRUE)
