# The unit and CLI tests again, built with ASan+UBSan in a nested build tree.
if(NOT LLAMP_SANITIZE)
  add_test(NAME sanitized_tests
           COMMAND sh -c "cmake -S ${PROJECT_SOURCE_DIR} -B ${CMAKE_BINARY_DIR}/asan -DLLAMP_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null && cmake --build ${CMAKE_BINARY_DIR}/asan -j2 >/dev/null && cd ${CMAKE_BINARY_DIR}/asan && ctest --output-on-failure -L 'unit|cli' -LE 'slow|valgrind'")
  set_tests_properties(sanitized_tests PROPERTIES LABELS "sanitizer" TIMEOUT 1800)
endif()

# The capture and native tests with the capture layers sanitized (slow: two
# more build trees, ~10 min each).  ASan+UBSan run SMPI with mmap privatization,
# UBSan alone with dlopen (the default).  Left out, with the reason:
#   capture_unchanged_time, capture_fortran_unchanged_time, capture_errors,
#   capture_faults, install_package: they also run a captured program with a
#     plain smpirun, whose dlopen privatization ASan cannot load (ASan pass)
#   capture_compute_accuracy: compares the capture's measured compute with a
#     native run; instrumented code computes 2-4x slower (both passes)
#   install_package (UBSan pass too): the installed static library carries
#     UBSan's calls, which a user's link without -fsanitize cannot resolve
#   capture_fortran_io: libgfortran's I/O units are privatized only under
#     dlopen privatization (smpi_llamp-run warns under mmap) (ASan pass)
if(NOT LLAMP_SANITIZE AND NOT LLAMP_SANITIZE_CAPTURE)
  set(_sup "ASAN_OPTIONS=detect_leaks=0:suppressions=${CMAKE_CURRENT_SOURCE_DIR}/sanitize_capture.supp")
  set(_ub "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
  set(_tests "needs-simgrid|needs-mpich")
  add_test(NAME sanitized_capture_asan
           COMMAND sh -c "cmake -S ${PROJECT_SOURCE_DIR} -B ${CMAKE_BINARY_DIR}/asan-capture -DLLAMP_SANITIZE=ON -DLLAMP_SANITIZE_CAPTURE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null && cmake --build ${CMAKE_BINARY_DIR}/asan-capture -j2 >/dev/null && cd ${CMAKE_BINARY_DIR}/asan-capture && env ${_sup} ${_ub} ctest --output-on-failure -L '${_tests}' -LE slow -E 'capture_unchanged_time|capture_fortran_unchanged_time|capture_errors|capture_faults|install_package|capture_compute_accuracy|capture_fortran_io'")
  add_test(NAME sanitized_capture_ubsan
           COMMAND sh -c "cmake -S ${PROJECT_SOURCE_DIR} -B ${CMAKE_BINARY_DIR}/ubsan-capture -DLLAMP_SANITIZE_CAPTURE=undefined -DCMAKE_BUILD_TYPE=Debug >/dev/null && cmake --build ${CMAKE_BINARY_DIR}/ubsan-capture -j2 >/dev/null && cd ${CMAKE_BINARY_DIR}/ubsan-capture && env ${_ub} ctest --output-on-failure -L '${_tests}' -LE slow -E 'capture_compute_accuracy|install_package'")
  set_tests_properties(sanitized_capture_asan sanitized_capture_ubsan PROPERTIES LABELS "sanitizer;slow" TIMEOUT 5400)
endif()
