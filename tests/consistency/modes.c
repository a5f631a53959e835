/* Point-to-point calls whose SMPI protocol differs from MPI_Send's, for the
 * consistency tests (tests/consistency/platforms.sh):
 *   modes CASE BYTES ITERS
 * CASE:
 *   probe   rank 0 receives an empty message from any rank, and answers it
 *           with BYTES; the others send theirs, then MPI_Probe the answer
 *           (SMPI polls with sleeping iprobes) and receive it (MPICH's
 *           probe-unexp);
 *   ssend   rank 0 sends BYTES to rank 1 with MPI_Ssend, then ITERS
 *           MPI_Issend back to back and an MPI_Waitall, while rank 1
 *           computes before each receive (the synchronous sender waits
 *           for its receiver whatever the size, and rank 0's compute after
 *           each wait ends the run);
 *   waitsome  rank 0 posts an MPI_Irecv from every other rank and an
 *           MPI_Ibarrier, and completes them with MPI_Waitsome until all
 *           are done, ITERS times; the others compute (longer the higher
 *           their rank), send BYTES and join the barrier.  SMPI runs each
 *           Waitsome as a Waitany then a sleeping MPI_Test of every other
 *           request: the call polls after its first completion (MPICH's
 *           coll/nonblocking3);
 *   waitall  rank 0 posts an MPI_Irecv from every other rank (rank order)
 *           and completes them with one MPI_Waitall, ITERS times; the
 *           others compute, longer the lower their rank, and send BYTES:
 *           the messages arrive during the call, in the reverse of the
 *           array's order.  SMPI's Waitall is a loop of Waitany, each
 *           completed receive sleeping smpi/or: the receives' or in the
 *           order they arrived (the capture records that order);
 *   persistent  rank 0 sends BYTES to rank 1 ITERS times, each through an
 *           MPI_Send_init request (MPI_Start, 3 us of compute, MPI_Wait);
 *           rank 1 receives them.  SMPI's MPI_Start of it sleeps os, not
 *           ois (the request has no MPI_REQ_ISEND);
 * Every rank computes a little, differently (smpi_execute_benched), so that
 * the waits are visible.  Prints "end RANK TIME". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 4 || p < 2) {
    if (rank == 0) fprintf(stderr, "usage: modes probe|ssend BYTES ITERS (2 ranks or more)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *c = argv[1];
  int n = atoi(argv[2]), iters = atoi(argv[3]);
  char *buf = calloc((size_t)n + 1, (size_t)iters + 1);
  MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(iters + 1));
  MPI_Status st;
  smpi_execute_benched(1e-6 * (10 + 7 * rank));
  if (!strcmp(c, "probe")) {
    for (int it = 0; it < iters; it++) {
      if (rank == 0) {
        for (int i = 1; i < p; i++) {
          MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, it, MPI_COMM_WORLD, &st);
          smpi_execute_benched(5e-6);
          MPI_Send(buf, n, MPI_BYTE, st.MPI_SOURCE, it, MPI_COMM_WORLD);
        }
      } else {
        MPI_Send(NULL, 0, MPI_BYTE, 0, it, MPI_COMM_WORLD);
        int count = 0;
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        MPI_Recv(buf, count, MPI_BYTE, 0, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        smpi_execute_benched(1e-6 * (3 + rank));
      }
    }
  } else if (!strcmp(c, "ssend")) {
    if (rank == 0) {
      MPI_Ssend(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      smpi_execute_benched(40e-6);
      for (int i = 0; i < iters; i++) MPI_Issend(buf + (size_t)i * n, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[i]);
      MPI_Waitall(iters, req, MPI_STATUSES_IGNORE);
      smpi_execute_benched(40e-6);
      MPI_Ssend(buf, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
      smpi_execute_benched(100e-6);
    } else if (rank == 1) {
      smpi_execute_benched(50e-6);
      MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int i = 0; i < iters; i++) {
        smpi_execute_benched(20e-6);
        MPI_Recv(buf + (size_t)i * n, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      smpi_execute_benched(30e-6);
      MPI_Recv(buf, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else if (!strcmp(c, "waitsome")) {
    int *idx = malloc(sizeof(int) * (size_t)p);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)p);
    for (int it = 0; it < iters; it++) {
      if (rank == 0) {
        for (int i = 1; i < p; i++)
          MPI_Irecv(buf, n, MPI_BYTE, i, it, MPI_COMM_WORLD, &rq[i - 1]);
        MPI_Ibarrier(MPI_COMM_WORLD, &rq[p - 1]);
        int left = p, out = 0;
        while (left > 0) {
          MPI_Waitsome(p, rq, &out, idx, MPI_STATUSES_IGNORE);
          if (out == MPI_UNDEFINED) break;
          left -= out;
          smpi_execute_benched(3e-6);
        }
      } else {
        smpi_execute_benched(1e-6 * (20 + 30 * rank));
        MPI_Send(buf, n, MPI_BYTE, 0, it, MPI_COMM_WORLD);
        MPI_Ibarrier(MPI_COMM_WORLD, &rq[0]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
      }
    }
    free(idx);
    free(rq);
  } else if (!strcmp(c, "waitall")) {
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)p);
    for (int it = 0; it < iters; it++) {
      if (rank == 0) {
        for (int i = 1; i < p; i++) MPI_Irecv(buf, n, MPI_BYTE, i, it, MPI_COMM_WORLD, &rq[i - 1]);
        smpi_execute_benched(1e-6);
        MPI_Waitall(p - 1, rq, MPI_STATUSES_IGNORE);
        smpi_execute_benched(2e-6);
      } else {
        smpi_execute_benched(1e-6 * (20 + 7.3 * (p - rank))); /* after 10 + 7 rank: 0.3 us apart */
        MPI_Send(buf, n, MPI_BYTE, 0, it, MPI_COMM_WORLD);
      }
    }
    free(rq);
  } else if (!strcmp(c, "persistent")) {
    if (rank == 0) { /* a request each time: SMPI 3.32 deadlocks when a detached one restarts */
      for (int it = 0; it < iters; it++) {
        MPI_Request r;
        MPI_Send_init(buf, n, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &r);
        MPI_Start(&r);
        smpi_execute_benched(3e-6);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Request_free(&r);
      }
    } else if (rank == 1) {
      for (int it = 0; it < iters; it++) MPI_Recv(buf, n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else {
    if (rank == 0) fprintf(stderr, "modes: unknown case '%s'\n", c);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  smpi_execute_benched(1e-6);
  if (rank == 0) printf("modes: %s done, %d ranks\n", c, p);
  printf("end %d %.15g\n", rank, MPI_Wtime());
  free(buf);
  free(req);
  MPI_Finalize();
  return 0;
}
