/* lu: HPL-like dense solve of A x = b by right-looking blocked LU with row
 * partial pivoting on a 2-D block-cyclic P x Q process grid.
 *
 * The N x (N+1) matrix [A | b] is distributed in NB x NB blocks, block (I, J)
 * on process (I mod P, J mod Q), processes numbered row-major (HPL's default
 * mapping).  For each panel k (NB columns):
 *
 *   factor    the owning process column factors the panel column by column
 *             (pivot search + pivot row exchange in ONE Allreduce over the
 *             process column with a user-defined operation, as HPL's
 *             combined max-and-swap; then dscal and dger)
 *   bcast     the packed panel (pivots + L) goes along each process row by
 *             one of HPL's six point-to-point broadcasts (lu_bcast.h)
 *   update    row interchanges of the trailing columns (point-to-point inside
 *             the process column), dtrsm of the U block row, MPI_Bcast of U
 *             down the process column, and dgemm in NB-column chunks; between
 *             chunks the next panel's broadcast is polled
 *
 * Look-ahead depth 1: the next panel's process column first updates just that
 * panel, factors and starts broadcasting it, then finishes the current update
 * (HPL's DEPTH=1).  Depth 0 factors only after the whole update.
 * b is carried as column N, so the factorization leaves y = L^-1 P b there;
 * a distributed block back substitution (dtrsv on the diagonal block owner,
 * Bcast of x_k down the column, dgemv partial sums sent along the rows)
 * finishes the solve.
 *
 * A and b are uniform in [-0.5, 0.5) from a counter-based generator, so any
 * process regenerates any entry.  Verification is HPL's:
 *   ||A x - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) N) < 16,  eps = 2^-53.
 * dgemm, dtrsm, dger, dscal, dtrsv and dgemv go through CBLAS (OpenBLAS,
 * single-threaded) and the LLAMP_KERNEL hook.
 */
#define _GNU_SOURCE
#include "llamp_app.h"
#include "llamp_kernel.h"
#include "lu_bcast.h"

#include <cblas.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long n;
    long nb;
    int P, Q;
    int bcast;
    int depth;
    long seed;
    int check;
} opts_t;

typedef struct {
    long N, NB, nblocks;
    int P, Q, myrow, mycol;
    MPI_Comm row, col;
    long mp, nq, lld;
    double *A;
    /* panels: [ipiv (NB doubles) | L (mpan x jb, column-major, ld mpan)] */
    double *pbuf[2];
    long pcap;
    lu_bcast_t bc[2];
    int bcast;
    /* row-swap and U scratch */
    double *ubuf, *swap_send, *swap_recv;
    long *swap_rows;
    int singular;
} lu_t;

void openblas_set_num_threads(int num_threads);

static void usage(void)
{
    printf("usage: lu [options]\n"
           "HPL-like LU with partial pivoting on a 2-D block-cyclic P x Q grid, HPL's panel\n"
           "broadcasts, look-ahead 0/1, CBLAS kernels; verified by HPL's residual test.\n"
           "  --n N          matrix order (default 512)\n"
           "  --nb NB        block size (default 64)\n"
           "  --grid PxQ     process grid, P*Q = ranks (default: P <= Q, closest to square)\n"
           "  --bcast B      1ring, 1ringM, 2ring, 2ringM, long, longM (default 2ringM;\n"
           "                 also ring, ring-modified, 2-ring, 2-ring-modified, long-modified)\n"
           "  --depth D      look-ahead depth 0 or 1 (default 1)\n"
           "  --seed S       matrix seed (default 42)\n"
           "  --no-check     skip the residual test\n"
           "  -h, --help      this text (under smpirun use -h: SimGrid takes --help)\n"
           "  --version       the version (natively; SimGrid takes it under smpirun)\n");
}

