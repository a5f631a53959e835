# llamp plot: each kind rendered from fixed inputs; the SVG is parsed and its
# panels, series (style, points), tolerance bands and markers are checked
# against the analysis (tests/plot/check_svg.py).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND)
  set(_chk ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/plot/check_svg.py)
  set(_paper ${CMAKE_CURRENT_SOURCE_DIR}/data/examples/paper_example.goal)
  set(_model "--o 0 --G 5ns --L 0.5us")
  set(_study ${CMAKE_CURRENT_SOURCE_DIR}/data/plot/study.csv)
  # The paper's example from the graph: 101 sweep points + its one critical
  # latency (385 ns); the 1/2/5 % zones end at 516.15, 532.3, 580.75 ns.
  add_test(NAME plot_runtime_graph COMMAND sh -c
    "$<TARGET_FILE:llamp> plot runtime ${_paper} ${_model} --range 0:2us --points 101 -o rg.svg && ${_chk} rg.svg --panels 3 --series T:line:102 --series lambda_L:step:102 --series rho_L:line:102 --bands 3 --markers 4 --band '1 % tolerance:0.5:0.51615' --band '2 % tolerance:0.5:0.5323' --band '5 % tolerance:0.5:0.58075'")
  # The same from a JSON report (llamp analyze), with dL on the x axis.
  add_test(NAME plot_runtime_report COMMAND sh -c
    "$<TARGET_FILE:llamp> analyze ${_paper} ${_model} --range 0:2us --sweep 0:2us:0.05us --format json -o r.json && $<TARGET_FILE:llamp> plot runtime r.json --delta -o rr.svg && ${_chk} rr.svg --panels 3 --series T:line:42 --bands 3 --markers 4 --band '1 % tolerance:0:0.01615'")
  # Timeline of the example's critical path: compute on both ranks, one message.
  add_test(NAME plot_timeline COMMAND sh -c
    "$<TARGET_FILE:llamp> plot timeline ${_paper} ${_model} -o tl.svg && ${_chk} tl.svg --panels 1 --series latency:segments:1 --series bandwidth:segments:1 --rects latency:1")
  # Histogram (5 bins) and CDF of 20 samples; the null in tolerance_1 is skipped.
  add_test(NAME plot_hist_cdf COMMAND sh -c
    "$<TARGET_FILE:llamp> plot hist ${_study} --column T --bins 5 -o h.svg && ${_chk} h.svg --series samples:bars:5 --rects samples:5 --markers 2 && $<TARGET_FILE:llamp> plot cdf ${_study} --column tolerance_1 -o c.svg && ${_chk} c.svg --series 'empirical CDF:line:38' --markers 2")
  # Bad input: one line naming file, line and what was expected; exit 1.
  add_test(NAME plot_errors COMMAND sh -c
    "printf '{\"params\": {\"L\": 1e-6}, \"runtime\": }' > bad.json; $<TARGET_FILE:llamp> plot runtime bad.json -o x.svg 2>e1; test $? -eq 1 && grep -q 'bad.json:1:36: expected a value' e1 && $<TARGET_FILE:llamp> plot hist ${_study} --column nope -o x.svg 2>e2; test $? -eq 1 && grep -q 'study.csv:1: no column .nope.' e2 && $<TARGET_FILE:llamp> plot runtime ${_paper} -o x.pdf 2>e3; test $? -eq 1 && grep -q 'expected a .svg or .png' e3")
  set_tests_properties(plot_runtime_graph plot_runtime_report plot_timeline plot_hist_cdf plot_errors
                       PROPERTIES LABELS "cli;plot" WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  find_program(LLAMP_VALGRIND valgrind)
  if(LLAMP_VALGRIND AND NOT LLAMP_SANITIZE)
    add_test(NAME plot_valgrind COMMAND sh -c
      "${LLAMP_VALGRIND} -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite $<TARGET_FILE:llamp> plot runtime ${_paper} ${_model} -o vg1.svg && ${LLAMP_VALGRIND} -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite $<TARGET_FILE:llamp> plot timeline ${_paper} ${_model} -o vg2.svg && ${LLAMP_VALGRIND} -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite $<TARGET_FILE:llamp> plot hist ${_study} -o vg3.svg")
    set_tests_properties(plot_valgrind PROPERTIES LABELS "cli;plot;valgrind" WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  find_program(LLAMP_RSVG rsvg-convert)
  if(LLAMP_RSVG)
    add_test(NAME plot_png COMMAND sh -c
      "$<TARGET_FILE:llamp> plot runtime ${_paper} ${_model} -o rp.png && ${_chk} rp.png --png")
    set_tests_properties(plot_png PROPERTIES LABELS "cli;plot" WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
endif()
