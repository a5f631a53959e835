/* mixed_cmain.c + mixed_sub.f90: a C main program that calls a Fortran
 * subroutine doing MPI (f_ring, 2 Sendrecv of tag 3 on MPI_COMM_WORLD handed
 * as a Fortran handle), then one C Barrier. */
#include <mpi.h>
#include <stdio.h>

void f_ring_(const MPI_Fint *fcomm, const int *n);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Fint fcomm = MPI_Comm_c2f(MPI_COMM_WORLD);
  int n = 2, rank;
  f_ring_(&fcomm, &n);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("mixed_cmain: done\n");
  MPI_Finalize();
  return 0;
}
