/* 1-D halo with a token chain for the NIC rule's consistency test (nic.sh):
 *   halo1d ITERS BYTES
 * Each iteration: a 1-byte token goes 0 -> 1 -> ... -> P-1 (blocking), then
 * every rank posts two Irecv and two Isend of BYTES to its periodic left
 * and right neighbours and waits for all four: the two sends leave a host
 * together and share its link. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: halo1d ITERS BYTES\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int iters = atoi(argv[1]), bytes = atoi(argv[2]);
  char *s = calloc(2 * (size_t)bytes + 1, 1), *r = calloc(2 * (size_t)bytes + 1, 1), tok = 0;
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  for (int it = 0; it < iters; it++) {
    if (rank > 0) MPI_Recv(&tok, 1, MPI_CHAR, rank - 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank < size - 1) MPI_Send(&tok, 1, MPI_CHAR, rank + 1, 9, MPI_COMM_WORLD);
    MPI_Request q[4];
    MPI_Irecv(r, bytes, MPI_CHAR, left, 0, MPI_COMM_WORLD, &q[0]);
    MPI_Irecv(r + bytes, bytes, MPI_CHAR, right, 1, MPI_COMM_WORLD, &q[1]);
    MPI_Isend(s, bytes, MPI_CHAR, right, 0, MPI_COMM_WORLD, &q[2]);
    MPI_Isend(s + bytes, bytes, MPI_CHAR, left, 1, MPI_COMM_WORLD, &q[3]);
    MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
  }
  free(s);
  free(r);
  MPI_Finalize();
  return 0;
}
