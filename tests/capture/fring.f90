! fring.f90 - a Fortran ring for the capture tests: per step one
! Irecv/Isend/Waitall shift (MPI_STATUSES_IGNORE) and a 1 us model burst;
! then an Allreduce with MPI_IN_PLACE, a Send from MPI_BOTTOM with an
! absolute-address struct type, a Bcast and a Barrier.  Prints a checksum
! that does not depend on the capture, and MPI_Wtime at the end.
!     fring STEPS COUNT      (defaults 4 and 128)
program fring
  use mpi
  implicit none
  integer :: ierr, rank, nranks, next, prev, step, steps, n, rq(2), i, stype, blk(2)
  integer :: st(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: disp(2)
  integer :: types(2)
  double precision, allocatable :: out(:), in(:)
  double precision :: total, t, pair(2), got(2)
  character(len=32) :: arg
  steps = 4
  n = 128
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) steps
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) n
  end if
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)
  allocate (out(n), in(n))
  out = rank
  do step = 1, steps
    call smpi_execute_benched(1d-6)
    call MPI_Irecv(in, n, MPI_DOUBLE_PRECISION, prev, step, MPI_COMM_WORLD, rq(1), ierr)
    call MPI_Isend(out, n, MPI_DOUBLE_PRECISION, next, step, MPI_COMM_WORLD, rq(2), ierr)
    call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE, ierr)
    out = in + 1
  end do
  total = out(n)
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  ! two scalars sent from MPI_BOTTOM by their absolute addresses
  pair(1) = rank
  pair(2) = 10 * rank
  call MPI_Get_address(pair(1), disp(1), ierr)
  call MPI_Get_address(pair(2), disp(2), ierr)
  blk = 1
  types = MPI_DOUBLE_PRECISION
  call MPI_Type_create_struct(2, blk, disp, types, stype, ierr)
  call MPI_Type_commit(stype, ierr)
  if (rank == 0) then
    call MPI_Send(MPI_BOTTOM, 1, stype, next, 99, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    call MPI_Recv(got, 2, MPI_DOUBLE_PRECISION, prev, 99, MPI_COMM_WORLD, st, ierr)
    if (got(1) /= 0 .or. got(2) /= 0 .or. st(MPI_SOURCE) /= 0) stop 'fring: MPI_BOTTOM send'
  end if
  call MPI_Type_free(stype, ierr)
  call MPI_Bcast(total, 1, MPI_DOUBLE_PRECISION, nranks - 1, MPI_COMM_WORLD, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t = MPI_Wtime()
  if (rank == 0) write (*, '(a,f14.1,a,f14.9)') 'fring: checksum ', total, ' simulated time ', t
  call MPI_Finalize(ierr)
end program fring
