! all_calls.f90 - all_calls.c in Fortran, call for call: every MPI function
! the capture layer models, on 4 ranks.  Its trace must be the C program's,
! record for record (tests/capture/all_calls.expected): the Fortran bindings
! convert handles, statuses, MPI_STATUS(ES)_IGNORE, LOGICAL flags and 1-based
! indices and reach the same recording wrappers.  Also checks, in Fortran,
! what the bindings hand back (statuses, indices, flags, new handles).
program all_calls
  use mpi
  implicit none
  integer, parameter :: W = MPI_COMM_WORLD
  integer :: a(256), b(256), ierr, provided, rank, nranks, peer, i, n
  double precision :: d(256), e(256)
  character(len=65536) :: bsend_buffer
  logical :: lo, flag
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 4)
  integer :: rq(4), pr(2), cr(16), idx, outc, ind(4), dummy(1)
  integer :: counts(4), displs(4), scounts(4), sdispls(4), rcounts(4), rdispls(4)
  integer :: ia(64, 16), ib(64, 16)
  double precision :: id(64, 16), ie(64, 16)
  integer :: half, dup, sub3, node, cart, row, grp, wg, g3, hr, members(3), dims(2)
  logical :: periods(2), keep(2)
  integer :: wcounts(4), wdispls(4), wtypes(4), bsize
  integer(kind=MPI_ADDRESS_KIND) :: bptr

  provided = -1
  call MPI_Init_thread(MPI_THREAD_SINGLE, provided, ierr)
  call MPI_Comm_rank(W, rank, ierr)
  call MPI_Comm_size(W, nranks, ierr)
  if (nranks /= 4) call fail('needs 4 ranks')
  peer = ieor(rank, 1)
  lo = rank < peer
  do i = 1, 256
    a(i) = rank * 1000 + i - 1
    d(i) = rank + i - 1
  end do

  ! ---- blocking point-to-point (tags 1-6)
  if (lo) then
    call MPI_Send(a, 4, MPI_INTEGER, peer, 1, W, ierr)
    call MPI_Recv(b, 4, MPI_INTEGER, peer, 2, W, st, ierr)
    if (st(MPI_SOURCE) /= peer .or. st(MPI_TAG) /= 2) call fail('Recv status')
  else
    call MPI_Recv(b, 4, MPI_INTEGER, peer, 1, W, MPI_STATUS_IGNORE, ierr)
    if (b(4) /= peer * 1000 + 3) call fail('Recv data')
    call MPI_Send(a, 4, MPI_INTEGER, peer, 2, W, ierr)
  end if
  if (lo) then
    call MPI_Ssend(a, 8, MPI_INTEGER, peer, 3, W, ierr)
  else
    call MPI_Recv(b, 8, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, W, st, ierr)
    if (st(MPI_SOURCE) /= peer .or. st(MPI_TAG) /= 3) call fail('wildcard status')
  end if
  call MPI_Buffer_attach(bsend_buffer, len(bsend_buffer), ierr)
  if (lo) then
    call MPI_Bsend(a, 3, MPI_INTEGER, peer, 4, W, ierr)
  else
    call MPI_Recv(b, 3, MPI_INTEGER, peer, 4, W, st, ierr)
  end if
  if (.not. lo) then
    call MPI_Irecv(b, 5, MPI_INTEGER, peer, 5, W, rq(1), ierr)
    call MPI_Send(dummy, 0, MPI_INTEGER, peer, 6, W, ierr)
    call MPI_Wait(rq(1), st, ierr)
    if (rq(1) /= MPI_REQUEST_NULL) call fail('Wait left the request')
  else
    call MPI_Recv(dummy, 0, MPI_INTEGER, peer, 6, W, MPI_STATUS_IGNORE, ierr)
    call MPI_Rsend(a, 5, MPI_INTEGER, peer, 5, W, ierr)
  end if

  ! ---- nonblocking point-to-point and completions (tags 7-15)
  call MPI_Irecv(b, 6, MPI_INTEGER, peer, 7, W, rq(1), ierr)
  call MPI_Isend(a, 6, MPI_INTEGER, peer, 7, W, rq(2), ierr)
  call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE, ierr)
  if (any(rq(1:2) /= MPI_REQUEST_NULL)) call fail('Waitall left requests')
  call MPI_Irecv(b, 7, MPI_INTEGER, peer, 8, W, rq(1), ierr)
  call MPI_Issend(a, 7, MPI_INTEGER, peer, 8, W, rq(2), ierr)
  call MPI_Waitany(2, rq, idx, st, ierr)
  if (idx < 1 .or. idx > 2 .or. rq(idx) /= MPI_REQUEST_NULL) call fail('Waitany index')
  call MPI_Waitany(2, rq, idx, st, ierr)
  if (idx < 1 .or. idx > 2) call fail('Waitany index')
  call MPI_Irecv(b, 9, MPI_INTEGER, MPI_ANY_SOURCE, 9, W, rq(1), ierr)
  call MPI_Ibsend(a, 9, MPI_INTEGER, peer, 9, W, rq(2), ierr)
  n = 0
  do while (n < 2)
    call MPI_Waitsome(2, rq, outc, ind, sts, ierr)
    do i = 1, outc
      if (ind(i) < 1 .or. ind(i) > 2) call fail('Waitsome index')
      if (ind(i) == 1 .and. sts(MPI_TAG, i) /= 9) call fail('Waitsome status')
    end do
    n = n + outc
  end do
  if (.not. lo) then
    call MPI_Irecv(b, 10, MPI_INTEGER, peer, 10, W, rq(1), ierr)
    call MPI_Send(dummy, 0, MPI_INTEGER, peer, 11, W, ierr)
    call MPI_Wait(rq(1), MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Recv(dummy, 0, MPI_INTEGER, peer, 11, W, MPI_STATUS_IGNORE, ierr)
    call MPI_Irsend(a, 10, MPI_INTEGER, peer, 10, W, rq(1), ierr)
    call MPI_Wait(rq(1), MPI_STATUS_IGNORE, ierr)
  end if
  call MPI_Irecv(b, 11, MPI_INTEGER, peer, 12, W, rq(1), ierr)
  call MPI_Isend(a, 11, MPI_INTEGER, peer, 12, W, rq(2), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(rq(1), flag, st, ierr)
  end do
  if (st(MPI_TAG) /= 12) call fail('Test status')
  call MPI_Wait(rq(2), MPI_STATUS_IGNORE, ierr)
  call MPI_Irecv(b, 12, MPI_INTEGER, peer, 13, W, rq(1), ierr)
  call MPI_Isend(a, 12, MPI_INTEGER, peer, 13, W, rq(2), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Testall(2, rq, flag, sts, ierr)
  end do
  call MPI_Irecv(b, 13, MPI_INTEGER, peer, 14, W, rq(1), ierr)
  call MPI_Isend(a, 13, MPI_INTEGER, peer, 14, W, rq(2), ierr)
  ! SMPI 3.32's Testany reports a detached (small, already sent) send as
  ! inactive: flag = .true. with MPI_UNDEFINED; a Waitall completes the rest
  n = 0
  do while (n < 2)
    call MPI_Testany(2, rq, idx, flag, st, ierr)
    if (flag .and. idx == MPI_UNDEFINED) exit
    if (flag) n = n + 1
  end do
  call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE, ierr)
  call MPI_Irecv(b, 14, MPI_INTEGER, peer, 15, W, rq(1), ierr)
  call MPI_Isend(a, 14, MPI_INTEGER, peer, 15, W, rq(2), ierr)
  n = 0
  do while (n < 2)
    call MPI_Testsome(2, rq, outc, ind, sts, ierr)
    if (outc == MPI_UNDEFINED) exit
    n = n + outc
  end do
  call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE, ierr)

  ! ---- Sendrecv, probes (tags 16-19)
  call MPI_Sendrecv(a, 10, MPI_INTEGER, peer, 16, b, 10, MPI_INTEGER, peer, 16, W, st, ierr)
  call MPI_Sendrecv_replace(a, 11, MPI_INTEGER, peer, 17, MPI_ANY_SOURCE, 17, W, st, ierr)
  if (lo) then
    call MPI_Send(a, 12, MPI_INTEGER, peer, 18, W, ierr)
    call MPI_Send(a, 13, MPI_INTEGER, peer, 19, W, ierr)
  else
    call MPI_Probe(MPI_ANY_SOURCE, 18, W, st, ierr)
    call MPI_Recv(b, 12, MPI_INTEGER, st(MPI_SOURCE), 18, W, st, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Iprobe(peer, MPI_ANY_TAG, W, flag, st, ierr)
    end do
    call MPI_Recv(b, 13, MPI_INTEGER, peer, st(MPI_TAG), W, st, ierr)
  end if

  ! ---- persistent requests (tags 20-24)
  call MPI_Recv_init(b, 14, MPI_INTEGER, peer, 20, W, pr(1), ierr)
  call MPI_Send_init(a, 14, MPI_INTEGER, peer, 20, W, pr(2), ierr)
  call MPI_Startall(2, pr, ierr)
  call MPI_Waitall(2, pr, sts, ierr)
  if (any(pr == MPI_REQUEST_NULL)) call fail('Waitall freed persistent requests')
  call MPI_Start(pr(1), ierr)
  call MPI_Start(pr(2), ierr)
  call MPI_Wait(pr(1), st, ierr)
  call MPI_Wait(pr(2), st, ierr)
  call MPI_Request_free(pr(1), ierr)
  call MPI_Request_free(pr(2), ierr)
  if (any(pr /= MPI_REQUEST_NULL)) call fail('Request_free')
  if (lo) then
    call MPI_Ssend_init(a, 1, MPI_INTEGER, peer, 21, W, pr(1), ierr)
    call MPI_Bsend_init(a, 2, MPI_INTEGER, peer, 22, W, pr(2), ierr)
    call MPI_Startall(2, pr, ierr)
    call MPI_Waitall(2, pr, MPI_STATUSES_IGNORE, ierr)
    call MPI_Request_free(pr(1), ierr)
    call MPI_Request_free(pr(2), ierr)
    call MPI_Recv(dummy, 0, MPI_INTEGER, peer, 24, W, MPI_STATUS_IGNORE, ierr)
    call MPI_Rsend_init(a, 3, MPI_INTEGER, peer, 23, W, pr(1), ierr)
    call MPI_Start(pr(1), ierr)
    call MPI_Wait(pr(1), MPI_STATUS_IGNORE, ierr)
    call MPI_Request_free(pr(1), ierr)
  else
    call MPI_Recv(b, 1, MPI_INTEGER, peer, 21, W, st, ierr)
    call MPI_Recv(b, 2, MPI_INTEGER, peer, 22, W, st, ierr)
    call MPI_Irecv(b, 3, MPI_INTEGER, peer, 23, W, rq(1), ierr)
    call MPI_Send(dummy, 0, MPI_INTEGER, peer, 24, W, ierr)
    call MPI_Wait(rq(1), st, ierr)
  end if
  call MPI_Send(a, 1, MPI_INTEGER, MPI_PROC_NULL, 25, W, ierr)
  call MPI_Recv(b, 1, MPI_INTEGER, MPI_PROC_NULL, 25, W, st, ierr)

  ! ---- blocking collectives on MPI_COMM_WORLD
  counts = (/ 1, 2, 3, 4 /)
  displs = (/ 0, 1, 3, 6 /)
  do i = 1, 4
    scounts(i) = rank + 1
    sdispls(i) = (i - 1) * 8
    rcounts(i) = i
    rdispls(i) = (i - 1) * 8
  end do
  call MPI_Barrier(W, ierr)
  call MPI_Bcast(d, 3, MPI_DOUBLE_PRECISION, 1, W, ierr)
  call MPI_Reduce(d, e, 2, MPI_DOUBLE_PRECISION, MPI_SUM, 2, W, ierr)
  call MPI_Allreduce(d, e, 4, MPI_DOUBLE_PRECISION, MPI_SUM, W, ierr)
  call MPI_Gather(a, 2, MPI_INTEGER, b, 2, MPI_INTEGER, 3, W, ierr)
  call MPI_Gatherv(a, rank + 1, MPI_INTEGER, b, counts, displs, MPI_INTEGER, 0, W, ierr)
  call MPI_Scatter(a, 3, MPI_INTEGER, b, 3, MPI_INTEGER, 1, W, ierr)
  call MPI_Scatterv(a, counts, displs, MPI_INTEGER, b, rank + 1, MPI_INTEGER, 2, W, ierr)
  call MPI_Allgather(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, W, ierr)
  call MPI_Allgatherv(a, rank + 1, MPI_INTEGER, b, counts, displs, MPI_INTEGER, W, ierr)
  call MPI_Alltoall(a, 2, MPI_INTEGER, b, 2, MPI_INTEGER, W, ierr)
  call MPI_Alltoallv(a, scounts, sdispls, MPI_INTEGER, b, rcounts, rdispls, MPI_INTEGER, W, ierr)
  call MPI_Reduce_scatter(d, e, counts, MPI_DOUBLE_PRECISION, MPI_SUM, W, ierr)
  call MPI_Reduce_scatter_block(d, e, 2, MPI_DOUBLE_PRECISION, MPI_SUM, W, ierr)
  call MPI_Scan(d, e, 1, MPI_DOUBLE_PRECISION, MPI_SUM, W, ierr)
  call MPI_Exscan(d, e, 1, MPI_DOUBLE_PRECISION, MPI_SUM, W, ierr)

  ! ---- nonblocking collectives: each with its own buffers
  call MPI_Ibarrier(W, cr(1), ierr)
  call MPI_Ibcast(id(1, 2), 3, MPI_DOUBLE_PRECISION, 1, W, cr(2), ierr)
  call MPI_Ireduce(id(1, 3), ie(1, 3), 2, MPI_DOUBLE_PRECISION, MPI_SUM, 2, W, cr(3), ierr)
  call MPI_Iallreduce(id(1, 4), ie(1, 4), 4, MPI_DOUBLE_PRECISION, MPI_SUM, W, cr(4), ierr)
  call MPI_Igather(ia(1, 5), 2, MPI_INTEGER, ib(1, 5), 2, MPI_INTEGER, 3, W, cr(5), ierr)
  call MPI_Igatherv(ia(1, 6), rank + 1, MPI_INTEGER, ib(1, 6), counts, displs, MPI_INTEGER, 0, W, &
                    cr(6), ierr)
  call MPI_Iscatter(ia(1, 7), 3, MPI_INTEGER, ib(1, 7), 3, MPI_INTEGER, 1, W, cr(7), ierr)
  call MPI_Iscatterv(ia(1, 8), counts, displs, MPI_INTEGER, ib(1, 8), rank + 1, MPI_INTEGER, 2, W, &
                     cr(8), ierr)
  call MPI_Iallgather(ia(1, 9), 1, MPI_INTEGER, ib(1, 9), 1, MPI_INTEGER, W, cr(9), ierr)
  call MPI_Iallgatherv(ia(1, 10), rank + 1, MPI_INTEGER, ib(1, 10), counts, displs, MPI_INTEGER, W, &
                       cr(10), ierr)
  call MPI_Ialltoall(ia(1, 11), 2, MPI_INTEGER, ib(1, 11), 2, MPI_INTEGER, W, cr(11), ierr)
  call MPI_Ialltoallv(ia(1, 12), scounts, sdispls, MPI_INTEGER, ib(1, 12), rcounts, rdispls, &
                      MPI_INTEGER, W, cr(12), ierr)
  call MPI_Ireduce_scatter(id(1, 13), ie(1, 13), counts, MPI_DOUBLE_PRECISION, MPI_SUM, W, cr(13), ierr)
  call MPI_Ireduce_scatter_block(id(1, 14), ie(1, 14), 2, MPI_DOUBLE_PRECISION, MPI_SUM, W, cr(14), ierr)
  call MPI_Iscan(id(1, 15), ie(1, 15), 1, MPI_DOUBLE_PRECISION, MPI_SUM, W, cr(15), ierr)
  call MPI_Iexscan(id(1, 16), ie(1, 16), 1, MPI_DOUBLE_PRECISION, MPI_SUM, W, cr(16), ierr)
  call MPI_Waitall(16, cr, MPI_STATUSES_IGNORE, ierr)

  ! ---- communicators
  call MPI_Comm_split(W, mod(rank, 2), -rank, half, ierr)
  call MPI_Comm_rank(half, hr, ierr)
  if (hr /= 1 - rank / 2) call fail('Comm_split order')
  call MPI_Sendrecv(a, 2, MPI_INTEGER, 1 - hr, 30, b, 2, MPI_INTEGER, 1 - hr, 30, half, st, ierr)
  call MPI_Allreduce(d, e, 1, MPI_DOUBLE_PRECISION, MPI_SUM, half, ierr)
  call MPI_Comm_dup(W, dup, ierr)
  call MPI_Bcast(d, 1, MPI_DOUBLE_PRECISION, 3, dup, ierr)
  members = (/ 3, 1, 2 /)
  call MPI_Comm_group(W, wg, ierr)
  call MPI_Group_incl(wg, 3, members, g3, ierr)
  call MPI_Comm_create(W, g3, sub3, ierr)
  if ((sub3 == MPI_COMM_NULL) .neqv. (rank == 0)) call fail('Comm_create')
  if (sub3 /= MPI_COMM_NULL) call MPI_Reduce(d, e, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, sub3, ierr)
  call MPI_Comm_split_type(W, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node, ierr)
  call MPI_Barrier(node, ierr)
  dims = (/ 2, 2 /)
  periods = (/ .true., .true. /)
  keep = (/ .false., .true. /)
  call MPI_Cart_create(W, 2, dims, periods, .false., cart, ierr)
  call MPI_Cart_sub(cart, keep, row, ierr)
  call MPI_Allgather(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, row, ierr)
  if (rank /= 0) then
    call MPI_Comm_create_group(W, g3, 7, grp, ierr)
    call MPI_Barrier(grp, ierr)
    call MPI_Comm_free(grp, ierr)
    if (grp /= MPI_COMM_NULL) call fail('Comm_free')
  end if
  call MPI_Sendrecv(a, 1, MPI_INTEGER, 0, 40, b, 1, MPI_INTEGER, 0, 40, MPI_COMM_SELF, st, ierr)
  call MPI_Comm_free(half, ierr)
  call MPI_Comm_free(dup, ierr)
  if (sub3 /= MPI_COMM_NULL) call MPI_Comm_free(sub3, ierr)
  call MPI_Comm_free(node, ierr)
  call MPI_Comm_free(row, ierr)
  call MPI_Comm_free(cart, ierr)
  call MPI_Group_free(g3, ierr)
  call MPI_Group_free(wg, ierr)

  ! ---- a communicating function the table does not model
  wcounts = 1
  wdispls = (/ 0, 4, 8, 12 /)
  wtypes = MPI_INTEGER
  call MPI_Alltoallw(a, wcounts, wdispls, wtypes, b, wcounts, wdispls, wtypes, W, ierr)

  call MPI_Buffer_detach(bptr, bsize, ierr)
  if (bsize /= len(bsend_buffer)) call fail('Buffer_detach size')
  if (rank == 0) write (*, '(a,i0,a)') 'all_calls: done (provided ', provided, ')'
  call MPI_Finalize(ierr)

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: ierr2
    write (0, '(a,a)') 'all_calls.f90: ', what
    call MPI_Abort(MPI_COMM_WORLD, 3, ierr2)
  end subroutine fail

end program all_calls
