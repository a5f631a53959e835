/* sweep: a 2-D KBA wavefront pipeline (PARTISN/Sweep3D-like), latency-bound
 * chains of point-to-point messages.
 *
 * The NX x NY x NZ cell grid is split over a PX x PY process grid in x and y;
 * z is cut into blocks of --kb planes that flow through the pipeline.  For
 * every octant (direction signs sx, sy, sz) and z block, a rank receives the
 * x inflow face from its upstream x neighbour and the y inflow face from its
 * upstream y neighbour (MPI_Recv), computes the block for all angles, and
 * sends the outflow faces downstream (MPI_Send).  Ranks at the domain's
 * upstream faces use boundary values instead.
 *
 * The recurrence (step characteristic, per angle with positive coefficients
 * cx, cy, cz):
 *   psi = (S + cx psi_x_in + cy psi_y_in + cz psi_z_in) / (sigma + cx + cy + cz)
 * with the cell's outflows = psi and phi += w_angle psi.  --iters source
 * iterations use S = q + sigma_s phi_previous and end with a convergence
 * Allreduce (max |phi - phi_previous|).
 *
 * Verification (when the kernels ran and the problem is small enough): rank 0
 * runs the same recurrence serially on the whole grid; two weighted sums of
 * phi (reduced over the ranks) match the serial ones to 1e-12 relative.
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
    long local[3], global[3];
    int strong;
    int grid[2];
    long kb, angles, octants, iters, serial_max;
} opts_t;

typedef struct {
    long nx, ny, nz;     /* local cells (nz = global) */
    long ox, oy;         /* global offset of local cell 0 */
    long kb, na;
    double sigma, sigma_s;
    double *cx, *cy, *cz, *w; /* per angle */
} problem_t;

static void usage(void)
{
    printf("usage: sweep [options]\n"
           "KBA wavefront sweep over a 2-D process grid (x, y), z pipelined in blocks;\n"
           "verified against rank 0's serial run of the same recurrence.\n"
           "  --weak NX,NY,NZ      cells per rank in x and y, NZ global (default 16,16,32)\n"
           "  --strong NX,NY,NZ    global cells\n"
           "  --grid PXxPY         process grid (default MPI_Dims_create)\n"
           "  --kb K               z planes per pipelined block (default 4)\n"
           "  --angles A           angles per octant (default 4)\n"
           "  --octants K          octants swept, 1..8 (default 8)\n"
           "  --iters N            source iterations (default 2)\n"
           "  --serial-max C       serial check when cells x angles x octants x iters <= C\n"
           "                       (default 16M; 0 disables)\n"
           "  -h, --help      this text (under smpirun use -h: SimGrid takes --help)\n"
           "  --version       the version (natively; SimGrid takes it under smpirun)\n");
}

