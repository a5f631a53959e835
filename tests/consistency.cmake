# Consistency of the captured DAG with SimGrid (docs/consistency.md): T(L0)
# against the simulated time and T(L0 + dL) against runs on platforms whose
# latency was raised by dL, for halos, blocking chains, every collective
# algorithm with an SMPI equivalent and 1 ... 256 ranks.  Labels needs-simgrid
# and consistency (the larger runs: slow); each exits 77 (skipped) when
# smpicc or the capture build is missing.
add_executable(consistency_coll_cases ${CMAKE_CURRENT_SOURCE_DIR}/consistency/coll_cases.c)
target_link_libraries(consistency_coll_cases PRIVATE smpi_llamp)
set_target_properties(consistency_coll_cases PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
foreach(s p2p coll defaults ranks diff apps fortran rma)
  add_test(NAME consistency_${s}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/consistency/run.sh ${s} ${CMAKE_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR})
  set_tests_properties(consistency_${s} PROPERTIES LABELS "needs-simgrid;consistency"
                       SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
# computation simulated: bounded by the measured run-to-run noise (slow)
add_test(NAME consistency_fortran_compute
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/consistency/run.sh fortran_compute ${CMAKE_BINARY_DIR}
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(consistency_fortran_compute PROPERTIES LABELS "needs-simgrid;consistency;slow"
                     SKIP_RETURN_CODE 77 TIMEOUT 600)
add_test(NAME consistency_slow
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/consistency/run.sh slow ${CMAKE_BINARY_DIR}
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(consistency_slow PROPERTIES LABELS "needs-simgrid;consistency;slow"
                     SKIP_RETURN_CODE 77 TIMEOUT 3600)
# Size-dependent message costs (a synthetic SMPI os/or/ois + factors model)
# against SimGrid: ping-pong, halo, allreduce; T(L0 + dL), slopes (piecewise.sh)
add_test(NAME consistency_piecewise
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/consistency/piecewise.sh ${CMAKE_BINARY_DIR}
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(consistency_piecewise PROPERTIES LABELS "needs-simgrid;consistency"
                     SKIP_RETURN_CODE 77 TIMEOUT 600)
# The NIC rule: on by itself where host links are shared (docs/model.md).
add_test(NAME consistency_nic COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/consistency/nic.sh ${CMAKE_BINARY_DIR}
                                      ${PROJECT_SOURCE_DIR})
set_tests_properties(consistency_nic PROPERTIES LABELS "needs-simgrid;consistency" SKIP_RETURN_CODE 77 TIMEOUT 300)
# SMPI's defaults on platforms without a <config> block: per-route factors,
# TCP-gamma, cross-traffic, transfers at their match, observed contention
# (docs/model.md, "What SimGrid charges a message"; platforms.sh).
add_test(NAME consistency_platforms COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/consistency/platforms.sh
                                            ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(consistency_platforms PROPERTIES LABELS "needs-simgrid;consistency" SKIP_RETURN_CODE 77
                     TIMEOUT 300)
