/* compute.c - a program with real compute for the capture's compute tests
 * (run_test.sh compute_*): each iteration runs a floating-point kernel whose
 * length differs by rank, a ring exchange and an MPI_Allreduce(MIN) of one
 * double (a time step).  The program measures its own kernels with the
 * thread CPU clock: natively (MPICH) that is the real compute time; under
 * SMPI the clock is the simulated one, so it reads the simulated compute.
 *   compute [N_ELEMENTS [ITERATIONS]]     prints "compute RANK SECONDS" (the
 *   kernels), "setup RANK SECONDS" (from MPI_Init to the first kernel: under
 *   SMPI its calloc writes the array, 80 first page touches of ~6 us on a VM,
 *   where natively the first kernel takes them) and "end RANK TIME"
 *   (MPI_Wtime before MPI_Finalize) per rank, and "kreal RANK SECONDS", the
 *   kernels on the real thread CPU clock.  Under SMPI,
 *   "compute" and "kreal" time the same executions with the simulated and
 *   the real clock: a comparison no drift of the machine's speed can upset. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* (clock_gettime) in parentheses is not the function-like macro SMPI
 * defines (smpi_helpers.h), so it reads the real clock under SMPI too */
static double real_cpu_now(void) {
  struct timespec ts;
  (clock_gettime)(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double kernel(double *a, int n, int reps) {
  double s = 0;
  for (int r = 0; r < reps; r++)
    for (int i = 0; i < n; i++) {
      a[i] = a[i] * 0.999 + 0.001 * i;
      s += a[i];
    }
  return s;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  double setup0 = cpu_now();
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 20000, iters = argc > 2 ? atoi(argv[2]) : 100;
  double *a = calloc((size_t)n, sizeof *a), sbuf[64] = {0}, rbuf[64], s = 0, busy = 0, kreal = 0;
  if (!a) MPI_Abort(MPI_COMM_WORLD, 1);
  double setup = cpu_now() - setup0;
  for (int it = 0; it < iters; it++) {
    double t0 = cpu_now(), r0 = real_cpu_now();
    s += kernel(a, n, 1 + rank % 3);
    kreal += real_cpu_now() - r0;
    busy += cpu_now() - t0;
    MPI_Request r[2];
    MPI_Irecv(rbuf, 64, MPI_DOUBLE, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(sbuf, 64, MPI_DOUBLE, (rank + 1) % size, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    double dt = s, m;
    MPI_Allreduce(&dt, &m, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  }
  printf("compute %d %.9f\n", rank, busy);
  printf("setup %d %.9f\n", rank, setup);
  printf("kreal %d %.9f\n", rank, kreal);
  printf("end %d %.9f\n", rank, MPI_Wtime());
  free(a);
  MPI_Finalize();
  return 0;
}
