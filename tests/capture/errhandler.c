/* errhandler.c - failed MPI calls and their error handlers, for run_test.sh
 * errhandler: the same behaviour built with smpicc and with smpi_llamp-cc.
 *   errhandler fatal    an MPI_Send to a rank that does not exist, with the
 *                       default handler (MPI_ERRORS_ARE_FATAL): the run stops
 *   errhandler return   the same under MPI_ERRORS_RETURN on MPI_COMM_WORLD,
 *                       then an MPI_Comm_rank of MPI_COMM_NULL: both codes
 *                       come back, and the program goes on
 *   errhandler custom   the program's own handler on a duplicate of
 *                       MPI_COMM_WORLD: called with the failed send's code
 * Rank 0 prints what it sees; every mode that goes on ends with a barrier
 * and "errhandler: done". */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int handled;

static void on_error(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  int cls = -1;
  MPI_Error_class(*code, &cls);
  printf("handler: called, class %s\n", cls == MPI_ERR_RANK ? "MPI_ERR_RANK" : "other");
  handled++;
}

static void show(const char *what, int rc) {
  int cls = -1;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  printf("%s: %s\n", what,
         rc == MPI_SUCCESS ? "MPI_SUCCESS"
         : cls == MPI_ERR_RANK ? "MPI_ERR_RANK"
         : cls == MPI_ERR_COMM ? "MPI_ERR_COMM"
                               : "another error");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, x = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "fatal")) {
    if (rank == 0) {
      printf("fatal: sending to rank %d\n", size);
      fflush(stdout);
      MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
      printf("fatal: still running\n");
    }
  } else if (!strcmp(mode, "return")) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0) {
      show("send", MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD));
      int r = -1;
      show("comm_rank", MPI_Comm_rank(MPI_COMM_NULL, &r));
    }
  } else if (!strcmp(mode, "custom")) {
    MPI_Comm dup;
    MPI_Errhandler eh;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_create_errhandler(on_error, &eh);
    MPI_Comm_set_errhandler(dup, eh);
    MPI_Errhandler_free(&eh);
    if (rank == 0) {
      show("send", MPI_Send(&x, 1, MPI_INT, size, 0, dup));
      printf("handler: %d call(s)\n", handled);
    }
    MPI_Comm_free(&dup);
  } else {
    if (rank == 0) fprintf(stderr, "usage: errhandler fatal|return|custom\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("errhandler: done\n");
  MPI_Finalize();
  return 0;
}
