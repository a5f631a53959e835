/* fft: distributed 3-D complex FFT by transposes with MPI_Alltoall, or
 * MPI_Alltoallv with uneven blocks (--alltoallv), among row and column
 * communicators made by MPI_Comm_split (the bandwidth-bound pattern of
 * spectral codes: P3DFFT, 2DECOMP&FFT).
 *
 * Grid N1 x N2 x N3 (x, y, z; powers of two), process grid P1 x P2:
 *   layout A  [x: N1/P1][y: N2/P2][z: N3]      FFT along z (contiguous)
 *   Alltoall among the P2 ranks of a row        -> B [x: N1/P1][y: N2][z: N3/P2]
 *   FFT along y
 *   Alltoall among the P1 ranks of a column     -> C [y: N2/P1][x: N1][z: N3/P2]
 *   FFT along x
 * The inverse runs the same steps backwards.  --decomp slab is P1 = ranks,
 * P2 = 1 (one transpose); pencil uses a 2-D grid (two transposes).  The 1-D
 * FFTs are this file's iterative radix-2 Cooley-Tukey.  With --alltoallv
 * each dimension is split as evenly as possible (the first N mod P blocks one
 * larger), so any process grid with N1, N2 >= P1 and N2, N3 >= P2 works (odd
 * rank counts included), and the transposes are MPI_Alltoallv with per-peer
 * counts.
 *
 * Verification (when the kernels ran):
 *   plane wave  x(n) = exp(2 pi i k0.n / N) transforms to N delta(k - k0)
 *   Parseval    sum |X|^2 = N sum |x|^2 for random data
 *   round trip  after --iters forward + inverse pairs the random data is back
 */
#define _GNU_SOURCE
#include "llamp_app.h"
#include "llamp_kernel.h"

#include <complex.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef double complex cplx;

static const double PI = 3.14159265358979323846;

typedef struct {
    long n[3];
    int slab;
    int grid[2];
    long iters;
    int v;
} opts_t;

/* One 1-D transform length: twiddles and bit reversal. */
typedef struct {
    int n, logn;
    cplx *w;    /* exp(-2 pi i k / n), k < n/2 */
    int *rev;
} plan1d_t;

typedef struct {
    long N1, N2, N3;
    int P1, P2, p1, p2;
    long xl, yl, zl, yl2; /* this rank's blocks: of N1 and N2 over P1, of N2 and N3 over P2 */
    /* every rank's blocks and offsets: x, y2 over the column (P1), y, z over the row (P2) */
    long *xs, *xo, *y2s, *y2o, *ys, *yo, *zs, *zo;
    size_t count, count_c; /* local elements of layouts A and C */
    size_t cap;            /* the largest of A, B, C: data and buffer size */
    int v;                 /* transposes by MPI_Alltoallv */
    int *sc, *sd, *rc, *rd; /* its counts and displacements (doubles) */
    long *scount, *rcount;  /* the same in elements */
    MPI_Comm row, col;    /* row: same p1 (size P2); col: same p2 (size P1) */
    plan1d_t px, py, pz;
    cplx *scratch;        /* one line */
    cplx *sbuf, *rbuf;
} fft3d_t;

static void usage(void)
{
    printf("usage: fft [options]\n"
           "Distributed 3-D complex FFT (radix 2) with Alltoall transposes; verified by a\n"
           "plane wave, Parseval and a forward+inverse round trip.\n"
           "  --n N | --n N1,N2,N3   global grid, powers of two (default 32)\n"
           "  --decomp slab|pencil   slab: P1 = ranks, P2 = 1; pencil: 2-D process grid\n"
           "                         (default pencil)\n"
           "  --grid P1xP2           process grid for pencil (default MPI_Dims_create)\n"
           "  --iters N              timed forward+inverse pairs (default 4)\n"
           "  --alltoallv            transposes by MPI_Alltoallv with uneven blocks (any grid\n"
           "                         with N1, N2 >= P1 and N2, N3 >= P2)\n"
           "  -h, --help      this text (under smpirun use -h: SimGrid takes --help)\n"
           "  --version       the version (natively; SimGrid takes it under smpirun)\n"
           "Without --alltoallv: needs N1 %% P1 = N2 %% P2 = N3 %% P2 = N2 %% P1 = 0.\n");
}

