# Install layout (GNUInstallDirs) and the paths the installed wrapper scripts
# use: relative to their own directory (PREFIX/bin), so that an installed
# tree works wherever it is unpacked (a module tree, dpkg-deb -x, DESTDIR).
include(GNUInstallDirs)
set(LLAMP_INSTALL_INCDIR ${CMAKE_INSTALL_INCLUDEDIR}/smpi_llamp)
set(LLAMP_INSTALL_SHAREDIR ${CMAKE_INSTALL_DATADIR}/smpi-llamp)
foreach(d LIBDIR INCDIR SHAREDIR)
  if(d STREQUAL "LIBDIR")
    set(_to ${CMAKE_INSTALL_LIBDIR})
  else()
    set(_to ${LLAMP_INSTALL_${d}})
  endif()
  file(RELATIVE_PATH _rel /p/${CMAKE_INSTALL_BINDIR} /p/${_to})
  set(LLAMP_BIN_TO_${d} "\${self_dir}/${_rel}")
  set(LLAMP_BIN_TO_${d}_REL "${_rel}") # for programs, which find their directory themselves
endforeach()
set(LLAMP_INSTALL_SCRIPTS ${CMAKE_BINARY_DIR}/install-bin)

# installed models/ as seen from the capture runtime's directory (LIBDIR)
file(RELATIVE_PATH LLAMP_LIB_TO_MODELS /p/${CMAKE_INSTALL_LIBDIR} /p/${LLAMP_INSTALL_SHAREDIR}/models)
