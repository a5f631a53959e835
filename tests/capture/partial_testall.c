/* MPI_Testall whose flag is false after one of its requests completed:
 * SMPI tests each request and frees the completed ones anyway, so the
 * trace must complete that one there (tests/capture/run_test.sh,
 * partial_testall). */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int r, x[2] = {0, 0}, f = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Request q[2];
  if (r == 0) {
    MPI_Irecv(&x[0], 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &q[0]);
    MPI_Irecv(&x[1], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &q[1]);
    smpi_execute_benched(1e-3);
    MPI_Testall(2, q, &f, MPI_STATUSES_IGNORE); /* the first arrived, the second not: SMPI completes and frees the first all the same */
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    printf("testall flag %d, q[0] %s\n", f, q[0] == MPI_REQUEST_NULL ? "null" : "live");
  } else {
    MPI_Send(&r, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    smpi_execute_benched(5e-3);
    MPI_Send(&r, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
