// A C++ ring for smpi_llamp-cxx: two Sendrecv shifts and one Allreduce per
// rank, i.e. 5 records a rank with MPI_Init and MPI_Finalize.
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> out(128, rank), in(128);
  for (int step = 0; step < 2; step++) {
    smpi_execute_benched(1e-6);
    MPI_Sendrecv(out.data(), 128, MPI_DOUBLE, (rank + 1) % size, step, in.data(), 128, MPI_DOUBLE,
                 (rank + size - 1) % size, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  double sum = 0, mine = in[0];
  MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("ring: done (sum %g)\n", sum);
  MPI_Finalize();
  return 0;
}
