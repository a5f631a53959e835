! mixed_sub.f90 - the Fortran half of mixed_cmain.c.
subroutine f_ring(comm, n)
  use mpi
  implicit none
  integer, intent(in) :: comm, n
  integer :: ierr, rank, nranks, i
  integer :: x(8), y(8)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nranks, ierr)
  x = rank
  do i = 1, n
    call MPI_Sendrecv(x, 8, MPI_INTEGER, mod(rank + 1, nranks), 3, y, 8, MPI_INTEGER, &
                      mod(rank + nranks - 1, nranks), 3, comm, MPI_STATUS_IGNORE, ierr)
    if (y(1) /= mod(rank + nranks - 1, nranks)) stop 'f_ring: wrong data'
  end do
end subroutine f_ring
