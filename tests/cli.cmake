# Golden CLI tests: tests/golden/*.cmd, each compared with its .out file.
file(GLOB LLAMP_GOLDEN_CASES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/golden/*.cmd)
foreach(case ${LLAMP_GOLDEN_CASES})
  get_filename_component(name ${case} NAME_WE)
  add_test(NAME cli_${name}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/golden.sh $<TARGET_FILE:llamp> ${case}
                   ${CMAKE_CURRENT_SOURCE_DIR}/data
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(cli_${name} PROPERTIES LABELS "cli")
endforeach()

# The CLI under valgrind: no leaks, no invalid accesses, on a normal and a failing run.
find_program(LLAMP_VALGRIND valgrind)
if(LLAMP_VALGRIND AND NOT LLAMP_SANITIZE)
  add_test(NAME cli_valgrind_analyze
           COMMAND ${LLAMP_VALGRIND} --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
                   $<TARGET_FILE:llamp> analyze ${CMAKE_CURRENT_SOURCE_DIR}/data/examples/paper_example.goal
                   --o 0 --G 5ns --L 0.5us --range 0.2us:0.5us --budget 2us --sweep 0:1:0.25 --critical-path)
  add_test(NAME cli_valgrind_bad_input
           COMMAND sh -c "${LLAMP_VALGRIND} --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite $<TARGET_FILE:llamp> analyze ${CMAKE_CURRENT_SOURCE_DIR}/data/examples/paper_example.goal --L nonsense; test $? -eq 1")
  set_tests_properties(cli_valgrind_analyze cli_valgrind_bad_input PROPERTIES LABELS "cli;valgrind")
endif()

# The engine's plan in one and in two halves: the same report.
add_test(NAME cli_threads_same COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli/threads.sh $<TARGET_FILE:llamp>)
set_tests_properties(cli_threads_same PROPERTIES LABELS "cli;unit")
