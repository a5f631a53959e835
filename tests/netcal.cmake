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
#   netcal_raw_errors     bad raw lines: file:line, field, expected
#   netcal_smpi           the smpi group under smpirun reproduces the fitted
#                         one-way curve within 1 % (needs-simgrid)
#   netcal_quick          llamp-calibrate network --quick under mpiexec; the
#                         file parses and has the keys (needs-mpich)
#   netcal_netns          the same with --netns (two namespaces, a veth pair;
#                         needs root and ip, else skipped)
if(TARGET calib_netfit)
  add_test(NAME netcal_raw_errors
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/netcal/raw_errors.sh $<TARGET_FILE:calib_netfit>)
  set_tests_properties(netcal_raw_errors PROPERTIES LABELS "netcal")
endif()
if(TARGET calib_netfit AND LLAMP_LIBCONFIG_INCLUDE AND LLAMP_LIBCONFIG_LIB)
  add_executable(check_netmodel ${CMAKE_CURRENT_SOURCE_DIR}/netcal/check_netmodel.c)
  target_include_directories(check_netmodel PRIVATE ${LLAMP_LIBCONFIG_INCLUDE})
  target_link_libraries(check_netmodel PRIVATE ${LLAMP_LIBCONFIG_LIB})
  set_target_properties(check_netmodel PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME netcal_smpi
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/netcal/smpi_check.sh ${CMAKE_BINARY_DIR}/bin
                   $<TARGET_FILE:check_netmodel> ${PROJECT_SOURCE_DIR})
  set_tests_properties(netcal_smpi PROPERTIES LABELS "netcal;needs-simgrid" SKIP_RETURN_CODE 77 TIMEOUT 120)
  if(TARGET calib_netbench_mpi)
    add_test(NAME netcal_quick
             COMMAND sh -c "command -v mpiexec >/dev/null || exit 77; f=\$(mktemp -d) && ${CMAKE_BINARY_DIR}/bin/llamp-calibrate network --quick --samples 60 --seed 1 -o \$f/net.cfg && $<TARGET_FILE:check_netmodel> \$f/net.cfg && test -s \$f/net.svg && grep -q 'intra' \$f/net.cfg && grep -q 'No inter samples' \$f/net.cfg; rc=\$?; rm -rf \$f; exit \$rc")
    set_tests_properties(netcal_quick PROPERTIES LABELS "netcal;native;needs-mpich" SKIP_RETURN_CODE 77
                         TIMEOUT 120 PROCESSORS 2)
    add_test(NAME netcal_netns
             COMMAND sh -c "command -v mpiexec >/dev/null && command -v ip >/dev/null && [ \$(id -u) = 0 ] || exit 77; f=\$(mktemp -d) && ${CMAKE_BINARY_DIR}/bin/llamp-calibrate network --netns --quick --samples 40 --seed 2 -o \$f/net.cfg && $<TARGET_FILE:check_netmodel> \$f/net.cfg && [ \"\$($<TARGET_FILE:check_netmodel> \$f/net.cfg network.scope)\" = inter ] && $<TARGET_FILE:check_netmodel> \$f/net.cfg network.intra.L; rc=\$?; rm -rf \$f; exit \$rc")
    set_tests_properties(netcal_netns PROPERTIES LABELS "netcal;native;needs-mpich;needs-root" SKIP_RETURN_CODE 77
                         TIMEOUT 180 PROCESSORS 2)
  endif()
endif()
#   kernels_record_rerun  llamp-calibrate kernels -- PROGRAM, twice with the same
#                         -o: the second fit counts only its own run's calls
#                         (stale record files are removed; needs-mpich)
if(TARGET llamp_calib_kernels AND TARGET stencil3d_mpi)
  add_test(NAME kernels_record_rerun
           COMMAND sh -c "command -v mpiexec >/dev/null || exit 77; f=\$(mktemp -d) && cd \$f && for i in 1 2; do ${CMAKE_BINARY_DIR}/bin/llamp-calibrate kernels -o k.cfg -- mpiexec -n 1 $<TARGET_FILE:stencil3d_mpi> --weak 8 --iters 6 > log\$i 2>&1 || { cat log\$i; exit 1; }; done; grep -q 'removed 1 record file' log2 && grep -q 'jacobi .* 5 calls' log2 && grep -q 'jacobi_res .* 1 calls' log2; rc=\$?; cat log2; cd /; rm -rf \$f; exit \$rc")
  set_tests_properties(kernels_record_rerun PROPERTIES LABELS "netcal;native;needs-mpich" SKIP_RETURN_CODE 77 TIMEOUT 60)
endif()
