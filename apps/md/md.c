/* md: Lennard-Jones molecular dynamics on a periodic 3-D Cartesian process
 * topology (the pattern of miniMD / CoMD-like codes).
 *
 * MPI_Cart_create (periodic, MPI_Dims_create: any rank count) and
 * MPI_Cart_shift give the six neighbours.  Each rank owns the atoms of its
 * sub-box (a simple cubic lattice of --weak N^3 sites per rank, spacing
 * --spacing, random velocities).  Per velocity-Verlet step:
 *
 *   migration   per dimension, atoms that left the sub-box go to the low or
 *               high neighbour: counts by MPI_Sendrecv_replace, atoms by
 *               MPI_Sendrecv (the low direction, then the high one)
 *   ghosts      per dimension x, y, z, the atoms (owned and ghosts received
 *               so far, so edges and corners follow) within the cutoff of a
 *               face go to that neighbour, periodic images shifted by the
 *               box: the same counts + data Sendrecv pattern
 *   forces      truncated and shifted LJ (cutoff 2.5) on owned atoms from
 *               owned and ghost atoms
 *   every --thermo steps: the closest pair distance and the rank holding it,
 *               MPI_Allreduce(MINLOC) on MPI_DOUBLE_INT
 *
 * At the end an MPI_Reduce(SUM) gathers the atom count, momentum and
 * energies on rank 0.  Verification (when the kernels ran): the atom count
 * is conserved exactly, the total momentum to 1e-10 (forces are computed on
 * both sides of a pair from the same distance), and the total energy drifts
 * by less than 1e-3 relative.
 */
#define _GNU_SOURCE
#include "llamp_app.h"
#include "llamp_kernel.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RC 2.5
#define ATOM_DOUBLES 7 /* x, v, id */

typedef struct {
    long weak;
    double spacing, dt, temp;
    long steps, thermo;
    int dims[3];
} opts_t;

typedef struct {
    int n, cap;         /* owned atoms */
    double *x, *v, *f;  /* 3 per atom */
    double *id;         /* global lattice index */
    int ng, gcap;       /* ghosts after the owned ones in gx */
    double *gx;         /* 3 per owned + ghost atom */
    double lo[3], hi[3], box[3];
    int coords[3], dims[3], nbr[3][2];
    MPI_Comm cart;
    double *sbuf, *rbuf;
    size_t bcap;
} md_t;

static void usage(void)
{
    printf("usage: md [options]\n"
           "Lennard-Jones molecular dynamics on a periodic Cartesian process grid:\n"
           "migration and ghost exchanges by Sendrecv / Sendrecv_replace, closest pair by\n"
           "Allreduce(MINLOC) on MPI_DOUBLE_INT, final Reduce; verified by conservation.\n"
           "  --weak N          lattice sites per rank and dimension (default 5)\n"
           "  --spacing A       lattice spacing (default 1.2; the sub-box N A must be >= 2.5)\n"
           "  --steps N         velocity-Verlet steps (default 50)\n"
           "  --dt T            time step (default 0.002)\n"
           "  --temp T          initial temperature (default 0.5)\n"
           "  --thermo K        closest-pair Allreduce(MINLOC) every K steps (default 10)\n"
           "  --dims PX,PY,PZ   process grid (default MPI_Dims_create)\n"
           "  -h, --help      this text (under smpirun use -h: SimGrid takes --help)\n"
           "  --version       the version (natively; SimGrid takes it under smpirun)\n");
}

static int parse_double(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return *end || !(*out > 0) || !isfinite(*out) ? -1 : 0;
}

