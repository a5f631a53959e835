# Proxy application runs (apps/, docs/apps.md): every app under mpiexec
# (label needs-mpich) and under smpirun on apps/common/platform_small.xml
# (label needs-simgrid), at small sizes.  The driver apps/common/run-app-test.sh
# exits 77 (skipped) when the launcher or the app's flavour is missing.
find_program(LLAMP_TEST_MPIEXEC NAMES mpiexec.mpich mpiexec)
find_program(LLAMP_TEST_SMPIRUN NAMES smpirun)
set(_apps_driver ${PROJECT_SOURCE_DIR}/apps/common/run-app-test.sh)
set(_apps_model ${PROJECT_SOURCE_DIR}/apps/common/kernel_model_example.txt)

# llamp_app_test(NAME APP FLAVOUR NP [DRIVER options...] -- [app arguments...])
function(llamp_app_test name app flavour np)
  set(driver_args)
  set(app_args)
  set(seen_sep OFF)
  foreach(a ${ARGN})
    if(a STREQUAL "--" AND NOT seen_sep)
      set(seen_sep ON)
    elseif(seen_sep)
      list(APPEND app_args ${a})
    else()
      list(APPEND driver_args ${a})
    endif()
  endforeach()
  if(flavour STREQUAL "mpi")
    set(kind mpich)
    set(launcher "${LLAMP_TEST_MPIEXEC}")
    if(TARGET ${app}_mpi)
      get_target_property(bin ${app}_mpi LLAMP_OUTPUT) # Fortran apps: a custom target
      if(NOT bin)
        set(bin $<TARGET_FILE:${app}_mpi>)
      endif()
    else()
      set(bin none)
    endif()
  else()
    set(kind simgrid)
    set(launcher "${LLAMP_TEST_SMPIRUN}")
    if(TARGET ${app}_smpi)
      get_target_property(bin ${app}_smpi LLAMP_OUTPUT)
    else()
      set(bin none)
    endif()
  endif()
  if(NOT launcher)
    set(launcher "")
  endif()
  add_test(NAME ${name}
           COMMAND sh ${_apps_driver} --kind ${kind} --launcher "${launcher}" --np ${np}
                   ${driver_args} ${bin} ${app_args}
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set(procs ${np})
  if(kind STREQUAL "simgrid" OR procs GREATER 2)
    set(procs 2) # smpirun is one process; mpiexec beyond 2 ranks oversubscribes anyway
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "apps;needs-${kind}" SKIP_RETURN_CODE 77
                       TIMEOUT 60 PROCESSORS ${procs})
endfunction()

# ---- native (MPICH) ----
llamp_app_test(apps_latency_example_mpi latency_example mpi 2 -- --iters 20)
llamp_app_test(apps_latency_example_mpi_expect latency_example mpi 2
               --rc 2 --expect "verification: FAILED" -- --expect 1s)
llamp_app_test(apps_latency_example_mpi_ranks latency_example mpi 3
               --rc 1 --expect "needs exactly 2 ranks" --)
llamp_app_test(apps_pingpong_mpi pingpong mpi 2 -- --sizes 0:64K --reps 20)
llamp_app_test(apps_pingpong_mpi_badopt pingpong mpi 2 --rc 1 --expect "see --help" -- --sizes 1:x)
llamp_app_test(apps_stencil3d_mpi stencil3d mpi 4 -- --weak 12 --iters 30 --check-every 5)
llamp_app_test(apps_stencil3d_mpi_tol stencil3d mpi 2
               -- --strong 20,16,12 --iters 2000 --tol 1e-5 --check-every 10)
llamp_app_test(apps_cg_mpi cg mpi 4 -- --weak 8)
llamp_app_test(apps_cg_mpi_2d cg mpi 2 -- --dim 2 --strong 64,48)
llamp_app_test(apps_lu_mpi lu mpi 4 -- --n 192 --nb 32)
foreach(b 1ring 1ringM 2ring 2ringM long longM)
  foreach(d 0 1)
    llamp_app_test(apps_lu_mpi_${b}_d${d} lu mpi 3 -- --n 91 --nb 8 --grid 1x3 --bcast ${b} --depth ${d})
  endforeach()
