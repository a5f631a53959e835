# The unit and CLI tests again, built with ASan+UBSan in a nested build tree.
if(NOT LLAMP_SANITIZE)
  add_test(NAME sanitized_tests
           COMMAND sh -c "cmake -S ${PROJECT_SOURCE_DIR} -B ${CMAKE_BINARY_DIR}/asan -DLLAMP_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null && cmake --build ${CMAKE_BINARY_DIR}/asan -j2 >/dev/null && cd ${CMAKE_BINARY_DIR}/asan && ctest --output-on-failure -L 'unit|cli' -LE 'slow|valgrind'")
  set_tests_properties(sanitized_tests PROPERTIES LABELS "sanitizer" TIMEOUT 1800)
endif()
