/* cg: conjugate gradient on a distributed sparse matrix (HPCG/MILC-like).
 *
 * The matrix is the 5-point (2-D) or 7-point (3-D) Poisson operator on an
 * nx x ny x nz grid with zero Dirichlet boundary (diagonal 2 per dimension
 * with more than one point, -1 per neighbour), stored as CSR with rows
 * block-distributed in lexicographic order (x fastest).  The halo pattern is
 * derived from the column indices at setup (an Alltoall of counts and an
 * Alltoallv of index lists), as a general sparse code would; each iteration
 * exchanges it with Irecv/Isend/Waitall before the SpMV (with --any-source
 * the receives are MPI_ANY_SOURCE into staging slots, each unpacked where its
 * status's MPI_SOURCE says, as HPCG-like codes do) and does 2 Allreduce
 * (p.Ap and r.r).
 *
 * Known solution: x*(g) = 1 + 0.5 sin(0.37 g) for global row g, b = A x*.
 * CG starts from x = 0 and stops when ||r||/||b|| < --tol (or after --iters;
 * --fixed, or kernel models, run exactly --iters).
 * Verification (when the kernels ran): the recomputed residual
 * ||b - A x||/||b|| is below 10 tol (when converging), and
 * ||x - x*||_2 <= ||b - A x||_2 / lambda_min (lambda_min of the Poisson
 * matrix, known in closed form), which pins x to the known vector.
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
    int strong, dim;
    long iters;
    double tol;
    int fixed;
    int any_source;
} opts_t;

typedef struct {
    long n;          /* local rows */
    long r0;         /* first global row */
    long nhalo;      /* halo entries, stored after the local ones */
    long *rowptr;    /* n + 1 */
    int *col;        /* local column numbers: < n own, >= n halo */
    double *val;
    int nnbr;        /* neighbours */
    int *nbr;        /* their ranks */
    long *recv_off;  /* halo offset (from n) of neighbour i's block; nnbr + 1 */
    long *send_off;  /* into send_idx; nnbr + 1 */
    int *send_idx;   /* local rows to send */
    double *send_buf;
    MPI_Request *req;
    int any_source;  /* receives from MPI_ANY_SOURCE into staging slots */
    long max_recv;   /* the largest block received */
    double *stage;   /* nnbr slots of max_recv */
    MPI_Status *st;
} matrix_t;

static const double PI = 3.14159265358979323846;

static void usage(void)
{
    printf("usage: cg [options]\n"
           "Conjugate gradient on the 2-D/3-D Poisson matrix, rows block-distributed;\n"
           "halo exchange + 2 Allreduce per iteration; verified against a known solution.\n"
           "  --weak NX[,NY,NZ]     grid points per rank (default 16): the last grid\n"
           "                        dimension is multiplied by the number of ranks\n"
           "  --strong NX[,NY,NZ]   global grid (strong scaling)\n"
           "  --dim 2|3             2: 5-point operator on NX x NY (NZ ignored); default 3\n"
           "  --iters N             maximum iterations (default 1000)\n"
           "  --tol T               stop when ||r||/||b|| < T (default 1e-8)\n"
           "  --fixed               run exactly --iters iterations (always the case when\n"
           "                        kernel models replace the computation)\n"
           "  --any-source          halo receives from MPI_ANY_SOURCE into staging slots,\n"
           "                        unpacked by the status's MPI_SOURCE\n"
           "  -h, --help      this text (under smpirun use -h: SimGrid takes --help)\n"
           "  --version       the version (natively; SimGrid takes it under smpirun)\n");
}