static int parse(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"weak", required_argument, 0, 'w'},  {"spacing", required_argument, 0, 'a'},
        {"steps", required_argument, 0, 'n'}, {"dt", required_argument, 0, 't'},
        {"temp", required_argument, 0, 'T'},  {"thermo", required_argument, 0, 'k'},
        {"dims", required_argument, 0, 'd'},  {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},     {0, 0, 0, 0}};
    const char *app = "md";
    int c, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'w':
        case 'n':
        case 'k': {
            long *dst = c == 'w' ? &o->weak : c == 'n' ? &o->steps : &o->thermo;
            if (llamp_app_parse_count(optarg, dst) || *dst < 1) {
                llamp_app_usage_error(app, "--%s: bad count '%s'",
                                      c == 'w' ? "weak" : c == 'n' ? "steps" : "thermo", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        }
        case 'a':
        case 't':
        case 'T': {
            double *dst = c == 'a' ? &o->spacing : c == 't' ? &o->dt : &o->temp;
            if (parse_double(optarg, dst)) {
                llamp_app_usage_error(app, "--%s: expected a positive number, got '%s'",
                                      c == 'a' ? "spacing" : c == 't' ? "dt" : "temp", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        }
        case 'd':
            if (llamp_app_opt_procs(app, optarg, o->dims))
                return LLAMP_APP_EXIT_USAGE;
            break;
        default:
            return llamp_app_other_option(app, c, rank, usage, argv);
        }
    }
    return llamp_app_no_operands(app, argc, argv);
}

static void *grow(void *p, size_t n, size_t each)
{
    void *q = realloc(p, n * each);
    if (!q) {
        fprintf(stderr, "md: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return q;
}

static void reserve_atoms(md_t *m, int n)
{
    if (n <= m->cap)
        return;
    m->cap = n + n / 2 + 16;
    m->x = grow(m->x, (size_t)m->cap * 3, sizeof(double));
    m->v = grow(m->v, (size_t)m->cap * 3, sizeof(double));
    m->f = grow(m->f, (size_t)m->cap * 3, sizeof(double));
    m->id = grow(m->id, (size_t)m->cap, sizeof(double));
}

static void reserve_buf(md_t *m, size_t doubles)
{
    if (doubles <= m->bcap)
        return;
    m->bcap = doubles + doubles / 2 + 64;
    m->sbuf = grow(m->sbuf, m->bcap, sizeof(double));
    m->rbuf = grow(m->rbuf, m->bcap, sizeof(double));
}

/* Exchange with the neighbours of dimension d in direction dir (0: send to
 * low, receive from high; 1: the reverse): the count by Sendrecv_replace,
 * then `ns` records of `each` doubles from sbuf into rbuf; returns the
 * number received. */
static int shift(md_t *m, int d, int dir, int ns, int each, int tag)
{
    int to = m->nbr[d][dir], from = m->nbr[d][1 - dir], nr = ns;
    MPI_Sendrecv_replace(&nr, 1, MPI_INT, to, tag, from, tag, m->cart, MPI_STATUS_IGNORE);
    reserve_buf(m, (size_t)(nr > ns ? nr : ns) * each);
    MPI_Sendrecv(m->sbuf, ns * each, MPI_DOUBLE, to, tag + 1, m->rbuf, nr * each, MPI_DOUBLE, from,
                 tag + 1, m->cart, MPI_STATUS_IGNORE);
    return nr;
}

/* Atoms that left the sub-box move to the neighbour, dimension by dimension;
 * crossing the global boundary wraps the position by the box. */
static void migrate(md_t *m)
{
    for (int d = 0; d < 3; d++)
        for (int dir = 0; dir < 2; dir++) {
            int ns = 0;
            {
                reserve_buf(m, (size_t)m->n * ATOM_DOUBLES);
                for (int i = 0; i < m->n;) {
                    double xd = m->x[3 * i + d];
                    int out = dir == 0 ? xd < m->lo[d] : xd >= m->hi[d];
                    if (!out) {
                        i++;
                        continue;
                    }
                    double *b = m->sbuf + (size_t)ns * ATOM_DOUBLES;
                    memcpy(b, m->x + 3 * i, 3 * sizeof(double));
                    memcpy(b + 3, m->v + 3 * i, 3 * sizeof(double));
                    b[6] = m->id[i];
                    if (dir == 0 && m->coords[d] == 0)
                        b[d] += m->box[d];
                    if (dir == 1 && m->coords[d] == m->dims[d] - 1)
                        b[d] -= m->box[d];
                    ns++;
                    /* the last atom fills the hole */
                    m->n--;
                    memcpy(m->x + 3 * i, m->x + 3 * m->n, 3 * sizeof(double));
                    memcpy(m->v + 3 * i, m->v + 3 * m->n, 3 * sizeof(double));
                    m->id[i] = m->id[m->n];
                }
            }
            int nr = shift(m, d, dir, ns, ATOM_DOUBLES, 10 + 4 * d + 2 * dir);
            {
                reserve_atoms(m, m->n + nr);
                for (int k = 0; k < nr; k++) {
                    const double *b = m->rbuf + (size_t)k * ATOM_DOUBLES;
                    memcpy(m->x + 3 * m->n, b, 3 * sizeof(double));
                    memcpy(m->v + 3 * m->n, b + 3, 3 * sizeof(double));
                    m->id[m->n] = b[6];
                    m->n++;
                }
            }
        }
}

/* Ghosts: per dimension, the atoms (owned and ghosts so far) within RC of a
 * face go to the neighbour across it, shifted by the box at the global
 * boundary.  The packing is not a kernel: the counts must not depend on
 * whether kernel models replaced the computation. */
static void ghosts(md_t *m)
{
    m->ng = 0;
    if (m->gcap < m->n) {
        m->gcap = m->n + m->n / 2 + 16;
        m->gx = grow(m->gx, (size_t)m->gcap * 3, sizeof(double));
    }
    memcpy(m->gx, m->x, (size_t)m->n * 3 * sizeof(double));
    for (int d = 0; d < 3; d++) {
        /* both directions send from the atoms known before this dimension:
         * a ghost just received from one side must not go back as an image */
        int total = m->n + m->ng;
        for (int dir = 0; dir < 2; dir++) {
            int ns = 0;
            {
                reserve_buf(m, (size_t)total * 3);
                for (int i = 0; i < total; i++) {
                    double xd = m->gx[3 * i + d];
                    int near = dir == 0 ? xd < m->lo[d] + RC : xd >= m->hi[d] - RC;
                    if (!near)
                        continue;
                    double *b = m->sbuf + (size_t)ns * 3;
                    memcpy(b, m->gx + 3 * i, 3 * sizeof(double));
                    if (dir == 0 && m->coords[d] == 0)
                        b[d] += m->box[d];
                    if (dir == 1 && m->coords[d] == m->dims[d] - 1)
                        b[d] -= m->box[d];
                    ns++;
                }
            }
            int nr = shift(m, d, dir, ns, 3, 30 + 4 * d + 2 * dir);
            {
                int need = m->n + m->ng + nr;
                if (need > m->gcap) {
                    m->gcap = need + need / 2 + 16;
                    m->gx = grow(m->gx, (size_t)m->gcap * 3, sizeof(double));
                }
                memcpy(m->gx + 3 * (size_t)(m->n + m->ng), m->rbuf, (size_t)nr * 3 * sizeof(double));
                m->ng += nr;
            }
        }
    }
}

/* Truncated and shifted LJ forces on the owned atoms; returns the potential
 * energy (half of each pair on each side) and the closest distance seen. */
static double forces(md_t *m, double *dmin)
{
    const double rc2 = RC * RC, irc6 = 1 / (rc2 * rc2 * rc2);
    const double ushift = 4 * irc6 * (irc6 - 1);
    double pe = 0, best = INFINITY;
    int all = m->n + m->ng;
    for (int i = 0; i < m->n; i++) {
        double fx = 0, fy = 0, fz = 0;
        const double *xi = m->gx + 3 * i;
        for (int j = 0; j < all; j++) {
            if (j == i)
                continue;
            const double *xj = m->gx + 3 * j;
            double dx = xi[0] - xj[0], dy = xi[1] - xj[1], dz = xi[2] - xj[2];
            double r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= rc2)
                continue;
            best = fmin(best, r2);
            double ir2 = 1 / r2, ir6 = ir2 * ir2 * ir2;
            double fr = 24 * ir6 * (2 * ir6 - 1) * ir2;
            fx += fr * dx;
            fy += fr * dy;
            fz += fr * dz;
            pe += 0.5 * (4 * ir6 * (ir6 - 1) - ushift);
        }
        m->f[3 * i] = fx;
        m->f[3 * i + 1] = fy;
        m->f[3 * i + 2] = fz;
    }
    *dmin = sqrt(best);
    return pe;
}

static double compute_forces(md_t *m, double *dmin)
{
    double pe = 0;
    *dmin = INFINITY;
    ghosts(m);
    LLAMP_KERNEL("md_forces", m->n, m->n + m->ng, 1, pe = forces(m, dmin));
    return pe;
}

/* Atom count, momentum (3), kinetic energy of the owned atoms. */
static void local_sums(const md_t *m, double pe, double out[6])
{
    for (int k = 0; k < 6; k++)
        out[k] = 0;
    out[0] = m->n;
    for (int i = 0; i < m->n; i++)
        for (int d = 0; d < 3; d++) {
            double v = m->v[3 * i + d];
            out[1 + d] += v;
            out[4] += 0.5 * v * v;
        }
    out[5] = pe;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    opts_t o = {5, 1.2, 0.002, 0.5, 50, 10, {0, 0, 0}};
    int rc = parse(argc, argv, &o);
    if (rc < 0 && o.dims[0] && (long)o.dims[0] * o.dims[1] * o.dims[2] != size) {
        llamp_app_usage_error("md", "--dims %dx%dx%d does not match %d ranks", o.dims[0],
                              o.dims[1], o.dims[2], size);
        rc = LLAMP_APP_EXIT_USAGE;
    }
    if (rc < 0 && o.weak * o.spacing < RC) {
        llamp_app_usage_error("md", "sub-box %g (--weak x --spacing) below the cutoff %g",
                              o.weak * o.spacing, RC);
        rc = LLAMP_APP_EXIT_USAGE;
    }
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    llamp_kernel_init(MPI_COMM_WORLD);
    md_t m;
    memset(&m, 0, sizeof m);
    MPI_Dims_create(size, 3, o.dims);
    int periods[3] = {1, 1, 1};
    MPI_Cart_create(MPI_COMM_WORLD, 3, o.dims, periods, 0, &m.cart);
    MPI_Comm_rank(m.cart, &rank);
    MPI_Cart_coords(m.cart, rank, 3, m.coords);
    long nsite[3];
    for (int d = 0; d < 3; d++) {
        m.dims[d] = o.dims[d];
        MPI_Cart_shift(m.cart, d, 1, &m.nbr[d][0], &m.nbr[d][1]);
        nsite[d] = o.weak * o.dims[d];
        m.box[d] = (double)nsite[d] * o.spacing;
        m.lo[d] = (double)(m.coords[d] * o.weak) * o.spacing;
        m.hi[d] = (double)((m.coords[d] + 1) * o.weak) * o.spacing;
    }
    /* lattice sites of this sub-box, offset by half a spacing, random velocities */
    reserve_atoms(&m, (int)(o.weak * o.weak * o.weak));
    double vs = sqrt(3 * o.temp);
    for (long k = 0; k < o.weak; k++)
        for (long j = 0; j < o.weak; j++)
            for (long i = 0; i < o.weak; i++) {
                long g[3] = {m.coords[0] * o.weak + i, m.coords[1] * o.weak + j,
                             m.coords[2] * o.weak + k};
                long id = (g[2] * nsite[1] + g[1]) * nsite[0] + g[0];
                for (int d = 0; d < 3; d++) {
                    m.x[3 * m.n + d] = ((double)g[d] + 0.5) * o.spacing;
                    m.v[3 * m.n + d] = vs * (llamp_app_uniform(3 * (uint64_t)id + (uint64_t)d) - 0.5);
                }
                m.id[m.n++] = (double)id;
            }
    int modeled = llamp_kernel_modeled();
    if (rank == 0) {
        printf("md: %d ranks as %dx%dx%d (periodic Cartesian), %ld atoms, box %gx%gx%g, %ld steps "
               "of %g, closest pair every %ld\n",
               size, o.dims[0], o.dims[1], o.dims[2], nsite[0] * nsite[1] * nsite[2], m.box[0],
               m.box[1], m.box[2], o.steps, o.dt, o.thermo);
        printf("kernels: %s\n", llamp_kernel_describe());
    }
    double dmin, pe = compute_forces(&m, &dmin), loc[6], start[6], end[6];
    local_sums(&m, pe, loc);
    MPI_Reduce(loc, start, 6, MPI_DOUBLE, MPI_SUM, 0, m.cart);
    struct {
        double d;
        int rank;
    } mine, closest = {INFINITY, -1};
    MPI_Barrier(m.cart);
    double t0 = llamp_app_now();
    const double dt = o.dt;
    for (long s = 1; s <= o.steps; s++) {
        LLAMP_KERNEL("md_integrate", m.n, 1, 1, {
            for (int i = 0; i < 3 * m.n; i++) {
                m.v[i] += 0.5 * dt * m.f[i];
                m.x[i] += dt * m.v[i];
            }
        });
        migrate(&m);
        pe = compute_forces(&m, &dmin);
        LLAMP_KERNEL("md_integrate", m.n, 1, 1, {
            for (int i = 0; i < 3 * m.n; i++)
                m.v[i] += 0.5 * dt * m.f[i];
        });
        if (s % o.thermo == 0) {
            mine.d = dmin;
            mine.rank = rank;
            MPI_Allreduce(&mine, &closest, 1, MPI_DOUBLE_INT, MPI_MINLOC, m.cart);
        }
    }
    double elapsed = llamp_app_now() - t0, tmax;
    local_sums(&m, pe, loc);
    MPI_Reduce(loc, end, 6, MPI_DOUBLE, MPI_SUM, 0, m.cart);
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, m.cart);

    int ok = 1;
    char detail[400] = "";
    if (rank == 0) {
        double e0 = start[4] + start[5], e1 = end[4] + end[5];
        double pnorm = 0, dp = 0;
        for (int d = 1; d <= 3; d++) {
            pnorm += fabs(start[d]);
            dp = fmax(dp, fabs(end[d] - start[d]));
        }
        printf("closest pair: %.6f on rank %d (MINLOC)\n", closest.d, closest.rank);
        printf("energy: %.9e at the start, %.9e at the end (kinetic %.6e, potential %.6e)\n", e0, e1,
               end[4], end[5]);
        printf("time: %.6e s (%.6e s per step)\n", tmax, tmax / (double)o.steps);
        printf("checksum: %.9e\n", e1);
        if (!modeled) {
            double drift = fabs(e1 - e0) / fabs(e0);
            int ok_n = end[0] == start[0], ok_p = dp <= 1e-10 * fmax(pnorm, 1.0),
                ok_e = drift < 1e-3;
            ok = ok_n && ok_p && ok_e;
            snprintf(detail, sizeof detail,
                     "atoms %.0f -> %.0f: %s; momentum change %.1e: %s; energy drift %.1e: %s",
                     start[0], end[0], ok_n ? "yes" : "NO", dp, ok_p ? "yes" : "NO", drift,
                     ok_e ? "yes" : "NO");
        }
    }
    if (modeled)
        snprintf(detail, sizeof detail, "kernel models replaced the computation: %ld calls skipped",
                 llamp_kernel_skipped());
    rc = llamp_app_verdict(m.cart, ok, modeled, "%s", detail);
    free(m.x);
    free(m.v);
    free(m.f);
    free(m.id);
    free(m.gx);
    free(m.sbuf);
    free(m.rbuf);
    llamp_kernel_finalize(m.cart);
    MPI_Comm_free(&m.cart);
    llamp_app_end_times();
    MPI_Finalize();
    return rc;
}
