# Faults of capture runs (tests/capture/faults.sh, docs/hardening.md): a
# killed rank, two runs in one -llamp-out, SIGINT.  Needs SimGrid.
add_test(NAME capture_faults COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/capture/faults.sh ${CMAKE_BINARY_DIR}
                                     ${PROJECT_SOURCE_DIR})
set_tests_properties(capture_faults PROPERTIES LABELS "needs-simgrid;capture" SKIP_RETURN_CODE 77 TIMEOUT 300)
# test_trace_faults (found by the unit-test glob) makes malloc and pwrite fail
if(TARGET test_trace_faults)
  target_link_options(test_trace_faults PRIVATE -Wl,--wrap=malloc -Wl,--wrap=pwrite)
endif()
# Scale of a capture: 256 to 4096 ranks, 2 M records per rank (slow)
add_test(NAME capture_scale COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/capture/scale.sh ${CMAKE_BINARY_DIR}
                                    ${PROJECT_SOURCE_DIR})
set_tests_properties(capture_scale PROPERTIES LABELS "needs-simgrid;capture;slow" SKIP_RETURN_CODE 77 TIMEOUT 7200)
