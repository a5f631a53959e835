/* A program for the fault tests (run_test.sh faults): every rank loops over
 * an allreduce and a ring exchange.
 *   faults slow N     N iterations, each sleeping 0.1 s of real time (rank 0)
 *                     so that the run can be interrupted or raced
 *   faults kill N R   rank R kills itself with SIGKILL at iteration N / 2
 *   faults hold N F   N iterations, then rank 0 waits (real time, at most
 *                     10 min) while the file F exists, so that the run can be
 *                     raced or interrupted at a known point */
#define _GNU_SOURCE
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* real time (SMPI's sleep would be simulated time) */
static void real_sleep(long ns) {
  struct timespec ts = {0, ns};
  syscall(SYS_nanosleep, &ts, NULL);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 2 ? atoi(argv[2]) : 10;
  int victim = argc > 3 && strcmp(argv[1], "kill") == 0 ? atoi(argv[3]) : -1;
  int slow = argc > 1 && strcmp(argv[1], "slow") == 0;
  for (int i = 0; i < n; i++) {
    double x = rank + i, y;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Sendrecv(&x, 1, MPI_DOUBLE, (rank + 1) % size, 0, &y, 1, MPI_DOUBLE, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (slow && rank == 0) real_sleep(100000000);
    if (rank == victim && i == n / 2) {
      printf("rank %d: SIGKILL at iteration %d\n", rank, i);
      fflush(stdout);
      raise(SIGKILL); /* not kill(getpid()): SMPI's getpid is the rank's */
    }
  }
  if (argc > 3 && strcmp(argv[1], "hold") == 0 && rank == 0) {
    struct stat st;
    for (int k = 0; k < 12000 && stat(argv[3], &st) == 0; k++) real_sleep(50000000);
  }
  if (rank == 0) printf("faults: done\n");
  MPI_Finalize();
  return 0;
}
