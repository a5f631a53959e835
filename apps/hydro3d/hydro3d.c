/* hydro3d: the communication pattern of LULESH-style explicit hydrodynamics
 * codes on a 3-D block decomposition, with real numerics.
 *
 * Each rank owns an lx x ly x lz block of cells (one ghost layer) of a
 * non-periodic global grid; ranks sit on a PX x PY x PZ grid (MPI_Dims_create
 * or --dims, any rank count) and talk to up to 26 neighbours: faces, edges and
 * corners, found by rank arithmetic on MPI_COMM_WORLD as LULESH does.  The run
 * starts with MPI_Init_thread.  Per cycle, in LULESH's order:
 *
 *   dt = MPI_Allreduce(MIN) of one double (the time-step constraint)
 *   phase 1 "force"  receives posted first, f = g(u) pointwise, pack, Isend
 *                    to all 26 neighbours (3 fields)
 *   phase 2 "sync"   w = S(f); one-directional like LULESH's position and
 *                    velocity sync: receive from the 13 upper neighbours,
 *                    send to the 13 lower ones (w and r: 6 fields)
 *   phase 3 "monoq"  m = largest |r|/|w| over the cell and its upper octant,
 *                    q = w (1 + 0.01 m), exchange of the 6 faces (3 fields);
 *                    u += dt div(k grad q) (conservative face fluxes), r = the
 *                    change, and the local constraint 0.15 / (sum k (1 + 10 m))
 *
 * S is the 27-point (1,2,1)/4 tensor smoothing; k a fixed heterogeneous
 * material (harmonic means at faces); global boundaries are reflective
 * (ghost = nearest interior cell: zero flux).  Each phase waits for its
 * receives one by one (MPI_Wait, then unpack) and completes every send
 * request with its own MPI_Wait (--send-wait all: one MPI_Waitall).
 * A rank with no upper neighbours receives nothing in phase 2 and sends its
 * phase-3 faces right after its phase-2 messages to the same peers: the
 * back-to-back messages of LULESH (docs/consistency.md, "Bursts").
 *
 * Verification (when the kernels ran): the three totals sum(u_f) are
 * conserved to 1e-12 (interior fluxes cancel exactly, boundary fluxes are 0),
 * and up to --serial-max cells the field equals rank 0's serial run of the
 * same cycles (same operations in the same order: bit for bit, asserted to
 * 1e-13).  The checksum (rank sums added in rank order) is the same under
 * SMPI and MPICH for the same decomposition.
 */
#define _GNU_SOURCE
#include "llamp_app.h"
#include "llamp_kernel.h"

#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NF 3      /* conserved fields */
#define NDIR 27   /* directions (dx, dy, dz) in {-1,0,1}^3, index 13 = self */
#define TAG_FORCE 1024
#define TAG_MONOQ 3072
#define TAG_SYNC 4096

typedef struct {
    long local[3];  /* --weak */
    long global[3]; /* --strong */
    int strong;
    int dims[3];
    long iters;
    int send_waitall;
    long serial_max;
} opts_t;

/* One block with a ghost layer: interior 1..l[d]. */
typedef struct {
    int l[3];
    long off[3], global[3];
    size_t sx, sy, n;
} block_t;

/* The state of one block and its neighbours (serial run: no neighbours). */
typedef struct {
    block_t b;
    double *u[NF], *r[NF], *f[NF], *w[NF], *q[NF], *m, *kap;
    int nbr[NDIR];      /* rank or -1 */
    double *sbuf[NDIR], *rbuf[NDIR];
    MPI_Request sreq[NDIR], rreq[NDIR];
    int send_waitall;
} hydro_t;

