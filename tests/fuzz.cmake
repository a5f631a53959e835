# Fuzz harnesses (tests/fuzz/fuzz_NAME.c, docs/hardening.md).  One line per
# reader below: the harness, the library sources it needs beyond libsmpi_llamp
# (none for the library's own readers), and its seed corpus.
#
# Default build (any compiler): each harness is linked with a replay driver
# (fuzz/replay_main.c) and ctest runs it over its corpus: fuzz_NAME_corpus,
# labels unit;fuzz, a second or so.
# With clang and -DLLAMP_FUZZ=ON (a separate build tree; the whole tree is
# then compiled with the fuzzer's coverage and ASan+UBSan):
#   CC=clang CXX=clang++ cmake -S . -B build-fuzz -DLLAMP_FUZZ=ON
#   cmake --build build-fuzz --target fuzz_llt
#   mkdir -p /tmp/llt && LSAN_OPTIONS=suppressions=tests/fuzz/lsan.supp \
#     build-fuzz/tests/fuzz_llt -runs=10000000 /tmp/llt tests/data/fuzz/llt
# (the same ctest tests then run the libFuzzer binaries over the corpus).
#
# Adding a reader: write tests/fuzz/fuzz_NAME.c (LLVMFuzzerTestOneInput;
# fuzz_util.h has a memory file and the error-message oracle), put a few small
# valid inputs in tests/data/fuzz/NAME/, and add one llamp_fuzz() line.
set(_fz ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
set(_fz_data ${CMAKE_CURRENT_SOURCE_DIR}/data/fuzz)

# llamp_fuzz(NAME [SOURCES f.c ...] [INCLUDES dir ...] [LIBS lib ...] CORPUS dir ...)
function(llamp_fuzz name)
  cmake_parse_arguments(F "" "" "SOURCES;INCLUDES;LIBS;CORPUS" ${ARGN})
  if(LLAMP_FUZZ)
    add_executable(fuzz_${name} ${_fz}/fuzz_${name}.c ${F_SOURCES})
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  else()
    add_executable(fuzz_${name} ${_fz}/fuzz_${name}.c ${_fz}/replay_main.c ${F_SOURCES})
  endif()
  target_include_directories(fuzz_${name} PRIVATE ${_fz} ${F_INCLUDES})
  target_link_libraries(fuzz_${name} PRIVATE smpi_llamp ${F_LIBS})
  set_target_properties(fuzz_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  # -runs=0: libFuzzer executes each corpus input once and exits
  add_test(NAME fuzz_${name}_corpus COMMAND fuzz_${name} -runs=0 ${F_CORPUS})
  set_tests_properties(fuzz_${name}_corpus PROPERTIES LABELS "unit;fuzz" TIMEOUT 300
                       ENVIRONMENT "LSAN_OPTIONS=suppressions=${_fz}/lsan.supp")
endfunction()

llamp_fuzz(goal CORPUS ${CMAKE_CURRENT_SOURCE_DIR}/data/goal ${_fz_data}/goal)
llamp_fuzz(llg INCLUDES ${CMAKE_CURRENT_SOURCE_DIR}/unit CORPUS ${_fz_data}/llg) # llg_checksum.h
llamp_fuzz(llt CORPUS ${_fz_data}/llt)
llamp_fuzz(parse CORPUS ${_fz_data}/parse)
# the capture's model/config reader needs libconfig (as the capture does)
find_path(LLAMP_FUZZ_LIBCONFIG_INCLUDE libconfig.h)
find_library(LLAMP_FUZZ_LIBCONFIG_LIB config)
if(LLAMP_FUZZ_LIBCONFIG_INCLUDE AND LLAMP_FUZZ_LIBCONFIG_LIB)
  llamp_fuzz(config SOURCES ${PROJECT_SOURCE_DIR}/smpi_llamp/capture/config.c
             INCLUDES ${PROJECT_SOURCE_DIR}/smpi_llamp/capture ${LLAMP_FUZZ_LIBCONFIG_INCLUDE}
             LIBS smpi_llamp_netmodel_file ${LLAMP_FUZZ_LIBCONFIG_LIB}
             CORPUS ${PROJECT_SOURCE_DIR}/models ${_fz_data}/config)
endif()
llamp_fuzz(json CORPUS ${_fz_data}/json)
llamp_fuzz(routes CORPUS ${_fz_data}/routes)
llamp_fuzz(whatif CORPUS ${_fz_data}/whatif)
# the injector's settings (inject/config.c: plain C, no MPI)
llamp_fuzz(inject SOURCES ${PROJECT_SOURCE_DIR}/smpi_llamp/inject/config.c
           INCLUDES ${PROJECT_SOURCE_DIR}/smpi_llamp/inject CORPUS ${_fz_data}/inject)
# the kernel models (the `kernels` group of a model file; GSL, libconfig)
if(TARGET llamp_kmodel)
  llamp_fuzz(kmodel LIBS llamp_kmodel CORPUS ${PROJECT_SOURCE_DIR}/models ${_fz_data}/kmodel)
endif()
# the network calibration's raw files (calib/netfit.c, a program: its source
# is compiled into the harness with main renamed)
if(TARGET smpi_llamp_fit)
  llamp_fuzz(netcal INCLUDES ${PROJECT_SOURCE_DIR}/calib LIBS smpi_llamp_fit CORPUS ${_fz_data}/netcal)
endif()
