# smpi_llamp-study: the job pool, resume and merge with a stand-in runner
# (tests/study/fake_runner.sh: reports follow from the seed), then the
# statistics checked against a direct computation (check_study.py).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND)
  set(_st "$<TARGET_FILE:smpi_llamp-study> --runner ${CMAKE_CURRENT_SOURCE_DIR}/study/fake_runner.sh")
  set(_chk "${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/study/check_study.py")
  # 9 samples, 3 at a time; the same seed in another directory, one at a time,
  # gives a byte-identical study.json; a rerun runs nothing.
  add_test(NAME study_pool_merge COMMAND sh -c
    "rm -rf sa sb cnt; FAKE_COUNT=cnt ${_st} -n 9 -j 3 --seed 100 --out sa ./app x > /dev/null && ${_chk} sa 9 --fake && ${_st} -n 9 -j 1 --seed 100 --out sb ./app x > /dev/null && cmp sa/study.json sb/study.json && cmp sa/study.csv sb/study.csv && test $(wc -l < cnt) -eq 9 && FAKE_COUNT=cnt ${_st} -n 9 --seed 100 --out sa ./app x > /dev/null && test $(wc -l < cnt) -eq 9")
  # A failed sample: exit 1, named; the rerun runs only it and ends equal to a clean study.
  add_test(NAME study_resume_failed COMMAND sh -c
    "rm -rf sc sd cnt2; FAKE_FAIL=103 ${_st} -n 6 -j 2 --seed 100 --out sc ./app > /dev/null 2> err_failed; test $? -eq 1 && grep -q 'sample 3 (seed 103) failed' err_failed && grep -q '1 of 6 samples missing' err_failed && FAKE_COUNT=cnt2 ${_st} -n 6 --seed 100 --out sc ./app > /dev/null && test $(cat cnt2) = 103 && ${_st} -n 6 --seed 100 --out sd ./app > /dev/null && cmp sc/study.json sd/study.json")
  # The study killed halfway (by the 4th sample's runner): the rerun finishes the 5 missing ones.
  add_test(NAME study_resume_killed COMMAND sh -c
    "rm -rf se cnt3; FAKE_KILL=203 ${_st} -n 8 -j 1 --seed 200 --out se ./app > /dev/null 2>&1; ls se/sample-*/done | wc -l > ndone; test $(cat ndone) -eq 3 && FAKE_COUNT=cnt3 ${_st} -n 8 --seed 200 --out se ./app > /dev/null && test $(wc -l < cnt3) -eq 5 && ${_chk} se 8 --fake")
  # Another study in the same directory is refused; the Slurm script is valid bash.
  # (Each test writes files of its own names: ctest -j runs them side by side.)
  add_test(NAME study_plan_slurm COMMAND sh -c
    "rm -rf sf; ${_st} -n 2 --seed 1 --out sf ./app > /dev/null && ${_st} -n 2 --seed 2 --out sf ./app 2> err_slurm; test $? -eq 1 && grep -q 'sf holds another study' err_slurm && ${_st} -n 40 --seed 1 --out sf --slurm job.sh ./app 2> /dev/null && grep -q 'SBATCH --array=0-39' job.sh && bash -n job.sh")
  set_tests_properties(study_pool_merge study_resume_failed study_resume_killed study_plan_slurm
                       PROPERTIES LABELS "cli;study" WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endif()
# A real study: apps/stencil3d under SimGrid with stochastic kernel models.
add_test(NAME study_stencil3d_simgrid
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study/real_study.sh ${CMAKE_BINARY_DIR}/bin ${PROJECT_SOURCE_DIR})
set_tests_properties(study_stencil3d_simgrid PROPERTIES LABELS "study;needs-simgrid" SKIP_RETURN_CODE 77
                     WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
# The same on a real Slurm: a private one-node cluster (tests/study/slurm_cluster.sh)
# started once for these tests (fixture `slurm`), stopped after them; skipped
# with the reason when it cannot start (not root, munge or Slurm not installed).
set(_slurm_dir ${CMAKE_CURRENT_BINARY_DIR}/slurm-cluster)
add_test(NAME slurm_cluster_start COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study/slurm_cluster.sh start ${_slurm_dir})
add_test(NAME slurm_cluster_stop COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study/slurm_cluster.sh stop ${_slurm_dir})
set_tests_properties(slurm_cluster_start PROPERTIES FIXTURES_SETUP slurm SKIP_RETURN_CODE 77 LABELS "study;slurm")
set_tests_properties(slurm_cluster_stop PROPERTIES FIXTURES_CLEANUP slurm LABELS "study;slurm")
foreach(_case study killed failing whatif)
  add_test(NAME slurm_${_case} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/study/slurm_study.sh ${_case}
           ${CMAKE_BINARY_DIR}/bin ${PROJECT_SOURCE_DIR} ${_slurm_dir})
  set_tests_properties(slurm_${_case} PROPERTIES FIXTURES_REQUIRED slurm SKIP_RETURN_CODE 77 LABELS "study;slurm"
                       WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()
