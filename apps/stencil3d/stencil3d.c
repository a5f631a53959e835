/* stencil3d: 7-point Jacobi iteration for the Poisson problem A u = f on a
 * 3-D grid, block-decomposed over an MPI_Cart process grid (MPI_Dims_create),
 * with Isend/Irecv/Waitall halo exchanges of the six faces every iteration
 * and a residual MPI_Allreduce every k iterations (the LULESH-like pattern:
 * neighbour exchange plus a periodic global reduction).
 *
 * Problem (manufactured, exact in the discrete sense): on the unit cube with
 * nx x ny x nz interior points, spacing h_d = 1/(n_d + 1) and zero Dirichlet
 * boundary, u*(x,y,z) = 64 x(1-x) y(1-y) z(1-z) and f = A_h u*, where A_h is
 * the 7-point operator.  The discrete solution is exactly u*.  From u0 = 0,
 * Jacobi's iteration matrix is symmetric with spectral radius
 *   rho = sum_d w_d cos(pi h_d) / sum_d w_d,   w_d = 1/h_d^2,
 * so ||u_k - u*||_2 <= rho^k ||u*||_2, and ||u_k - u*||_2 <= ||r_k||_2 / lambda_min
 * with lambda_min = sum_d 2 w_d (1 - cos(pi h_d)).
 *
 * Verification (when the kernels ran): both bounds hold, the residual never
 * grew between checks, and, for global grids up to --serial-max points, the
 * field equals (to 1e-13 relative) rank 0's serial run of the same iterations,
 * which rank 0 sends block by block to the owners.
 */
#define _GNU_SOURCE
#include "llamp_app.h"
#include "llamp_kernel.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long local[3];  /* --weak */
    long global[3]; /* --strong */
    int strong;
    int dims[3];
    long iters, check_every;
    double tol;
    long serial_max;
} opts_t;

/* One block with a ghost layer: interior (1..l[0]) x (1..l[1]) x (1..l[2]). */
typedef struct {
    int l[3];
    long off[3];   /* global index of interior point 1 is off + 1 */
    size_t sx, sy; /* strides of j and k */
    size_t n;      /* with ghosts */
} block_t;

static const double PI = 3.14159265358979323846;

static void usage(void)
{
    printf("usage: stencil3d [options]\n"
           "7-point Jacobi on a 3-D block decomposition with halo exchanges and a\n"
           "residual Allreduce every k iterations; verified against a manufactured solution.\n"
           "  --weak NX[,NY,NZ]     points per rank (weak scaling; default 32)\n"
           "  --strong NX[,NY,NZ]   global points, split over the ranks (strong scaling)\n"
           "  --dims PX,PY,PZ       process grid (default MPI_Dims_create)\n"
           "  --iters N             Jacobi iterations (default 100)\n"
           "  --check-every K       residual Allreduce every K iterations (default 10)\n"
           "  --tol T               stop when ||r||/||f|| < T at a check (default 0: never;\n"
           "                        ignored when kernel models replace the computation)\n"
           "  --serial-max P        compare with a serial run on rank 0 when the global grid\n"
           "                        has at most P points (default 2M; 0 disables)\n"
           "  -h, --help      this text (under smpirun use -h: SimGrid takes --help)\n"
           "  --version       the version (natively; SimGrid takes it under smpirun)\n");
}