static int parse(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"n", required_argument, 0, 'n'},     {"nb", required_argument, 0, 'b'},
        {"grid", required_argument, 0, 'g'},  {"bcast", required_argument, 0, 'B'},
        {"depth", required_argument, 0, 'd'}, {"seed", required_argument, 0, 's'},
        {"no-check", no_argument, 0, 'c'},    {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},     {0, 0, 0, 0}};
    const char *app = "lu";
    int c, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'n':
        case 'b':
        case 's': {
            long *dst = c == 'n' ? &o->n : c == 'b' ? &o->nb : &o->seed;
            if (llamp_app_parse_count(optarg, dst) || (c != 's' && *dst < 1) ||
                *dst > (1L << 30)) {
                llamp_app_usage_error(app, "--%s: bad value '%s'",
                                      c == 'n' ? "n" : c == 'b' ? "nb" : "seed", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        }
        case 'g':
            if (llamp_app_parse_grid(optarg, &o->P, &o->Q)) {
                llamp_app_usage_error(app, "--grid: expected PxQ, got '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        case 'B':
            o->bcast = lu_bcast_parse(optarg);
            if (o->bcast < 0) {
                llamp_app_usage_error(app, "--bcast: unknown '%s' (1ring, 1ringM, 2ring, 2ringM, "
                                      "long, longM)", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        case 'd':
            if (strcmp(optarg, "0") && strcmp(optarg, "1")) {
                llamp_app_usage_error(app, "--depth: expected 0 or 1, got '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            o->depth = optarg[0] - '0';
            break;
        case 'c':
            o->check = 0;
            break;
        default:
            return llamp_app_other_option(app, c, rank, usage, argv);
        }
    }
    return llamp_app_no_operands(app, argc, argv);
}

/* ---- block-cyclic index arithmetic ---- */

/* Indices among [0, g) owned by process `p` of `np` (ScaLAPACK's numroc). */
static long owned_below(long g, long nb, int p, int np)
{
    long full = g / nb, rest = g % nb;
    long n = (full / np) * nb;
    long extra = full % np;
    if (p < extra)
        n += nb;
    else if (p == extra)
        n += rest;
    return n;
}

static int owner_of(long g, long nb, int np)
{
    return (int)((g / nb) % np);
}

static long local_of(long g, long nb, int np)
{
    return (g / nb / np) * nb + g % nb;
}

static long global_of(long l, long nb, int p, int np)
{
    return ((l / nb) * np + p) * nb + l % nb;
}

static double entry(long seed, long N, long i, long j)
{
    return llamp_app_uniform((uint64_t)seed * 0x100000001b3ULL + (uint64_t)i * (uint64_t)(N + 1) +
                             (uint64_t)j) - 0.5;
}

#define AT(lu, i, j) ((lu)->A[(size_t)(j) * (size_t)(lu)->lld + (size_t)(i)])

/* ---- panel factorization ---- */

/* The combined pivot search and row exchange: a buffer of 2 + 2 jb doubles
 * [|max|, global row, max row (jb), current row (jb)]: keep the larger
 * |max| (ties: the lower row), add the current rows (only their owner
 * contributes, the others send zeros). */
static void pivot_op(void *in_, void *inout_, int *len, MPI_Datatype *type)
{
    const double *in = in_;
    double *io = inout_;
    int bytes;
    MPI_Type_size(*type, &bytes);
    const int stride = bytes / (int)sizeof(double), jb = (stride - 2) / 2;
    for (int e = 0; e < *len; e++, in += stride, io += stride) {
        if (in[0] > io[0] || (in[0] == io[0] && in[1] < io[1])) {
            io[0] = in[0];
            io[1] = in[1];
            memcpy(io + 2, in + 2, sizeof(double) * (size_t)jb);
        }
        for (int c = 0; c < jb; c++)
            io[2 + jb + c] += in[2 + jb + c];
    }
}

/* Factors panel k on its process column; fills ipiv (global rows). */
static void factor_panel(lu_t *lu, long k, long *ipiv, MPI_Op op)
{
    const long NB = lu->NB, g0 = k * NB, jb = lu->N - g0 < NB ? lu->N - g0 : NB;
    const long j0 = local_of(g0, NB, lu->Q);
    double *buf = malloc(sizeof(double) * (size_t)(2 + 2 * jb));
    MPI_Datatype t;
    MPI_Type_contiguous((int)(2 + 2 * jb), MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    for (long c = 0; c < jb; c++) {
        long gc = g0 + c;
        long i_c = owned_below(gc, NB, lu->myrow, lu->P);      /* first local row >= gc */
        long i_n = owned_below(gc + 1, NB, lu->myrow, lu->P);  /* first local row > gc */
        /* local candidate (not a kernel: it decides the communication) */
        long best = -1;
        double bmax = -1;
        for (long l = i_c; l < lu->mp; l++) {
            double v = fabs(AT(lu, l, j0 + c));
            if (v > bmax) {
                bmax = v;
                best = l;
            }
        }
        buf[0] = best >= 0 ? bmax : -1;
        buf[1] = best >= 0 ? (double)global_of(best, NB, lu->myrow, lu->P) : (double)lu->N;
        for (long cc = 0; cc < jb; cc++) {
            buf[2 + cc] = best >= 0 ? AT(lu, best, j0 + cc) : 0;
            buf[2 + jb + cc] = owner_of(gc, NB, lu->P) == lu->myrow
                                   ? AT(lu, local_of(gc, NB, lu->P), j0 + cc) : 0;
        }
        MPI_Allreduce(MPI_IN_PLACE, buf, 1, t, op, lu->col);
        long gp = (long)buf[1];
        ipiv[c] = gp;
        double *maxrow = buf + 2, *currow = buf + 2 + jb;
        if (owner_of(gc, NB, lu->P) == lu->myrow)
            for (long cc = 0; cc < jb; cc++)
                AT(lu, local_of(gc, NB, lu->P), j0 + cc) = maxrow[cc];
        if (gp != gc && owner_of(gp, NB, lu->P) == lu->myrow)
            for (long cc = 0; cc < jb; cc++)
                AT(lu, local_of(gp, NB, lu->P), j0 + cc) = currow[cc];
        double piv = maxrow[c];
        long m = lu->mp - i_n;
        if (piv == 0) {
            lu->singular = 1;
            continue;
        }
        if (m > 0) {
            LLAMP_KERNEL("pfact_dscal", m, 1, 1,
                         cblas_dscal((int)m, 1.0 / piv, &AT(lu, i_n, j0 + c), 1));
            if (jb - c - 1 > 0)
                LLAMP_KERNEL("pfact_dger", m, jb - c - 1, 1,
                             cblas_dger(CblasColMajor, (int)m, (int)(jb - c - 1), -1.0,
                                        &AT(lu, i_n, j0 + c), 1, maxrow + c + 1, 1,
                                        &AT(lu, i_n, j0 + c + 1), (int)lu->lld));
        }
    }
    MPI_Type_free(&t);
    free(buf);
}

/* Packs panel k (pivots and this process row's rows >= k NB) into buf;
 * returns the number of doubles. */
static long panel_size(const lu_t *lu, long k)
{
    long jb = lu->N - k * lu->NB < lu->NB ? lu->N - k * lu->NB : lu->NB;
    long mpan = lu->mp - owned_below(k * lu->NB, lu->NB, lu->myrow, lu->P);
    return lu->NB + mpan * jb;
}

static void pack_panel(lu_t *lu, long k, const long *ipiv, double *buf)
{
    const long NB = lu->NB, g0 = k * NB, jb = lu->N - g0 < NB ? lu->N - g0 : NB;
    const long i0 = owned_below(g0, NB, lu->myrow, lu->P), mpan = lu->mp - i0;
    const long j0 = local_of(g0, NB, lu->Q);
    for (long c = 0; c < NB; c++)
        buf[c] = c < jb ? (double)ipiv[c] : -1;
    LLAMP_KERNEL("panel_pack", mpan, jb, 1, {
        for (long c = 0; c < jb; c++)
            memcpy(buf + NB + c * mpan, &AT(lu, i0, j0 + c), sizeof(double) * (size_t)mpan);
    });
}

/* ---- trailing update ---- */

/* Row interchanges of panel k applied to local columns [jlo, jhi): the
 * moves are derived from the pivot sequence; rows change hands only inside
 * the process column (point-to-point, one message per pair). */
static void row_swaps(lu_t *lu, long k, const double *panel, long jlo, long jhi)
{
    const long NB = lu->NB, g0 = k * NB, jb = lu->N - g0 < NB ? lu->N - g0 : NB;
    const long ncols = jhi - jlo;
    if (ncols <= 0)
        return;
    /* positions touched and where their final content comes from */
    long *pos = lu->swap_rows, *src = lu->swap_rows + 2 * NB;
    long np = 0;
    for (long c = 0; c < jb; c++) {
        long a = g0 + c, b = (long)panel[c];
        long ia = -1, ib = -1;
        for (long e = 0; e < np; e++) {
            if (pos[e] == a) ia = e;
            if (pos[e] == b) ib = e;
        }
        if (ia < 0) { pos[np] = a; src[np] = a; ia = np++; }
        if (ib < 0) { pos[np] = b; src[np] = b; ib = np++; }
        long t = src[ia];
        src[ia] = src[ib];
        src[ib] = t;
    }
    /* per peer process row: rows sent and received, in increasing position */
    const int P = lu->P, me = lu->myrow;
    int *scount = calloc((size_t)P, sizeof *scount), *rcount = calloc((size_t)P, sizeof *rcount);
    long nself = 0;
    for (long e = 0; e < np; e++) {
        if (src[e] == pos[e])
            continue;
        int so = owner_of(src[e], NB, P), dst = owner_of(pos[e], NB, P);
        if (so == me && dst == me)
            nself++;
        else if (so == me)
            scount[dst]++;
        else if (dst == me)
            rcount[so]++;
    }
    long soff = 0, roff = 0;
    long *sdisp = malloc(sizeof(long) * (size_t)(P + 1)), *rdisp = malloc(sizeof(long) * (size_t)(P + 1));
    for (int p = 0; p < P; p++) {
        sdisp[p] = soff;
        rdisp[p] = roff;
        soff += scount[p];
        roff += rcount[p];
    }
    sdisp[P] = soff;
    rdisp[P] = roff;
    double *sb = lu->swap_send, *rb = lu->swap_recv;
    double *selfb = sb + soff * ncols;
    /* pack every outgoing row and every local source before writing */
    int *fill = calloc((size_t)P, sizeof *fill);
    LLAMP_KERNEL("laswp_pack", soff + nself, ncols, 1, {
        long ns = 0;
        for (long e = 0; e < np; e++) {
            if (src[e] == pos[e] || owner_of(src[e], NB, P) != me)
                continue;
            int dst = owner_of(pos[e], NB, P);
            double *out = dst == me ? selfb + (ns++) * ncols
                                    : sb + (sdisp[dst] + fill[dst]++) * ncols;
            long ls = local_of(src[e], NB, P);
            for (long j = 0; j < ncols; j++)
                out[j] = AT(lu, ls, jlo + j);
        }
    });
    MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(2 * P + 1));
    int nr = 0;
    for (int p = 0; p < P; p++)
        if (rcount[p])
            MPI_Irecv(rb + rdisp[p] * ncols, (int)(rcount[p] * ncols), MPI_DOUBLE, p, 3000,
                      lu->col, &req[nr++]);
    for (int p = 0; p < P; p++)
        if (scount[p])
            MPI_Isend(sb + sdisp[p] * ncols, (int)(scount[p] * ncols), MPI_DOUBLE, p, 3000,
                      lu->col, &req[nr++]);
    llamp_app_waitall(nr, req);
    memset(fill, 0, sizeof(int) * (size_t)P);
    LLAMP_KERNEL("laswp_unpack", roff + nself, ncols, 1, {
        long ns = 0;
        for (long e = 0; e < np; e++) {
            if (src[e] == pos[e] || owner_of(pos[e], NB, P) != me)
                continue;
            int so = owner_of(src[e], NB, P);
            const double *in = so == me ? selfb + (ns++) * ncols
                                        : rb + (rdisp[so] + fill[so]++) * ncols;
            long ld = local_of(pos[e], NB, P);
            for (long j = 0; j < ncols; j++)
                AT(lu, ld, jlo + j) = in[j];
        }
    });
    free(req);
    free(fill);
    free(scount);
    free(rcount);
    free(sdisp);
    free(rdisp);
}

/* Update of local columns [jlo, jhi) with panel k: swaps, U = L_kk^-1 U on
 * the process row owning block row k, Bcast of U, dgemm in NB chunks.
 * `poll`, when not NULL, is progressed between the chunks. */
static void update(lu_t *lu, long k, const double *panel, long jlo, long jhi, lu_bcast_t *poll)
{
    const long NB = lu->NB, g0 = k * NB, jb = lu->N - g0 < NB ? lu->N - g0 : NB;
    const long ncols = jhi - jlo;
    if (ncols <= 0)
        return;
    row_swaps(lu, k, panel, jlo, jhi);
    const int prow = owner_of(g0, NB, lu->P);
    const long i0 = owned_below(g0, NB, lu->myrow, lu->P), mpan = lu->mp - i0;
    const double *L = panel + NB;
    double *U = lu->ubuf;
    if (lu->myrow == prow) {
        LLAMP_KERNEL("dtrsm", jb, ncols, jb,
                     cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit,
                                 (int)jb, (int)ncols, 1.0, L, (int)mpan, &AT(lu, i0, jlo),
                                 (int)lu->lld));
        LLAMP_KERNEL("u_pack", jb, ncols, 1, {
            for (long j = 0; j < ncols; j++)
                memcpy(U + j * jb, &AT(lu, i0, jlo + j), sizeof(double) * (size_t)jb);
        });
    }
    MPI_Bcast(U, (int)(jb * ncols), MPI_DOUBLE, prow, lu->col);
    /* rows below block row k: on prow skip the jb rows of block k */
    const long skip = lu->myrow == prow ? jb : 0;
    const long m = mpan - skip;
    for (long j = 0; j < ncols; j += NB) {
        long w = ncols - j < NB ? ncols - j : NB;
        if (m > 0)
            LLAMP_KERNEL("dgemm", m, w, jb,
                         cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)w,
                                     (int)jb, -1.0, L + skip, (int)mpan, U + j * jb, (int)jb, 1.0,
                                     &AT(lu, i0 + skip, jlo + j), (int)lu->lld));
        if (poll)
            lu_bcast_progress(poll);
    }
}

/* First local column with global index >= g. */
static long col_from(const lu_t *lu, long g)
{
    return owned_below(g, lu->NB, lu->mycol, lu->Q);
}

/* One past the last global column of panel k. */
static long panel_end(const lu_t *lu, long k)
{
    long e = (k + 1) * lu->NB;
    return e < lu->N ? e : lu->N;
}

static void factor_and_start(lu_t *lu, long k, long *ipiv, MPI_Op op)
{
    double *buf = lu->pbuf[k & 1];
    factor_panel(lu, k, ipiv, op);
    pack_panel(lu, k, ipiv, buf);
    lu_bcast_start(&lu->bc[k & 1], lu->bcast, lu->row, (int)(k % lu->Q), (int)k, buf,
                   (int)panel_size(lu, k));
}

static void factorize(lu_t *lu, int depth)
{
    MPI_Op op;
    MPI_Op_create(pivot_op, 1, &op);
    long *ipiv = malloc(sizeof(long) * (size_t)lu->NB);
    const long nbk = lu->nblocks;
    if (depth == 1) {
        if (lu->mycol == 0)
            factor_and_start(lu, 0, ipiv, op);
        else
            lu_bcast_start(&lu->bc[0], lu->bcast, lu->row, 0, 0, lu->pbuf[0],
                           (int)panel_size(lu, 0));
    }
    for (long k = 0; k < nbk; k++) {
        lu_bcast_t *cur = &lu->bc[k & 1], *next = &lu->bc[(k + 1) & 1];
        if (depth == 0) {
            if (lu->mycol == k % lu->Q)
                factor_and_start(lu, k, ipiv, op);
            else
                lu_bcast_start(cur, lu->bcast, lu->row, (int)(k % lu->Q), (int)k, lu->pbuf[k & 1],
                               (int)panel_size(lu, k));
        }
        lu_bcast_wait(cur);
        const double *panel = lu->pbuf[k & 1];
        /* trailing columns start after this panel's jb columns (the last
         * panel may be narrower than NB and share its block with b) */
        long jlo = col_from(lu, panel_end(lu, k)), jhi = lu->nq;
        if (depth == 1 && k + 1 < nbk) {
            if (lu->mycol == (k + 1) % lu->Q) {
                long jnext = col_from(lu, panel_end(lu, k + 1));
                update(lu, k, panel, jlo, jnext, NULL);
                factor_and_start(lu, k + 1, ipiv, op);
                update(lu, k, panel, jnext, jhi, next);
            } else {
                lu_bcast_start(next, lu->bcast, lu->row, (int)((k + 1) % lu->Q), (int)(k + 1),
                               lu->pbuf[(k + 1) & 1], (int)panel_size(lu, k + 1));
                update(lu, k, panel, jlo, jhi, next);
            }
        } else {
            update(lu, k, panel, jlo, jhi, NULL);
        }
    }
    free(ipiv);
    MPI_Op_free(&op);
}

/* ---- back substitution ---- */

/* Back substitution U x = y on a process column that does not hold y (the
 * column N): receives y_k when it owns diagonal block k, solves, broadcasts
 * x_k down the column and sends the partial sums U(rows above, k) x_k to the
 * column holding y.  x_k is stored in xloc at block k's local columns. */
static void back_solve(lu_t *lu, double *xloc)
{
    const long N = lu->N, NB = lu->NB;
    const int qb = owner_of(N, NB, lu->Q);
    double *xk = malloc(sizeof(double) * (size_t)NB);
    double *part = malloc(sizeof(double) * (size_t)(lu->mp + 1));
    for (long k = lu->nblocks - 1; k >= 0; k--) {
        const long g0 = k * NB, jb = N - g0 < NB ? N - g0 : NB;
        const int pr = owner_of(g0, NB, lu->P), pc = owner_of(g0, NB, lu->Q);
        if (lu->mycol != pc)
            continue;
        const long li = local_of(g0, NB, lu->P), lj = local_of(g0, NB, lu->Q);
        if (lu->myrow == pr) {
            MPI_Recv(xk, (int)jb, MPI_DOUBLE, qb, 4000, lu->row, MPI_STATUS_IGNORE);
            LLAMP_KERNEL("dtrsv", jb, jb, 1,
                         cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, (int)jb,
                                     &AT(lu, li, lj), (int)lu->lld, xk, 1));
        }
        MPI_Bcast(xk, (int)jb, MPI_DOUBLE, pr, lu->col);
        memcpy(xloc + lj, xk, sizeof(double) * (size_t)jb);
        long m = owned_below(g0, NB, lu->myrow, lu->P);
        if (m == 0)
            continue;
        LLAMP_KERNEL("dgemv", m, jb, 1,
                     cblas_dgemv(CblasColMajor, CblasNoTrans, (int)m, (int)jb, 1.0, &AT(lu, 0, lj),
                                 (int)lu->lld, xk, 1, 0.0, part, 1));
        MPI_Send(part, (int)m, MPI_DOUBLE, qb, 4001, lu->row);
    }
    free(xk);
    free(part);
}

/* Back substitution on every process: the column holding y runs its own
 * diagonal blocks and, in step order, sends y_k to and receives the partial
 * sums from the other columns (see back_solve). */
static void back_solve_all(lu_t *lu, double *xloc)
{
    const long N = lu->N, NB = lu->NB;
    const int qb = owner_of(N, NB, lu->Q);
    if (lu->mycol != qb) {
        back_solve(lu, xloc);
        return;
    }
    /* process column qb: its own steps plus the receives, in step order */
    const long lb = local_of(N, NB, lu->Q);
    double *xk = malloc(sizeof(double) * (size_t)NB);
    double *part = malloc(sizeof(double) * (size_t)(lu->mp + 1));
    for (long k = lu->nblocks - 1; k >= 0; k--) {
        const long g0 = k * NB, jb = N - g0 < NB ? N - g0 : NB;
        const int pr = owner_of(g0, NB, lu->P), pc = owner_of(g0, NB, lu->Q);
        const long li = local_of(g0, NB, lu->P);
        long m = owned_below(g0, NB, lu->myrow, lu->P);
        if (pc != qb) {
            if (lu->myrow == pr)
                MPI_Send(&AT(lu, li, lb), (int)jb, MPI_DOUBLE, pc, 4000, lu->row);
            if (m > 0) {
                MPI_Recv(part, (int)m, MPI_DOUBLE, pc, 4001, lu->row, MPI_STATUS_IGNORE);
                for (long i = 0; i < m; i++)
                    AT(lu, i, lb) -= part[i];
            }
            continue;
        }
        const long lj = local_of(g0, NB, lu->Q);
        if (lu->myrow == pr) {
            memcpy(xk, &AT(lu, li, lb), sizeof(double) * (size_t)jb);
            LLAMP_KERNEL("dtrsv", jb, jb, 1,
                         cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, (int)jb,
                                     &AT(lu, li, lj), (int)lu->lld, xk, 1));
        }
        MPI_Bcast(xk, (int)jb, MPI_DOUBLE, pr, lu->col);
        memcpy(xloc + lj, xk, sizeof(double) * (size_t)jb);
        if (m > 0) {
            LLAMP_KERNEL("dgemv", m, jb, 1,
                         cblas_dgemv(CblasColMajor, CblasNoTrans, (int)m, (int)jb, 1.0,
                                     &AT(lu, 0, lj), (int)lu->lld, xk, 1, 0.0, part, 1));
            for (long i = 0; i < m; i++)
                AT(lu, i, lb) -= part[i];
        }
    }
    free(xk);
    free(part);
}

