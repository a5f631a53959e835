# Topology (docs/topology.md): routes read from SimGrid platforms, hop counts
# checked by hand; the platform generator's families.
if(TARGET llamp-routes)
  add_test(NAME topo_routes COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/topo/run_routes.sh ${CMAKE_BINARY_DIR}
                                       ${PROJECT_SOURCE_DIR})
  set_tests_properties(topo_routes PROPERTIES LABELS "needs-simgrid;topo" SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()
if(TARGET llamp-routes AND TARGET smpi_llamp_capture_rt)
  add_test(NAME topo_params COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/topo/run_params.sh ${CMAKE_BINARY_DIR}
                                        ${PROJECT_SOURCE_DIR})
  set_tests_properties(topo_params PROPERTIES LABELS "needs-simgrid;topo" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
if(TARGET smpi_llamp_capture_rt)
  add_test(NAME topo_subset COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/topo/run_subset.sh ${CMAKE_BINARY_DIR}
                                        ${PROJECT_SOURCE_DIR})
  set_tests_properties(topo_subset PROPERTIES LABELS "needs-simgrid;topo" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
