/* Calls every MPI function the capture layer models (mpi_table.txt), on 4
 * ranks, deterministically (run with --cfg=smpi/simulate-computation:no).
 * tests/capture/all_calls.expected is the trace it must produce, dumped by
 * trace_dump (op, communicator, peer, tag, bytes, request, status, payload).
 *
 * Ranks pair up as (0,1) and (2,3); the lower rank of a pair is "lo".
 * Tags are unique per step, so the expected file can be read step by step. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define W MPI_COMM_WORLD

static int a[256], b[256];
static double d[256], e[256];
static char bsend_buffer[1 << 16];

static void fail(const char *what) {
  fprintf(stderr, "all_calls: %s\n", what);
  MPI_Abort(W, 3);
}

int main(int argc, char **argv) {
  int provided = -1, rank, size;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(W, &rank);
  MPI_Comm_size(W, &size);
  if (size != 4) fail("needs 4 ranks");
  int peer = rank ^ 1, lo = rank < peer;
  MPI_Status st, sts[4];
  MPI_Request rq[4];
  int idx, flag, outc, ind[4], n;
  for (int i = 0; i < 256; i++) a[i] = rank * 1000 + i, d[i] = rank + i;

  /* ---- blocking point-to-point (tags 1-6) */
  if (lo) {
    MPI_Send(a, 4, MPI_INT, peer, 1, W);
    MPI_Recv(b, 4, MPI_INT, peer, 2, W, &st);
  } else {
    MPI_Recv(b, 4, MPI_INT, peer, 1, W, MPI_STATUS_IGNORE);
    MPI_Send(a, 4, MPI_INT, peer, 2, W);
  }
  if (lo) MPI_Ssend(a, 8, MPI_INT, peer, 3, W);
  else MPI_Recv(b, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, W, &st); /* wildcard: status peer, 3 */
  MPI_Buffer_attach(bsend_buffer, sizeof bsend_buffer);
  if (lo) MPI_Bsend(a, 3, MPI_INT, peer, 4, W);
  else MPI_Recv(b, 3, MPI_INT, peer, 4, W, &st);
  if (!lo) { /* Rsend needs the receive posted first */
    MPI_Irecv(b, 5, MPI_INT, peer, 5, W, &rq[0]);
    MPI_Send(NULL, 0, MPI_INT, peer, 6, W);
    MPI_Wait(&rq[0], &st);
  } else {
    MPI_Recv(NULL, 0, MPI_INT, peer, 6, W, MPI_STATUS_IGNORE);
    MPI_Rsend(a, 5, MPI_INT, peer, 5, W);
  }

  /* ---- nonblocking point-to-point and completions (tags 7-15) */
  MPI_Irecv(b, 6, MPI_INT, peer, 7, W, &rq[0]);
  MPI_Isend(a, 6, MPI_INT, peer, 7, W, &rq[1]);
  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  MPI_Irecv(b, 7, MPI_INT, peer, 8, W, &rq[0]);
  MPI_Issend(a, 7, MPI_INT, peer, 8, W, &rq[1]);
  MPI_Waitany(2, rq, &idx, &st);
  MPI_Waitany(2, rq, &idx, &st);
  MPI_Irecv(b, 9, MPI_INT, MPI_ANY_SOURCE, 9, W, &rq[0]);
  MPI_Ibsend(a, 9, MPI_INT, peer, 9, W, &rq[1]);
  for (n = 0; n < 2; n += outc) MPI_Waitsome(2, rq, &outc, ind, sts);
  if (!lo) {
    MPI_Irecv(b, 10, MPI_INT, peer, 10, W, &rq[0]);
    MPI_Send(NULL, 0, MPI_INT, peer, 11, W);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(NULL, 0, MPI_INT, peer, 11, W, MPI_STATUS_IGNORE);
    MPI_Irsend(a, 10, MPI_INT, peer, 10, W, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
  }
  MPI_Irecv(b, 11, MPI_INT, peer, 12, W, &rq[0]);
  MPI_Isend(a, 11, MPI_INT, peer, 12, W, &rq[1]);
  for (flag = 0; !flag;) MPI_Test(&rq[0], &flag, &st);
  MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
  MPI_Irecv(b, 12, MPI_INT, peer, 13, W, &rq[0]);
  MPI_Isend(a, 12, MPI_INT, peer, 13, W, &rq[1]);
  for (flag = 0; !flag;) MPI_Testall(2, rq, &flag, sts);
  MPI_Irecv(b, 13, MPI_INT, peer, 14, W, &rq[0]);
  MPI_Isend(a, 13, MPI_INT, peer, 14, W, &rq[1]);
  /* SMPI 3.32's Testany reports a detached (small, already sent) send as
   * inactive: flag = 1 with MPI_UNDEFINED; a Waitall completes the rest */
  for (n = 0; n < 2;) {
    MPI_Testany(2, rq, &idx, &flag, &st);
    if (flag && idx == MPI_UNDEFINED) break;
    if (flag) n++;
  }
  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
  MPI_Irecv(b, 14, MPI_INT, peer, 15, W, &rq[0]);
  MPI_Isend(a, 14, MPI_INT, peer, 15, W, &rq[1]);
  for (n = 0; n < 2;) {
    MPI_Testsome(2, rq, &outc, ind, sts);
    if (outc == MPI_UNDEFINED) break;
    n += outc;
  }
  MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);

  /* ---- Sendrecv, probes (tags 16-19) */
  MPI_Sendrecv(a, 10, MPI_INT, peer, 16, b, 10, MPI_INT, peer, 16, W, &st);
  MPI_Sendrecv_replace(a, 11, MPI_INT, peer, 17, MPI_ANY_SOURCE, 17, W, &st);
  if (lo) {
    MPI_Send(a, 12, MPI_INT, peer, 18, W);
    MPI_Send(a, 13, MPI_INT, peer, 19, W);
  } else {
    MPI_Probe(MPI_ANY_SOURCE, 18, W, &st);
    MPI_Recv(b, 12, MPI_INT, st.MPI_SOURCE, 18, W, &st);
    for (flag = 0; !flag;) MPI_Iprobe(peer, MPI_ANY_TAG, W, &flag, &st);
    MPI_Recv(b, 13, MPI_INT, peer, st.MPI_TAG, W, &st);
  }

  /* ---- persistent requests (tags 20-24) */
  MPI_Request pr[2];
  MPI_Recv_init(b, 14, MPI_INT, peer, 20, W, &pr[0]);
  MPI_Send_init(a, 14, MPI_INT, peer, 20, W, &pr[1]);
  MPI_Startall(2, pr);
  MPI_Waitall(2, pr, sts);
  MPI_Start(&pr[0]);
  MPI_Start(&pr[1]);
  MPI_Wait(&pr[0], &st);
  MPI_Wait(&pr[1], &st);
  MPI_Request_free(&pr[0]);
  MPI_Request_free(&pr[1]);
  if (lo) {
    MPI_Ssend_init(a, 1, MPI_INT, peer, 21, W, &pr[0]);
    MPI_Bsend_init(a, 2, MPI_INT, peer, 22, W, &pr[1]);
    MPI_Startall(2, pr);
    MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
    MPI_Request_free(&pr[0]);
    MPI_Request_free(&pr[1]);
    MPI_Recv(NULL, 0, MPI_INT, peer, 24, W, MPI_STATUS_IGNORE);
    MPI_Rsend_init(a, 3, MPI_INT, peer, 23, W, &pr[0]);
    MPI_Start(&pr[0]);
    MPI_Wait(&pr[0], MPI_STATUS_IGNORE);
    MPI_Request_free(&pr[0]);
  } else {
    MPI_Recv(b, 1, MPI_INT, peer, 21, W, &st);
    MPI_Recv(b, 2, MPI_INT, peer, 22, W, &st);
    MPI_Irecv(b, 3, MPI_INT, peer, 23, W, &rq[0]);
    MPI_Send(NULL, 0, MPI_INT, peer, 24, W);
    MPI_Wait(&rq[0], &st);
  }
  MPI_Send(a, 1, MPI_INT, MPI_PROC_NULL, 25, W); /* no message */
  MPI_Recv(b, 1, MPI_INT, MPI_PROC_NULL, 25, W, &st);

  /* ---- blocking collectives on MPI_COMM_WORLD */
  int counts[4] = {1, 2, 3, 4}, displs[4] = {0, 1, 3, 6};
  int scounts[4], sdispls[4], rcounts[4], rdispls[4];
  for (int i = 0; i < 4; i++) {
    scounts[i] = rank + 1, sdispls[i] = i * 8;
    rcounts[i] = i + 1, rdispls[i] = i * 8;
  }
  MPI_Barrier(W);
  MPI_Bcast(d, 3, MPI_DOUBLE, 1, W);
  MPI_Reduce(d, e, 2, MPI_DOUBLE, MPI_SUM, 2, W);
  MPI_Allreduce(d, e, 4, MPI_DOUBLE, MPI_SUM, W);
  MPI_Gather(a, 2, MPI_INT, b, 2, MPI_INT, 3, W);
  MPI_Gatherv(a, rank + 1, MPI_INT, b, counts, displs, MPI_INT, 0, W);
  MPI_Scatter(a, 3, MPI_INT, b, 3, MPI_INT, 1, W);
  MPI_Scatterv(a, counts, displs, MPI_INT, b, rank + 1, MPI_INT, 2, W);
  MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_INT, W);
  MPI_Allgatherv(a, rank + 1, MPI_INT, b, counts, displs, MPI_INT, W);
  MPI_Alltoall(a, 2, MPI_INT, b, 2, MPI_INT, W);
  MPI_Alltoallv(a, scounts, sdispls, MPI_INT, b, rcounts, rdispls, MPI_INT, W);
  MPI_Reduce_scatter(d, e, counts, MPI_DOUBLE, MPI_SUM, W);
  MPI_Reduce_scatter_block(d, e, 2, MPI_DOUBLE, MPI_SUM, W);
  MPI_Scan(d, e, 1, MPI_DOUBLE, MPI_SUM, W);
  MPI_Exscan(d, e, 1, MPI_DOUBLE, MPI_SUM, W);

  /* ---- nonblocking collectives: each with its own buffers */
  static int ia[16][64], ib[16][64];
  static double id_[16][64], ie[16][64];
  MPI_Request cr[16];
  MPI_Ibarrier(W, &cr[0]);
  MPI_Ibcast(id_[1], 3, MPI_DOUBLE, 1, W, &cr[1]);
  MPI_Ireduce(id_[2], ie[2], 2, MPI_DOUBLE, MPI_SUM, 2, W, &cr[2]);
  MPI_Iallreduce(id_[3], ie[3], 4, MPI_DOUBLE, MPI_SUM, W, &cr[3]);
  MPI_Igather(ia[4], 2, MPI_INT, ib[4], 2, MPI_INT, 3, W, &cr[4]);
  MPI_Igatherv(ia[5], rank + 1, MPI_INT, ib[5], counts, displs, MPI_INT, 0, W, &cr[5]);
  MPI_Iscatter(ia[6], 3, MPI_INT, ib[6], 3, MPI_INT, 1, W, &cr[6]);
  MPI_Iscatterv(ia[7], counts, displs, MPI_INT, ib[7], rank + 1, MPI_INT, 2, W, &cr[7]);
  MPI_Iallgather(ia[8], 1, MPI_INT, ib[8], 1, MPI_INT, W, &cr[8]);
  MPI_Iallgatherv(ia[9], rank + 1, MPI_INT, ib[9], counts, displs, MPI_INT, W, &cr[9]);
  MPI_Ialltoall(ia[10], 2, MPI_INT, ib[10], 2, MPI_INT, W, &cr[10]);
  MPI_Ialltoallv(ia[11], scounts, sdispls, MPI_INT, ib[11], rcounts, rdispls, MPI_INT, W, &cr[11]);
  MPI_Ireduce_scatter(id_[12], ie[12], counts, MPI_DOUBLE, MPI_SUM, W, &cr[12]);
  MPI_Ireduce_scatter_block(id_[13], ie[13], 2, MPI_DOUBLE, MPI_SUM, W, &cr[13]);
  MPI_Iscan(id_[14], ie[14], 1, MPI_DOUBLE, MPI_SUM, W, &cr[14]);
  MPI_Iexscan(id_[15], ie[15], 1, MPI_DOUBLE, MPI_SUM, W, &cr[15]);
  MPI_Waitall(16, cr, MPI_STATUSES_IGNORE);

  /* ---- communicators */
  MPI_Comm half, dup, sub3, node, cart, row, grp;
  MPI_Group wg, g3;
  MPI_Comm_split(W, rank % 2, -rank, &half); /* reversed: half rank 0 is world 2 or 3 */
  int hr;
  MPI_Comm_rank(half, &hr);
  MPI_Sendrecv(a, 2, MPI_INT, 1 - hr, 30, b, 2, MPI_INT, 1 - hr, 30, half, &st);
  MPI_Allreduce(d, e, 1, MPI_DOUBLE, MPI_SUM, half);
  MPI_Comm_dup(W, &dup);
  MPI_Bcast(d, 1, MPI_DOUBLE, 3, dup);
  int members[3] = {3, 1, 2};
  MPI_Comm_group(W, &wg);
  MPI_Group_incl(wg, 3, members, &g3);
  MPI_Comm_create(W, g3, &sub3); /* world 0 gets MPI_COMM_NULL */
  if (sub3 != MPI_COMM_NULL) MPI_Reduce(d, e, 1, MPI_DOUBLE, MPI_SUM, 0, sub3); /* root = world 3 */
  MPI_Comm_split_type(W, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Barrier(node);
  int dims[2] = {2, 2}, periods[2] = {1, 1}, keep[2] = {0, 1};
  MPI_Cart_create(W, 2, dims, periods, 0, &cart);
  MPI_Cart_sub(cart, keep, &row);
  MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_INT, row);
  if (rank != 0) {
    MPI_Comm_create_group(W, g3, 7, &grp);
    MPI_Barrier(grp);
    MPI_Comm_free(&grp);
  }
  MPI_Sendrecv(a, 1, MPI_INT, 0, 40, b, 1, MPI_INT, 0, 40, MPI_COMM_SELF, &st); /* first use of SELF */
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  if (sub3 != MPI_COMM_NULL) MPI_Comm_free(&sub3);
  MPI_Comm_free(&node);
  MPI_Comm_free(&row);
  MPI_Comm_free(&cart);
  MPI_Group_free(&g3);
  MPI_Group_free(&wg);

  /* ---- a communicating function the table does not model */
  int wcounts[4] = {1, 1, 1, 1}, wdispls[4] = {0, 4, 8, 12};
  MPI_Datatype wtypes[4] = {MPI_INT, MPI_INT, MPI_INT, MPI_INT};
  MPI_Alltoallw(a, wcounts, wdispls, wtypes, b, wcounts, wdispls, wtypes, W);

  int bsize;
  void *bptr;
  MPI_Buffer_detach(&bptr, &bsize);
  if (rank == 0) printf("all_calls: done (provided %d)\n", provided);
  MPI_Finalize();
  return 0;
}