static int parse(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"n", required_argument, 0, 'n'},     {"decomp", required_argument, 0, 'd'},
        {"grid", required_argument, 0, 'g'},  {"iters", required_argument, 0, 'i'},
        {"alltoallv", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0}};
    const char *app = "fft";
    int c, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (llamp_app_parse_dims(optarg, o->n)) {
                llamp_app_usage_error(app, "--n: expected N or N1,N2,N3, got '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            for (int d = 0; d < 3; d++)
                if (o->n[d] & (o->n[d] - 1) || o->n[d] > (1L << 20)) {
                    llamp_app_usage_error(app, "--n: %ld is not a power of two (up to 2^20)",
                                          o->n[d]);
                    return LLAMP_APP_EXIT_USAGE;
                }
            break;
        case 'd':
            if (strcmp(optarg, "slab") && strcmp(optarg, "pencil")) {
                llamp_app_usage_error(app, "--decomp: expected slab or pencil, got '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            o->slab = strcmp(optarg, "slab") == 0;
            break;
        case 'g':
            if (llamp_app_parse_grid(optarg, &o->grid[0], &o->grid[1])) {
                llamp_app_usage_error(app, "--grid: expected P1xP2, got '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        case 'v':
            o->v = 1;
            break;
        case 'i':
            if (llamp_app_parse_count(optarg, &o->iters) || o->iters < 1) {
                llamp_app_usage_error(app, "--iters: bad count '%s'", optarg);
                return LLAMP_APP_EXIT_USAGE;
            }
            break;
        default:
            return llamp_app_other_option(app, c, rank, usage, argv);
        }
    }
    return llamp_app_no_operands(app, argc, argv);
}

static void plan_init(plan1d_t *p, long n)
{
    p->n = (int)n;
    p->logn = 0;
    while ((1L << p->logn) < n)
        p->logn++;
    p->w = malloc(sizeof(cplx) * (size_t)(n / 2 + 1));
    for (long k = 0; k < n / 2; k++)
        p->w[k] = cos(2 * PI * (double)k / (double)n) - I * sin(2 * PI * (double)k / (double)n);
    p->rev = malloc(sizeof(int) * (size_t)n);
    for (long i = 0; i < n; i++) {
        long r = 0;
        for (int b = 0; b < p->logn; b++)
            if (i & (1L << b))
                r |= 1L << (p->logn - 1 - b);
        p->rev[i] = (int)r;
    }
}

static void plan_free(plan1d_t *p)
{
    free(p->w);
    free(p->rev);
}

/* In-place radix-2 transform of a contiguous line; sign -1 forward (the
 * table), +1 inverse (conjugated twiddles, unscaled). */
static void fft1d(const plan1d_t *p, cplx *a, int inverse)
{
    const int n = p->n;
    for (int i = 0; i < n; i++) {
        int j = p->rev[i];
        if (j > i) {
            cplx t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        int half = len >> 1, step = n / len;
        for (int s = 0; s < n; s += len)
            for (int k = 0; k < half; k++) {
                cplx w = inverse ? conj(p->w[k * step]) : p->w[k * step];
                cplx t = w * a[s + k + half];
                a[s + k + half] = a[s + k] - t;
                a[s + k] += t;
            }
    }
}

/* `lines` transforms of length p->n with element stride `stride`, line i
 * starting at base + (i / inner) * outer_stride + (i % inner). */
static void fft_lines(const plan1d_t *p, cplx *base, long count_outer, long outer_stride,
                      long inner, long stride, cplx *scratch, int inverse)
{
    for (long o = 0; o < count_outer; o++)
        for (long i = 0; i < inner; i++) {
            cplx *line = base + o * outer_stride + i;
            if (stride == 1) {
                fft1d(p, line, inverse);
                continue;
            }
            for (int k = 0; k < p->n; k++)
                scratch[k] = line[(long)k * stride];
            fft1d(p, scratch, inverse);
            for (int k = 0; k < p->n; k++)
                line[(long)k * stride] = scratch[k];
        }
}

/* Pack (to_buf) or unpack the block X x Y x Z of buf at `off`, element
 * (x, y, z) of the block being data[base + x * sx + y * sy + z]. */
static void block_copy(cplx *data, long base, long sx, long sy, cplx *buf, long X, long Y, long Z,
                       int to_buf)
{
    long n = 0;
    for (long x = 0; x < X; x++)
        for (long y = 0; y < Y; y++)
            for (long z = 0; z < Z; z++, n++) {
                long i = base + x * sx + y * sy + z;
                if (to_buf)
                    buf[n] = data[i];
                else
                    data[i] = buf[n];
            }
}

/* One transpose's exchange: MPI_Alltoall when every block is the same
 * size, else MPI_Alltoallv with the counts in f->sc/sd/rc/rd. */
static void exchange(fft3d_t *f, MPI_Comm comm, long seg)
{
    if (!f->v) {
        MPI_Alltoall(f->sbuf, (int)(2 * seg), MPI_DOUBLE, f->rbuf, (int)(2 * seg), MPI_DOUBLE, comm);
        return;
    }
    MPI_Alltoallv(f->sbuf, f->sc, f->sd, MPI_DOUBLE, f->rbuf, f->rc, f->rd, MPI_DOUBLE, comm);
}

/* Sets the counts and displacements (in doubles) from element counts. */
static void set_counts(fft3d_t *f, int p, const long *scount, const long *rcount)
{
    long so = 0, ro = 0;
    for (int r = 0; r < p; r++) {
        f->sc[r] = (int)(2 * scount[r]);
        f->sd[r] = (int)(2 * so);
        f->rc[r] = (int)(2 * rcount[r]);
        f->rd[r] = (int)(2 * ro);
        so += scount[r];
        ro += rcount[r];
    }
}

/* A [x: xl][y: yl][z: N3] <-> B [x: xl][y: N2][z: zl] within the row
 * communicator (size P2): the block for row member s is y of this rank
 * times z of s (to B), or y of s times z of this rank (to A). */
static void transpose_ab(fft3d_t *f, cplx *data, int to_b)
{
    const long xl = f->xl, yl = f->yl, zl = f->zl, N2 = f->N2, N3 = f->N3;
    const int P2 = f->P2;
    cplx *sb = f->sbuf, *rb = f->rbuf;
    if (P2 == 1)
        return; /* slab: layouts A and B coincide */
    long *scount = f->scount, *rcount = f->rcount;
    for (int r = 0; r < P2; r++) {
        scount[r] = to_b ? xl * yl * f->zs[r] : xl * f->ys[r] * zl;
        rcount[r] = to_b ? xl * f->ys[r] * zl : xl * yl * f->zs[r];
    }
    set_counts(f, P2, scount, rcount);
    LLAMP_KERNEL("fft_pack", f->count, 1, 1, {
        long off = 0;
        for (int s = 0; s < P2; s++) {
            if (to_b)
                block_copy(data, f->zo[s], yl * N3, N3, sb + off, xl, yl, f->zs[s], 1);
            else
                block_copy(data, f->yo[s] * zl, N2 * zl, zl, sb + off, xl, f->ys[s], zl, 1);
            off += scount[s];
        }
    });
    exchange(f, f->row, xl * yl * zl);
    LLAMP_KERNEL("fft_unpack", f->count, 1, 1, {
        long off = 0;
        for (int r = 0; r < P2; r++) {
            if (to_b)
                block_copy(data, f->yo[r] * zl, N2 * zl, zl, rb + off, xl, f->ys[r], zl, 0);
            else
                block_copy(data, f->zo[r], yl * N3, N3, rb + off, xl, yl, f->zs[r], 0);
            off += rcount[r];
        }
    });
}

/* B [x: xl][y: N2][z: zl] <-> C [y: yl2][x: N1][z: zl] within the column
 * communicator (size P1). */
static void transpose_bc(fft3d_t *f, cplx *data, int to_c)
{
    const long xl = f->xl, yl2 = f->yl2, zl = f->zl, N1 = f->N1, N2 = f->N2;
    const int P1 = f->P1;
    cplx *sb = f->sbuf, *rb = f->rbuf;
    long *scount = f->scount, *rcount = f->rcount;
    for (int r = 0; r < P1; r++) {
        scount[r] = to_c ? xl * f->y2s[r] * zl : f->xs[r] * yl2 * zl;
        rcount[r] = to_c ? f->xs[r] * yl2 * zl : xl * f->y2s[r] * zl;
    }
    set_counts(f, P1, scount, rcount);
    /* C's (x, y) block is stored y-major: x stride zl, y stride N1 zl */
    LLAMP_KERNEL("fft_pack", f->count, 1, 1, {
        long off = 0;
        for (int s = 0; s < P1; s++) {
            if (to_c)
                block_copy(data, f->y2o[s] * zl, N2 * zl, zl, sb + off, xl, f->y2s[s], zl, 1);
            else
                block_copy(data, f->xo[s] * zl, zl, N1 * zl, sb + off, f->xs[s], yl2, zl, 1);
            off += scount[s];
        }
    });
    exchange(f, f->col, xl * yl2 * zl);
    LLAMP_KERNEL("fft_unpack", f->count, 1, 1, {
        long off = 0;
        for (int r = 0; r < P1; r++) {
            if (to_c)
                block_copy(data, f->xo[r] * zl, zl, N1 * zl, rb + off, f->xs[r], yl2, zl, 0);
            else
                block_copy(data, f->y2o[r] * zl, N2 * zl, zl, rb + off, xl, f->y2s[r], zl, 0);
            off += rcount[r];
        }
    });
}

/* Forward: A -> C.  Inverse: C -> A, scaled by 1/N. */
static void fft3d(fft3d_t *f, cplx *data, int inverse)
{
    const long xl = f->xl, yl = f->yl, zl = f->zl, yl2 = f->yl2;
    if (!inverse) {
        LLAMP_KERNEL("fft_z", f->N3, f->pz.logn, xl * yl,
                     fft_lines(&f->pz, data, xl * yl, f->N3, 1, 1, f->scratch, 0));
        transpose_ab(f, data, 1);
        LLAMP_KERNEL("fft_y", f->N2, f->py.logn, xl * zl,
                     fft_lines(&f->py, data, xl, f->N2 * zl, zl, zl, f->scratch, 0));
        transpose_bc(f, data, 1);
        LLAMP_KERNEL("fft_x", f->N1, f->px.logn, yl2 * zl,
                     fft_lines(&f->px, data, yl2, f->N1 * zl, zl, zl, f->scratch, 0));
        return;
    }
    LLAMP_KERNEL("fft_x", f->N1, f->px.logn, yl2 * zl,
                 fft_lines(&f->px, data, yl2, f->N1 * zl, zl, zl, f->scratch, 1));
    transpose_bc(f, data, 0);
    LLAMP_KERNEL("fft_y", f->N2, f->py.logn, xl * zl,
                 fft_lines(&f->py, data, xl, f->N2 * zl, zl, zl, f->scratch, 1));
    transpose_ab(f, data, 0);
    const double scale = 1.0 / ((double)f->N1 * (double)f->N2 * (double)f->N3);
    LLAMP_KERNEL("fft_z", f->N3, f->pz.logn, xl * yl, {
        fft_lines(&f->pz, data, xl * yl, f->N3, 1, 1, f->scratch, 1);
        for (size_t i = 0; i < f->count; i++)
            data[i] *= scale;
    });
}

/* Block sizes of n over p (the first n mod p one larger) and their offsets. */
static long *split_dim(long n, int p, long **off)
{
    long *sz = malloc(sizeof(long) * (size_t)p);
    *off = malloc(sizeof(long) * (size_t)p);
    long o = 0;
    for (int r = 0; r < p; r++) {
        sz[r] = n / p + (r < n % p);
        (*off)[r] = o;
        o += sz[r];
    }
    return sz;
}

/* Global (x, y, z) of local element i of layout A. */
static void coord_a(const fft3d_t *f, size_t i, long g[3])
{
    long z = (long)(i % (size_t)f->N3), xy = (long)(i / (size_t)f->N3);
    g[0] = f->xo[f->p1] + xy / f->yl;
    g[1] = f->yo[f->p2] + xy % f->yl;
    g[2] = z;
}

/* Global (kx, ky, kz) of local element i of layout C. */
static void coord_c(const fft3d_t *f, size_t i, long g[3])
{
    long z = (long)(i % (size_t)f->zl), rest = (long)(i / (size_t)f->zl);
    g[0] = rest % f->N1;
    g[1] = f->y2o[f->p1] + rest / f->N1;
    g[2] = f->zo[f->p2] + z;
}

static cplx random_value(const long g[3], const fft3d_t *f)
{
    uint64_t key = (uint64_t)((g[0] * f->N2 + g[1]) * f->N3 + g[2]);
    return (llamp_app_uniform(2 * key) - 0.5) + I * (llamp_app_uniform(2 * key + 1) - 0.5);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    opts_t o = {{32, 32, 32}, 0, {0, 0}, 4, 0};
    int rc = parse(argc, argv, &o);
    fft3d_t f;
    memset(&f, 0, sizeof f);
    if (rc < 0) {
        int dims[2] = {o.grid[0], o.grid[1]};
        if (o.slab) {
            dims[0] = size;
            dims[1] = 1;
        } else if (!dims[0]) {
            MPI_Dims_create(size, 2, dims);
        }
        f.N1 = o.n[0];
        f.N2 = o.n[1];
        f.N3 = o.n[2];
        f.P1 = dims[0];
        f.P2 = dims[1];
        if ((long)f.P1 * f.P2 != size) {
            llamp_app_usage_error("fft", "process grid %dx%d does not match %d ranks", f.P1, f.P2,
                                  size);
            rc = LLAMP_APP_EXIT_USAGE;
        } else if (o.v ? f.N1 < f.P1 || f.N2 < f.P2 || f.N3 < f.P2 || f.N2 < f.P1
                       : f.N1 % f.P1 || f.N2 % f.P2 || f.N3 % f.P2 || f.N2 % f.P1) {
            llamp_app_usage_error("fft", "grid %ldx%ldx%ld cannot be split over %dx%d ranks", f.N1,
                                  f.N2, f.N3, f.P1, f.P2);
            rc = LLAMP_APP_EXIT_USAGE;
        }
    }
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    llamp_kernel_init(MPI_COMM_WORLD);
    int modeled = llamp_kernel_modeled();
    f.p1 = rank / f.P2;
    f.p2 = rank % f.P2;
    f.v = o.v;
    f.xs = split_dim(f.N1, f.P1, &f.xo);
    f.y2s = split_dim(f.N2, f.P1, &f.y2o);
    f.ys = split_dim(f.N2, f.P2, &f.yo);
    f.zs = split_dim(f.N3, f.P2, &f.zo);
    f.xl = f.xs[f.p1];
    f.yl = f.ys[f.p2];
    f.zl = f.zs[f.p2];
    f.yl2 = f.y2s[f.p1];
    f.count = (size_t)(f.xl * f.yl * f.N3);
    f.count_c = (size_t)(f.yl2 * f.N1 * f.zl);
    size_t count_b = (size_t)(f.xl * f.N2 * f.zl);
    f.cap = f.count > count_b ? f.count : count_b;
    f.cap = f.cap > f.count_c ? f.cap : f.count_c;
    int pmax = f.P1 > f.P2 ? f.P1 : f.P2;
    f.sc = malloc(4 * sizeof(int) * (size_t)pmax);
    f.sd = f.sc + pmax;
    f.rc = f.sd + pmax;
    f.rd = f.rc + pmax;
    f.scount = malloc(2 * sizeof(long) * (size_t)pmax);
    f.rcount = f.scount + pmax;
    MPI_Comm_split(MPI_COMM_WORLD, f.p1, f.p2, &f.row);
    MPI_Comm_split(MPI_COMM_WORLD, f.p2, f.p1, &f.col);
    plan_init(&f.px, f.N1);
    plan_init(&f.py, f.N2);
    plan_init(&f.pz, f.N3);
    long maxn = f.N1 > f.N2 ? f.N1 : f.N2;
    maxn = maxn > f.N3 ? maxn : f.N3;
    f.scratch = malloc(sizeof(cplx) * (size_t)maxn);
    f.sbuf = malloc(sizeof(cplx) * f.cap);
    f.rbuf = malloc(sizeof(cplx) * f.cap);
    cplx *data = calloc(f.cap, sizeof(cplx)), *orig = calloc(f.cap, sizeof(cplx));
    const double N = (double)f.N1 * (double)f.N2 * (double)f.N3;
    if (rank == 0) {
        printf("fft: %d ranks as %dx%d (%s), grid %ldx%ldx%ld, %ld forward+inverse pairs, "
               "transposes by %s\n", size, f.P1, f.P2, f.P2 == 1 ? "slab" : "pencil", f.N1, f.N2,
               f.N3, o.iters, f.v ? "MPI_Alltoallv" : "MPI_Alltoall");
        printf("kernels: %s\n", llamp_kernel_describe());
    }

    /* 1. plane wave (skipped, like 2., when models replace the kernels:
     * only the timed transforms matter then) */
    const long k0[3] = {1 % f.N1, (f.N2 / 4 + 1) % f.N2, (f.N3 - 3 + f.N3) % f.N3};
    double wave_err = 0, e2[2] = {0, 0};
    if (!modeled) {
        for (size_t i = 0; i < f.count; i++) {
            long g[3];
            coord_a(&f, i, g);
            double ph = 2 * PI * ((double)(k0[0] * g[0] % f.N1) / (double)f.N1 +
                                  (double)(k0[1] * g[1] % f.N2) / (double)f.N2 +
                                  (double)(k0[2] * g[2] % f.N3) / (double)f.N3);
            data[i] = cos(ph) + I * sin(ph);
        }
        fft3d(&f, data, 0);
        for (size_t i = 0; i < f.count_c; i++) {
            long g[3];
            coord_c(&f, i, g);
            double want = (g[0] == k0[0] && g[1] == k0[1] && g[2] == k0[2]) ? N : 0;
            wave_err = fmax(wave_err, cabs(data[i] - want) / N);
        }

        /* 2. random data: Parseval on the first forward transform */
        for (size_t i = 0; i < f.count; i++) {
            long g[3];
            coord_a(&f, i, g);
            orig[i] = data[i] = random_value(g, &f);
            e2[0] += creal(orig[i] * conj(orig[i]));
        }
        fft3d(&f, data, 0);
        for (size_t i = 0; i < f.count_c; i++)
            e2[1] += creal(data[i] * conj(data[i]));
        fft3d(&f, data, 1);
    }

    /* 3. timed round trips */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = llamp_app_now();
    for (long it = 0; it < o.iters; it++) {
        fft3d(&f, data, 0);
        fft3d(&f, data, 1);
    }
    double elapsed = llamp_app_now() - t0, tmax;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double trip_err = 0, csum = 0;
    for (size_t i = 0; !modeled && i < f.count; i++) {
        trip_err = fmax(trip_err, cabs(data[i] - orig[i]));
        csum += creal(data[i]) + 2 * cimag(data[i]);
    }
    double red[3] = {wave_err, trip_err, 0}, sums[3] = {e2[0], e2[1], csum};
    MPI_Allreduce(MPI_IN_PLACE, red, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double parseval = fabs(sums[1] - N * sums[0]) / (N * sums[0]);
    double logn = (double)(f.px.logn + f.py.logn + f.pz.logn);
    if (rank == 0) {
        printf("time: %.6e s (%.6e s per transform, %.3f Gflop/s at 5 N log2 N)\n", tmax,
               tmax / (2.0 * (double)o.iters), 5 * N * logn * 2.0 * (double)o.iters / tmax * 1e-9);
        printf("checksum: %.12e (sum |X|^2 of the random input's transform)\n", sums[1]);
    }
    int ok = 1;
    char detail[300];
    if (modeled) {
        snprintf(detail, sizeof detail, "kernel models replaced the computation: %ld calls skipped",
                 llamp_kernel_skipped());
    } else {
        double tol = 1e-13 * logn * (double)(2 * o.iters + 2);
        int ok_wave = red[0] < 1e-12 * logn, ok_pars = parseval < 1e-12, ok_trip = red[1] < tol;
        ok = ok_wave && ok_pars && ok_trip;
        snprintf(detail, sizeof detail,
                 "plane wave k0=(%ld,%ld,%ld) max error %.2e: %s; Parseval %.2e: %s; round trip "
                 "max error %.2e: %s",
                 k0[0], k0[1], k0[2], red[0], ok_wave ? "ok" : "BAD", parseval,
                 ok_pars ? "ok" : "BAD", red[1], ok_trip ? "ok" : "BAD");
    }
    rc = llamp_app_verdict(MPI_COMM_WORLD, ok, modeled, "%s", detail);
    free(data);
    free(orig);
    free(f.scratch);
    free(f.sbuf);
    free(f.rbuf);
    plan_free(&f.px);
    plan_free(&f.py);
    plan_free(&f.pz);
    free(f.sc);
    free(f.scount);
    free(f.xs);
    free(f.xo);
    free(f.y2s);
    free(f.y2o);
    free(f.ys);
    free(f.yo);
    free(f.zs);
    free(f.zo);
    MPI_Comm_free(&f.row);
    MPI_Comm_free(&f.col);
    llamp_kernel_finalize(MPI_COMM_WORLD);
    llamp_app_end_times();
    MPI_Finalize();
    return rc;
}
