# GOAL interop (smpi_llamp/goal): the unit tests test_goal_*.c are found by the
# glob in tests/CMakeLists.txt.  The reader's fuzz harness (fuzz_goal) is
# registered with the others in tests/fuzz.cmake.