static int parse(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"weak", required_argument, 0, 'w'}, {"strong", required_argument, 0, 's'},
        {"dim", required_argument, 0, 'd'},  {"iters", required_argument, 0, 'i'},
        {"tol", required_argument, 0, 't'},  {"fixed", no_argument, 0, 'f'},
        {"any-source", no_argument, 0, 'a'},
        {"help", no_argument, 0, 'h'},       {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    const char *app = "cg";
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
            o->dim = atoi(optarg);
            if ((o->dim != 2 && o->dim != 3) || strlen(optarg) != 1) {
                llamp_app_usage_error(app, "--dim: expected 2 or 3, got '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        case 'i':
            if (llamp_app_parse_count(optarg, &o->iters) || o->iters < 1) {
                llamp_app_usage_error(app, "--iters: bad count '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        case 't': {
            char *end;
            o->tol = strtod(optarg, &end);
            if (*end || !(o->tol > 0)) {
                llamp_app_usage_error(app, "--tol: expected a positive number, got '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        }
        case 'f':
            o->fixed = 1;
            break;
        case 'a':
            o->any_source = 1;
            break;
        default:
            return llamp_app_other_option(app, c, rank, usage, argv);
        }
    }
    return llamp_app_no_operands(app, argc, argv);
}

/* Block distribution of N rows over P ranks. */
static long first_row(long N, int P, int r)
{
    long q = N / P, m = N % P;
    return r * q + (r < m ? r : m);
}

static int owner(long N, int P, long g)
{
    long q = N / P, m = N % P;
    long big = m * (q + 1);
    if (g < big)
        return (int)(g / (q + 1));
    return (int)(m + (g - big) / q);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Builds this rank's rows of the Poisson matrix and the halo pattern. */
static void build(matrix_t *A, const long g3[3], MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const long nx = g3[0], ny = g3[1], nz = g3[2], N = nx * ny * nz;
    A->r0 = first_row(N, size, rank);
    A->n = first_row(N, size, rank + 1) - A->r0;
    int ndim = (nx > 1) + (ny > 1) + (nz > 1);
    A->rowptr = malloc((size_t)(A->n + 1) * sizeof *A->rowptr);
    long *gcol = malloc((size_t)A->n * 7 * sizeof *gcol);
    A->val = malloc((size_t)A->n * 7 * sizeof *A->val);
    long nnz = 0;
    for (long r = 0; r < A->n; r++) {
        long g = A->r0 + r, i = g % nx, j = (g / nx) % ny, k = g / (nx * ny);
        A->rowptr[r] = nnz;
        /* columns in increasing global order */
        if (k > 0) { gcol[nnz] = g - nx * ny; A->val[nnz++] = -1; }
        if (j > 0) { gcol[nnz] = g - nx; A->val[nnz++] = -1; }
        if (i > 0) { gcol[nnz] = g - 1; A->val[nnz++] = -1; }
        gcol[nnz] = g; A->val[nnz++] = 2.0 * ndim;
        if (i < nx - 1) { gcol[nnz] = g + 1; A->val[nnz++] = -1; }
        if (j < ny - 1) { gcol[nnz] = g + nx; A->val[nnz++] = -1; }
        if (k < nz - 1) { gcol[nnz] = g + nx * ny; A->val[nnz++] = -1; }
    }
    A->rowptr[A->n] = nnz;

    /* halo: the distinct off-rank columns, sorted (hence grouped by owner) */
    long *halo = malloc((size_t)(nnz + 1) * sizeof *halo);
    long nh = 0;
    for (long e = 0; e < nnz; e++)
        if (gcol[e] < A->r0 || gcol[e] >= A->r0 + A->n)
            halo[nh++] = gcol[e];
    qsort(halo, (size_t)nh, sizeof *halo, cmp_long);
    long u = 0;
    for (long e = 0; e < nh; e++)
        if (u == 0 || halo[e] != halo[u - 1])
            halo[u++] = halo[e];
    nh = u;
    A->nhalo = nh;
    A->col = malloc((size_t)(nnz ? nnz : 1) * sizeof *A->col);
    for (long e = 0; e < nnz; e++) {
        long g = gcol[e];
        if (g >= A->r0 && g < A->r0 + A->n) {
            A->col[e] = (int)(g - A->r0);
        } else {
            long *p = bsearch(&g, halo, (size_t)nh, sizeof *halo, cmp_long);
            A->col[e] = (int)(A->n + (p - halo));
        }
    }
    free(gcol);

    /* who needs what: counts per owner, then the index lists */
    int *want = calloc((size_t)size, sizeof *want), *give = calloc((size_t)size, sizeof *give);
    for (long e = 0; e < nh; e++)
        want[owner(N, size, halo[e])]++;
    MPI_Alltoall(want, 1, MPI_INT, give, 1, MPI_INT, comm);
    int *wdis = calloc((size_t)size + 1, sizeof *wdis), *gdis = calloc((size_t)size + 1, sizeof *gdis);
    for (int r = 0; r < size; r++) {
        wdis[r + 1] = wdis[r] + want[r];
        gdis[r + 1] = gdis[r] + give[r];
    }
    long *asked = malloc((size_t)(gdis[size] + 1) * sizeof *asked);
    MPI_Alltoallv(halo, want, wdis, MPI_LONG, asked, give, gdis, MPI_LONG, comm);
    A->nnbr = 0;
    for (int r = 0; r < size; r++)
        if (want[r] || give[r])
            A->nnbr++;
    A->nbr = malloc((size_t)(A->nnbr + 1) * sizeof *A->nbr);
    A->recv_off = malloc((size_t)(A->nnbr + 1) * sizeof *A->recv_off);
    A->send_off = malloc((size_t)(A->nnbr + 1) * sizeof *A->send_off);
    A->send_idx = malloc((size_t)(gdis[size] + 1) * sizeof *A->send_idx);
    A->send_buf = malloc((size_t)(gdis[size] + 1) * sizeof *A->send_buf);
    A->req = malloc((size_t)(2 * A->nnbr + 1) * sizeof *A->req);
    int k = 0;
    for (int r = 0; r < size; r++) {
        if (!(want[r] || give[r]))
            continue;
        A->nbr[k] = r;
        A->recv_off[k] = wdis[r];
        A->send_off[k] = gdis[r];
        k++;
    }
    A->recv_off[k] = wdis[size];
    A->send_off[k] = gdis[size];
    for (int e = 0; e < gdis[size]; e++)
        A->send_idx[e] = (int)(asked[e] - A->r0);
    A->max_recv = 1;
    for (int i = 0; i < A->nnbr; i++)
        if (A->recv_off[i + 1] - A->recv_off[i] > A->max_recv)
            A->max_recv = A->recv_off[i + 1] - A->recv_off[i];
    A->stage = malloc((size_t)(A->nnbr + 1) * (size_t)A->max_recv * sizeof *A->stage);
    A->st = malloc((size_t)(2 * A->nnbr + 1) * sizeof *A->st);
    free(asked);
    free(want);
    free(give);
    free(wdis);
    free(gdis);
    free(halo);
}

/* y = A x, x has n + nhalo entries (the halo part is filled here). */
static void spmv(matrix_t *A, double *x, double *y, MPI_Comm comm)
{
    int nr = 0;
    for (int i = 0; i < A->nnbr; i++) {
        long cnt = A->recv_off[i + 1] - A->recv_off[i];
        if (!cnt)
            continue;
        if (A->any_source)
            MPI_Irecv(A->stage + nr * A->max_recv, (int)A->max_recv, MPI_DOUBLE, MPI_ANY_SOURCE, 5,
                      comm, &A->req[nr]);
        else
            MPI_Irecv(x + A->n + A->recv_off[i], (int)cnt, MPI_DOUBLE, A->nbr[i], 5, comm,
                      &A->req[nr]);
        nr++;
    }
    int nrecv = nr;
    long ns = A->send_off[A->nnbr];
    LLAMP_KERNEL("halo_pack", ns, 1, 1, {
        for (long e = 0; e < ns; e++)
            A->send_buf[e] = x[A->send_idx[e]];
    });
    for (int i = 0; i < A->nnbr; i++) {
        long cnt = A->send_off[i + 1] - A->send_off[i];
        if (cnt)
            MPI_Isend(A->send_buf + A->send_off[i], (int)cnt, MPI_DOUBLE, A->nbr[i], 5, comm,
                      &A->req[nr++]);
    }
    if (!A->any_source) {
        llamp_app_waitall(nr, A->req);
    } else {
        MPI_Waitall(nr, A->req, A->st);
        for (int k = 0; k < nrecv; k++) {
            int i = 0, got;
            while (i < A->nnbr && A->nbr[i] != A->st[k].MPI_SOURCE)
                i++;
            MPI_Get_count(&A->st[k], MPI_DOUBLE, &got);
            if (i == A->nnbr || got != A->recv_off[i + 1] - A->recv_off[i]) {
                fprintf(stderr, "cg: halo message of %d doubles from rank %d does not fit\n", got,
                        A->st[k].MPI_SOURCE);
                MPI_Abort(comm, LLAMP_APP_EXIT_VERIFY);
            }
            LLAMP_KERNEL("halo_unpack", got, 1, 1,
                         memcpy(x + A->n + A->recv_off[i], A->stage + k * A->max_recv,
                                (size_t)got * sizeof(double)));
        }
    }
    LLAMP_KERNEL("spmv", A->rowptr[A->n], 1, 1, {
        for (long r = 0; r < A->n; r++) {
            double s = 0;
            for (long e = A->rowptr[r]; e < A->rowptr[r + 1]; e++)
                s += A->val[e] * x[A->col[e]];
            y[r] = s;
        }
    });
}

static double dot(const double *a, const double *b, long n, MPI_Comm comm)
{
    double s = 0;
    LLAMP_KERNEL("dot", n, 1, 1, {
        for (long i = 0; i < n; i++)
            s += a[i] * b[i];
    });
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, comm);
    return s;
}

static double exact(long g)
{
    return 1.0 + 0.5 * sin(0.37 * (double)g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    opts_t o = {{16, 16, 16}, {0, 0, 0}, 0, 3, 1000, 1e-8, 0, 0};
    int rc = parse(argc, argv, &o);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    llamp_kernel_init(MPI_COMM_WORLD);
    MPI_Comm comm = MPI_COMM_WORLD;
    long g3[3];
    if (o.strong) {
        memcpy(g3, o.global, sizeof g3);
        if (o.dim == 2)
            g3[2] = 1;
    } else if (o.dim == 2) {
        g3[0] = o.local[0];
        g3[1] = o.local[1] * size;
        g3[2] = 1;
    } else {
        g3[0] = o.local[0];
        g3[1] = o.local[1];
        g3[2] = o.local[2] * size;
    }
    long N = g3[0] * g3[1] * g3[2];
    if (N < size || N > 0x7fffffffL) {
        llamp_app_usage_error("cg", "%ld rows for %d ranks (need 1 row per rank, at most 2^31)",
                              N, size);
        MPI_Finalize();
        return LLAMP_APP_EXIT_USAGE;
    }
    int modeled = llamp_kernel_modeled();
    int fixed = o.fixed || modeled;

    matrix_t A;
    A.any_source = o.any_source;
    build(&A, g3, comm);
    long n = A.n, next = A.n + A.nhalo;
    double *x = calloc((size_t)next, sizeof *x), *r = malloc((size_t)n * sizeof *r),
           *p = calloc((size_t)next, sizeof *p), *Ap = malloc((size_t)n * sizeof *Ap),
           *b = malloc((size_t)n * sizeof *b), *xs = calloc((size_t)next, sizeof *xs);
    for (long i = 0; i < n; i++)
        xs[i] = exact(A.r0 + i);
    spmv(&A, xs, b, comm); /* b = A x*, computed for real even when modeled */
    double bnorm = sqrt(dot(b, b, n, comm));
    long nnz_total = A.rowptr[n];
    MPI_Allreduce(MPI_IN_PLACE, &nnz_total, 1, MPI_LONG, MPI_SUM, comm);
    if (rank == 0) {
        printf("cg: %d ranks, %ld-D Poisson %ldx%ldx%ld (%s), %ld rows, %ld nonzeros, "
               "%s %ld iterations, tol %.1e, halo receives from %s\n",
               size, (long)o.dim, g3[0], g3[1], g3[2], o.strong ? "strong" : "weak", N, nnz_total,
               fixed ? "exactly" : "at most", o.iters, o.tol,
               o.any_source ? "MPI_ANY_SOURCE" : "named sources");
        printf("kernels: %s\n", llamp_kernel_describe());
    }

    /* CG */
    memcpy(r, b, (size_t)n * sizeof *r);
    memcpy(p, b, (size_t)n * sizeof *p);
    MPI_Barrier(comm);
    double t0 = llamp_app_now();
    double rr = dot(r, r, n, comm), rel = bnorm > 0 ? sqrt(rr) / bnorm : 0;
    long it = 0;
    int converged = 0;
    while (it < o.iters) {
        if (!fixed && rel < o.tol) {
            converged = 1;
            break;
        }
        spmv(&A, p, Ap, comm);
        double pap = dot(p, Ap, n, comm);
        double alpha = pap != 0 ? rr / pap : 0;
        LLAMP_KERNEL("cg_update_xr", n, 1, 1, {
            for (long i = 0; i < n; i++) {
                x[i] += alpha * p[i];
                r[i] -= alpha * Ap[i];
            }
        });
        double rr_new = dot(r, r, n, comm);
        double beta = rr != 0 ? rr_new / rr : 0;
        LLAMP_KERNEL("cg_update_p", n, 1, 1, {
            for (long i = 0; i < n; i++)
                p[i] = r[i] + beta * p[i];
        });
        rr = rr_new;
        rel = bnorm > 0 ? sqrt(rr) / bnorm : 0;
        it++;
    }
    if (!fixed && !converged && rel < o.tol)
        converged = 1;
    double elapsed = llamp_app_now() - t0, tmax;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, comm);

    /* verification: true residual and distance to x* */
    double true_rel = 0, enorm = 0, einf = 0, checksum = 0;
    if (!modeled) {
        spmv(&A, x, Ap, comm);
        double loc[2] = {0, 0};
        for (long i = 0; i < n; i++) {
            double d = b[i] - Ap[i], e = x[i] - xs[i];
            loc[0] += d * d;
            loc[1] += e * e;
            einf = fmax(einf, fabs(e));
            checksum += x[i];
        }
        double glob[2];
        MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, comm);
        MPI_Allreduce(MPI_IN_PLACE, &einf, 1, MPI_DOUBLE, MPI_MAX, comm);
        MPI_Allreduce(MPI_IN_PLACE, &checksum, 1, MPI_DOUBLE, MPI_SUM, comm);
        true_rel = sqrt(glob[0]) / bnorm;
        enorm = sqrt(glob[1]);
    }
    double lmin = 0;
    for (int d = 0; d < 3; d++)
        if (g3[d] > 1)
            lmin += 2 * (1 - cos(PI / (double)(g3[d] + 1)));
    if (rank == 0) {
        printf("iterations: %ld%s\n", it, converged ? " (converged)" : "");
        printf("residual: ||r||/||b|| %.6e (recurrence), %.6e (recomputed)\n", rel, true_rel);
        printf("time: %.6e s (%.6e s per iteration, %.3f Gflop/s)\n", tmax,
               it ? tmax / (double)it : 0.0,
               it ? (2.0 * nnz_total + 10.0 * N) * (double)it / tmax * 1e-9 : 0.0);
        printf("checksum: %.12e\n", checksum);
    }
    int ok = 1;
    char detail[400];
    if (modeled) {
        snprintf(detail, sizeof detail, "kernel models replaced the computation: %ld calls skipped",
                 llamp_kernel_skipped());
    } else {
        double ebound = true_rel * bnorm / lmin;
        int ok_bound = enorm <= ebound * (1 + 1e-6) + 1e-12 * sqrt((double)N);
        int ok_conv = fixed || (converged && true_rel < 10 * o.tol);
        ok = ok_bound && ok_conv;
        snprintf(detail, sizeof detail,
                 "%s; recomputed residual %.2e%s; ||x-x*||=%.3e <= ||b-Ax||/lambda_min=%.3e: %s; "
                 "max |x-x*| %.2e",
                 fixed ? "fixed iteration count" : converged ? "converged" : "NOT converged",
                 true_rel, ok_conv ? "" : " (too large)", enorm, ebound, ok_bound ? "yes" : "NO",
                 einf);
    }
    rc = llamp_app_verdict(comm, ok, modeled, "%s", detail);
    free(x); free(r); free(p); free(Ap); free(b); free(xs);
    free(A.rowptr); free(A.col); free(A.val); free(A.nbr); free(A.recv_off); free(A.send_off);
    free(A.send_idx); free(A.send_buf); free(A.req); free(A.stage); free(A.st);
    llamp_kernel_finalize(comm);
    llamp_app_end_times();
    MPI_Finalize();
    return rc;
}
