# GOAL interop (smpi_llamp/goal): the unit tests test_goal_*.c are found by the
# glob in tests/CMakeLists.txt.  This file adds the optional libFuzzer target.
#
#   CC=clang cmake -S . -B build-fuzz -DLLAMP_FUZZ=ON && cmake --build build-fuzz --target fuzz_goal
#   build-fuzz/tests/fuzz_goal -max_len=4096 corpus/ tests/data/goal/
#
# The harness compiles the reader, the writer and the graph builder itself, so
# they carry the fuzzer's coverage instrumentation and the sanitizers.
option(LLAMP_FUZZ "Build libFuzzer harnesses (clang only)" OFF)
if(LLAMP_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "LLAMP_FUZZ needs clang (CC=clang), not ${CMAKE_C_COMPILER_ID}")
  endif()
  set(_llamp_src ${PROJECT_SOURCE_DIR}/smpi_llamp)
  add_executable(fuzz_goal ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_goal.c
    ${_llamp_src}/goal/goal_read.c ${_llamp_src}/goal/goal_write.c ${_llamp_src}/graph/graph.c)
  target_include_directories(fuzz_goal PRIVATE ${_llamp_src}/goal ${_llamp_src}/graph)
  target_compile_options(fuzz_goal PRIVATE -g -O1 -fsanitize=fuzzer,address,undefined
    -fno-sanitize-recover=all)
  target_link_options(fuzz_goal PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_goal PRIVATE m)
  set_target_properties(fuzz_goal PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  # a quick regression run: given files (not a directory) libFuzzer executes
  # each once and writes nothing
  file(GLOB _goal_inputs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/data/goal/*.goal)
  add_test(NAME fuzz_goal_corpus COMMAND fuzz_goal ${_goal_inputs})
  set_tests_properties(fuzz_goal_corpus PROPERTIES LABELS "fuzz")
endif()
