/* calib_loggp - LogGP(S) parameters of a real MPI installation, Netgauge
 * style, written as a model file (the syntax of models/default.cfg;
 * docs/calib.md).
 *
 *   mpiexec -n 2 -bind-to core build/bin/calib_loggp_mpi -o models/native.cfg
 *
 * Ranks 0 and 1 measure; any other rank only waits.  Every measurement is
 * repeated and summarised by its median (the minimum is printed next to it):
 *
 *   o_s   the time of an MPI_Send call of 8 bytes, each send isolated (the
 *         receiver acknowledges before the next one)
 *   o_r   the time of an MPI_Recv call of 8 bytes that has arrived already
 *         (the receiver waits well beyond a round trip before calling it)
 *   o     (o_s + o_r) / 2: the model charges one o per send and per receive
 *   L     one-way time of 8 bytes (half a ping-pong round trip) - 2 o - 7 G:
 *         the model's eager message costs o + L + (s-1) G + o
 *   g     time per message of 64 back-to-back 8-byte sends; written only
 *         when it exceeds o (below o, g never binds: written as 0)
 *   G     slope of the one-way time over large messages (least squares,
 *         2 x S .. --max-size)
 *   rendezvous  "rdma-read" (UCX, MPICH's default netmod, answers a request
 *         to send with a get by the receiver), written for completeness
 *   S     the largest size whose MPI_Send completes without the receiver:
 *         rank 1 calls MPI_Recv only after a delay D well above the message's
 *         one-way time; an eager send returns long before D, a rendezvous
 *         send waits for the receive (that is what S means in the model).
 *         Found by bisection over 1 KiB .. max-size (4 sizes per octave,
 *         median of 3 probes).  When every size is eager, or every size
 *         waits, the jump of the one-way time is used if it stands out of
 *         the noise, else MPICH's documented eager limit (--default-S).
 *         The biggest jump of the one-way time is reported either way (it
 *         also comes from caches and copy paths, hence not the first choice).
 *
 * Options: --reps N (round trips per size, default 200), --quick (fewer
 * sizes and repetitions, for tests), --max-size B (4 MiB), --S B (force S),
 * --default-S B (65536), -o FILE (default stdout), --help. */
#define _GNU_SOURCE
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TAG 11
#define MAXSIZES 128

static int rank, nranks;
static int reps = 200;
static char *buf, *rbuf;

