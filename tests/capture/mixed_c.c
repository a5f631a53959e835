/* mixed_c.c - the C half of mixed_main.f90: `call c_ring(comm, n)` from
 * Fortran (gfortran: lower case, one underscore, arguments by reference). */
#include <mpi.h>

void c_ring_(const MPI_Fint *fcomm, const int *n) {
  MPI_Comm comm = MPI_Comm_f2c(*fcomm);
  int rank, size;
  double out[16], in[16];
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int i = 0; i < 16; i++) out[i] = rank;
  for (int i = 0; i < *n; i++)
    MPI_Sendrecv(out, 16, MPI_DOUBLE, (rank + 1) % size, 2, in, 16, MPI_DOUBLE,
                 (rank + size - 1) % size, 2, comm, MPI_STATUS_IGNORE);
}
