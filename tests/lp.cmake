# LP export tests (tests/unit/test_lp*.c are registered by tests/CMakeLists.txt
# with label "unit").  The GLPK cross-check exits 77 when glpsol is missing.
if(TEST test_lp_glpk)
  set_tests_properties(test_lp_glpk PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
  # the larger set: 1000 graphs of up to 400 operations, GLPK on both sides of
  # up to 4 critical latencies per graph
  add_test(NAME test_lp_glpk_slow COMMAND test_lp_glpk 1000 400 7 4
           WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(test_lp_glpk_slow PROPERTIES LABELS "slow" SKIP_RETURN_CODE 77 TIMEOUT 3600)
endif()
if(TEST test_lp_speed)
  # export speed of a 10^6-vertex graph (prints vertices/s)
  add_test(NAME test_lp_speed_1M COMMAND test_lp_speed 1000000 64
           WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
  set_tests_properties(test_lp_speed_1M PROPERTIES LABELS "slow" TIMEOUT 600)
endif()
