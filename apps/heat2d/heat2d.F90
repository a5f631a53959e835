! heat2d: explicit 2-D heat diffusion on a periodic grid, in Fortran 90: a
! halo-exchange (ring in each dimension) proxy with a known exact answer.
!
! The NX x NY periodic grid is split over a periodic PX x PY Cartesian
! communicator (MPI_Cart_create, MPI_Cart_shift).  Every iteration exchanges
! the four halo lines with MPI_Sendrecv (rows contiguous, columns through an
! MPI_Type_vector), then
!   u(i,j) <- u(i,j) + r (u(i-1,j) + u(i+1,j) + u(i,j-1) + u(i,j+1) - 4 u(i,j)).
! Every --check-every iterations one MPI_Allreduce sums the heat (conserved).
!
! Verification, closed form: from u0 = 1 + cos(2 pi kx x / NX) cos(2 pi ky y
! / NY) the discrete solution after n steps is
!   u_n = 1 + g^n cos(...) cos(...),  g = 1 - 4 r (sin^2(pi kx / NX) + sin^2(pi ky / NY)),
! so the maximum error (MPI_Reduce) must stay below 1e-12 and the total heat
! at NX NY.  The checksum (10 significant digits) does not depend on the MPI
! library.
#ifndef LLAMP_VERSION
#define LLAMP_VERSION "0.1.0"
#endif
program heat2d
  use mpi
  implicit none
  integer, parameter :: dp = kind(1d0)
  real(dp), parameter :: pi = 3.14159265358979323846_dp
  integer, parameter :: EXIT_USAGE = 1, EXIT_VERIFY = 2
  integer :: rc, ierr, rank, nranks

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call run(rc)
  call MPI_Finalize(ierr)
  ! no STOP: under SMPI it would end the whole simulation at the first rank
  if (rc /= 0) call exit(rc)