static int parse(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"weak", required_argument, 0, 'w'},   {"strong", required_argument, 0, 's'},
        {"dims", required_argument, 0, 'd'},   {"iters", required_argument, 0, 'i'},
        {"check-every", required_argument, 0, 'k'}, {"tol", required_argument, 0, 't'},
        {"serial-max", required_argument, 0, 'S'}, {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},      {0, 0, 0, 0}};
    const char *app = "stencil3d";
    int c, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'w':
        case 's':
            if (llamp_app_opt_grid(app, c == 'w' ? "weak" : "strong", optarg,
                                   c == 'w' ? o->local : o->global))
                return LLAMP_APP_EXIT_USAGE;
            o->strong = c == 's';
            break;
        case 'd':
            if (llamp_app_opt_procs(app, optarg, o->dims))
                return LLAMP_APP_EXIT_USAGE;
            break;
        case 'i':
        case 'k':
        case 'S': {
            long *dst = c == 'i' ? &o->iters : c == 'k' ? &o->check_every : &o->serial_max;
            if (llamp_app_parse_count(optarg, dst) || (c != 'S' && *dst < 1)) {
                llamp_app_usage_error(app, "--%s: bad count '%s'",
                                      c == 'i' ? "iters" : c == 'k' ? "check-every" : "serial-max",
                                      optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        }
        case 't': {
            char *end;
            o->tol = strtod(optarg, &end);
            if (*end || !(o->tol >= 0)) {
                llamp_app_usage_error(app, "--tol: expected a number >= 0, got '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        }
        default:
            return llamp_app_other_option(app, c, rank, usage, argv);
        }
    }
    return llamp_app_no_operands(app, argc, argv);
}

static inline size_t at(const block_t *b, int i, int j, int k)
{
    return (size_t)k * b->sy + (size_t)j * b->sx + (size_t)i;
}

static void block_init(block_t *b, const long global[3], const int dims[3], const int coords[3])
{
    for (int d = 0; d < 3; d++) {
        long q = global[d] / dims[d], r = global[d] % dims[d];
        b->l[d] = (int)(q + (coords[d] < r));
        b->off[d] = coords[d] * q + (coords[d] < r ? coords[d] : r);
    }
    b->sx = (size_t)b->l[0] + 2;
    b->sy = b->sx * ((size_t)b->l[1] + 2);
    b->n = b->sy * ((size_t)b->l[2] + 2);
}

/* The manufactured solution at global point g (0 and n+1 are the boundary). */
static double exact(const long g[3], const double h[3])
{
    double v = 64.0;
    for (int d = 0; d < 3; d++) {
        double x = (double)g[d] * h[d];
        v *= x * (1 - x);
    }
    return v;
}

/* f = A_h u* on the block's interior (ghosts 0). */
static void make_rhs(const block_t *b, const double h[3], const double w[3], double *f)
{
    memset(f, 0, b->n * sizeof *f);
    for (int k = 1; k <= b->l[2]; k++)
        for (int j = 1; j <= b->l[1]; j++)
            for (int i = 1; i <= b->l[0]; i++) {
                long g[3] = {b->off[0] + i, b->off[1] + j, b->off[2] + k};
                double c = exact(g, h), s = 0;
                for (int d = 0; d < 3; d++) {
                    long gm[3] = {g[0], g[1], g[2]}, gp[3] = {g[0], g[1], g[2]};
                    gm[d]--;
                    gp[d]++;
                    s += w[d] * (2 * c - exact(gm, h) - exact(gp, h));
                }
                f[at(b, i, j, k)] = s;
            }
}

/* One Jacobi sweep u -> v; returns sum (v - u)^2 when want_res (the residual
 * of u is D (v - u)). */
static double sweep(const block_t *b, const double w[3], const double *f, const double *u,
                    double *v, int want_res)
{
    const double inv_d = 1.0 / (2 * (w[0] + w[1] + w[2]));
    const size_t sx = b->sx, sy = b->sy;
    double res = 0;
    for (int k = 1; k <= b->l[2]; k++)
        for (int j = 1; j <= b->l[1]; j++) {
            const size_t base = at(b, 0, j, k);
            const double *uc = u + base;
            double *vc = v + base;
            const double *fc = f + base;
            if (want_res) {
                for (int i = 1; i <= b->l[0]; i++) {
                    double nv = (fc[i] + w[0] * (uc[i - 1] + uc[i + 1]) +
                                 w[1] * (uc[i - sx] + uc[i + sx]) +
                                 w[2] * (uc[i - sy] + uc[i + sy])) * inv_d;
                    double dlt = nv - uc[i];
                    res += dlt * dlt;
                    vc[i] = nv;
                }
            } else {
                for (int i = 1; i <= b->l[0]; i++)
                    vc[i] = (fc[i] + w[0] * (uc[i - 1] + uc[i + 1]) +
                             w[1] * (uc[i - sx] + uc[i + sx]) +
                             w[2] * (uc[i - sy] + uc[i + sy])) * inv_d;
            }
        }
    return res;
}

/* Face d, side s (0: low, 1: high) of the interior (ghost = 0: the interior
 * layer next to it; ghost = 1: the ghost layer) to or from a buffer. */
static size_t face(const block_t *b, double *u, int d, int s, int ghost, double *buf, int to_buf)
{
    int lo[3] = {1, 1, 1}, hi[3] = {b->l[0], b->l[1], b->l[2]};
    int plane = s ? (ghost ? b->l[d] + 1 : b->l[d]) : (ghost ? 0 : 1);
    lo[d] = hi[d] = plane;
    size_t n = 0;
    for (int k = lo[2]; k <= hi[2]; k++)
        for (int j = lo[1]; j <= hi[1]; j++)
            for (int i = lo[0]; i <= hi[0]; i++) {
                size_t c = at(b, i, j, k);
                if (to_buf)
                    buf[n++] = u[c];
                else
                    u[c] = buf[n++];
            }
    return n;
}

static size_t face_size(const block_t *b, int d)
{
    size_t n = 1;
    for (int e = 0; e < 3; e++)
        if (e != d)
            n *= (size_t)b->l[e];
    return n;
}

typedef struct {
    int nbr[3][2];
    double *sbuf[3][2], *rbuf[3][2];
} halo_t;

static void halo_exchange(const block_t *b, halo_t *h, double *u, MPI_Comm comm)
{
    MPI_Request req[12];
    int nr = 0;
    size_t total = 2 * (face_size(b, 0) + face_size(b, 1) + face_size(b, 2));
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++)
            if (h->nbr[d][s] != MPI_PROC_NULL)
                MPI_Irecv(h->rbuf[d][s], (int)face_size(b, d), MPI_DOUBLE, h->nbr[d][s],
                          2 * d + (1 - s), comm, &req[nr++]);
    LLAMP_KERNEL("halo_pack", total, 1, 1, {
        for (int d = 0; d < 3; d++)
            for (int s = 0; s < 2; s++)
                if (h->nbr[d][s] != MPI_PROC_NULL)
                    face(b, u, d, s, 0, h->sbuf[d][s], 1);
    });
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++)
            if (h->nbr[d][s] != MPI_PROC_NULL)
                MPI_Isend(h->sbuf[d][s], (int)face_size(b, d), MPI_DOUBLE, h->nbr[d][s], 2 * d + s,
                          comm, &req[nr++]);
    llamp_app_waitall(nr, req);
    LLAMP_KERNEL("halo_unpack", total, 1, 1, {
        for (int d = 0; d < 3; d++)
            for (int s = 0; s < 2; s++)
                if (h->nbr[d][s] != MPI_PROC_NULL)
                    face(b, u, d, s, 1, h->rbuf[d][s], 0);
    });
}

