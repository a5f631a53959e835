/* short_bursts.c - compute bursts below smpi/cpu-threshold, of two kinds,
 * for run_test.sh compute_threshold:
 *   short_bursts wait SECONDS   each rank waits SECONDS of simulated time
 *                               twice, spinning on the clock (gettimeofday,
 *                               then MPI_Wtime), as PRK's prk_pause does
 *   short_bursts calls N        N barriers, a few hundred nanoseconds of
 *                               arithmetic before each: compute that SimGrid's
 *                               threshold drops
 * Both end with one real burst of about a millisecond before MPI_Finalize.
 * Prints "short_bursts: done". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static double clock_read(int use_wtime) {
  if (use_wtime) return MPI_Wtime();
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}

static volatile double sink;

static void arithmetic(long n) {
  double x = 0;
  for (long i = 0; i < n; i++) x += (double)i * 1e-9;
  sink = x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc != 3 || (strcmp(argv[1], "wait") && strcmp(argv[1], "calls"))) {
    fprintf(stderr, "usage: short_bursts wait SECONDS | calls N\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (!strcmp(argv[1], "wait")) {
    double pause = atof(argv[2]);
    for (int use_wtime = 0; use_wtime < 2; use_wtime++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = clock_read(use_wtime);
      while (clock_read(use_wtime) - t0 < pause) {
      }
    }
  } else {
    long n = atol(argv[2]);
    for (long i = 0; i < n; i++) {
      arithmetic(40);
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
  arithmetic(1000000);
  MPI_Barrier(MPI_COMM_WORLD);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!rank) printf("short_bursts: done\n");
  MPI_Finalize();
  return 0;
}