static void die0(const char *msg) {
  if (rank == 0) fprintf(stderr, "calib_loggp: %s (see --help)\n", msg);
  MPI_Finalize();
  exit(1);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Busy-wait (MPI progress is not needed: the sender's eager data lands in
 * shared memory or the NIC without the receiver). */
static void spin(double seconds) {
  double t = MPI_Wtime() + seconds;
  while (MPI_Wtime() < t) {
  }
}

/* One-way time of `size` bytes between ranks 0 and 1: n round trips, each
 * timed on rank 0; *med and *min of the half round trips (rank 0 only). */
static void pingpong(long size, int n, double *med, double *min) {
  double *t = malloc((size_t)n * sizeof *t);
  int warm = n / 10 + 2;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = -warm; i < n; i++) {
    if (rank == 0) {
      double t0 = MPI_Wtime();
      MPI_Send(buf, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
      MPI_Recv(rbuf, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (i >= 0) t[i] = (MPI_Wtime() - t0) / 2;
    } else if (rank == 1) {
      MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) {
    *med = median(t, n);
    *min = t[0];
  }
  free(t);
}

/* o_s: isolated 8-byte sends, each acknowledged by a 0-byte reply. */
static void send_overhead(int n, double *med, double *min) {
  double *t = malloc((size_t)n * sizeof *t);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = -5; i < n; i++) {
    if (rank == 0) {
      double t0 = MPI_Wtime();
      MPI_Send(buf, 8, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
      double t1 = MPI_Wtime();
      MPI_Recv(rbuf, 0, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (i >= 0) t[i] = t1 - t0;
    } else if (rank == 1) {
      MPI_Recv(rbuf, 8, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, 0, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) {
    *med = median(t, n);
    *min = t[0];
  }
  free(t);
}

/* o_r: rank 1 asks for a message, waits `delay` (well over a round trip),
 * then times the MPI_Recv of the message that is there by then. */
static void recv_overhead(int n, double delay, double *med, double *min) {
  double *t = malloc((size_t)n * sizeof *t);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = -5; i < n; i++) {
    if (rank == 1) {
      MPI_Send(buf, 0, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
      spin(delay);
      double t0 = MPI_Wtime();
      MPI_Recv(rbuf, 8, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (i >= 0) t[i] = MPI_Wtime() - t0;
    } else if (rank == 0) {
      MPI_Recv(rbuf, 0, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, 8, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
    }
  }
  /* the result lives on rank 1 */
  double r[2] = {0, 0};
  if (rank == 1) {
    r[0] = median(t, n);
    r[1] = t[0];
    MPI_Send(r, 2, MPI_DOUBLE, 0, TAG, MPI_COMM_WORLD);
  } else if (rank == 0) {
    MPI_Recv(r, 2, MPI_DOUBLE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  *med = r[0];
  *min = r[1];
  free(t);
}

/* g: `burst` back-to-back 8-byte sends into pre-posted receives; the time
 * per message, median over n bursts. */
static void gap(int n, int burst, double *med, double *min) {
  double *t = malloc((size_t)n * sizeof *t);
  MPI_Request *rq = malloc((size_t)burst * sizeof *rq);
  MPI_Status *st = malloc((size_t)burst * sizeof *st);
  for (int i = -3; i < n; i++) {
    if (rank == 1)
      for (int k = 0; k < burst; k++)
        MPI_Irecv(rbuf + 8 * k, 8, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &rq[k]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      double t0 = MPI_Wtime();
      for (int k = 0; k < burst; k++) MPI_Send(buf, 8, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
      if (i >= 0) t[i] = (MPI_Wtime() - t0) / burst;
    } else if (rank == 1) {
      MPI_Waitall(burst, rq, st);
    }
  }
  if (rank == 0) {
    *med = median(t, n);
    *min = t[0];
  }
  free(rq);
  free(st);
  free(t);
}

/* Does an MPI_Send of `size` bytes return before a receive posted `delay`
 * seconds later?  Median of 3 probes of the send's duration (rank 0), then
 * broadcast: 1 = eager (the send took under delay / 2). */
static int send_is_eager(long size, double delay) {
  double t[3];
  for (int i = 0; i < 3; i++) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      double t0 = MPI_Wtime();
      MPI_Send(buf, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
      t[i] = MPI_Wtime() - t0;
      MPI_Recv(rbuf, 0, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      spin(delay);
      MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, 0, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
    }
  }
  int eager = rank == 0 ? median(t, 3) < delay / 2 : 0;
  MPI_Bcast(&eager, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return eager;
}

/* Least-squares slope and intercept of y over x (n >= 2). */
static void fit(const double *x, const double *y, int n, double *slope, double *icept, double *r2) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  for (int i = 0; i < n; i++) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
    syy += y[i] * y[i];
  }
  double d = n * sxx - sx * sx;
  *slope = d > 0 ? (n * sxy - sx * sy) / d : 0;
  *icept = (sy - *slope * sx) / n;
  double vy = n * syy - sy * sy;
  *r2 = vy > 0 && d > 0 ? (n * sxy - sx * sy) * (n * sxy - sx * sy) / (d * vy) : 1;
}

static void fmt_time(double s, char *b, size_t n) {
  double a = fabs(s);
  if (a >= 1e-3) snprintf(b, n, "%.4gms", s * 1e3);
  else if (a >= 1e-6 || a == 0) snprintf(b, n, "%.4gus", s * 1e6);
  else snprintf(b, n, "%.4gns", s * 1e9);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const char *out_path = NULL;
  long max_size = 4L << 20, force_S = -1, default_S = 65536;
  int quick = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      if (rank == 0)
        printf("usage: mpiexec -n 2 calib_loggp_mpi [-o FILE] [--reps N] [--quick] [--max-size B]\n"
               "                [--S B] [--default-S B]\n"
               "Measure o_s, o_r, L, g, G and S between ranks 0 and 1 (Netgauge style) and\n"
               "write a model file with the keys of models/default.cfg (docs/calib.md).\n"
               "  -o FILE        write the model file there (default: stdout)\n"
               "  --reps N       round trips per message size (default 200)\n"
               "  --quick        few sizes and repetitions (a smoke test, not a calibration)\n"
               "  --max-size B   largest message of the bandwidth fit (default 4194304)\n"
               "  --S B          do not detect the rendezvous threshold, use B\n"
               "  --default-S B  threshold when no jump is detected (default 65536: MPICH\n"
               "                 ch4's shared-memory cell, MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE\n"
               "                 = 69632 B less its header, and UCX's eager limit order)\n");
      MPI_Finalize();
      return 0;
    } else if (!strcmp(a, "-o") && v) {
      out_path = v;
      i++;
    } else if (!strcmp(a, "--reps") && v) {
      reps = atoi(v);
      if (reps < 5 || reps > 1000000) die0("--reps: expected 5 .. 1000000");
      i++;
    } else if (!strcmp(a, "--max-size") && v) {
      max_size = atol(v);
      if (max_size < 65536 || max_size > (1L << 30)) die0("--max-size: expected 64 KiB .. 1 GiB");
      i++;
    } else if (!strcmp(a, "--S") && v) {
      force_S = atol(v);
      if (force_S < 0) die0("--S: expected bytes >= 0");
      i++;
    } else if (!strcmp(a, "--default-S") && v) {
      default_S = atol(v);
      if (default_S < 0) die0("--default-S: expected bytes >= 0");
      i++;
    } else if (!strcmp(a, "--quick")) {
      quick = 1;
    } else {
      char m[256];
      snprintf(m, sizeof m, "unknown option or missing value: '%s'", a);
      die0(m);
    }
  }
  if (nranks < 2) die0("needs at least 2 ranks (ranks 0 and 1 measure)");
  if (quick) {
    reps = reps > 40 ? 40 : reps;
    max_size = max_size > (1L << 20) ? (1L << 20) : max_size;
  }
  size_t bytes = (size_t)(max_size > (1L << 20) ? max_size : (1L << 20));
  buf = malloc(bytes);
  rbuf = malloc(bytes);
  if (!buf || !rbuf) die0("out of memory for the message buffers");
  memset(buf, 1, bytes);
  memset(rbuf, 0, bytes);

  /* ---- small messages: o_s, o_r, one-way, g ---- */
  double ow8 = 0, ow8_min = 0, os = 0, os_min = 0, orr = 0, orr_min = 0, g = 0, g_min = 0;
  pingpong(8, reps * 5, &ow8, &ow8_min);
  MPI_Bcast(&ow8, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  send_overhead(reps * 2, &os, &os_min);
  recv_overhead(reps * 2, 10 * ow8 + 5e-6, &orr, &orr_min);
  gap(quick ? 10 : 50, 64, &g, &g_min);

  /* ---- the eager/rendezvous threshold ---- */
  /* one-way times, 4 sizes per octave over 1 KiB .. 1 MiB (1 per octave with --quick) */
  long sz[MAXSIZES];
  double ow[MAXSIZES], owmin[MAXSIZES];
  int ns = 0;
  for (long base = 1024; base <= (1L << 20) && ns < MAXSIZES - 4; base *= 2)
    for (int q = 0; q < (quick ? 1 : 4) && base * pow(2, q / 4.0) <= (1L << 20); q++)
      sz[ns++] = (long)llround(base * pow(2, q / 4.0) / 64) * 64;
  for (int i = 0; i < ns; i++) pingpong(sz[i], sz[i] > (256L << 10) ? reps / 4 + 5 : reps, &ow[i], &owmin[i]);
  MPI_Bcast(ow, ns, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  /* the biggest jump: steps of the one-way time minus what the typical slope explains */
  double jump = 0, noise = 0;
  long ja = 0, jb = 0;
  if (rank == 0 && ns > 2) {
    double slope[MAXSIZES], ex[MAXSIZES], tmp[MAXSIZES];
    for (int i = 0; i + 1 < ns; i++) slope[i] = (ow[i + 1] - ow[i]) / (double)(sz[i + 1] - sz[i]);
    for (int i = 0; i + 1 < ns; i++) tmp[i] = slope[i];
    double gtyp = median(tmp, ns - 1);
    int best = 0;
    for (int i = 0; i + 1 < ns; i++) {
      ex[i] = (ow[i + 1] - ow[i]) - gtyp * (double)(sz[i + 1] - sz[i]);
      if (ex[i] > ex[best]) best = i;
    }
    for (int i = 0; i + 1 < ns; i++) tmp[i] = fabs(ex[i]);
    noise = median(tmp, ns - 1);
    jump = ex[best];
    ja = sz[best];
    jb = sz[best + 1];
  }
  int jump_ok = jump > 5 * noise && jump > 0.5e-6;
  MPI_Bcast(&jump_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  long S = default_S;
  const char *S_how = "MPICH's documented eager limit (--default-S)";
  char S_note[256] = "";
  if (force_S >= 0) {
    S = force_S;
    S_how = "given with --S";
  } else {
    /* bisection for the last eager size, assuming eager below S only */
    int lo = 0, hi = ns - 1;
#define DELAY(i) (100e-6 + 4 * ow[i])
    int e_lo = send_is_eager(sz[lo], DELAY(lo)), e_hi = send_is_eager(sz[hi], DELAY(hi));
    if (e_lo && !e_hi) {
      while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (send_is_eager(sz[mid], DELAY(mid))) lo = mid;
        else hi = mid;
      }
      S = sz[lo];
      S_how = "the largest size whose MPI_Send returned before the receive was posted";
      snprintf(S_note, sizeof S_note, "; %ld B waited for the receiver", sz[hi]);
    } else {
      snprintf(S_note, sizeof S_note, "; MPI_Send of %ld .. %ld B %s", sz[0], sz[ns - 1],
               e_lo ? "never waited for the receiver" : "always waited for the receiver");
      if (jump_ok) {
        S = ja;
        S_how = "the largest size before the biggest jump of the one-way time";
      }
    }
#undef DELAY
  }
  MPI_Bcast(&S, 1, MPI_LONG, 0, MPI_COMM_WORLD);

  /* ---- G: slope over large messages (rendezvous, above 2 S) ---- */
  long lsz[16];
  double low[16], lowmin[16], lx[16];
  int nl = 0;
  long lo = 2 * S > (256L << 10) ? 2 * S : (256L << 10);
  if (lo > max_size / 4) lo = max_size / 4;
  for (long s = lo; s <= max_size && nl < 16; s *= 2) lsz[nl++] = s;
  for (int i = 0; i < nl; i++) pingpong(lsz[i], reps / 8 + 5, &low[i], &lowmin[i]);
  double G = 0, icept = 0, r2 = 0;
  for (int i = 0; i < nl; i++) lx[i] = (double)lsz[i] - 1;
  if (rank == 0) fit(lx, low, nl, &G, &icept, &r2);

  if (rank == 0) {
    double o = 0.5 * (os + orr);
    double L = ow8 - 2 * o - 7 * G;
    int L_clamped = 0;
    if (L < 1e-9) {
      L = 1e-9;
      L_clamped = 1;
    }
    double g_model = g > o ? g : 0;
    FILE *f = stdout;
    if (out_path && !(f = fopen(out_path, "w"))) {
      fprintf(stderr, "calib_loggp: %s: cannot write\n", out_path);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char host[256] = "?", lib[MPI_MAX_LIBRARY_VERSION_STRING] = "?", date[64] = "?";
    int len = 0;
    gethostname(host, sizeof host - 1);
    MPI_Get_library_version(lib, &len);
    for (char *p = lib; *p; p++)
      if (*p == '\n') *p = ' ';
    lib[60 < len ? 60 : len] = 0;
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&now));
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
    fprintf(f, "# LogGP(S) parameters measured by calib_loggp (calib/loggp.c, docs/calib.md)\n");
    fprintf(f, "# host %s, %s, %d ranks (0 and 1 measure), %s%s\n", host, date, nranks, lib,
            quick ? ", --quick (a smoke test, not a calibration)" : "");
    fprintf(f, "# statistic: median of %d repetitions (minimum in brackets)\n", reps);
    fmt_time(ow8, b1, sizeof b1);
    fmt_time(ow8_min, b2, sizeof b2);
    fprintf(f, "#   one-way 8 B (half round trip)  %s [%s]\n", b1, b2);
    fmt_time(os, b1, sizeof b1);
    fmt_time(os_min, b2, sizeof b2);
    fmt_time(orr, b3, sizeof b3);
    fmt_time(orr_min, b4, sizeof b4);
    fprintf(f, "#   o_s (MPI_Send call, 8 B)       %s [%s]\n#   o_r (MPI_Recv call, arrived)   %s [%s]\n",
            b1, b2, b3, b4);
    fmt_time(o, b1, sizeof b1);
    fmt_time(L, b2, sizeof b2);
    fprintf(f, "#   o = (o_s + o_r) / 2 = %s;  L = one-way - 2 o - 7 G = %s%s\n", b1, b2,
            L_clamped ? " (clamped: the overheads exceed the one-way time)" : "");
    fmt_time(g, b1, sizeof b1);
    fmt_time(g_min, b2, sizeof b2);
    fprintf(f, "#   g (64 back-to-back 8 B sends)  %s [%s] per message: %s\n", b1, b2,
            g_model > 0 ? "above o, written" : "not above o, written as 0 (never binds)");
    fprintf(f, "#   G: slope of the one-way time over %ld .. %ld B = %.4g ns/B (%.3g GB/s, R^2 %.4f)\n",
            nl ? lsz[0] : 0, nl ? lsz[nl - 1] : 0, G * 1e9, G > 0 ? 1e-9 / G : 0, r2);
    fmt_time(jump, b1, sizeof b1);
    fmt_time(noise, b2, sizeof b2);
    fprintf(f, "#   S = %ld: %s%s\n", S, S_how, S_note);
    fprintf(f, "#   biggest jump of the one-way time: %s between %ld and %ld B (typical step noise %s)\n",
            b1, ja, jb, b2);
    fprintf(f, "#   one-way times (size B: median [min]):\n");
    for (int i = 0; i < ns; i++) {
      fmt_time(ow[i], b5, sizeof b5);
      fmt_time(owmin[i], b6, sizeof b6);
      fprintf(f, "#     %8ld: %s [%s]\n", sz[i], b5, b6);
    }
    for (int i = 0; i < nl; i++) {
      fmt_time(low[i], b5, sizeof b5);
      fmt_time(lowmin[i], b6, sizeof b6);
      fprintf(f, "#     %8ld: %s [%s]\n", lsz[i], b5, b6);
    }
    fprintf(f, "loggps = {\n");
    fprintf(f, "  L = \"%.6gus\";\n", L * 1e6);
    fprintf(f, "  o = \"%.6gus\";\n", o * 1e6);
    if (g_model > 0) fprintf(f, "  g = \"%.6gus\";\n", g_model * 1e6);
    else fprintf(f, "  g = 0.0;\n");
    fprintf(f, "  G = \"%.6gns\";\n", (G > 0 ? G : 1e-15) * 1e9);
    fprintf(f, "  S = %ld;\n", S);
    fprintf(f, "  bandwidth_term = \"s-1\";\n");
    /* above S the sender waits for the receiver; MPICH over UCX (the
     * default netmod) then sends a request and the receiver fetches the
     * data (a get): the paper's RDMA-read protocol */
    fprintf(f, "  rendezvous = \"rdma-read\";   # MPICH/UCX: request to send, then the receiver reads\n};\n");
    if (f != stdout && fclose(f) != 0) {
      fprintf(stderr, "calib_loggp: %s: write failed\n", out_path);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (out_path) fprintf(stderr, "calib_loggp: wrote %s\n", out_path);
  }
  free(buf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
