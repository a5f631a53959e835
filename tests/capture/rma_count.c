/* One-sided communication, now modelled (docs/trace.md, "One-sided
 * communication"): fence epochs with Put and Get, a passive-target epoch
 * with Accumulate and a flush, a post/start/complete/wait epoch, on 4 ranks;
 * and MPI_Rget_accumulate, which the capture counts but does not model.
 * run_test.sh count_only checks that report.json lists the unmodelled call
 * with its count, is marked approximate, and lists no RMA call.  (SMPI 3.32
 * runs all of these; its fence counter breaks a PSCW epoch that follows a
 * fence epoch unless the last fence says MPI_MODE_NOSUCCEED.) */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  static double buf[64], loc[64];
  MPI_Win w;
  MPI_Group g;
  MPI_Win_create(buf, sizeof buf, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
  MPI_Win_fence(0, w);
  MPI_Put(loc, 8, MPI_DOUBLE, (r + 1) % p, 0, 8, MPI_DOUBLE, w);
  MPI_Get(loc + 8, 8, MPI_DOUBLE, (r + p - 1) % p, 8, 8, MPI_DOUBLE, w);
  MPI_Win_fence(MPI_MODE_NOSUCCEED, w);
  MPI_Win_lock(MPI_LOCK_SHARED, (r + 1) % p, 0, w);
  MPI_Accumulate(loc, 8, MPI_DOUBLE, (r + 1) % p, 16, 8, MPI_DOUBLE, MPI_SUM, w);
  MPI_Win_flush((r + 1) % p, w);
  {
    double res[8];
    MPI_Request rq;
    MPI_Rget_accumulate(loc, 8, MPI_DOUBLE, res, 8, MPI_DOUBLE, (r + 1) % p, 24, 8, MPI_DOUBLE, MPI_SUM, w, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
  }
  MPI_Win_unlock((r + 1) % p, w);
  MPI_Win_get_group(w, &g);
  MPI_Win_post(g, 0, w);
  MPI_Win_start(g, 0, w);
  MPI_Put(loc, 1, MPI_DOUBLE, (r + 1) % p, 0, 1, MPI_DOUBLE, w);
  MPI_Win_complete(w);
  MPI_Win_wait(w);
  MPI_Group_free(&g);
  MPI_Win_free(&w);
  if (r == 0) printf("rma_count: done\n");
  MPI_Finalize();
  return 0;
}
