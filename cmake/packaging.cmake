# Installation and packages (docs/install.md):
#   cmake --install BUILD --prefix PREFIX   commands, libraries, headers, model
#                                           files, platforms, docs, man pages
#   cpack --config BUILD/CPackConfig.cmake  a Debian package (-G DEB)
# Installed: PREFIX/bin (commands; the wrapper scripts find the rest relative
# to themselves), PREFIX/LIBDIR (libsmpi_llamp.a, the capture libraries,
# pkgconfig/smpi_llamp.pc, cmake/smpi_llamp/), PREFIX/include/smpi_llamp,
# PREFIX/share/smpi-llamp/{models,platforms}, PREFIX/share/doc/smpi_llamp,
# PREFIX/share/man/man1.
# programs (each gets a man page from its --help): the CLI, the study and
# what-if runners, the calibration programs llamp-calibrate runs (beside it),
# the routes of a platform (needs SimGrid)
set(_cmds llamp llamp_hostspeed smpi_llamp-study smpi_llamp-whatif calib_netfit calib_netbench_mpi
          calib_loggp_mpi llamp_calib_kernels llamp-routes)
set(_found "")
foreach(t ${_cmds})
  if(TARGET ${t})
    install(TARGETS ${t} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    list(APPEND _found ${t})
  endif()
endforeach()
set(_cmds ${_found})
# llamp-calibrate: a script of its own (the programs beside it)
install(PROGRAMS ${LLAMP_INSTALL_SCRIPTS}/llamp-calibrate DESTINATION ${CMAKE_INSTALL_BINDIR})
list(APPEND _cmds llamp-calibrate)
# the native kernel recorder (LD_PRELOAD; llamp_calib_kernels finds it in LIBDIR)
if(TARGET llamp_kernel_record)
  install(TARGETS llamp_kernel_record LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
# the latency injector for MPICH runs
if(TARGET llamp_inject)
  install(TARGETS llamp_inject LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  foreach(t llamp-inject llamp-validate)
    install(PROGRAMS ${LLAMP_INSTALL_SCRIPTS}/${t} DESTINATION ${CMAKE_INSTALL_BINDIR})
    list(APPEND _cmds ${t})
  endforeach()
endif()
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/llamp-platform DESTINATION ${CMAKE_INSTALL_BINDIR})

# the library and its headers, exported for find_package(smpi_llamp)
install(TARGETS smpi_llamp EXPORT smpi_llampTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
file(GLOB _llamp_headers ${PROJECT_SOURCE_DIR}/smpi_llamp/*/llamp_*.h)
install(FILES ${_llamp_headers} DESTINATION ${LLAMP_INSTALL_INCDIR})
# the build tree's include directories are per module; installed, one folder
get_target_property(_inc smpi_llamp INTERFACE_INCLUDE_DIRECTORIES)
set(_wrapped "")
foreach(d ${_inc})
  list(APPEND _wrapped $<BUILD_INTERFACE:${d}>)
endforeach()
set_target_properties(smpi_llamp PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_wrapped}")
target_include_directories(smpi_llamp INTERFACE $<INSTALL_INTERFACE:${LLAMP_INSTALL_INCDIR}>)
install(EXPORT smpi_llampTargets NAMESPACE smpi_llamp:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/smpi_llamp)
include(CMakePackageConfigHelpers)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/smpi_llampConfig.cmake.in
  ${CMAKE_BINARY_DIR}/smpi_llampConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/smpi_llamp
  PATH_VARS CMAKE_INSTALL_BINDIR LLAMP_INSTALL_SHAREDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/smpi_llampConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/smpi_llampConfig.cmake ${CMAKE_BINARY_DIR}/smpi_llampConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/smpi_llamp)
file(RELATIVE_PATH LLAMP_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${PROJECT_SOURCE_DIR}/cmake/smpi_llamp.pc.in ${CMAKE_BINARY_DIR}/smpi_llamp.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/smpi_llamp.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# the capture (SMPI) and the native capture (MPICH), where they were built
if(TARGET smpi_llamp_capture_rt)
  install(TARGETS smpi_llamp_capture smpi_llamp_capture_rt
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  # smpi_llamp-run's helper: beside the runtime, as the script expects
  install(TARGETS smpi_llamp-run-prep RUNTIME DESTINATION ${CMAKE_INSTALL_LIBDIR})
  foreach(t smpi_llamp-cc smpi_llamp-cxx smpi_llamp-f90 smpi_llamp-ff smpi_llamp-run)
    install(PROGRAMS ${LLAMP_INSTALL_SCRIPTS}/${t} DESTINATION ${CMAKE_INSTALL_BINDIR})
    list(APPEND _cmds ${t})
  endforeach()
  install(PROGRAMS ${LLAMP_INSTALL_SCRIPTS}/smpi_llamp-latency DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
if(TARGET llamp_capture_native)
  install(TARGETS llamp_capture_native LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(PROGRAMS ${LLAMP_INSTALL_SCRIPTS}/llamp-trace DESTINATION ${CMAKE_INSTALL_BINDIR})
  list(APPEND _cmds llamp-trace)
endif()

# data and documentation
install(DIRECTORY ${PROJECT_SOURCE_DIR}/models ${PROJECT_SOURCE_DIR}/platforms
        DESTINATION ${LLAMP_INSTALL_SHAREDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

# man pages: the text of each command's --help (tools/gen-man.sh)
set(_man_dir ${CMAKE_BINARY_DIR}/man/man1)
set(_pages "")
foreach(c ${_cmds} llamp-platform)
  if(c STREQUAL "llamp-platform")
    find_package(Python3 COMPONENTS Interpreter QUIET)
    if(NOT Python3_Interpreter_FOUND)
      continue()
    endif()
    set(_run ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/llamp-platform)
    set(_dep ${PROJECT_SOURCE_DIR}/tools/llamp-platform)
  elseif(TARGET ${c})
    set(_run $<TARGET_FILE:${c}>)
    set(_dep ${c})
  else()
    set(_run ${CMAKE_BINARY_DIR}/bin/${c})
    set(_dep ${CMAKE_BINARY_DIR}/bin/${c} ${PROJECT_SOURCE_DIR}/tools/smpi_llamp-cc.in
             ${PROJECT_SOURCE_DIR}/tools/smpi_llamp-run.in ${PROJECT_SOURCE_DIR}/tools/llamp-trace.in
             ${PROJECT_SOURCE_DIR}/tools/llamp-calibrate.in ${PROJECT_SOURCE_DIR}/tools/llamp-inject.in
             ${PROJECT_SOURCE_DIR}/tools/llamp-validate.in)
  endif()
  add_custom_command(OUTPUT ${_man_dir}/${c}.1
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_man_dir}
    COMMAND sh ${PROJECT_SOURCE_DIR}/tools/gen-man.sh ${_man_dir}/${c}.1 ${c} ${PROJECT_VERSION} ${_run}
    DEPENDS ${_dep} ${PROJECT_SOURCE_DIR}/tools/gen-man.sh
    COMMENT "Man page ${c}.1 from '${c} --help'" VERBATIM)
  list(APPEND _pages ${_man_dir}/${c}.1)
endforeach()
add_custom_target(man_pages ALL DEPENDS ${_pages})
if(TARGET smpi_llamp_capture_all)
  add_dependencies(man_pages smpi_llamp_capture_all)
endif()
install(FILES ${_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# cpack -G DEB: one package with everything above, depending on what the
# commands run (SimGrid's smpicc/smpirun, libconfig, MPICH for llamp-trace)
set(CPACK_PACKAGE_NAME smpi-llamp)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "smpi-llamp maintainers <smpi-llamp@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "latency sensitivity of MPI programs under SMPI (LLAMP)")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libsimgrid-dev (>= 3.32), libconfig9, python3")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libmpich-dev, mpich, gfortran, glpk-utils")
set(CPACK_PACKAGE_FILE_NAME smpi-llamp_${PROJECT_VERSION}_amd64)
include(CPack)
