! wavefront: a pipelined 2-D wavefront sweep in Fortran 90, in the style of
! the NAS LU solver's SSOR iteration (blts / buts): latency-bound chains of
! blocking point-to-point messages.
!
! The NX x NY x NZ grid is split over a PX x PY process grid in x and y; z is
! cut into blocks of --kb planes that flow through the pipeline.  Every
! iteration:
!   1. halo exchange of v with the 4 neighbours (Irecv/Isend/Waitall), then
!      rhs = f + eps (v(i-1,j,k) + v(i+1,j,k) + v(i,j-1,k) + v(i,j+1,k)) / 4;
!   2. --sweeps pairs of triangular sweeps:
!      lower (blts): per z block, MPI_Recv the west and north inflow faces,
!        w(i,j,k) = (rhs + a w(i-1,j,k) + b w(i,j-1,k) + c w(i,j,k-1)) / d,
!        MPI_Send the east and south outflow faces;
!      upper (buts): the same from the opposite corner (east/south in,
!        west/north out, i, j, k descending) on the lower sweep's result;
!   3. v = result; MPI_Allreduce of the squared change (the residual norm).
! The domain's outer faces are 0.  Natively and under SMPI the computation is
! real; --block-us T (SMPI builds: -DLLAMP_SMPI=1) also charges T per block
! and sweep with smpi_execute_benched, for model-driven runs
! (--cfg=smpi/simulate-computation:no).
!
! Verification (when --serial-max allows): rank 0 runs the same recurrence
! serially on the whole grid; every cell sees the same inputs in the same
! order, so the two weighted sums of v (reduced over the ranks) must match
! the serial ones to 1e-12 relative.  The printed checksum does not depend
! on the MPI library (10 significant digits).
#ifndef LLAMP_VERSION
#define LLAMP_VERSION "0.1.0"
#endif
program wavefront
  use mpi
  implicit none
  integer, parameter :: dp = kind(1d0)
  real(dp), parameter :: ca = 0.25_dp, cb = 0.25_dp, cc = 0.25_dp, cd = 1.0_dp, eps = 1e-3_dp
  integer, parameter :: EXIT_USAGE = 1, EXIT_VERIFY = 2
  integer :: rc, ierr, rank, nranks, px, py, mx, my, west, east, north, south
  integer :: gn(3), ln(3), ox, oy, kb, iters, sweeps, it, s, rcv(1)
  integer(kind=8) :: serial_max, work
  logical :: weak, print_end, verify
  real(dp) :: block_us, t0, t1(1), tmax(1), norm, lnorm(1), gnorm(1), sums(2), gsums(2), ssums(2), snorm, rel
  real(dp), allocatable :: v(:,:,:), w(:,:,:), f(:,:,:), rhs(:,:,:)
  character(len=64) :: msg
  logical :: serial_mode = .false.

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call run(rc)
  call MPI_Finalize(ierr)
  ! exit status: 0, 1 bad option, 2 failed verification (no STOP: under
  ! SMPI it would end the whole simulation at the first rank)
  if (rc /= 0) call exit(rc)

contains

  subroutine run(rc)
  integer, intent(out) :: rc
  call parse_options(rc)
  if (rc >= 0) return
  rc = 0

  ! process grid and neighbours (no Cart communicator: nothing to create)
  if (px == 0) then
    px = 0
    py = 0
    call dims2(nranks, px, py)
  end if
  if (px * py /= nranks) then
    call usage_error('--grid: PXxPY must equal the number of ranks')
    rc = EXIT_USAGE
    return
  end if
  mx = mod(rank, px)
  my = rank / px
  west = merge(rank - 1, MPI_PROC_NULL, mx > 0)
  east = merge(rank + 1, MPI_PROC_NULL, mx < px - 1)
  north = merge(rank - px, MPI_PROC_NULL, my > 0)
  south = merge(rank + px, MPI_PROC_NULL, my < py - 1)
  if (weak) then
    gn(1) = ln(1) * px
    gn(2) = ln(2) * py
    gn(3) = ln(3)
  end if
  if (mod(gn(1), px) /= 0 .or. mod(gn(2), py) /= 0) then
    call usage_error('--n: NX and NY must be multiples of the process grid')
    rc = EXIT_USAGE
    return
  end if
  ln(1) = gn(1) / px
  ln(2) = gn(2) / py
  ln(3) = gn(3)
  ox = mx * ln(1)
  oy = my * ln(2)
  kb = min(kb, ln(3))

  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)') 'wavefront: grid ', gn(1), 'x', gn(2), 'x', &
      gn(3), ' on ', px, 'x', py, ' ranks, kb ', kb, ', iterations ', iters, ', sweeps ', sweeps