static int parse(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"weak", required_argument, 0, 'w'},    {"strong", required_argument, 0, 's'},
        {"grid", required_argument, 0, 'g'},    {"kb", required_argument, 0, 'k'},
        {"angles", required_argument, 0, 'a'},  {"octants", required_argument, 0, 'o'},
        {"iters", required_argument, 0, 'i'},   {"serial-max", required_argument, 0, 'S'},
        {"help", no_argument, 0, 'h'},          {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    const char *app = "sweep";
    int c, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'w':
        case 's':
            if (llamp_app_parse_dims(optarg, c == 'w' ? o->local : o->global)) {
                llamp_app_usage_error(app, "--%s: expected N or NX,NY,NZ, got '%s'",
                                      c == 'w' ? "weak" : "strong", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            o->strong = c == 's';
            break;
        case 'g':
            if (llamp_app_parse_grid(optarg, &o->grid[0], &o->grid[1])) {
                llamp_app_usage_error(app, "--grid: expected PXxPY, got '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        case 'k':
        case 'a':
        case 'o':
        case 'i':
        case 'S': {
            long *dst = c == 'k' ? &o->kb : c == 'a' ? &o->angles : c == 'o' ? &o->octants
                      : c == 'i' ? &o->iters : &o->serial_max;
            const char *name = c == 'k' ? "kb" : c == 'a' ? "angles" : c == 'o' ? "octants"
                             : c == 'i' ? "iters" : "serial-max";
            if (llamp_app_parse_count(optarg, dst) || (c != 'S' && *dst < 1) ||
                (c == 'o' && *dst > 8)) {
                llamp_app_usage_error(app, "--%s: bad value '%s'", name, optarg);
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

/* Boundary inflows (the upstream faces of the domain). */
#define BOUNDARY_X 0.5
#define BOUNDARY_Y 0.25
#define BOUNDARY_Z 0.125

static double source(long gx, long gy, long gz)
{
    return 1.0 + 0.5 * llamp_app_uniform((uint64_t)(gx * 1000003 + gy * 1009 + gz));
}

/* Computes one block of `kb` z planes, starting at plane index `kstart` in
 * sweep order, for all angles.  xin: [a][kk][j] (in: inflow, out: outflow),
 * yin: [a][kk][i], zin: [a][j][i] carried across blocks.  Cells are visited in
 * the octant's order, so the per-cell arithmetic and the order of the phi
 * updates do not depend on the decomposition. */
static void block(const problem_t *p, int sx, int sy, int sz, long kstart, long kb,
                  const double *S, double *phi, double *xin, double *yin, double *zin)
{
    const long nx = p->nx, ny = p->ny;
    for (long a = 0; a < p->na; a++) {
        const double cx = p->cx[a], cy = p->cy[a], cz = p->cz[a], w = p->w[a];
        const double inv = 1.0 / (p->sigma + cx + cy + cz);
        double *xa = xin + a * kb * ny, *ya = yin + a * kb * nx, *za = zin + a * ny * nx;
        for (long kk = 0; kk < kb; kk++) {
            long ks = kstart + kk;
            long k = sz > 0 ? ks : p->nz - 1 - ks;
            for (long jj = 0; jj < ny; jj++) {
                long j = sy > 0 ? jj : ny - 1 - jj;
                double xv = xa[kk * ny + j];
                for (long ii = 0; ii < nx; ii++) {
                    long i = sx > 0 ? ii : nx - 1 - ii;
                    size_t c = ((size_t)k * ny + j) * nx + i;
                    double psi = (S[c] + cx * xv + cy * ya[kk * nx + i] + cz * za[j * nx + i]) * inv;
                    xv = psi;
                    ya[kk * nx + i] = psi;
                    za[j * nx + i] = psi;
                    phi[c] += w * psi;
                }
                xa[kk * ny + j] = xv;
            }
        }
    }
}

/* One source iteration over all octants.  nbr[d][0] is the low neighbour
 * (x: west, y: north), nbr[d][1] the high one. */
static void sweep_all(const problem_t *p, long octants, const double *S, double *phi,
                      const int nbr[2][2], MPI_Comm comm, double *xbuf, double *ybuf, double *zbuf)
{
    const long nx = p->nx, ny = p->ny, nz = p->nz, na = p->na;
    memset(phi, 0, sizeof(double) * (size_t)(nx * ny * nz));
    for (long o = 0; o < octants; o++) {
        int sx = (o & 1) ? -1 : 1, sy = (o & 2) ? -1 : 1, sz = (o & 4) ? -1 : 1;
        int up_x = nbr[0][sx > 0 ? 0 : 1], down_x = nbr[0][sx > 0 ? 1 : 0];
        int up_y = nbr[1][sy > 0 ? 0 : 1], down_y = nbr[1][sy > 0 ? 1 : 0];
        for (long e = 0; e < na * nx * ny; e++)
            zbuf[e] = BOUNDARY_Z;
        for (long ks = 0; ks < nz; ks += p->kb) {
            long kb = nz - ks < p->kb ? nz - ks : p->kb;
            int nxf = (int)(na * kb * ny), nyf = (int)(na * kb * nx);
            if (up_x != MPI_PROC_NULL)
                MPI_Recv(xbuf, nxf, MPI_DOUBLE, up_x, 1, comm, MPI_STATUS_IGNORE);
            else
                for (int e = 0; e < nxf; e++)
                    xbuf[e] = BOUNDARY_X;
            if (up_y != MPI_PROC_NULL)
                MPI_Recv(ybuf, nyf, MPI_DOUBLE, up_y, 2, comm, MPI_STATUS_IGNORE);
            else
                for (int e = 0; e < nyf; e++)
                    ybuf[e] = BOUNDARY_Y;
            LLAMP_KERNEL("sweep_block", nx * ny, kb, na,
                         block(p, sx, sy, sz, ks, kb, S, phi, xbuf, ybuf, zbuf));
            if (down_x != MPI_PROC_NULL)
                MPI_Send(xbuf, nxf, MPI_DOUBLE, down_x, 1, comm);
            if (down_y != MPI_PROC_NULL)
                MPI_Send(ybuf, nyf, MPI_DOUBLE, down_y, 2, comm);
        }
    }
}

static void make_angles(problem_t *p, long na, long octants)
{
    p->na = na;
    p->cx = malloc(sizeof(double) * (size_t)na);
    p->cy = malloc(sizeof(double) * (size_t)na);
    p->cz = malloc(sizeof(double) * (size_t)na);
    p->w = malloc(sizeof(double) * (size_t)na);
    for (long a = 0; a < na; a++) {
        double mu = 0.2 + 0.6 * ((double)a + 0.5) / (double)na;
        double eta = 0.9 - 0.5 * ((double)a + 0.5) / (double)na;
        double xi = sqrt(fmax(0.05, 1.0 - 0.5 * (mu * mu + eta * eta)));
        p->cx[a] = 2 * mu;
        p->cy[a] = 2 * eta;
        p->cz[a] = 2 * xi;
        p->w[a] = 1.0 / (double)(na * octants);
    }
    p->sigma = 1.0;
    p->sigma_s = 0.5;
}

static void weighted_sums(const problem_t *p, const double *phi, double out[2])
{
    out[0] = out[1] = 0;
    for (long k = 0; k < p->nz; k++)
        for (long j = 0; j < p->ny; j++)
            for (long i = 0; i < p->nx; i++) {
                long g = (k * 7919 + (p->oy + j)) * 104729 + (p->ox + i);
                double v = phi[(k * p->ny + j) * p->nx + i];
                out[0] += v;
                out[1] += v * (1.0 + (double)(g % 13) / 13.0);
            }
}

/* Source iterations; returns the last max |phi - phi_prev| (reduced). */
static double run(const problem_t *p, long octants, long iters, double *phi, const int nbr[2][2],
                  MPI_Comm comm)
{
    const long nx = p->nx, ny = p->ny, nz = p->nz, na = p->na;
    size_t n = (size_t)(nx * ny * nz);
    double *S = malloc(n * sizeof *S), *prev = calloc(n, sizeof *prev);
    double *xbuf = malloc(sizeof(double) * (size_t)(na * p->kb * ny + 1));
    double *ybuf = malloc(sizeof(double) * (size_t)(na * p->kb * nx + 1));
    double *zbuf = malloc(sizeof(double) * (size_t)(na * nx * ny + 1));
    double change = 0;
    for (long it = 0; it < iters; it++) {
        LLAMP_KERNEL("sweep_source", nx * ny * nz, 1, 1, {
            for (long k = 0; k < nz; k++)
                for (long j = 0; j < ny; j++)
                    for (long i = 0; i < nx; i++) {
                        size_t c = ((size_t)k * ny + j) * nx + i;
                        S[c] = source(p->ox + i, p->oy + j, k) + p->sigma_s * prev[c];
                    }
        });
        sweep_all(p, octants, S, phi, nbr, comm, xbuf, ybuf, zbuf);
        change = 0;
        LLAMP_KERNEL("sweep_change", nx * ny * nz, 1, 1, {
            for (size_t c = 0; c < n; c++) {
                change = fmax(change, fabs(phi[c] - prev[c]));
                prev[c] = phi[c];
            }
        });
        if (comm != MPI_COMM_NULL)
            MPI_Allreduce(MPI_IN_PLACE, &change, 1, MPI_DOUBLE, MPI_MAX, comm);
    }
    free(S);
    free(prev);
    free(xbuf);
    free(ybuf);
    free(zbuf);
    return change;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    opts_t o = {{16, 16, 32}, {0, 0, 0}, 0, {0, 0}, 4, 4, 8, 2, 16L << 20};
    int rc = parse(argc, argv, &o);
    int dims[2] = {o.grid[0], o.grid[1]};
    if (rc < 0) {
        if (!dims[0])
            MPI_Dims_create(size, 2, dims);
        if ((long)dims[0] * dims[1] != size) {
            llamp_app_usage_error("sweep", "--grid %dx%d does not match %d ranks", dims[0], dims[1],
                                  size);
            rc = LLAMP_APP_EXIT_USAGE;
        }
    }
    long global[3];
    if (rc < 0) {
        global[0] = o.strong ? o.global[0] : o.local[0] * dims[0];
        global[1] = o.strong ? o.global[1] : o.local[1] * dims[1];
        global[2] = o.strong ? o.global[2] : o.local[2];
        if (global[0] < dims[0] || global[1] < dims[1]) {
            llamp_app_usage_error("sweep", "%ldx%ld cells cannot be split over %dx%d ranks",
                                  global[0], global[1], dims[0], dims[1]);
            rc = LLAMP_APP_EXIT_USAGE;
        }
    }
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    llamp_kernel_init(MPI_COMM_WORLD);
    int modeled = llamp_kernel_modeled();
    int periods[2] = {0, 0}, coords[2];
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 2, coords);
    int nbr[2][2];
    MPI_Cart_shift(cart, 0, 1, &nbr[0][0], &nbr[0][1]);
    MPI_Cart_shift(cart, 1, 1, &nbr[1][0], &nbr[1][1]);

    problem_t p;
    long q0 = global[0] / dims[0], r0 = global[0] % dims[0];
    long q1 = global[1] / dims[1], r1 = global[1] % dims[1];
    p.nx = q0 + (coords[0] < r0);
    p.ox = coords[0] * q0 + (coords[0] < r0 ? coords[0] : r0);
    p.ny = q1 + (coords[1] < r1);
    p.oy = coords[1] * q1 + (coords[1] < r1 ? coords[1] : r1);
    p.nz = global[2];
    p.kb = o.kb < p.nz ? o.kb : p.nz;
    make_angles(&p, o.angles, o.octants);
    double *phi = calloc((size_t)(p.nx * p.ny * p.nz), sizeof *phi);
    long blocks = (p.nz + p.kb - 1) / p.kb;
    if (rank == 0) {
        printf("sweep: %d ranks as %dx%d, grid %ldx%ldx%ld (%s), kb %ld (%ld blocks), %ld angles "
               "x %ld octants, %ld iterations\n",
               size, dims[0], dims[1], global[0], global[1], global[2],
               o.strong ? "strong" : "weak", p.kb, blocks, o.angles, o.octants, o.iters);
        printf("kernels: %s\n", llamp_kernel_describe());
    }
    MPI_Barrier(cart);
    double t0 = llamp_app_now();
    double change = run(&p, o.octants, o.iters, phi, nbr, cart);
    double elapsed = llamp_app_now() - t0, tmax;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, cart);
    double sums[2];
    weighted_sums(&p, phi, sums);
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, cart);
    double cells = (double)global[0] * (double)global[1] * (double)global[2];
    double work = cells * (double)o.angles * (double)o.octants * (double)o.iters;
    if (rank == 0) {
        printf("time: %.6e s (%.6e s per iteration, %.3f M cell-angle updates/s)\n", tmax,
               tmax / (double)o.iters, work / tmax * 1e-6);
        printf("last change: %.6e\n", change);
        printf("checksum: %.12e\n", sums[1]);
    }
    int ok = 1, serial = !modeled && work <= (double)o.serial_max;
    char detail[300];
    if (modeled) {
        snprintf(detail, sizeof detail, "kernel models replaced the computation: %ld calls skipped",
                 llamp_kernel_skipped());
    } else if (!serial) {
        ok = isfinite(sums[1]) && sums[1] > 0;
        snprintf(detail, sizeof detail,
                 "serial check off (%.3g cell-angle updates > --serial-max); checksum finite and "
                 "positive: %s", work, ok ? "yes" : "NO");
    } else {
        double ref[2] = {0, 0}, err = 0;
        if (rank == 0) {
            problem_t s = p;
            s.nx = global[0];
            s.ny = global[1];
            s.ox = s.oy = 0;
            double *sphi = calloc((size_t)(s.nx * s.ny * s.nz), sizeof *sphi);
            int none[2][2] = {{MPI_PROC_NULL, MPI_PROC_NULL}, {MPI_PROC_NULL, MPI_PROC_NULL}};
            run(&s, o.octants, o.iters, sphi, none, MPI_COMM_NULL);
            weighted_sums(&s, sphi, ref);
            free(sphi);
            err = fmax(fabs(ref[0] - sums[0]) / fabs(ref[0]), fabs(ref[1] - sums[1]) / fabs(ref[1]));
            ok = err <= 1e-12;
        }
        MPI_Bcast(&err, 1, MPI_DOUBLE, 0, cart);
        MPI_Bcast(ref, 2, MPI_DOUBLE, 0, cart);
        snprintf(detail, sizeof detail, "serial checksum %.12e, relative difference %.2e", ref[1],
                 err);
    }
    rc = llamp_app_verdict(cart, ok, modeled, "%s", detail);
    free(phi);
    free(p.cx);
    free(p.cy);
    free(p.cz);
    free(p.w);
    llamp_kernel_finalize(cart);
    MPI_Comm_free(&cart);
    llamp_app_end_times();
    MPI_Finalize();
    return rc;
}