/* Serial reference on rank 0: the same sweeps on the whole grid. */
static double *serial_run(const long global[3], const double h[3], const double w[3], long iters,
                          block_t *g)
{
    int one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
    block_init(g, global, one, zero);
    double *f = malloc(g->n * sizeof *f), *u = calloc(g->n, sizeof *u), *v = calloc(g->n, sizeof *v);
    make_rhs(g, h, w, f);
    for (long it = 0; it < iters; it++) {
        sweep(g, w, f, u, v, 0);
        double *t = u;
        u = v;
        v = t;
    }
    free(f);
    free(v);
    return u;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    opts_t o = {{32, 32, 32}, {0, 0, 0}, 0, {0, 0, 0}, 100, 10, 0.0, 2L << 20};
    int rc = parse(argc, argv, &o);
    if (rc < 0 && o.dims[0] && (long)o.dims[0] * o.dims[1] * o.dims[2] != size) {
        llamp_app_usage_error("stencil3d", "--dims %dx%dx%d does not match %d ranks", o.dims[0],
                              o.dims[1], o.dims[2], size);
        rc = LLAMP_APP_EXIT_USAGE;
    }
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    llamp_kernel_init(MPI_COMM_WORLD);
    MPI_Dims_create(size, 3, o.dims);
    int periods[3] = {0, 0, 0}, coords[3];
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, o.dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 3, coords);
    long global[3];
    for (int d = 0; d < 3; d++)
        global[d] = o.strong ? o.global[d] : o.local[d] * o.dims[d];
    for (int d = 0; d < 3; d++)
        if (global[d] < o.dims[d]) {
            llamp_app_usage_error("stencil3d", "%ld points in dimension %d for %d ranks", global[d],
                                  d, o.dims[d]);
            MPI_Finalize();
            return LLAMP_APP_EXIT_USAGE;
        }
    int modeled = llamp_kernel_modeled();
    double h[3], w[3];
    for (int d = 0; d < 3; d++) {
        h[d] = 1.0 / (double)(global[d] + 1);
        w[d] = 1.0 / (h[d] * h[d]);
    }
    block_t b;
    block_init(&b, global, o.dims, coords);
    halo_t halo;
    for (int d = 0; d < 3; d++) {
        MPI_Cart_shift(cart, d, 1, &halo.nbr[d][0], &halo.nbr[d][1]);
        for (int s = 0; s < 2; s++) {
            halo.sbuf[d][s] = malloc(face_size(&b, d) * sizeof(double));
            halo.rbuf[d][s] = malloc(face_size(&b, d) * sizeof(double));
        }
    }
    double *f = malloc(b.n * sizeof *f), *u = calloc(b.n, sizeof *u), *v = calloc(b.n, sizeof *v);
    make_rhs(&b, h, w, f);
    double f2 = 0;
    for (int k = 1; k <= b.l[2]; k++)
        for (int j = 1; j <= b.l[1]; j++)
            for (int i = 1; i <= b.l[0]; i++)
                f2 += f[at(&b, i, j, k)] * f[at(&b, i, j, k)];
    MPI_Allreduce(MPI_IN_PLACE, &f2, 1, MPI_DOUBLE, MPI_SUM, cart);
    const double dd = 2 * (w[0] + w[1] + w[2]);
    long npts = (long)global[0] * global[1] * global[2];

    if (rank == 0) {
        printf("stencil3d: %d ranks as %dx%dx%d, global %ldx%ldx%ld (%s), %ld iterations, "
               "residual every %ld\n",
               size, o.dims[0], o.dims[1], o.dims[2], global[0], global[1], global[2],
               o.strong ? "strong" : "weak", o.iters, o.check_every);
        printf("kernels: %s\n", llamp_kernel_describe());
    }

    /* iterate */
    double res_first = -1, res_last = -1, res_prev = INFINITY;
    int monotone = 1;
    long it, done = o.iters;
    MPI_Barrier(cart);
    double t0 = llamp_app_now();
    for (it = 0; it < o.iters; it++) {
        halo_exchange(&b, &halo, u, cart);
        int check = it % o.check_every == 0;
        double r2 = 0;
        if (check)
            LLAMP_KERNEL("jacobi_res", b.l[0], b.l[1], b.l[2], r2 = sweep(&b, w, f, u, v, 1));
        else
            LLAMP_KERNEL("jacobi", b.l[0], b.l[1], b.l[2], sweep(&b, w, f, u, v, 0));
        double *t = u;
        u = v;
        v = t;
        if (check) {
            MPI_Allreduce(MPI_IN_PLACE, &r2, 1, MPI_DOUBLE, MPI_SUM, cart);
            double rel = dd * sqrt(r2) / sqrt(f2); /* residual of the iterate before it */
            if (res_first < 0)
                res_first = rel;
            if (rel > res_prev * (1 + 1e-12))
                monotone = 0;
            res_prev = rel;
            res_last = rel;
            if (!modeled && o.tol > 0 && rel < o.tol) {
                done = it + 1;
                break;
            }
        }
    }
    double elapsed = llamp_app_now() - t0;
    double tmax;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, cart);

    /* final residual, error, checksum */
    halo_exchange(&b, &halo, u, cart);
    double sums[4] = {0, 0, 0, 0}; /* residual^2, error^2, |u*|^2, sum u */
    if (!modeled) {
        sums[0] = sweep(&b, w, f, u, v, 1);
        for (int k = 1; k <= b.l[2]; k++)
            for (int j = 1; j <= b.l[1]; j++)
                for (int i = 1; i <= b.l[0]; i++) {
                    long g[3] = {b.off[0] + i, b.off[1] + j, b.off[2] + k};
                    double ue = exact(g, h), x = u[at(&b, i, j, k)];
                    sums[1] += (x - ue) * (x - ue);
                    sums[2] += ue * ue;
                    sums[3] += x;
                }
    }
    MPI_Allreduce(MPI_IN_PLACE, sums, 4, MPI_DOUBLE, MPI_SUM, cart);
    double rnorm = dd * sqrt(sums[0]), enorm = sqrt(sums[1]), unorm = sqrt(sums[2]);
    double rho = 0, lmin = 0;
    for (int d = 0; d < 3; d++) {
        rho += w[d] * cos(PI * h[d]);
        lmin += 2 * w[d] * (1 - cos(PI * h[d]));
    }
    rho /= (w[0] + w[1] + w[2]);

    /* serial comparison: rank 0 computes, sends each rank its block */
    int do_serial = !modeled && npts <= o.serial_max;
    double maxdiff = 0, maxu = 0;
    if (do_serial) {
        block_t g;
        double *ref = NULL;
        if (rank == 0)
            ref = serial_run(global, h, w, done, &g);
        size_t mine = (size_t)b.l[0] * b.l[1] * b.l[2];
        double *blk = malloc(mine * sizeof *blk);
        if (rank == 0) {
            for (int r = 0; r < size; r++) {
                int rc3[3];
                MPI_Cart_coords(cart, r, 3, rc3);
                block_t rb;
                block_init(&rb, global, o.dims, rc3);
                size_t cnt = (size_t)rb.l[0] * rb.l[1] * rb.l[2];
                double *out = r == 0 ? blk : malloc(cnt * sizeof *out);
                size_t n = 0;
                for (int k = 1; k <= rb.l[2]; k++)
                    for (int j = 1; j <= rb.l[1]; j++)
                        for (int i = 1; i <= rb.l[0]; i++)
                            out[n++] = ref[at(&g, (int)rb.off[0] + i, (int)rb.off[1] + j,
                                              (int)rb.off[2] + k)];
                if (r != 0) {
                    MPI_Send(out, (int)cnt, MPI_DOUBLE, r, 99, cart);
                    free(out);
                }
            }
            free(ref);
        } else {
            MPI_Recv(blk, (int)mine, MPI_DOUBLE, 0, 99, cart, MPI_STATUS_IGNORE);
        }
        size_t n = 0;
        for (int k = 1; k <= b.l[2]; k++)
            for (int j = 1; j <= b.l[1]; j++)
                for (int i = 1; i <= b.l[0]; i++, n++) {
                    double x = u[at(&b, i, j, k)];
                    maxdiff = fmax(maxdiff, fabs(x - blk[n]));
                    maxu = fmax(maxu, fabs(blk[n]));
                }
        free(blk);
        double mm[2] = {maxdiff, maxu};
        MPI_Allreduce(MPI_IN_PLACE, mm, 2, MPI_DOUBLE, MPI_MAX, cart);
        maxdiff = mm[0];
        maxu = mm[1];
    }

    if (rank == 0) {
        printf("residual: ||r||/||f|| %.6e at iteration 0, %.6e at the last check, %.6e final\n",
               res_first, res_last, rnorm / sqrt(f2));
        printf("iterations: %ld\n", done);
        printf("time: %.6e s (%.6e s per iteration, %.3f Mpoint-updates/s)\n", tmax,
               tmax / (double)done, (double)npts * (double)done / tmax * 1e-6);
        printf("checksum: %.12e\n", sums[3]);
    }
    int ok = 1;
    char detail[400];
    if (modeled) {
        snprintf(detail, sizeof detail, "kernel models replaced the computation: %ld calls skipped",
                 llamp_kernel_skipped());
    } else {
        double bound = pow(rho, (double)done) * unorm;
        int ok_contract = enorm <= bound * (1 + 1e-9) + 1e-13 * unorm;
        int ok_res = enorm <= rnorm / lmin * (1 + 1e-9) + 1e-13 * unorm;
        int ok_serial = !do_serial || maxdiff <= 1e-13 * fmax(maxu, 1e-300);
        ok = ok_contract && ok_res && monotone && ok_serial;
        int n = snprintf(detail, sizeof detail,
                         "||e||=%.3e <= rho^k ||u*||=%.3e: %s; <= ||r||/lambda_min=%.3e: %s; "
                         "residual non-increasing: %s",
                         enorm, bound, ok_contract ? "yes" : "NO", rnorm / lmin,
                         ok_res ? "yes" : "NO", monotone ? "yes" : "NO");
        if (do_serial)
            snprintf(detail + n, sizeof detail - (size_t)n, "; serial max diff %.2e: %s", maxdiff,
                     ok_serial ? "yes" : "NO");
        else
            snprintf(detail + n, sizeof detail - (size_t)n, "; serial check off (grid > %ld)",
                     o.serial_max);
    }
    rc = llamp_app_verdict(cart, ok, modeled, "%s", detail);
    for (int d = 0; d < 3; d++)
        for (int s = 0; s < 2; s++) {
            free(halo.sbuf[d][s]);
            free(halo.rbuf[d][s]);
        }
    free(f);
    free(u);
    free(v);
    llamp_kernel_finalize(cart);
    MPI_Comm_free(&cart);
    llamp_app_end_times();
    MPI_Finalize();
    return rc;
}