endforeach()
llamp_app_test(apps_lu_mpi_profile lu mpi 2
               --env LLAMP_KERNEL_PROFILE=${CMAKE_CURRENT_BINARY_DIR}/apps_lu_profile.txt
               --file-contains ${CMAKE_CURRENT_BINARY_DIR}/apps_lu_profile.txt dgemm
               -- --n 160 --nb 16)
llamp_app_test(apps_fft_mpi fft mpi 4 -- --n 16 --iters 2)
llamp_app_test(apps_fft_mpi_slab fft mpi 2 -- --decomp slab --n 32,16,8)
llamp_app_test(apps_sweep_mpi sweep mpi 4 -- --weak 6,6,16 --angles 2)
llamp_app_test(apps_sweep_mpi_2 sweep mpi 2 -- --weak 12,12,24 --kb 3 --octants 5 --iters 3)
llamp_app_test(apps_hydro3d_mpi hydro3d mpi 2 -- --weak 8 --iters 20)
llamp_app_test(apps_hydro3d_mpi_waitall hydro3d mpi 3 -- --weak 6 --iters 10 --send-wait all)
llamp_app_test(apps_hydro3d_mpi_dims hydro3d mpi 2 --rc 1 --expect "does not match" -- --dims 2,2,1)
llamp_app_test(apps_md_mpi md mpi 2 -- --weak 4 --steps 20)
llamp_app_test(apps_cg_mpi_any cg mpi 3 -- --weak 8 --any-source)
llamp_app_test(apps_fft_mpi_alltoallv fft mpi 3 -- --n 16 --iters 2 --alltoallv)
# Fortran apps: the checksum (10 digits) must be the same natively and under
# SMPI, on different numbers of ranks
set(_heat_sum "checksum:  1.0240000000E+03  7.1933027077E+03")
llamp_app_test(apps_heat2d_mpi heat2d mpi 2 --expect "${_heat_sum}" --expect "verification: PASSED"
               -- --n 32,32 --iters 40)
llamp_app_test(apps_heat2d_mpi_2 heat2d mpi 2 -- --weak 15,12 --mode 2,1 --r 0.25 --iters 30)
set(_wave_sum "checksum:  5.2699505355E+04  4.7194771251E+05")
llamp_app_test(apps_wavefront_mpi wavefront mpi 4 --expect "${_wave_sum}" --expect "verification: PASSED"
               -- --n 16,16,12 --kb 3 --iters 3)
llamp_app_test(apps_wavefront_mpi_2 wavefront mpi 2 -- --weak 10,14,9 --kb 2 --sweeps 2 --iters 2)
llamp_app_test(apps_wavefront_mpi_badopt wavefront mpi 2 --rc 1 --expect "see --help" -- --kb 0)
foreach(app latency_example pingpong stencil3d cg lu fft sweep hydro3d md heat2d wavefront)
  llamp_app_test(apps_${app}_mpi_help ${app} mpi 1 --expect "usage: ${app}" -- --help)
endforeach()

# ---- SimGrid SMPI ----
# The paper's example, exact: kernels by their built-in models, no measured
# compute, a pure latency + size/bandwidth network (2 links of 1 us, 20 B at
# 10 GB/s).  SMPI starts the transfer when the receive is posted (0.5 us).
llamp_app_test(apps_latency_example_smpi latency_example smpi 2
               --cfg --cfg=smpi/simulate-computation:no --cfg --cfg=smpi/wtime:0
               --cfg --cfg=smpi/lat-factor:0:1 --cfg --cfg=smpi/bw-factor:0:1
               -- --expect 3.502us)
llamp_app_test(apps_pingpong_smpi pingpong smpi 4 -- --sizes 0:1M --reps 5)
llamp_app_test(apps_stencil3d_smpi stencil3d smpi 16 -- --weak 8 --iters 20 --check-every 4)
llamp_app_test(apps_stencil3d_smpi_model stencil3d smpi 16
               --env LLAMP_KERNEL_MODEL=${_apps_model} --cfg --cfg=smpi/simulate-computation:no
               --expect "verification: SKIPPED" -- --weak 32 --iters 50)
