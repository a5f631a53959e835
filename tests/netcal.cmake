# Network calibration (calib/netbench.c, calib/netfit.c, smpi_llamp/fit/,
# tools/llamp-calibrate.in; docs/calib.md):
#   netcal_fit            segmented regression on synthetic curves (GSL)
if(TARGET smpi_llamp_fit)
  add_executable(test_netcal_fit ${CMAKE_CURRENT_SOURCE_DIR}/netcal/test_fit.c)
  target_include_directories(test_netcal_fit PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/unit)
  target_link_libraries(test_netcal_fit PRIVATE smpi_llamp_fit)
  set_target_properties(test_netcal_fit PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME netcal_fit COMMAND test_netcal_fit)
  set_tests_properties(netcal_fit PROPERTIES LABELS "unit;netcal")
endif()
