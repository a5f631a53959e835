# The Debian package in a fresh prefix (tests/install/run_test.sh, docs/install.md).
add_test(NAME install_package COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install/run_test.sh ${CMAKE_BINARY_DIR}
                                      ${PROJECT_SOURCE_DIR})
set_tests_properties(install_package PROPERTIES LABELS "needs-simgrid;install" SKIP_RETURN_CODE 77 TIMEOUT 600)