contains

  subroutine run(rc)
    integer, intent(out) :: rc
    integer :: gn(2), ln(2), dims(2), coords(2), kx, ky, iters, every, cart, it, e
    integer :: west, east, north, south, coltype, rcv(1)
    logical :: weak, print_end, periods(2)
    real(dp) :: r, g, heat(1), gheat(1), err(1), gerr(1), t0, t(1), tmax(1), sums(2), gsums(2)
    real(dp), allocatable :: u(:,:), un(:,:)
    integer :: i, j
    call parse_options(gn, weak, dims, iters, every, r, kx, ky, print_end, rc)
    if (rc >= 0) return
    rc = 0
    if (dims(1) == 0) call MPI_Dims_create(nranks, 2, dims, e)
    if (dims(1) * dims(2) /= nranks) then
      call usage_error('--grid: PXxPY must equal the number of ranks')
      rc = EXIT_USAGE
      return
    end if
    if (weak) gn = gn * dims
    if (mod(gn(1), dims(1)) /= 0 .or. mod(gn(2), dims(2)) /= 0) then
      call usage_error('--n: NX and NY must be multiples of the process grid')
      rc = EXIT_USAGE
      return
    end if
    ln = gn / dims
    periods = .true.
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, e)
    call MPI_Cart_coords(cart, rank, 2, coords, e)
    call MPI_Cart_shift(cart, 0, 1, west, east, e)
    call MPI_Cart_shift(cart, 1, 1, north, south, e)
    ! a column of the local array with its halo rows: ln(2) elements, stride ln(1) + 2
    call MPI_Type_vector(ln(2), 1, ln(1) + 2, MPI_DOUBLE_PRECISION, coltype, e)
    call MPI_Type_commit(coltype, e)
    if (rank == 0) then
      write (*, '(a,i0,a,i0,a,i0,a,i0,a,i0,a,f0.3,a,i0,a,i0)') 'heat2d: grid ', gn(1), 'x', gn(2), ' on ', &
        dims(1), 'x', dims(2), ' ranks, iterations ', iters, ', r ', r, ', mode ', kx, ',', ky
      write (*, '(a)') 'kernels: native'
    end if

    allocate (u(0:ln(1)+1, 0:ln(2)+1), un(ln(1), ln(2)))
    do j = 1, ln(2)
      do i = 1, ln(1)
        u(i, j) = exact(coords(1) * ln(1) + i - 1, coords(2) * ln(2) + j - 1, 0, r, kx, ky, gn)
      end do
    end do

    call MPI_Barrier(cart, e)
    t0 = MPI_Wtime()
    do it = 1, iters
      ! halo lines: x neighbours get columns (vector type), y neighbours rows
      call MPI_Sendrecv(u(1, 1), 1, coltype, west, 1, u(ln(1) + 1, 1), 1, coltype, east, 1, cart, &
                        MPI_STATUS_IGNORE, e)
      call MPI_Sendrecv(u(ln(1), 1), 1, coltype, east, 2, u(0, 1), 1, coltype, west, 2, cart, &
                        MPI_STATUS_IGNORE, e)
      call MPI_Sendrecv(u(1, 1), ln(1), MPI_DOUBLE_PRECISION, north, 3, u(1, ln(2) + 1), ln(1), &
                        MPI_DOUBLE_PRECISION, south, 3, cart, MPI_STATUS_IGNORE, e)
      call MPI_Sendrecv(u(1, ln(2)), ln(1), MPI_DOUBLE_PRECISION, south, 4, u(1, 0), ln(1), &
                        MPI_DOUBLE_PRECISION, north, 4, cart, MPI_STATUS_IGNORE, e)
      do j = 1, ln(2)
        do i = 1, ln(1)
          un(i, j) = u(i, j) + r * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) - 4 * u(i, j))
        end do
      end do
      u(1:ln(1), 1:ln(2)) = un
      if (mod(it, every) == 0 .or. it == iters) then
        heat(1) = sum(un)
        call MPI_Allreduce(heat, gheat, 1, MPI_DOUBLE_PRECISION, MPI_SUM, cart, e)
        if (rank == 0) write (*, '(a,i0,a,es20.13)') 'iteration ', it, ': heat ', gheat(1)
      end if
    end do
    t(1) = MPI_Wtime() - t0
    call MPI_Reduce(t, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, cart, e)

    ! the closed form
    g = 1 - 4 * r * (sin(pi * kx / gn(1))**2 + sin(pi * ky / gn(2))**2)
    err(1) = 0
    sums = 0
    do j = 1, ln(2)
      do i = 1, ln(1)
        err(1) = max(err(1), abs(u(i, j) - exact(coords(1) * ln(1) + i - 1, coords(2) * ln(2) + j - 1, iters, r, kx, ky, gn)))
        sums(1) = sums(1) + u(i, j)
        sums(2) = sums(2) + u(i, j) * (1 + mod(coords(1) * ln(1) + i + 3 * (coords(2) * ln(2) + j), 13))
      end do
    end do
    call MPI_Reduce(err, gerr, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, cart, e)
    call MPI_Reduce(sums, gsums, 2, MPI_DOUBLE_PRECISION, MPI_SUM, 0, cart, e)
    if (rank == 0) then
      write (*, '(a,es14.7,a)') 'time: ', tmax(1), ' s (MPI_Wtime, slowest rank)'
      write (*, '(a,es17.10,1x,es17.10)') 'checksum: ', gsums(1), gsums(2)
      if (gerr(1) <= 1e-12_dp .and. abs(gheat(1) - gn(1) * real(gn(2), dp)) <= 1e-9_dp * gn(1) * gn(2)) then
        write (*, '(a,es9.2,a,es12.5,a)') 'verification: PASSED (max error ', gerr(1), &
          ' against the closed form, amplitude ', g**iters, ')'
      else
        write (*, '(a,es12.5,a,es20.13,a)') 'verification: FAILED (max error ', gerr(1), ', heat ', gheat(1), ')'
        rc = EXIT_VERIFY
      end if
    end if
    rcv(1) = rc
    call MPI_Bcast(rcv, 1, MPI_INTEGER, 0, cart, e)
    rc = rcv(1)
    call MPI_Type_free(coltype, e)
    call MPI_Comm_free(cart, e)
    ! MPI_Wtime outside the WRITE: under SMPI with measured computation it
    ! may switch ranks, and a rank switched out inside a WRITE holds
    ! libgfortran's unit lock (one libgfortran for all ranks: deadlock)
    t0 = MPI_Wtime()
    if (print_end) write (*, '(a,i0,1x,es24.16)') 'end ', rank, t0
  end subroutine run

  ! the discrete solution at global cell (x, y) after n steps
  real(dp) function exact(x, y, n, r, kx, ky, gn)
    integer, intent(in) :: x, y, n, kx, ky, gn(2)
    real(dp), intent(in) :: r
    real(dp) :: gg
    gg = 1 - 4 * r * (sin(pi * kx / gn(1))**2 + sin(pi * ky / gn(2))**2)
    exact = 1 + gg**n * cos(2 * pi * kx * x / gn(1)) * cos(2 * pi * ky * y / gn(2))
  end function exact

  subroutine usage_error(text)
    character(len=*), intent(in) :: text
    if (rank == 0) write (0, '(a,a,a)') 'heat2d: ', text, ' (see --help)'
  end subroutine usage_error

  subroutine usage()
    write (*, '(a)') 'usage: heat2d [options]', &
      'Explicit 2-D heat diffusion on a periodic grid, Sendrecv halo exchange, Fortran 90;', &
      'verified against the closed-form discrete solution.', &
      '  --n NX,NY         global grid (default 64,64)', &
      '  --weak NX,NY      cells per rank', &
      '  --grid PXxPY      process grid (default MPI_Dims_create)', &
      '  --iters N         time steps (default 100)', &
      '  --check-every K   heat Allreduce every K steps (default 10)', &
      '  --r R             diffusion number, 0 < R <= 0.25 (default 0.2)', &
      '  --mode KX,KY      wave numbers of the initial cosine (default 1,1)', &
      '  --print-end       every rank prints "end RANK TIME" (MPI_Wtime) before MPI_Finalize', &
      '  -h, --help        this text (under smpirun use -h: SimGrid takes --help)', &
      '  --version         the version'
  end subroutine usage

  subroutine parse_options(gn, weak, dims, iters, every, r, kx, ky, print_end, rc)
    integer, intent(out) :: gn(2), dims(2), iters, every, kx, ky, rc
    logical, intent(out) :: weak, print_end
    real(dp), intent(out) :: r
    integer :: na, ia, ios, st
    character(len=256) :: opt, val
    gn = (/ 64, 64 /)
    weak = .false.
    dims = 0
    iters = 100
    every = 10
    r = 0.2_dp
    kx = 1
    ky = 1
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
        if (rank == 0) write (*, '(a)') 'heat2d (smpi-llamp) ' // LLAMP_VERSION
        rc = 0
        return
      case ('--print-end')
        print_end = .true.
        cycle
      case ('--n', '--weak', '--grid', '--iters', '--check-every', '--r', '--mode')
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
      case ('--n', '--weak', '--grid', '--mode')
        st = scan(val, 'x,')
        ios = 1
        if (st > 1) then
          if (trim(opt) == '--n' .or. trim(opt) == '--weak') then
            read (val(1:st-1), *, iostat=ios) gn(1)
            if (ios == 0) read (val(st+1:), *, iostat=ios) gn(2)
            if (ios == 0 .and. minval(gn) < 1) ios = 1
            weak = trim(opt) == '--weak'
          else if (trim(opt) == '--grid') then
            read (val(1:st-1), *, iostat=ios) dims(1)
            if (ios == 0) read (val(st+1:), *, iostat=ios) dims(2)
            if (ios == 0 .and. minval(dims) < 1) ios = 1
          else
            read (val(1:st-1), *, iostat=ios) kx
            if (ios == 0) read (val(st+1:), *, iostat=ios) ky
            if (ios == 0 .and. min(kx, ky) < 0) ios = 1
          end if
        end if
      case ('--iters')
        read (val, *, iostat=ios) iters
        if (ios == 0 .and. iters < 1) ios = 1
      case ('--check-every')
        read (val, *, iostat=ios) every
        if (ios == 0 .and. every < 1) ios = 1
      case ('--r')
        read (val, *, iostat=ios) r
        if (ios == 0 .and. (r <= 0 .or. r > 0.25_dp)) ios = 1
      end select
      if (ios /= 0) then
        call usage_error(trim(opt) // ': bad value ''' // trim(val) // '''')
        rc = EXIT_USAGE
        return
      end if
    end do
  end subroutine parse_options

end program heat2d
