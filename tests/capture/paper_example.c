/* The LLAMP paper's running example (Shen et al., Fig. 4c) as an SMPI
 * program: rank 0 computes c0 = 0.1 us, sends 4 bytes to rank 1, computes
 * c1 = 1 us; rank 1 computes c2 = 0.5 us, receives, computes c3 = 1 us.
 * Compute is injected with smpi_execute_benched (run with
 * --cfg=smpi/simulate-computation:no).  Its DAG under o = 0, G = 5 ns/B has
 * T(L) = max(L + 1.115 us, 1.5 us): critical latency 0.385 us. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank, buf = 42;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    smpi_execute_benched(0.1e-6);
    MPI_Send(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    smpi_execute_benched(1e-6);
  } else if (rank == 1) {
    smpi_execute_benched(0.5e-6);
    MPI_Recv(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    smpi_execute_benched(1e-6);
  }
  double t = MPI_Wtime();
  printf("rank %d simulated end %.9f us\n", rank, t * 1e6);
  MPI_Finalize();
  return 0;
}
