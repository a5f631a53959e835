/* calib_netbench - raw network measurements of a real MPI for the piecewise
 * network model (docs/calib.md, "Network calibration"; llamp-calibrate
 * network runs it and fits the result with calib_netfit).
 *
 *   mpiexec -n 2 -bind-to core build/bin/calib_netbench_mpi -o raw.csv
 *
 * Ranks 0 and 1 measure (ranks beyond wait in MPI_Barrier).  Every sample
 * is one (kind, size, load) triple; sizes are log-uniform over 1 B ..
 * --max-size, the samples of all kinds run in one random order (GSL RNG,
 * the seed printed and settable), so that slow drifts of the machine spread
 * over all sizes instead of biasing a range.  A sample is the median of a
 * few repetitions (more for small sizes).  The kinds (calib/netcal.h):
 *
 *   pingpong  half the round trip of MPI_Send / MPI_Recv (one-way time)
 *   send      the MPI_Send call, the receive pre-posted (o_s)
 *   isend     the MPI_Isend call, the receive pre-posted (o_is)
 *   recv      the MPI_Recv call of a message sent netcal_delay(s) before (o_r)
 *   late      the MPI_Send call, the receive posted netcal_delay(s) later
 *             (returns early when eager: the eager limit S)
 *
 * With --load half the samples (drawn at random) run under a compute load:
 * both ranks run a dgemm-like loop calling MPI_Iprobe before every
 * repetition (seed 004, Sec. 4.1: caches and progress state as in an
 * application).  One line per sample: kind,scope,size,duration,load.
 *
 * Options: -o FILE (default stdout), --seed N, --samples N (per kind,
 * default 1000), --quick (150 per kind, fewer repetitions), --max-size B
 * (64 MiB), --load, --scope intra|inter|auto (auto: the processor names of
 * ranks 0 and 1), --help. */
#define _GNU_SOURCE
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "netcal.h"

#define TAG 17

static int rank, nranks;
static char *sbuf, *rbuf;

typedef struct {
  int kind;
  long size;
  int load;
} sample_t;