llamp_app_test(apps_cg_smpi cg smpi 8 -- --weak 8)
llamp_app_test(apps_cg_smpi_model cg smpi 16
               --env LLAMP_KERNEL_MODEL=${_apps_model} --cfg --cfg=smpi/simulate-computation:no
               --expect "exactly 30 iterations" --expect "verification: SKIPPED"
               -- --weak 16 --iters 30)
llamp_app_test(apps_lu_smpi lu smpi 16 -- --n 256 --nb 32)
llamp_app_test(apps_lu_smpi_long_d0 lu smpi 12 -- --n 200 --nb 16 --grid 3x4 --bcast long --depth 0)
llamp_app_test(apps_lu_smpi_model lu smpi 16
               --env LLAMP_KERNEL_MODEL=${_apps_model} --cfg --cfg=smpi/simulate-computation:no
               --expect "verification: SKIPPED" -- --n 2048 --nb 128)
llamp_app_test(apps_fft_smpi fft smpi 16 -- --n 32 --iters 2)
llamp_app_test(apps_fft_smpi_slab fft smpi 8 -- --decomp slab --n 32,16,16)
llamp_app_test(apps_sweep_smpi sweep smpi 16 -- --weak 6,6,16)
# the same checksums as MPICH for the same decomposition (2 ranks above)
llamp_app_test(apps_hydro3d_smpi_2 hydro3d smpi 2 --expect "checksum: 2.288123455283e+04"
               --expect "verification: PASSED" -- --weak 8 --iters 20)
llamp_app_test(apps_hydro3d_smpi hydro3d smpi 12 -- --weak 6 --iters 20)
llamp_app_test(apps_hydro3d_smpi_p7 hydro3d smpi 7 -- --weak 6 --iters 20 --send-wait all)
llamp_app_test(apps_hydro3d_smpi_model hydro3d smpi 8
               --env LLAMP_KERNEL_MODEL=${_apps_model} --cfg --cfg=smpi/simulate-computation:no
               --expect "verification: SKIPPED" -- --weak 12 --iters 20)
llamp_app_test(apps_md_smpi_2 md smpi 2 --expect "checksum: -8.613330267e+02" -- --steps 20)
llamp_app_test(apps_md_smpi md smpi 12 -- --weak 4 --steps 20)
llamp_app_test(apps_md_smpi_p7 md smpi 7 -- --weak 4 --steps 20)
llamp_app_test(apps_cg_smpi_any cg smpi 7 -- --weak 8 --any-source)
llamp_app_test(apps_fft_smpi_alltoallv fft smpi 12 -- --n 32,16,16 --iters 2 --alltoallv)
llamp_app_test(apps_fft_smpi_alltoallv_p7 fft smpi 7 -- --n 16 --iters 2 --alltoallv --grid 7x1)
llamp_app_test(apps_heat2d_smpi heat2d smpi 16 --expect "${_heat_sum}" --expect "verification: PASSED"
               -- --n 32,32 --iters 40)
llamp_app_test(apps_wavefront_smpi wavefront smpi 16 --expect "${_wave_sum}" --expect "verification: PASSED"
               -- --n 16,16,12 --kb 3 --iters 3)
llamp_app_test(apps_wavefront_smpi_12 wavefront smpi 12 -- --n 16,18,12 --grid 4x3 --kb 2 --sweeps 2 --iters 2)
llamp_app_test(apps_wavefront_smpi_badgrid wavefront smpi 12 --rc 1
               --expect "NX and NY must be multiples of the process grid" -- --n 16,16,12 --grid 4x3)
llamp_app_test(apps_wavefront_smpi_model wavefront smpi 16 --cfg --cfg=smpi/simulate-computation:no
               --expect "kernels: modelled, 5.000 us per block" --expect "verification: PASSED"
               -- --n 16,16,12 --kb 3 --iters 3 --block-us 5)
foreach(app latency_example pingpong stencil3d cg lu fft sweep hydro3d md heat2d wavefront)
  # SimGrid consumes --help itself: the apps also take -h
  llamp_app_test(apps_${app}_smpi_help ${app} smpi 1 --expect "usage: ${app}" -- -h)
endforeach()
