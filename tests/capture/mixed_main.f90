! mixed_main.f90 + mixed_c.c: a Fortran main program that calls a C routine
! doing MPI on the communicator it is handed (a Fortran handle, converted
! with MPI_Comm_f2c), and a Fortran subroutine called by C (mixed_cmain.c).
! Both languages' calls must be captured: 3 Fortran Sendrecv (tag 1), 3 C
! Sendrecv (tag 2), one Fortran Allreduce per rank.
program mixed
  use mpi
  implicit none
  integer :: ierr, rank, nranks, i, st(MPI_STATUS_SIZE)
  double precision :: x(16), y(16), s
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  x = rank
  do i = 1, 3
    call MPI_Sendrecv(x, 16, MPI_DOUBLE_PRECISION, mod(rank + 1, nranks), 1, y, 16, &
                      MPI_DOUBLE_PRECISION, mod(rank + nranks - 1, nranks), 1, MPI_COMM_WORLD, st, ierr)
  end do
  call c_ring(MPI_COMM_WORLD, 3)
  call MPI_Allreduce(y(1), s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '(a,f6.1)') 'mixed: done, sum ', s
  call MPI_Finalize(ierr)
end program mixed
