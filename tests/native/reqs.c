/* reqs.c - request patterns that MPICH answers with its shared builtin
 * handle (a request completed inside the call that made it), for the native
 * capture test (tests/native.cmake; native/native_reqs.h).  Exactly 2 ranks.
 * Rank 0 sends 10 small messages to rank 1 in these patterns:
 *   3 Isends into an array + Waitall            (keys by slot address)
 *   1 Isend into a temporary, copied, + Wait    (oldest-key fallback)
 *   2 Isends + 2 Waitany                        (partial completion)
 *   1 Isend + Request_free
 *   2 Isends + Testall until done
 *   1 Isend to MPI_PROC_NULL + Wait             (no message)
 *   1 Ibarrier on MPI_COMM_SELF + Wait
 *   1 Isend into a reused slot + Wait
 * Rank 1 receives them with blocking receives. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "reqs: needs exactly 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int v[16] = {0}, w[16] = {0};
  MPI_Status st[4];
  if (rank == 0) {
    MPI_Request a[3], tmp, b[2], r;
    for (int i = 0; i < 3; i++) MPI_Isend(&v[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &a[i]);
    MPI_Waitall(3, a, st);
    MPI_Isend(&v[3], 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &tmp);
    a[0] = tmp;
    MPI_Wait(&a[0], &st[0]);
    MPI_Isend(&v[4], 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &b[0]);
    MPI_Isend(&v[5], 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &b[1]);
    int idx;
    MPI_Waitany(2, b, &idx, &st[0]);
    MPI_Waitany(2, b, &idx, &st[0]);
    MPI_Isend(&v[6], 1, MPI_INT, 1, 6, MPI_COMM_WORLD, &r);
    MPI_Request_free(&r);
    MPI_Isend(&v[7], 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &b[0]);
    MPI_Isend(&v[8], 1, MPI_INT, 1, 8, MPI_COMM_WORLD, &b[1]);
    int flag = 0;
    while (!flag) MPI_Testall(2, b, &flag, st);
    MPI_Isend(&v[9], 1, MPI_INT, MPI_PROC_NULL, 9, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st[0]);
    MPI_Ibarrier(MPI_COMM_SELF, &r);
    MPI_Wait(&r, &st[0]);
    MPI_Isend(&v[10], 1, MPI_INT, 1, 10, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st[0]);
  } else {
    for (int t = 0; t <= 10; t++)
      if (t != 9) MPI_Recv(&w[t], 1, MPI_INT, 0, t, MPI_COMM_WORLD, &st[0]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("verification: PASSED (10 messages sent)\n");
  MPI_Finalize();
  return 0;
}