/* ---- driver ---- */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    openblas_set_num_threads(1);
    opts_t o = {512, 64, 0, 0, LU_BCAST_2RINGM, 1, 42, 1};
    int rc = parse(argc, argv, &o);
    if (rc < 0) {
        if (!o.P) {
            int dims[2] = {0, 0};
            MPI_Dims_create(size, 2, dims);
            o.P = dims[1];
            o.Q = dims[0];
        }
        if ((long)o.P * o.Q != size) {
            llamp_app_usage_error("lu", "--grid %dx%d does not match %d ranks", o.P, o.Q, size);
            rc = LLAMP_APP_EXIT_USAGE;
        } else if (o.nb > o.n) {
            llamp_app_usage_error("lu", "--nb %ld is larger than --n %ld", o.nb, o.n);
            rc = LLAMP_APP_EXIT_USAGE;
        }
    }
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    llamp_kernel_init(MPI_COMM_WORLD);
    int modeled = llamp_kernel_modeled();
    lu_t lu;
    memset(&lu, 0, sizeof lu);
    lu.N = o.n;
    lu.NB = o.nb;
    lu.nblocks = (o.n + o.nb - 1) / o.nb;
    lu.P = o.P;
    lu.Q = o.Q;
    lu.myrow = rank / o.Q;
    lu.mycol = rank % o.Q;
    lu.bcast = o.bcast;
    MPI_Comm_split(MPI_COMM_WORLD, lu.myrow, lu.mycol, &lu.row);
    MPI_Comm_split(MPI_COMM_WORLD, lu.mycol, lu.myrow, &lu.col);
    lu.mp = owned_below(lu.N, lu.NB, lu.myrow, lu.P);
    lu.nq = owned_below(lu.N + 1, lu.NB, lu.mycol, lu.Q);
    lu.lld = lu.mp > 0 ? lu.mp : 1;
    lu.A = malloc(sizeof(double) * (size_t)(lu.lld * (lu.nq > 0 ? lu.nq : 1)));
    for (long j = 0; j < lu.nq; j++) {
        long gj = global_of(j, lu.NB, lu.mycol, lu.Q);
        for (long i = 0; i < lu.mp; i++)
            AT(&lu, i, j) = entry(o.seed, lu.N, global_of(i, lu.NB, lu.myrow, lu.P), gj);
    }
    lu.pcap = lu.NB + lu.lld * lu.NB;
    for (int b = 0; b < 2; b++)
        lu.pbuf[b] = malloc(sizeof(double) * (size_t)lu.pcap);
    lu.ubuf = malloc(sizeof(double) * (size_t)(lu.NB * (lu.nq + 1)));
    lu.swap_send = malloc(sizeof(double) * (size_t)(2 * lu.NB * (lu.nq + 1))); /* sent + kept rows <= 2 jb */
    lu.swap_recv = malloc(sizeof(double) * (size_t)(2 * lu.NB * (lu.nq + 1)));
    lu.swap_rows = malloc(sizeof(long) * (size_t)(4 * lu.NB));
    if (rank == 0) {
        printf("lu: %d ranks as %dx%d, N %ld, NB %ld, bcast %s, depth %d, seed %ld\n", size, lu.P,
               lu.Q, lu.N, lu.NB, lu_bcast_name(lu.bcast), o.depth, o.seed);
        printf("kernels: %s\n", llamp_kernel_describe());
    }

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = llamp_app_now();
    factorize(&lu, o.depth);
    double t1 = llamp_app_now();
    double *xloc = calloc((size_t)(lu.nq + 1), sizeof(double));
    back_solve_all(&lu, xloc);
    double t2 = llamp_app_now();
    double tt[2] = {t1 - t0, t2 - t0};
    MPI_Allreduce(MPI_IN_PLACE, tt, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double n = (double)lu.N;
    double flops = 2.0 / 3.0 * n * n * n + 1.5 * n * n;
    int singular = lu.singular;
    MPI_Allreduce(MPI_IN_PLACE, &singular, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

    /* checksum: sum of x (each x_k counted once: process row 0 of its column) */
    double xsum = 0;
    if (lu.myrow == 0)
        for (long j = 0; j < lu.nq; j++)
            if (global_of(j, lu.NB, lu.mycol, lu.Q) < lu.N)
                xsum += xloc[j];
    MPI_Allreduce(MPI_IN_PLACE, &xsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("time: %.6e s (factorization %.6e s, solve %.6e s), %.3f Gflop/s\n", tt[1], tt[0],
               tt[1] - tt[0], flops / tt[1] * 1e-9);
        printf("checksum: %.12e (sum of x)\n", xsum);
    }

    int ok = 1;
    char detail[300];
    if (modeled) {
        snprintf(detail, sizeof detail, "kernel models replaced the computation: %ld calls skipped",
                 llamp_kernel_skipped());
    } else if (!o.check) {
        snprintf(detail, sizeof detail, "residual test disabled by --no-check");
    } else {
        /* regenerate A and b; r = A x - b on the local rows */
        double *ax = calloc((size_t)(lu.mp + 1), sizeof(double));
        double *arow = calloc((size_t)(lu.mp + 1), sizeof(double));
        double xmax = 0;
        for (long j = 0; j < lu.nq; j++) {
            long gj = global_of(j, lu.NB, lu.mycol, lu.Q);
            if (gj >= lu.N)
                continue;
            xmax = fmax(xmax, fabs(xloc[j]));
            for (long i = 0; i < lu.mp; i++) {
                double a = entry(o.seed, lu.N, global_of(i, lu.NB, lu.myrow, lu.P), gj);
                ax[i] += a * xloc[j];
                arow[i] += fabs(a);
            }
        }
        MPI_Allreduce(MPI_IN_PLACE, ax, (int)lu.mp, MPI_DOUBLE, MPI_SUM, lu.row);
        MPI_Allreduce(MPI_IN_PLACE, arow, (int)lu.mp, MPI_DOUBLE, MPI_SUM, lu.row);
        double norms[4] = {0, 0, 0, xmax}; /* r, A, b, x (inf norms) */
        for (long i = 0; i < lu.mp; i++) {
            double b = entry(o.seed, lu.N, global_of(i, lu.NB, lu.myrow, lu.P), lu.N);
            norms[0] = fmax(norms[0], fabs(ax[i] - b));
            norms[1] = fmax(norms[1], arow[i]);
            norms[2] = fmax(norms[2], fabs(b));
        }
        MPI_Allreduce(MPI_IN_PLACE, norms, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        const double eps = DBL_EPSILON / 2;
        double resid = norms[0] / (eps * (norms[1] * norms[3] + norms[2]) * n);
        ok = !singular && resid < 16.0 && isfinite(resid);
        if (rank == 0)
            printf("residual: ||Ax-b||_inf %.6e, ||A||_inf %.6e, ||x||_inf %.6e, ||b||_inf %.6e\n",
                   norms[0], norms[1], norms[3], norms[2]);
        snprintf(detail, sizeof detail,
                 "||Ax-b||_inf/(eps(||A||_inf ||x||_inf+||b||_inf)N) = %.6f %s 16%s", resid,
                 resid < 16.0 ? "<" : ">=", singular ? "; zero pivot" : "");
        free(ax);
        free(arow);
    }
    rc = llamp_app_verdict(MPI_COMM_WORLD, ok, modeled, "%s", detail);
    free(xloc);
    free(lu.A);
    free(lu.pbuf[0]);
    free(lu.pbuf[1]);
    free(lu.ubuf);
    free(lu.swap_send);
    free(lu.swap_recv);
    free(lu.swap_rows);
    MPI_Comm_free(&lu.row);
    MPI_Comm_free(&lu.col);
    llamp_kernel_finalize(MPI_COMM_WORLD);
    llamp_app_end_times();
    MPI_Finalize();
    return rc;
}
