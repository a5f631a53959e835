# smpi_llamp-whatif (docs/topology.md, "What-if runner"): bad input, a
# 16-rank ring against hand-worked numbers and SimGrid, and 64 ranks of a
# proxy app on fat tree, dragonfly and torus variants (issue 9: the runner
# end to end on 64 ranks; about 10 s each).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND)
  add_test(NAME whatif_errors COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/whatif/run_whatif.sh errors
                                      ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(whatif_errors PROPERTIES LABELS "cli;topo" TIMEOUT 120)
  if(TARGET llamp-routes AND TARGET smpi_llamp_capture_rt)
    foreach(mode e2e p64)
      add_test(NAME whatif_${mode} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/whatif/run_whatif.sh ${mode}
                                           ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
      set_tests_properties(whatif_${mode} PROPERTIES LABELS "needs-simgrid;topo" SKIP_RETURN_CODE 77
                           TIMEOUT 300)
    endforeach()
  endif()
endif()