static void usage(void)
{
    printf("usage: hydro3d [options]\n"
           "LULESH-style 3-D block decomposition: 26-neighbour halos in three phases per\n"
           "cycle (receives posted first, one MPI_Wait per request) and one MPI_Allreduce(MIN)\n"
           "of the time step; conservative diffusion of three fields, verified by\n"
           "conservation and against a serial run.\n"
           "  --weak NX[,NY,NZ]     cells per rank (weak scaling; default 12)\n"
           "  --strong NX[,NY,NZ]   global cells, split over the ranks\n"
           "  --dims PX,PY,PZ       process grid (default MPI_Dims_create; any rank count)\n"
           "  --iters N             cycles (default 100)\n"
           "  --send-wait each|all  complete the sends with one MPI_Wait each (default) or\n"
           "                        one MPI_Waitall per phase\n"
           "  --serial-max C        compare with a serial run on rank 0 up to C global cells\n"
           "                        (default 64K; 0 disables)\n"
           "  -h, --help      this text (under smpirun use -h: SimGrid takes --help)\n"
           "  --version       the version (natively; SimGrid takes it under smpirun)\n");
}

static int parse(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"weak", required_argument, 0, 'w'},      {"strong", required_argument, 0, 's'},
        {"dims", required_argument, 0, 'd'},      {"iters", required_argument, 0, 'i'},
        {"send-wait", required_argument, 0, 'W'}, {"serial-max", required_argument, 0, 'S'},
        {"help", no_argument, 0, 'h'},            {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    const char *app = "hydro3d";
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
        case 'S': {
            long *dst = c == 'i' ? &o->iters : &o->serial_max;
            if (llamp_app_parse_count(optarg, dst) || (c == 'i' && *dst < 1)) {
                llamp_app_usage_error(app, "--%s: bad count '%s'", c == 'i' ? "iters" : "serial-max",
                                      optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        }
        case 'W':
            if (strcmp(optarg, "each") && strcmp(optarg, "all")) {
                llamp_app_usage_error(app, "--send-wait: expected each or all, got '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            o->send_waitall = strcmp(optarg, "all") == 0;
            break;
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
        b->global[d] = global[d];
    }
    b->sx = (size_t)b->l[0] + 2;
    b->sy = b->sx * ((size_t)b->l[1] + 2);
    b->n = b->sy * ((size_t)b->l[2] + 2);
}

/* Offset of direction q in dimension d: -1, 0 or 1. */
static inline int dir_off(int q, int d)
{
    return (d == 0 ? q % 3 : d == 1 ? (q / 3) % 3 : q / 9) - 1;
}

static inline int dir_is_face(int q)
{
    return abs(dir_off(q, 0)) + abs(dir_off(q, 1)) + abs(dir_off(q, 2)) == 1;
}

/* The region of direction q: the interior layer next to it (ghost = 0) or
 * the ghost layer beyond it (ghost = 1), as [lo, hi] per dimension. */
static void region(const block_t *b, int q, int ghost, int lo[3], int hi[3])
{
    for (int d = 0; d < 3; d++) {
        int o = dir_off(q, d), l = b->l[d];
        if (o == 0) {
            lo[d] = 1;
            hi[d] = l;
        } else if (o < 0) {
            lo[d] = hi[d] = ghost ? 0 : 1;
        } else {
            lo[d] = hi[d] = ghost ? l + 1 : l;
        }
    }
}

static size_t region_cells(const block_t *b, int q)
{
    size_t n = 1;
    for (int d = 0; d < 3; d++)
        n *= dir_off(q, d) ? 1 : (size_t)b->l[d];
    return n;
}

/* Fields to or from a buffer over direction q's region. */
static size_t pack(const block_t *b, double *const *f, int nf, int q, int ghost, double *buf,
                   int to_buf)
{
    int lo[3], hi[3];
    region(b, q, ghost, lo, hi);
    size_t n = 0;
    for (int c = 0; c < nf; c++)
        for (int k = lo[2]; k <= hi[2]; k++)
            for (int j = lo[1]; j <= hi[1]; j++)
                for (int i = lo[0]; i <= hi[0]; i++) {
                    size_t x = at(b, i, j, k);
                    if (to_buf)
                        buf[n++] = f[c][x];
                    else
                        f[c][x] = buf[n++];
                }
    return n;
}

/* Ghost cells outside the global domain take the value of the nearest cell
 * inside it (reflective boundary: zero flux).  The nearest cell is interior
 * or a ghost received from a neighbour, so this runs after the receives. */
static void fill_boundary(const block_t *b, double *const *f, int nf)
{
    int lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        lo[d] = b->off[d] == 0 ? 1 : 0;
        hi[d] = b->off[d] + b->l[d] == b->global[d] ? b->l[d] : b->l[d] + 1;
    }
    for (int k = 0; k <= b->l[2] + 1; k++)
        for (int j = 0; j <= b->l[1] + 1; j++)
            for (int i = 0; i <= b->l[0] + 1; i++) {
                int ci = i < lo[0] ? lo[0] : i > hi[0] ? hi[0] : i;
                int cj = j < lo[1] ? lo[1] : j > hi[1] ? hi[1] : j;
                int ck = k < lo[2] ? lo[2] : k > hi[2] ? hi[2] : k;
                if (ci == i && cj == j && ck == k)
                    continue;
                for (int c = 0; c < nf; c++)
                    f[c][at(b, i, j, k)] = f[c][at(b, ci, cj, ck)];
            }
}

/* Material coefficient of global cell g (any cell, ghosts included). */
static double kappa(const long g[3])
{
    uint64_t key = ((uint64_t)(g[2] + 1) << 42) ^ ((uint64_t)(g[1] + 1) << 21) ^ (uint64_t)(g[0] + 1);
    return 0.5 + llamp_app_uniform(key * 0x2545f4914f6cdd1dULL + 17);
}

/* Initial field c at global cell g: a smooth profile plus noise. */
static double initial(const long g[3], const long n[3], int c)
{
    uint64_t key = (((uint64_t)g[2] << 42) ^ ((uint64_t)g[1] << 21) ^ (uint64_t)g[0]) * 3 + (uint64_t)c;
    double x = (g[0] + 0.5) / n[0], y = (g[1] + 0.5) / n[1], z = (g[2] + 0.5) / n[2];
    return 1.0 + (c + 1) * x * (1 - y) * (0.5 + z) + 0.5 * llamp_app_uniform(key);
}

/* 27-point (1,2,1)/4 smoothing of f at cell x. */
static inline double smooth(const block_t *b, const double *f, size_t x)
{
    static const double w1[3] = {0.25, 0.5, 0.25};
    double s = 0;
    for (int dk = -1; dk <= 1; dk++)
        for (int dj = -1; dj <= 1; dj++) {
            const double *p = f + x + (ptrdiff_t)dk * (ptrdiff_t)b->sy + (ptrdiff_t)dj * (ptrdiff_t)b->sx;
            double wjk = w1[dk + 1] * w1[dj + 1];
            s += wjk * (0.25 * p[-1] + 0.5 * p[0] + 0.25 * p[1]);
        }
    return s;
}

/* f = g(u), pointwise (a monotone "equation of state"). */
static void compute_f(hydro_t *h)
{
    const block_t *b = &h->b;
    for (int c = 0; c < NF; c++)
        for (int k = 1; k <= b->l[2]; k++)
            for (int j = 1; j <= b->l[1]; j++)
                for (int i = 1; i <= b->l[0]; i++) {
                    size_t x = at(b, i, j, k);
                    double v = h->u[c][x];
                    h->f[c][x] = v * (1 + 0.1 / (1 + v * v));
                }
}

/* w = S(f): needs f's ghosts in all 26 directions. */
static void compute_w(hydro_t *h)
{
    const block_t *b = &h->b;
    for (int c = 0; c < NF; c++)
        for (int k = 1; k <= b->l[2]; k++)
            for (int j = 1; j <= b->l[1]; j++)
                for (int i = 1; i <= b->l[0]; i++) {
                    size_t x = at(b, i, j, k);
                    h->w[c][x] = smooth(b, h->f[c], x);
                }
}

/* m = the largest relative change |r| / |w| over the cell and its 7 upper
 * neighbours (offsets in {0,1}^3: ghosts of the one-directional phase), and
 * q = w (1 + 0.01 m). */
static void compute_q(hydro_t *h)
{
    const block_t *b = &h->b;
    for (int k = 1; k <= b->l[2]; k++)
        for (int j = 1; j <= b->l[1]; j++)
            for (int i = 1; i <= b->l[0]; i++) {
                size_t x = at(b, i, j, k);
                double m = 0;
                for (int dk = 0; dk <= 1; dk++)
                    for (int dj = 0; dj <= 1; dj++)
                        for (int di = 0; di <= 1; di++) {
                            size_t y = at(b, i + di, j + dj, k + dk);
                            for (int c = 0; c < NF; c++)
                                m = fmax(m, fabs(h->r[c][y]) / fabs(h->w[c][y]));
                        }
                h->m[x] = m;
                for (int c = 0; c < NF; c++)
                    h->q[c][x] = h->w[c][x] * (1 + 0.01 * m);
            }
}

static inline double kface(double a, double b)
{
    return 2 * a * b / (a + b);
}

/* u += dt div(k grad q), r = the change.  kface(a, b) == kface(b, a) bit for
 * bit, so the two sides of an interior face see exactly opposite fluxes. */
static void update(hydro_t *h, double dt)
{
    const block_t *b = &h->b;
    const ptrdiff_t st[3] = {1, (ptrdiff_t)b->sx, (ptrdiff_t)b->sy};
    for (int k = 1; k <= b->l[2]; k++)
        for (int j = 1; j <= b->l[1]; j++)
            for (int i = 1; i <= b->l[0]; i++) {
                size_t x = at(b, i, j, k);
                double kc = h->kap[x];
                for (int c = 0; c < NF; c++) {
                    const double *q = h->q[c];
                    double flux = 0;
                    for (int d = 0; d < 3; d++) {
                        flux += kface(kc, h->kap[x - st[d]]) * (q[x - st[d]] - q[x]);
                        flux += kface(kc, h->kap[x + st[d]]) * (q[x + st[d]] - q[x]);
                    }
                    h->r[c][x] = dt * flux;
                }
            }
    for (int c = 0; c < NF; c++)
        for (int k = 1; k <= b->l[2]; k++)
            for (int j = 1; j <= b->l[1]; j++)
                for (int i = 1; i <= b->l[0]; i++) {
                    size_t x = at(b, i, j, k);
                    h->u[c][x] += h->r[c][x];
                }
}

/* The local time-step constraint: 0.15 / (sum of the cell's face
 * coefficients), shrunk by the recent relative change m. */
static double local_dt(const hydro_t *h)
{
    const block_t *b = &h->b;
    const ptrdiff_t st[3] = {1, (ptrdiff_t)b->sx, (ptrdiff_t)b->sy};
    double dt = INFINITY;
    for (int k = 1; k <= b->l[2]; k++)
        for (int j = 1; j <= b->l[1]; j++)
            for (int i = 1; i <= b->l[0]; i++) {
                size_t x = at(b, i, j, k);
                double ks = 0;
                for (int d = 0; d < 3; d++)
                    ks += kface(h->kap[x], h->kap[x - st[d]]) + kface(h->kap[x], h->kap[x + st[d]]);
                dt = fmin(dt, 0.15 / (ks * (1 + 10 * h->m[x])));
            }
    return dt;
}

/* Which neighbours a phase talks to: ALL both ways with all 26; FACES both
 * ways with the 6 faces; HALF receives from the 13 upper directions (the
 * first non-zero offset of (z, y, x) is +1) and sends to the 13 lower ones,
 * as LULESH's position/velocity sync does. */
enum { PHASE_ALL, PHASE_FACES, PHASE_HALF };

static inline int dir_is_upper(int q)
{
    int oz = dir_off(q, 2), oy = dir_off(q, 1), ox = dir_off(q, 0);
    return oz > 0 || (oz == 0 && (oy > 0 || (oy == 0 && ox > 0)));
}

static inline int talks(const hydro_t *h, int q, int kind, int recv)
{
    if (h->nbr[q] < 0)
        return 0;
    if (kind == PHASE_FACES)
        return dir_is_face(q);
    if (kind == PHASE_HALF)
        return recv ? dir_is_upper(q) : !dir_is_upper(q);
    return 1;
}

/* One exchange phase, split as the code it mimics does: receives posted
 * before the computation that produces the data, sends after it.  Every
 * neighbour pair meets once per phase, so one tag per phase suffices. */
static void phase_recv(hydro_t *h, int nf, int kind, int tag)
{
    for (int q = 0; q < NDIR; q++) {
        h->rreq[q] = MPI_REQUEST_NULL;
        if (talks(h, q, kind, 1))
            MPI_Irecv(h->rbuf[q], (int)(nf * region_cells(&h->b, q)), MPI_DOUBLE, h->nbr[q], tag,
                      MPI_COMM_WORLD, &h->rreq[q]);
    }
}

static void phase_send(hydro_t *h, double *const *f, int nf, int kind, int tag)
{
    size_t total = 0;
    for (int q = 0; q < NDIR; q++)
        if (talks(h, q, kind, 0))
            total += nf * region_cells(&h->b, q);
    LLAMP_KERNEL("hydro_pack", total, 1, 1, {
        for (int q = 0; q < NDIR; q++)
            if (talks(h, q, kind, 0))
                pack(&h->b, f, nf, q, 0, h->sbuf[q], 1);
    });
    for (int q = 0; q < NDIR; q++) {
        h->sreq[q] = MPI_REQUEST_NULL;
        if (talks(h, q, kind, 0))
            MPI_Isend(h->sbuf[q], (int)(nf * region_cells(&h->b, q)), MPI_DOUBLE, h->nbr[q], tag,
                      MPI_COMM_WORLD, &h->sreq[q]);
    }
}

static void phase_finish(hydro_t *h, double *const *f, int nf, int kind)
{
    for (int q = 0; q < NDIR; q++) {
        if (!talks(h, q, kind, 1))
            continue;
        MPI_Wait(&h->rreq[q], MPI_STATUS_IGNORE);
        LLAMP_KERNEL("hydro_unpack", nf * region_cells(&h->b, q), 1, 1,
                     pack(&h->b, f, nf, q, 1, h->rbuf[q], 0));
    }
    if (h->send_waitall) {
        llamp_app_waitall(NDIR, h->sreq);
    } else {
        for (int q = 0; q < NDIR; q++)
            if (h->sreq[q] != MPI_REQUEST_NULL)
                MPI_Wait(&h->sreq[q], MPI_STATUS_IGNORE);
    }
    LLAMP_KERNEL("hydro_boundary", h->b.l[0], h->b.l[1], h->b.l[2], fill_boundary(&h->b, f, nf));
}

static void hydro_init(hydro_t *h, const block_t *b, const int nbr[NDIR], int send_waitall)
{
    memset(h, 0, sizeof *h);
    h->b = *b;
    h->send_waitall = send_waitall;
    for (int c = 0; c < NF; c++) {
        h->u[c] = calloc(b->n, sizeof(double));
        h->r[c] = calloc(b->n, sizeof(double));
        h->f[c] = calloc(b->n, sizeof(double));
        h->w[c] = calloc(b->n, sizeof(double));
        h->q[c] = calloc(b->n, sizeof(double));
    }
    h->m = calloc(b->n, sizeof(double));
    h->kap = malloc(b->n * sizeof(double));
    for (int k = 0; k <= b->l[2] + 1; k++)
        for (int j = 0; j <= b->l[1] + 1; j++)
            for (int i = 0; i <= b->l[0] + 1; i++) {
                long g[3] = {b->off[0] + i - 1, b->off[1] + j - 1, b->off[2] + k - 1};
                h->kap[at(b, i, j, k)] = kappa(g);
                if (i >= 1 && i <= b->l[0] && j >= 1 && j <= b->l[1] && k >= 1 && k <= b->l[2])
                    for (int c = 0; c < NF; c++)
                        h->u[c][at(b, i, j, k)] = initial(g, b->global, c);
            }
    size_t maxmsg = 0;
    for (int q = 0; q < NDIR; q++) {
        h->nbr[q] = nbr[q];
        size_t m = 2 * NF * region_cells(b, q);
        if (m > maxmsg)
            maxmsg = m;
    }
    for (int q = 0; q < NDIR; q++)
        if (nbr[q] >= 0) {
            h->sbuf[q] = malloc(maxmsg * sizeof(double));
            h->rbuf[q] = malloc(maxmsg * sizeof(double));
        }
}

static void hydro_free(hydro_t *h)
{
    for (int c = 0; c < NF; c++) {
        free(h->u[c]);
        free(h->r[c]);
        free(h->f[c]);
        free(h->w[c]);
        free(h->q[c]);
    }
    free(h->m);
    free(h->kap);
    for (int q = 0; q < NDIR; q++) {
        free(h->sbuf[q]);
        free(h->rbuf[q]);
    }
}

static double constraint(const hydro_t *h)
{
    double dt = 0;
    LLAMP_KERNEL("hydro_dt", h->b.l[0], h->b.l[1], h->b.l[2], dt = local_dt(h));
    return dt;
}

/* One cycle from the global dt, in LULESH's order (nodal forces, position
 * and velocity sync, monotonic Q gradients); returns the local dt. */
static double cycle(hydro_t *h, double dt)
{
    const block_t *b = &h->b;
    phase_recv(h, NF, PHASE_ALL, TAG_FORCE);
    LLAMP_KERNEL("hydro_force", b->l[0], b->l[1], b->l[2], compute_f(h));
    phase_send(h, h->f, NF, PHASE_ALL, TAG_FORCE);
    phase_finish(h, h->f, NF, PHASE_ALL);

    double *wr[2 * NF];
    for (int c = 0; c < NF; c++) {
        wr[c] = h->w[c];
        wr[NF + c] = h->r[c];
    }
    phase_recv(h, 2 * NF, PHASE_HALF, TAG_SYNC);
    LLAMP_KERNEL("hydro_w", b->l[0], b->l[1], b->l[2], compute_w(h));
    phase_send(h, wr, 2 * NF, PHASE_HALF, TAG_SYNC);
    phase_finish(h, wr, 2 * NF, PHASE_HALF);

    phase_recv(h, NF, PHASE_FACES, TAG_MONOQ);
    LLAMP_KERNEL("hydro_q", b->l[0], b->l[1], b->l[2], compute_q(h));
    phase_send(h, h->q, NF, PHASE_FACES, TAG_MONOQ);
    phase_finish(h, h->q, NF, PHASE_FACES);

    LLAMP_KERNEL("hydro_update", b->l[0], b->l[1], b->l[2], update(h, dt));
    return constraint(h);
}

/* Sums of each field over the interior (conserved), and the checksum
 * sum (c+1) u_c^2 (not conserved: it follows the dynamics). */
static void totals(const hydro_t *h, double out[NF + 1])
{
    const block_t *b = &h->b;
    for (int c = 0; c <= NF; c++)
        out[c] = 0;
    for (int c = 0; c < NF; c++)
        for (int k = 1; k <= b->l[2]; k++)
            for (int j = 1; j <= b->l[1]; j++)
                for (int i = 1; i <= b->l[0]; i++) {
                    double v = h->u[c][at(b, i, j, k)];
                    out[c] += v;
                    out[NF] += (c + 1) * v * v;
                }
}

/* Per-rank values added in rank order on rank 0 (the same bits whatever the
 * MPI's reduction algorithm), then broadcast. */
static void ordered_sum(const double *mine, int n, double *sum, int size)
{
    double *all = malloc((size_t)n * size * sizeof *all);
    MPI_Gather(mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int c = 0; c < n; c++) {
        sum[c] = 0;
        for (int r = 0; r < size; r++)
            sum[c] += all[(size_t)r * n + c];
    }
    MPI_Bcast(sum, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(all);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    opts_t o = {{12, 12, 12}, {0, 0, 0}, 0, {0, 0, 0}, 100, 0, 64L << 10};
    int rc = parse(argc, argv, &o);
    if (rc < 0 && o.dims[0] && (long)o.dims[0] * o.dims[1] * o.dims[2] != size) {
        llamp_app_usage_error("hydro3d", "--dims %dx%dx%d does not match %d ranks", o.dims[0],
                              o.dims[1], o.dims[2], size);
        rc = LLAMP_APP_EXIT_USAGE;
    }
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    llamp_kernel_init(MPI_COMM_WORLD);
    MPI_Dims_create(size, 3, o.dims);
    long global[3];
    for (int d = 0; d < 3; d++)
        global[d] = o.strong ? o.global[d] : o.local[d] * o.dims[d];
    for (int d = 0; d < 3; d++)
        if (global[d] < o.dims[d]) {
            llamp_app_usage_error("hydro3d", "%ld cells in dimension %d for %d ranks", global[d], d,
                                  o.dims[d]);
            MPI_Finalize();
            return LLAMP_APP_EXIT_USAGE;
        }
    /* x fastest, as LULESH numbers its ranks */
    int coords[3] = {rank % o.dims[0], (rank / o.dims[0]) % o.dims[1], rank / (o.dims[0] * o.dims[1])};
    int nbr[NDIR];
    int nnbr = 0;
    for (int q = 0; q < NDIR; q++) {
        int c[3], ok = q != 13;
        for (int d = 0; d < 3; d++) {
            c[d] = coords[d] + dir_off(q, d);
            ok = ok && c[d] >= 0 && c[d] < o.dims[d];
        }
        nbr[q] = ok ? c[0] + o.dims[0] * (c[1] + o.dims[1] * c[2]) : -1;
        nnbr += ok;
    }
    block_t b;
    block_init(&b, global, o.dims, coords);
    hydro_t h;
    hydro_init(&h, &b, nbr, o.send_waitall);
    int modeled = llamp_kernel_modeled();
    long ncells = global[0] * global[1] * global[2];
    int max_nbr;
    MPI_Reduce(&nnbr, &max_nbr, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("hydro3d: %d ranks as %dx%dx%d, global %ldx%ldx%ld cells (%s), %ld cycles, "
               "up to %d neighbours, sends completed by %s, thread level %d\n",
               size, o.dims[0], o.dims[1], o.dims[2], global[0], global[1], global[2],
               o.strong ? "strong" : "weak", o.iters, max_nbr,
               o.send_waitall ? "MPI_Waitall" : "one MPI_Wait each", provided);
        printf("kernels: %s\n", llamp_kernel_describe());
    }
    double t0_sums[NF + 1], sums0[NF + 1];
    totals(&h, t0_sums);
    ordered_sum(t0_sums, NF + 1, sums0, size);

    /* set-up exchange: u's ghosts and the first constraint */
    double dt_local = constraint(&h), dt = 0, dt_first = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = llamp_app_now();
    for (long it = 0; it < o.iters; it++) {
        MPI_Allreduce(&dt_local, &dt, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        if (it == 0)
            dt_first = dt;
        dt_local = cycle(&h, dt);
    }
    double elapsed = llamp_app_now() - t0, tmax;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    double mine[NF + 1], sums[NF + 1];
    totals(&h, mine);
    ordered_sum(mine, NF + 1, sums, size);

    /* serial comparison: rank 0 runs the whole grid, sends each rank its block */
    int do_serial = !modeled && ncells <= o.serial_max;
    double maxdiff = 0, maxu = 0;
    if (do_serial) {
        hydro_t g;
        size_t mine_n = (size_t)NF * b.l[0] * b.l[1] * b.l[2];
        double *blk = malloc(mine_n * sizeof *blk);
        if (rank == 0) {
            int one[3] = {1, 1, 1}, zero[3] = {0, 0, 0}, none[NDIR];
            for (int q = 0; q < NDIR; q++)
                none[q] = -1;
            block_t gb;
            block_init(&gb, global, one, zero);
            hydro_init(&g, &gb, none, 0);
            double gdt = constraint(&g);
            for (long it = 0; it < o.iters; it++)
                gdt = cycle(&g, gdt);
            for (int r = 0; r < size; r++) {
                int rc3[3] = {r % o.dims[0], (r / o.dims[0]) % o.dims[1], r / (o.dims[0] * o.dims[1])};
                block_t rb;
                block_init(&rb, global, o.dims, rc3);
                size_t cnt = (size_t)NF * rb.l[0] * rb.l[1] * rb.l[2], n = 0;
                double *out = r == 0 ? blk : malloc(cnt * sizeof *out);
                for (int c = 0; c < NF; c++)
                    for (int k = 1; k <= rb.l[2]; k++)
                        for (int j = 1; j <= rb.l[1]; j++)
                            for (int i = 1; i <= rb.l[0]; i++)
                                out[n++] = g.u[c][at(&gb, (int)rb.off[0] + i, (int)rb.off[1] + j,
                                                      (int)rb.off[2] + k)];
                if (r != 0) {
                    MPI_Send(out, (int)cnt, MPI_DOUBLE, r, 99, MPI_COMM_WORLD);
                    free(out);
                }
            }
            hydro_free(&g);
        } else {
            MPI_Recv(blk, (int)mine_n, MPI_DOUBLE, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        size_t n = 0;
        for (int c = 0; c < NF; c++)
            for (int k = 1; k <= b.l[2]; k++)
                for (int j = 1; j <= b.l[1]; j++)
                    for (int i = 1; i <= b.l[0]; i++, n++) {
                        maxdiff = fmax(maxdiff, fabs(h.u[c][at(&b, i, j, k)] - blk[n]));
                        maxu = fmax(maxu, fabs(blk[n]));
                    }
        free(blk);
        double mm[2] = {maxdiff, maxu};
        MPI_Allreduce(MPI_IN_PLACE, mm, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        maxdiff = mm[0];
        maxu = mm[1];
    }

    if (rank == 0) {
        printf("dt: %.6e first, %.6e last\n", dt_first, dt);
        printf("time: %.6e s (%.6e s per cycle)\n", tmax, tmax / (double)o.iters);
        printf("checksum: %.12e\n", sums[NF]);
    }
    int ok = 1;
    char detail[400];
    if (modeled) {
        snprintf(detail, sizeof detail, "kernel models replaced the computation: %ld calls skipped",
                 llamp_kernel_skipped());
    } else {
        double worst = 0;
        for (int c = 0; c < NF; c++)
            worst = fmax(worst, fabs(sums[c] - sums0[c]) / fabs(sums0[c]));
        int ok_cons = worst <= 1e-12;
        int ok_serial = !do_serial || maxdiff <= 1e-13 * fmax(maxu, 1e-300);
        ok = ok_cons && ok_serial;
        int n = snprintf(detail, sizeof detail, "totals conserved to %.1e: %s", worst,
                         ok_cons ? "yes" : "NO");
        if (do_serial)
            snprintf(detail + n, sizeof detail - (size_t)n, "; serial max diff %.2e: %s", maxdiff,
                     ok_serial ? "yes" : "NO");
        else
            snprintf(detail + n, sizeof detail - (size_t)n, "; serial check off (grid > %ld cells)",
                     o.serial_max);
    }
    rc = llamp_app_verdict(MPI_COMM_WORLD, ok, modeled, "%s", detail);
    hydro_free(&h);
    llamp_kernel_finalize(MPI_COMM_WORLD);
    llamp_app_end_times();
    MPI_Finalize();
    return rc;
}
