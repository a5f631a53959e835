/* kernels.c - a program with annotated regions and BLAS calls for the
 * capture's kernel-model tests (run_test.sh kernels_*): per iteration a
 * region in macro form ("work", skipped when modelled), a region in
 * begin/end form ("assemble", runs; its time replaced when modelled), a
 * cblas_dgemm and a cblas_ddot (interposed), a ring exchange and an
 * MPI_Allreduce.  Prints "calls RANK WORK_RUN" (how often the work
 * statement ran), "dot RANK VALUE" and "end RANK TIME".
 *   kernels [N [ITERATIONS]] */
#include <cblas.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <llamp_region.h>

static double spin(double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    a[i] = a[i] * 0.999 + 0.001 * i;
    s += a[i];
  }
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = argc > 1 ? atoi(argv[1]) : 64, iters = argc > 2 ? atoi(argv[2]) : 20;
  double *a = calloc((size_t)n * n, sizeof *a), *b = calloc((size_t)n * n, sizeof *b),
         *c = calloc((size_t)n * n, sizeof *c), s = 0, dot = 0, sbuf[16] = {0}, rbuf[16];
  for (int i = 0; i < n * n; i++) a[i] = b[i] = 1.0 / (1 + i % 7);
  long ran = 0;
  for (int it = 0; it < iters; it++) {
    LLAMP_REGION("work", n, n + rank, 0, s += spin(c, n * n); ran++);
    llamp_region_begin("assemble", n * n, 0, 0);
    s += spin(b, n * n);
    llamp_region_end();
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
    dot = cblas_ddot(n, a, 1, a, 1);
    MPI_Request r[2];
    MPI_Irecv(rbuf, 16, MPI_DOUBLE, (rank + size - 1) % size, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(sbuf, 16, MPI_DOUBLE, (rank + 1) % size, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    double m;
    MPI_Allreduce(&s, &m, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  }
  printf("calls %d %ld\n", rank, ran);
  printf("dot %d %.6f\n", rank, dot);
  printf("end %d %.9f\n", rank, MPI_Wtime());
  free(a);
  free(b);
  free(c);
  MPI_Finalize();
  return 0;
}