static void die0(const char *msg) {
  if (rank == 0) fprintf(stderr, "calib_netbench: %s (see --help)\n", msg);
  MPI_Finalize();
  exit(1);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void spin(double seconds) {
  double t = MPI_Wtime() + seconds;
  while (MPI_Wtime() < t) {
  }
}

/* The compute load: a naive 96 x 96 dgemm (220 KB of operands: evicts the
 * L1 and L2 caches) in slices, with an MPI_Iprobe between slices as an
 * application polling for messages does.  About 0.3-1 ms here. */
#define LN 96
static double la[LN * LN], lb[LN * LN], lc[LN * LN];
static void compute_load(void) {
  int flag;
  for (int i = 0; i < LN; i++) {
    for (int k = 0; k < LN; k++) {
      double a = la[i * LN + k];
      for (int j = 0; j < LN; j++) lc[i * LN + j] += a * lb[k * LN + j];
    }
    if (i % 8 == 7) MPI_Iprobe(MPI_ANY_SOURCE, TAG + 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  }
}

/* One repetition of `kind`; returns the duration measured on rank 0 (rank
 * 1 for recv, sent to rank 0 after the sample). */
static double repetition(int kind, long size, int load) {
  int n = (int)size;
  double t0, t1 = 0, t = 0;
  MPI_Request rq;
  if (load) compute_load();
  switch (kind) {
  case NETCAL_PINGPONG:
    if (rank == 0) {
      t0 = MPI_Wtime();
      MPI_Send(sbuf, n, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
      MPI_Recv(rbuf, n, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      t = (MPI_Wtime() - t0) / 2;
    } else {
      MPI_Recv(rbuf, n, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(sbuf, n, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
    }
    break;
  case NETCAL_SEND:
  case NETCAL_ISEND:
    /* rank 1 pre-posts, says "ready"; the ack isolates repetitions */
    if (rank == 0) {
      MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      t0 = MPI_Wtime();
      if (kind == NETCAL_SEND) {
        MPI_Send(sbuf, n, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
        t1 = MPI_Wtime();
      } else {
        MPI_Isend(sbuf, n, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &rq);
        t1 = MPI_Wtime();
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
      }
      t = t1 - t0;
      MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Irecv(rbuf, n, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &rq);
      MPI_Send(NULL, 0, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
      MPI_Wait(&rq, MPI_STATUS_IGNORE);
      MPI_Send(NULL, 0, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
    }
    break;
  case NETCAL_RECV:
    /* rank 1 asks, waits well beyond the transfer, then receives */
    if (rank == 0) {
      MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(sbuf, n, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
    } else {
      MPI_Send(NULL, 0, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
      spin(netcal_delay((double)size));
      t0 = MPI_Wtime();
      MPI_Recv(rbuf, n, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      t = MPI_Wtime() - t0;
    }
    break;
  case NETCAL_LATE:
    /* rank 1 says "go", then posts its receive only after the delay */
    if (rank == 0) {
      MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      t0 = MPI_Wtime();
      MPI_Send(sbuf, n, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
      t = MPI_Wtime() - t0;
      MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Send(NULL, 0, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
      spin(netcal_delay((double)size));
      MPI_Recv(rbuf, n, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(NULL, 0, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
    }
    break;
  }
  return t;
}

/* Repetitions per sample: more where the noise is relatively larger. */
static int reps_for(long size, int quick) {
  int r = size < 65536 ? 7 : size < (4L << 20) ? 3 : 1;
  return quick && r > 3 ? 3 : r;
}

static double sample(const sample_t *s, int quick) {
  int r = reps_for(s->size, quick);
  double t[8];
  for (int i = 0; i < r; i++) t[i] = repetition(s->kind, s->size, s->load);
  if (s->kind == NETCAL_RECV) {
    /* the times live on rank 1 */
    if (rank == 1) MPI_Send(t, r, MPI_DOUBLE, 0, TAG + 2, MPI_COMM_WORLD);
    if (rank == 0) MPI_Recv(t, r, MPI_DOUBLE, 1, TAG + 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  qsort(t, (size_t)r, sizeof *t, cmp_double);
  return r % 2 ? t[r / 2] : 0.5 * (t[r / 2 - 1] + t[r / 2]);
}

static long parse_long(const char *opt, const char *v) {
  char *end;
  double x = v ? strtod(v, &end) : 0;
  if (!v || end == v) die0("an option needs a number");
  if (*end == 'K') x *= 1024;
  else if (*end == 'M') x *= 1048576;
  else if (*end == 'G') x *= 1073741824.0;
  else if (*end) {
    if (rank == 0) fprintf(stderr, "calib_netbench: %s: '%s' is not a number (suffixes K M G)\n", opt, v);
    MPI_Finalize();
    exit(1);
  }
  return (long)x;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const char *out = NULL, *scope = "auto";
  unsigned long seed = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
  long nsamples = 1000, max_size = 64L << 20;
  int quick = 0, load = 0, have_samples = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      if (rank == 0)
        printf("usage: mpiexec -n 2 calib_netbench_mpi [-o FILE] [--seed N] [--samples N] [--quick]\n"
               "         [--max-size B] [--load] [--scope intra|inter|auto]\n"
               "Raw network measurements (pingpong, send, isend, recv, late) in random order,\n"
               "one CSV line per sample: " NETCAL_CSV_HEADER " (docs/calib.md).\n");
      MPI_Finalize();
      return 0;
    } else if (!strcmp(a, "-o") && v) out = v, i++;
    else if (!strcmp(a, "--seed") && v) seed = (unsigned long)parse_long(a, v), i++;
    else if (!strcmp(a, "--samples") && v) nsamples = parse_long(a, v), have_samples = 1, i++;
    else if (!strcmp(a, "--max-size") && v) max_size = parse_long(a, v), i++;
    else if (!strcmp(a, "--scope") && v) scope = v, i++;
    else if (!strcmp(a, "--quick")) quick = 1;
    else if (!strcmp(a, "--load")) load = 1;
    else {
      if (rank == 0) fprintf(stderr, "calib_netbench: unknown option or missing value: %s (see --help)\n", a);
      MPI_Finalize();
      return 1;
    }
  }
  if (quick && !have_samples) nsamples = 150;
  if (nranks < 2) die0("needs at least 2 ranks");
  if (nsamples < 10) die0("--samples must be at least 10");
  if (max_size < 1024 || max_size > (1L << 30)) die0("--max-size must be 1 KiB .. 1 GiB");
  if (strcmp(scope, "auto") && strcmp(scope, "intra") && strcmp(scope, "inter"))
    die0("--scope must be intra, inter or auto");

  /* scope: do ranks 0 and 1 share a node? */
  char names[2][MPI_MAX_PROCESSOR_NAME] = {{0}};
  int len;
  MPI_Get_processor_name(names[rank == 1], &len);
  if (rank == 1) MPI_Send(names[1], MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, TAG, MPI_COMM_WORLD);
  if (rank == 0) MPI_Recv(names[1], MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (!strcmp(scope, "auto")) scope = strcmp(names[0], names[1]) ? "inter" : "intra";

  MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  if (rank >= 2) {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
  }
  FILE *f = stdout;
  if (rank == 0 && out && !(f = fopen(out, "w"))) {
    fprintf(stderr, "calib_netbench: cannot write %s\n", out);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  sbuf = malloc((size_t)max_size);
  rbuf = malloc((size_t)max_size);
  if (!sbuf || !rbuf) MPI_Abort(MPI_COMM_WORLD, 1);
  memset(sbuf, 1, (size_t)max_size);
  memset(rbuf, 0, (size_t)max_size);
  for (int i = 0; i < LN * LN; i++) la[i] = 1.0 + i % 7, lb[i] = 0.5 - i % 5;

  /* the plan: both ranks draw it from rank 0's seed (broadcast above) */
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed);
  long nlate = nsamples / 4 > 10 ? nsamples / 4 : 10, total = 4 * nsamples + nlate;
  sample_t *plan = malloc((size_t)total * sizeof *plan);
  long m = 0;
  double lmax = log2((double)max_size + 1);
  for (int k = 0; k < NETCAL_NKINDS; k++) {
    long nk = k == NETCAL_LATE ? nlate : nsamples;
    double kmax = k == NETCAL_LATE ? fmin(lmax, log2((double)NETCAL_LATE_MAX + 1)) : lmax;
    for (long i = 0; i < nk; i++) {
      plan[m].kind = k;
      plan[m].size = (long)floor(pow(2.0, gsl_rng_uniform(rng) * kmax));
      if (plan[m].size > max_size) plan[m].size = max_size;
      plan[m].load = load ? (int)gsl_rng_uniform_int(rng, 2) : 0;
      m++;
    }
  }
  gsl_ran_shuffle(rng, plan, (size_t)total, sizeof *plan);

  if (rank == 0) {
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int vl;
    MPI_Get_library_version(ver, &vl);
    char *nl = strchr(ver, '\n');
    if (nl) *nl = 0;
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&now));
    fprintf(stderr, "calib_netbench: seed %lu, %ld samples (%s, %s <-> %s)\n", seed, total, scope, names[0],
            names[1]);
    fprintf(f, "# calib_netbench: seed %lu, %ld samples per kind (late: %ld), max size %ld B, %s%s\n", seed,
            nsamples, nlate, max_size, quick ? "quick, " : "", load ? "half under compute load" : "no load");
    fprintf(f, "# host %s <-> %s (%s), %s, %s\n", names[0], names[1], scope, date, ver);
    fprintf(f, "%s\n", NETCAL_CSV_HEADER);
  }

  /* warm-up: connections, page faults, the first rendezvous */
  for (long s = 1; s <= max_size; s *= 16) {
    sample_t w = {NETCAL_PINGPONG, s, 0};
    sample(&w, 1);
  }
  /* ranks beyond 1 are in the final barrier already: sync the pair only */
  MPI_Sendrecv(NULL, 0, MPI_BYTE, 1 - rank, TAG, NULL, 0, MPI_BYTE, 1 - rank, TAG, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  double start = MPI_Wtime(), last = start;
  for (long i = 0; i < total; i++) {
    double t = sample(&plan[i], quick);
    if (rank == 0) {
      fprintf(f, "%s,%s,%ld,%.9g,%d\n", netcal_kind_names[plan[i].kind], scope, plan[i].size, t, plan[i].load);
      double now = MPI_Wtime();
      if (isatty(2) && now - last > 1.0) {
        fprintf(stderr, "\rcalib_netbench: %ld / %ld samples", i + 1, total);
        last = now;
      }
    }
  }
  if (rank == 0) {
    if (isatty(2)) fprintf(stderr, "\n");
    fprintf(stderr, "calib_netbench: %ld samples in %.1f s\n", total, MPI_Wtime() - start);
    if (f != stdout) fclose(f);
  }
  gsl_rng_free(rng);
  free(plan);
  free(sbuf);
  free(rbuf);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
