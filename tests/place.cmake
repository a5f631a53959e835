# Rank placement (docs/topology.md, "Rank placement"): llamp place end to end
# on 64 ranks of a generated fat tree and dragonfly, confirmed by SimGrid.
# (The per-pair sensitivities are tests/unit/test_pair_lambda.c.)
if(TARGET llamp-routes AND TARGET smpi_llamp_capture_rt)
  add_test(NAME place_ring COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/place/run_place.sh ${CMAKE_BINARY_DIR}
                                       ${PROJECT_SOURCE_DIR})
  set_tests_properties(place_ring PROPERTIES LABELS "needs-simgrid;topo" SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
