C     ring77.f - fixed-form Fortran 77 with include 'mpif.h', built with
C     smpi_llamp-ff: 3 Send/Recv around the ring, one Reduce to rank 0.
      program ring77
      implicit none
      include 'mpif.h'
      integer ierr, rank, nranks, i, buf, s
      integer st(MPI_STATUS_SIZE)
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
      buf = rank
      do 10 i = 1, 3
        if (mod(rank, 2) .eq. 0) then
          call MPI_SEND(buf, 1, MPI_INTEGER, mod(rank + 1, nranks),
     &                  i, MPI_COMM_WORLD, ierr)
          call MPI_RECV(buf, 1, MPI_INTEGER,
     &                  mod(rank + nranks - 1, nranks), i,
     &                  MPI_COMM_WORLD, st, ierr)
        else
          call MPI_RECV(s, 1, MPI_INTEGER,
     &                  mod(rank + nranks - 1, nranks), i,
     &                  MPI_COMM_WORLD, st, ierr)
          call MPI_SEND(buf, 1, MPI_INTEGER, mod(rank + 1, nranks),
     &                  i, MPI_COMM_WORLD, ierr)
          buf = s
        endif
   10 continue
      call MPI_REDUCE(buf, s, 1, MPI_INTEGER, MPI_SUM, 0,
     &                MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) write (*, '(a,i0)') 'ring77: done, sum ', s
      call MPI_FINALIZE(ierr)
      end
