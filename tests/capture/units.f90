! units.f90 - every rank OPENs unit 10 on its own file (unit-RANK.txt),
! writes its rank, and reads it back after the others did the same.  With
! one libgfortran for all ranks the unit table is shared: a rank's OPEN
! closes another rank's file.
program units
  use mpi
  implicit none
  integer :: ierr, rank, v, ok, allok
  character(len=32) :: fname
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  write (fname, '(a,i0,a)') 'unit-', rank, '.txt'
  open (unit=10, file=fname, status='replace')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  write (10, *) rank
  close (10)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  open (unit=10, file=fname, status='old')
  read (10, *) v
  close (10)
  ok = 0
  if (v == rank) ok = 1
  call MPI_Allreduce(ok, allok, 1, MPI_INTEGER, MPI_MIN, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. allok == 1) write (*, '(a)') 'units: all ranks read their own file'
  call MPI_Finalize(ierr)
end program units