#ifdef LLAMP_SMPI
    if (block_us > 0) write (*, '(a,f0.3,a)') 'kernels: modelled, ', block_us, ' us per block and sweep'
    if (block_us <= 0) write (*, '(a)') 'kernels: measured'
#else
    write (*, '(a)') 'kernels: native'
    if (block_us > 0) write (*, '(a)') 'note: --block-us only applies to SMPI builds'
#endif
  end if

  allocate (v(0:ln(1)+1, 0:ln(2)+1, ln(3)), w(0:ln(1)+1, 0:ln(2)+1, 0:ln(3)+1))
  allocate (f(ln(1), ln(2), ln(3)), rhs(ln(1), ln(2), ln(3)))
  call init_source(f, ln, ox, oy)
  v = 0

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t0 = MPI_Wtime()
  do it = 1, iters
    call exchange_halo(v, ln)
    call make_rhs(v, f, rhs, ln)
    do s = 1, sweeps
      call lower_sweep(rhs, w, ln)
      call upper_sweep(w, ln)
      rhs = w(1:ln(1), 1:ln(2), 1:ln(3))
    end do
    lnorm(1) = sum((rhs - v(1:ln(1), 1:ln(2), 1:ln(3)))**2)
    v(1:ln(1), 1:ln(2), 1:ln(3)) = rhs
    call MPI_Allreduce(lnorm, gnorm, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    norm = gnorm(1)
    if (rank == 0) write (*, '(a,i0,a,es12.5)') 'iteration ', it, ': change ', sqrt(norm)
  end do
  t1(1) = MPI_Wtime() - t0
  call MPI_Reduce(t1, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  call weighted_sums(v, ln, ox, oy, gn, sums)
  call MPI_Allreduce(sums, gsums, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a,es14.7,a)') 'time: ', tmax(1), ' s (MPI_Wtime, slowest rank)'
    write (*, '(a,es17.10,1x,es17.10)') 'checksum: ', gsums(1), gsums(2)
  end if

  ! verification: rank 0's serial run of the same recurrence
  work = int(gn(1), 8) * gn(2) * gn(3) * iters * sweeps
  verify = work <= serial_max
  rc = 0
  if (rank == 0) then
    if (.not. verify) then
      write (*, '(a,i0,a)') 'verification: SKIPPED (', work, ' cell updates > --serial-max)'
    else
      call serial_run(gn, ssums, snorm)
      rel = maxval(abs(gsums - ssums) / max(abs(ssums), tiny(1d0)))
      if (rel <= 1e-12_dp .and. abs(sqrt(norm) - snorm) <= 1e-12_dp * max(snorm, 1d-300)) then
        write (msg, '(es9.2)') rel
        write (*, '(a,a,a)') 'verification: PASSED (weighted sums equal to the serial run''s within ', &
          trim(adjustl(msg)), ')'
      else
        write (*, '(a,2es20.12,a,2es20.12)') 'verification: FAILED (sums', gsums, ' serial', ssums
        rc = EXIT_VERIFY
      end if
    end if
  end if
  rcv(1) = rc
  call MPI_Bcast(rcv, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  rc = rcv(1)
  if (print_end) then
    ! every rank's simulated time after its last computation (consistency tests)
    ! MPI_Wtime outside the WRITE: under SMPI with measured computation it
    ! may switch ranks, and a rank switched out inside a WRITE holds
    ! libgfortran's unit lock (one libgfortran for all ranks: deadlock)
    t0 = MPI_Wtime()
    write (*, '(a,i0,1x,es24.16)') 'end ', rank, t0
  end if
  end subroutine run

  subroutine usage_error(text)
    character(len=*), intent(in) :: text
    if (rank == 0) write (0, '(a,a,a)') 'wavefront: ', text, ' (see --help)'
  end subroutine usage_error

  subroutine usage()
    write (*, '(a)') 'usage: wavefront [options]', &
      'Pipelined 2-D wavefront sweep (NAS LU SSOR style), Fortran 90; verified against', &
      'rank 0''s serial run of the same recurrence.', &
      '  --n NX,NY,NZ      global cells (default 32,32,16)', &
      '  --weak NX,NY,NZ   cells per rank in x and y, NZ global', &
      '  --grid PXxPY      process grid (default MPI_Dims_create)', &
      '  --kb K            z planes per pipelined block (default 2)', &
      '  --iters N         iterations (default 5)', &
      '  --sweeps S        lower+upper sweep pairs per iteration (default 1)', &
      '  --block-us T      SMPI builds: also charge T us per block and sweep (smpi_execute_benched)', &
      '  --serial-max C    serial check when cells x iterations x sweeps <= C (default 4M; 0 disables)', &
      '  --print-end       every rank prints "end RANK TIME" (MPI_Wtime) before MPI_Finalize', &
      '  -h, --help        this text (under smpirun use -h: SimGrid takes --help)', &
      '  --version         the version'
  end subroutine usage

  ! Options; rc = -1 to run, else the exit status to finish with.
  subroutine parse_options(rc)
    integer, intent(out) :: rc
    integer :: na, ia, ios, st
    character(len=256) :: opt, val
    gn = (/ 32, 32, 16 /)
    weak = .false.
    px = 0
    py = 0
    kb = 2
    iters = 5
    sweeps = 1
    block_us = 0
    serial_max = 4 * 1024 * 1024
    print_end = .false.
    rc = -1
    na = command_argument_count()
    ia = 1
    do while (ia <= na)
      call get_command_argument(ia, opt)
      ia = ia + 1
      select case (trim(opt))
      case ('-h', '--help')
        if (rank == 0) call usage()
        rc = 0
        return
      case ('--version')
        if (rank == 0) write (*, '(a)') 'wavefront (smpi-llamp) ' // LLAMP_VERSION
        rc = 0
        return
      case ('--print-end')
        print_end = .true.
        cycle
      case ('--n', '--weak', '--grid', '--kb', '--iters', '--sweeps', '--block-us', '--serial-max')
        if (ia > na) then
          call usage_error(trim(opt) // ' needs a value')
          rc = EXIT_USAGE
          return
        end if
        call get_command_argument(ia, val)
        ia = ia + 1
      case default
        call usage_error('unknown option ''' // trim(opt) // '''')
        rc = EXIT_USAGE
        return
      end select
      ios = 0
      select case (trim(opt))
      case ('--n', '--weak')
        call parse_dims(val, ln, ios)
        if (ios == 0 .and. trim(opt) == '--n') gn = ln
        weak = trim(opt) == '--weak'
      case ('--grid')
        st = scan(val, 'x,')
        if (st > 1) then
          read (val(1:st-1), *, iostat=ios) px
          if (ios == 0) read (val(st+1:), *, iostat=ios) py
        else
          ios = 1
        end if
        if (ios == 0 .and. (px < 1 .or. py < 1)) ios = 1
      case ('--kb')
        read (val, *, iostat=ios) kb
        if (ios == 0 .and. kb < 1) ios = 1
      case ('--iters')
        read (val, *, iostat=ios) iters
        if (ios == 0 .and. iters < 1) ios = 1
      case ('--sweeps')
        read (val, *, iostat=ios) sweeps
        if (ios == 0 .and. sweeps < 1) ios = 1
      case ('--block-us')
        read (val, *, iostat=ios) block_us
        if (ios == 0 .and. block_us < 0) ios = 1
      case ('--serial-max')
        read (val, *, iostat=ios) serial_max
        if (ios == 0 .and. serial_max < 0) ios = 1
      end select
      if (ios /= 0) then
        call usage_error(trim(opt) // ': bad value ''' // trim(val) // '''')
        rc = EXIT_USAGE
        return
      end if
    end do
  end subroutine parse_options

  subroutine parse_dims(text, d, ios)
    character(len=*), intent(in) :: text
    integer, intent(out) :: d(3), ios
    integer :: a, b
    a = index(text, ',')
    b = index(text, ',', back=.true.)
    ios = 1
    if (a == 0 .or. a == b) return
    read (text(1:a-1), *, iostat=ios) d(1)
    if (ios == 0) read (text(a+1:b-1), *, iostat=ios) d(2)
    if (ios == 0) read (text(b+1:), *, iostat=ios) d(3)
    if (ios == 0 .and. minval(d) < 1) ios = 1
  end subroutine parse_dims

  ! the squarest px x py = n with px >= py (MPI_Dims_create)
  subroutine dims2(n, p, q)
    integer, intent(in) :: n
    integer, intent(inout) :: p, q
    integer :: d(2), e
    d = 0
    call MPI_Dims_create(n, 2, d, e)
    p = d(1)
    q = d(2)
  end subroutine dims2

  subroutine init_source(f, ln, ox, oy)
    real(dp), intent(out) :: f(:,:,:)
    integer, intent(in) :: ln(3), ox, oy
    integer :: i, j, k
    do k = 1, ln(3)
      do j = 1, ln(2)
        do i = 1, ln(1)
          f(i, j, k) = 1 + 0.1_dp * mod(3 * (ox + i) + 5 * (oy + j) + 7 * k, 11)
        end do
      end do
    end do
  end subroutine init_source

  ! v's x and y faces to the 4 neighbours (MPI_PROC_NULL at the domain's edge)
  subroutine exchange_halo(v, ln)
    real(dp), intent(inout) :: v(0:, 0:, :)
    integer, intent(in) :: ln(3)
    real(dp), allocatable :: sx(:,:,:), rx(:,:,:), sy(:,:,:), ry(:,:,:)
    integer :: rq(8), e
    allocate (sx(ln(2), ln(3), 2), rx(ln(2), ln(3), 2), sy(ln(1), ln(3), 2), ry(ln(1), ln(3), 2))
    rx = 0
    ry = 0
    sx(:, :, 1) = v(1, 1:ln(2), :)
    sx(:, :, 2) = v(ln(1), 1:ln(2), :)
    sy(:, :, 1) = v(1:ln(1), 1, :)
    sy(:, :, 2) = v(1:ln(1), ln(2), :)
    call MPI_Irecv(rx(1, 1, 1), ln(2) * ln(3), MPI_DOUBLE_PRECISION, west, 11, MPI_COMM_WORLD, rq(1), e)
    call MPI_Irecv(rx(1, 1, 2), ln(2) * ln(3), MPI_DOUBLE_PRECISION, east, 10, MPI_COMM_WORLD, rq(2), e)
    call MPI_Irecv(ry(1, 1, 1), ln(1) * ln(3), MPI_DOUBLE_PRECISION, north, 13, MPI_COMM_WORLD, rq(3), e)
    call MPI_Irecv(ry(1, 1, 2), ln(1) * ln(3), MPI_DOUBLE_PRECISION, south, 12, MPI_COMM_WORLD, rq(4), e)
    call MPI_Isend(sx(1, 1, 1), ln(2) * ln(3), MPI_DOUBLE_PRECISION, west, 10, MPI_COMM_WORLD, rq(5), e)
    call MPI_Isend(sx(1, 1, 2), ln(2) * ln(3), MPI_DOUBLE_PRECISION, east, 11, MPI_COMM_WORLD, rq(6), e)
    call MPI_Isend(sy(1, 1, 1), ln(1) * ln(3), MPI_DOUBLE_PRECISION, north, 12, MPI_COMM_WORLD, rq(7), e)
    call MPI_Isend(sy(1, 1, 2), ln(1) * ln(3), MPI_DOUBLE_PRECISION, south, 13, MPI_COMM_WORLD, rq(8), e)
    call MPI_Waitall(8, rq, MPI_STATUSES_IGNORE, e)
    v(0, 1:ln(2), :) = rx(:, :, 1)
    v(ln(1) + 1, 1:ln(2), :) = rx(:, :, 2)
    v(1:ln(1), 0, :) = ry(:, :, 1)
    v(1:ln(1), ln(2) + 1, :) = ry(:, :, 2)
  end subroutine exchange_halo

  subroutine make_rhs(v, f, rhs, ln)
    real(dp), intent(in) :: v(0:, 0:, :), f(:,:,:)
    real(dp), intent(out) :: rhs(:,:,:)
    integer, intent(in) :: ln(3)
    integer :: i, j, k
    do k = 1, ln(3)
      do j = 1, ln(2)
        do i = 1, ln(1)
          rhs(i, j, k) = f(i, j, k) + eps * 0.25_dp * (v(i - 1, j, k) + v(i + 1, j, k) + v(i, j - 1, k) &
                                                        + v(i, j + 1, k))
        end do
      end do
    end do
  end subroutine make_rhs

  subroutine charge_block()
#ifdef LLAMP_SMPI
    if (block_us > 0 .and. .not. serial_mode) call smpi_execute_benched(block_us * 1d-6)
#endif
  end subroutine charge_block

  ! blts: west/north in, east/south out, ascending
  subroutine lower_sweep(rhs, w, ln)
    real(dp), intent(in) :: rhs(:,:,:)
    real(dp), intent(inout) :: w(0:, 0:, 0:)
    integer, intent(in) :: ln(3)
    real(dp), allocatable :: fx(:,:), fy(:,:)
    integer :: k0, k1, nk, i, j, k, e
    allocate (fx(ln(2), kb), fy(ln(1), kb))
    w = 0
    do k0 = 1, ln(3), kb
      k1 = min(k0 + kb - 1, ln(3))
      nk = k1 - k0 + 1
      if (west /= MPI_PROC_NULL) then
        call MPI_Recv(fx, ln(2) * nk, MPI_DOUBLE_PRECISION, west, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, e)
        w(0, 1:ln(2), k0:k1) = fx(:, 1:nk)
      end if
      if (north /= MPI_PROC_NULL) then
        call MPI_Recv(fy, ln(1) * nk, MPI_DOUBLE_PRECISION, north, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, e)
        w(1:ln(1), 0, k0:k1) = fy(:, 1:nk)
      end if
      do k = k0, k1
        do j = 1, ln(2)
          do i = 1, ln(1)
            w(i, j, k) = (rhs(i, j, k) + ca * w(i - 1, j, k) + cb * w(i, j - 1, k) + cc * w(i, j, k - 1)) / cd
          end do
        end do
      end do
      call charge_block()
      if (east /= MPI_PROC_NULL) then
        fx(:, 1:nk) = w(ln(1), 1:ln(2), k0:k1)
        call MPI_Send(fx, ln(2) * nk, MPI_DOUBLE_PRECISION, east, 1, MPI_COMM_WORLD, e)
      end if
      if (south /= MPI_PROC_NULL) then
        fy(:, 1:nk) = w(1:ln(1), ln(2), k0:k1)
        call MPI_Send(fy, ln(1) * nk, MPI_DOUBLE_PRECISION, south, 2, MPI_COMM_WORLD, e)
      end if
    end do
  end subroutine lower_sweep

  ! buts: east/south in, west/north out, descending, on the lower sweep's w
  subroutine upper_sweep(w, ln)
    real(dp), intent(inout) :: w(0:, 0:, 0:)
    integer, intent(in) :: ln(3)
    real(dp), allocatable :: fx(:,:), fy(:,:)
    integer :: k0, k1, nk, i, j, k, e, nb, b
    allocate (fx(ln(2), kb), fy(ln(1), kb))
    w(ln(1) + 1, :, :) = 0
    w(:, ln(2) + 1, :) = 0
    w(:, :, ln(3) + 1) = 0
    nb = (ln(3) + kb - 1) / kb
    do b = nb, 1, -1
      k0 = (b - 1) * kb + 1
      k1 = min(k0 + kb - 1, ln(3))
      nk = k1 - k0 + 1
      if (east /= MPI_PROC_NULL) then
        call MPI_Recv(fx, ln(2) * nk, MPI_DOUBLE_PRECISION, east, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, e)
        w(ln(1) + 1, 1:ln(2), k0:k1) = fx(:, 1:nk)
      end if
      if (south /= MPI_PROC_NULL) then
        call MPI_Recv(fy, ln(1) * nk, MPI_DOUBLE_PRECISION, south, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE, e)
        w(1:ln(1), ln(2) + 1, k0:k1) = fy(:, 1:nk)
      end if
      do k = k1, k0, -1
        do j = ln(2), 1, -1
          do i = ln(1), 1, -1
            w(i, j, k) = (w(i, j, k) + ca * w(i + 1, j, k) + cb * w(i, j + 1, k) + cc * w(i, j, k + 1)) / cd
          end do
        end do
      end do
      call charge_block()
      if (west /= MPI_PROC_NULL) then
        fx(:, 1:nk) = w(1, 1:ln(2), k0:k1)
        call MPI_Send(fx, ln(2) * nk, MPI_DOUBLE_PRECISION, west, 3, MPI_COMM_WORLD, e)
      end if
      if (north /= MPI_PROC_NULL) then
        fy(:, 1:nk) = w(1:ln(1), 1, k0:k1)
        call MPI_Send(fy, ln(1) * nk, MPI_DOUBLE_PRECISION, north, 4, MPI_COMM_WORLD, e)
      end if
    end do
  end subroutine upper_sweep

  ! two weighted sums of v over the local cells (global index weights)
  subroutine weighted_sums(v, ln, ox, oy, gn, s)
    real(dp), intent(in) :: v(0:, 0:, :)
    integer, intent(in) :: ln(3), ox, oy, gn(3)
    real(dp), intent(out) :: s(2)
    integer :: i, j, k
    s = 0
    do k = 1, ln(3)
      do j = 1, ln(2)
        do i = 1, ln(1)
          s(1) = s(1) + v(i, j, k)
          s(2) = s(2) + v(i, j, k) * (1 + mod(int(ox + i, 8) + gn(1) * (int(oy + j, 8) + int(gn(2), 8) * k), 17_8))
        end do
      end do
    end do
  end subroutine weighted_sums

  ! the whole grid on one process: the same recurrence, no messages
  subroutine serial_run(gn, s, snorm)
    integer, intent(in) :: gn(3)
    real(dp), intent(out) :: s(2), snorm
    real(dp), allocatable :: sv(:,:,:), sw(:,:,:), sf(:,:,:), sr(:,:,:)
    integer :: it, sw_i, savew, saven, savee, saves
    savew = west
    saven = north
    savee = east
    saves = south
    west = MPI_PROC_NULL
    north = MPI_PROC_NULL
    east = MPI_PROC_NULL
    south = MPI_PROC_NULL
    serial_mode = .true.
    allocate (sv(0:gn(1)+1, 0:gn(2)+1, gn(3)), sw(0:gn(1)+1, 0:gn(2)+1, 0:gn(3)+1))
    allocate (sf(gn(1), gn(2), gn(3)), sr(gn(1), gn(2), gn(3)))
    call init_source(sf, gn, 0, 0)
    sv = 0
    do it = 1, iters
      call make_rhs(sv, sf, sr, gn)
      do sw_i = 1, sweeps
        call lower_sweep(sr, sw, gn)
        call upper_sweep(sw, gn)
        sr = sw(1:gn(1), 1:gn(2), 1:gn(3))
      end do
      snorm = sqrt(sum((sr - sv(1:gn(1), 1:gn(2), 1:gn(3)))**2))
      sv(1:gn(1), 1:gn(2), 1:gn(3)) = sr
    end do
    call weighted_sums(sv, gn, 0, 0, gn, s)
    west = savew
    north = saven
    east = savee
    south = saves
    serial_mode = .false.
  end subroutine serial_run

end program wavefront
