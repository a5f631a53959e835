/* inject_check - the injector's semantics on hand-built cases, and its
 * accuracy bench.  Run under llamp-inject (tests/inject.cmake):
 *
 *   inject_check CASE DL_US
 *
 * Every message carries its sender's CLOCK_MONOTONIC send time, so the
 * receiver knows each message's one-way time; the assertions are lower
 * bounds the injector guarantees (a message is never visible before
 * t_send + dL), orders it must produce, and the data; the few upper
 * bounds (the sender is not delayed, back-to-back messages get dL once)
 * are given half a dL of slack with dL in the hundreds of ms, so that only
 * a broken injector fails them.  Exit 0 = pass; a failure prints
 * "FAIL: ..." and exits 1.
 *
 * CASE bench prints the accuracy figures instead (no assertion): median
 * one-way times of ping-pong, of the second of two back-to-back messages,
 * and of the first message a Waitany returns, minus the requested dL. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;
static double dl;
static int fails;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define CHECK(cond, ...)                                                                            \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL rank %d line %d: ", rank, __LINE__);                                           \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
      fflush(stdout);                                                                              \
      fails++;                                                                                     \
    }                                                                                              \
  } while (0)

/* one-way time of a message whose first double is its send time */
static double age(const double *msg) { return now() - msg[0]; }

/* ---- ping-pong with blocking calls, every byte checked --------------------- */
static void case_pingpong(void)
{
  double m[4];
  for (int it = 0; it < 3; it++) {
    if (rank == 0) {
      m[0] = now();
      m[1] = it;
      MPI_Send(m, 4, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
      MPI_Status st;
      MPI_Recv(m, 4, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD, &st);
      double a = age(m);
      int n;
      MPI_Get_count(&st, MPI_DOUBLE, &n);
      CHECK(a >= dl, "pong one-way %.6f s < dL %.6f s", a, dl);
      CHECK(n == 4 && st.MPI_SOURCE == 1 && st.MPI_TAG == 8 && m[1] == it + 100,
            "pong: count %d source %d tag %d value %g", n, st.MPI_SOURCE, st.MPI_TAG, m[1]);
    } else if (rank == 1) {
      MPI_Recv(m, 4, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double a = age(m);
      CHECK(a >= dl, "ping one-way %.6f s < dL %.6f s", a, dl);
      CHECK(m[1] == it, "ping value %g", m[1]);
      m[0] = now();
      m[1] = it + 100;
      MPI_Send(m, 4, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD);
    }
  }
}

/* ---- two messages back to back: each gets dL once, the sender waits for
 * neither ---------------------------------------------------------------- */
static void case_b2b(void)
{
  double m[2][2];
  MPI_Request rq[2];
  if (rank == 1) {
    MPI_Irecv(m[0], 2, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(m[1], 2, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &rq[1]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    double t0 = now();
    for (int k = 0; k < 2; k++) {
      m[k][0] = now();
      m[k][1] = k;
      MPI_Send(m[k], 2, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
    }
    double took = now() - t0;
    CHECK(took < dl / 2, "two eager sends took %.6f s (dL %.6f s): the sender was delayed", took, dl);
  } else if (rank == 1) {
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    double a0 = age(m[0]);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    double a1 = age(m[1]);
    CHECK(m[0][1] == 0 && m[1][1] == 1, "order %g %g", m[0][1], m[1][1]);
    CHECK(a0 >= dl && a1 >= dl, "one-way %.6f %.6f s < dL %.6f s", a0, a1, dl);
    CHECK(a1 < 1.5 * dl, "second message %.6f s after its send (dL %.6f s): dL counted twice?", a1, dl);
  }
}

/* ---- Waitany: the message visible first wins (matrix: 1->0 slow, 2->0 0) */
static void case_waitany(void)
{
  double m[3][2];
  if (rank == 0) {
    MPI_Request rq[2];
    MPI_Irecv(m[1], 2, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD, &rq[0]);
    MPI_Irecv(m[2], 2, MPI_DOUBLE, 2, 3, MPI_COMM_WORLD, &rq[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    int idx = -1;
    MPI_Status st;
    MPI_Waitany(2, rq, &idx, &st);
    CHECK(idx == 1 && st.MPI_SOURCE == 2, "Waitany returned index %d source %d (expected rank 2's, "
                                          "the one without delay)", idx, st.MPI_SOURCE);
    MPI_Waitany(2, rq, &idx, &st);
    double a = age(m[1]);
    CHECK(idx == 0 && st.MPI_SOURCE == 1 && a >= dl, "second Waitany: index %d source %d one-way %.6f", idx,
          st.MPI_SOURCE, a);
    MPI_Waitany(2, rq, &idx, &st);
    CHECK(idx == MPI_UNDEFINED, "third Waitany: index %d (expected MPI_UNDEFINED)", idx);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) { /* sent first, visible last */
      m[0][0] = now();
      MPI_Send(m[0], 2, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
    } else if (rank == 2) {
      struct timespec ts = {0, 20000000};
      nanosleep(&ts, NULL);
      m[0][0] = now();
      MPI_Send(m[0], 2, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
    }
  }
}

/* ---- Iprobe / Probe / Test / Testsome / Testall see nothing before dL ------ */
static void case_probe(void)
{
  double m[8];
  if (rank == 1) {
    for (int k = 0; k < 4; k++) {
      m[0] = now();
      m[1] = k;
      MPI_Send(m, 3 + k, MPI_DOUBLE, 0, 10 + k, MPI_COMM_WORLD);
    }
  } else if (rank == 0) {
    MPI_Status st;
    int flag = 0, n;
    /* Iprobe until flag */
    while (!flag) MPI_Iprobe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &n);
    CHECK(st.MPI_TAG == 10 && n == 3, "Iprobe: tag %d count %d (expected 10, 3)", st.MPI_TAG, n);
    MPI_Recv(m, 8, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
    CHECK(age(m) >= dl && m[1] == 0, "Iprobe'd message: one-way %.6f value %g", age(m), m[1]);
    /* Probe with wildcards */
    MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &n);
    CHECK(st.MPI_TAG == 11 && n == 4 && st.MPI_SOURCE == 1, "Probe: tag %d count %d", st.MPI_TAG, n);
    MPI_Recv(m, n, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    CHECK(age(m) >= dl && m[1] == 1 && st.MPI_TAG == 11, "Probe'd message: one-way %.6f value %g tag %d",
          age(m), m[1], st.MPI_TAG);
    /* Test loop: flag only once visible */
    MPI_Request rq;
    MPI_Irecv(m, 8, MPI_DOUBLE, 1, 12, MPI_COMM_WORLD, &rq);
    flag = 0;
    while (!flag) MPI_Test(&rq, &flag, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &n);
    CHECK(age(m) >= dl && m[1] == 2 && n == 5 && rq == MPI_REQUEST_NULL, "Test: one-way %.6f value %g count %d",
          age(m), m[1], n);
    /* Testsome */
    MPI_Irecv(m, 8, MPI_DOUBLE, 1, 13, MPI_COMM_WORLD, &rq);
    int out = 0, idx[1];
    while (out == 0) MPI_Testsome(1, &rq, &out, idx, &st);
    CHECK(out == 1 && idx[0] == 0 && age(m) >= dl && m[1] == 3, "Testsome: out %d one-way %.6f", out, age(m));
    MPI_Testsome(1, &rq, &out, idx, &st);
    CHECK(out == MPI_UNDEFINED, "Testsome on null requests: outcount %d", out);
  }
}

/* ---- persistent requests, Startall, Waitall, Testall ----------------------- */
static void case_persistent(void)
{
  double s[3], r[3];
  MPI_Request rq[2];
  int peer = 1 - rank;
  if (rank > 1) return;
  MPI_Recv_init(r, 3, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &rq[0]);
  MPI_Send_init(s, 3, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &rq[1]);
  for (int it = 0; it < 4; it++) {
    s[0] = now();
    s[1] = rank * 10 + it;
    MPI_Startall(2, rq);
    if (it % 2) {
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    } else {
      int flag = 0;
      while (!flag) MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE);
    }
    CHECK(age(r) >= dl && r[1] == peer * 10 + it, "persistent it %d: one-way %.6f value %g", it, age(r), r[1]);
    CHECK(rq[0] != MPI_REQUEST_NULL, "persistent request freed by Wait");
  }
  MPI_Request_free(&rq[0]);
  MPI_Request_free(&rq[1]);
}

/* ---- Ssend, Bsend, Rsend, Issend, Sendrecv, Sendrecv_replace, vectors ---- */
static void case_modes(void)
{
  double m[4], v[12];
  if (rank > 1) return;
  int peer = 1 - rank;
  char *bb = malloc(1 << 16);
  MPI_Buffer_attach(bb, 1 << 16);
  MPI_Request rq;
  for (int mode = 0; mode < 4; mode++) {
    if (rank == 1) {
      MPI_Irecv(m, 4, MPI_DOUBLE, 0, 20 + mode, MPI_COMM_WORLD, &rq);
      MPI_Barrier(MPI_COMM_WORLD); /* posted before the Rsend */
      MPI_Wait(&rq, MPI_STATUS_IGNORE);
      CHECK(age(m) >= dl && m[1] == mode, "mode %d: one-way %.6f value %g", mode, age(m), m[1]);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
      m[0] = now();
      m[1] = mode;
      if (mode == 0) MPI_Ssend(m, 4, MPI_DOUBLE, 1, 20, MPI_COMM_WORLD);
      if (mode == 1) {
        MPI_Bsend(m, 4, MPI_DOUBLE, 1, 21, MPI_COMM_WORLD);
        m[1] = -1; /* the buffered copy must not see this */
      }
      if (mode == 2) MPI_Rsend(m, 4, MPI_DOUBLE, 1, 22, MPI_COMM_WORLD);
      if (mode == 3) {
        MPI_Issend(m, 4, MPI_DOUBLE, 1, 23, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
      }
    }
  }
  void *b;
  int bs;
  MPI_Buffer_detach(&b, &bs);
  free(bb);
  /* Sendrecv of a strided vector (every other double), then in place */
  MPI_Datatype vec;
  MPI_Type_vector(6, 1, 2, MPI_DOUBLE, &vec);
  MPI_Type_commit(&vec);
  for (int i = 0; i < 12; i++) v[i] = rank * 100 + i;
  v[0] = now();
  double got[6];
  MPI_Status st;
  MPI_Sendrecv(v, 1, vec, peer, 30, got, 6, MPI_DOUBLE, peer, 30, MPI_COMM_WORLD, &st);
  int n;
  MPI_Get_count(&st, MPI_DOUBLE, &n);
  CHECK(n == 6 && now() - got[0] >= dl && got[1] == peer * 100 + 2 && got[5] == peer * 100 + 10,
        "Sendrecv vector: count %d values %g %g", n, got[1], got[5]);
  v[0] = now();
  MPI_Sendrecv_replace(v, 1, vec, peer, 31, peer, 31, MPI_COMM_WORLD, &st);
  CHECK(now() - v[0] >= dl && v[2] == peer * 100 + 2 && v[3] == rank * 100 + 3 && v[10] == peer * 100 + 10,
        "Sendrecv_replace vector: %g %g %g", v[2], v[3], v[10]);
  MPI_Type_free(&vec);
}

/* ---- large messages (no copy) and the rendezvous rule -------------------- */
static void case_large(void)
{
  const int n = 1 << 17; /* 1 MiB of doubles */
  double *b = malloc(sizeof(double) * (size_t)n);
  if (rank > 1) return;
  const char *rdv = getenv("LLAMP_INJECT_S");
  int rendezvous = rdv && strcmp(rdv, "none") != 0;
  const char *proto = getenv("LLAMP_INJECT_RENDEZVOUS");
  int direct = proto && !strcmp(proto, "direct");
  if (rank == 0) {
    for (int i = 1; i < n; i++) b[i] = i * 0.5;
    MPI_Barrier(MPI_COMM_WORLD); /* the receive is posted */
    double t0 = now();
    b[0] = t0;
    MPI_Request rq;
    MPI_Isend(b, n, MPI_DOUBLE, 1, 40, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    double took = now() - t0;
    /* rendezvous: the send completes when the data was read, m + dL */
    if (rendezvous)
      CHECK(took >= (direct ? 1 : 2) * dl, "rendezvous send completed after %.6f s (< %g dL)", took,
            direct ? 1.0 : 2.0);
    else
      CHECK(took < dl / 2, "eager 1 MiB send took %.6f s: the sender was delayed", took);
  } else {
    MPI_Request rq;
    MPI_Irecv(b, n, MPI_DOUBLE, 0, 40, MPI_COMM_WORLD, &rq);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Status st;
    MPI_Wait(&rq, &st);
    double a = age(b);
    int cnt, ok = 1;
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    for (int i = 1; i < n; i++) ok &= b[i] == i * 0.5;
    CHECK(ok && cnt == n, "1 MiB payload corrupted or count %d", cnt);
    double k = rendezvous ? (direct ? 1 : 3) : 1;
    CHECK(a >= k * dl, "1 MiB one-way %.6f s < %g dL", a, k);
    if (!rendezvous) CHECK(a < 1.5 * dl + 0.5, "eager 1 MiB one-way %.6f s", a);
  }
  free(b);
}

/* ---- collectives: results right, latency on the DAG's algorithm ----------- */
static void case_coll(void)
{
  double t0, x[4], y[4];
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = now();
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(now() - t0 >= dl, "Barrier took %.6f s < dL", now() - t0);
  for (int i = 0; i < 4; i++) x[i] = rank + i;
  t0 = now();
  MPI_Allreduce(x, y, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double s = size * (size - 1) / 2.0;
  CHECK(y[0] == s && y[3] == s + 3 * size, "Allreduce %g %g", y[0], y[3]);
  CHECK(now() - t0 >= dl, "Allreduce took %.6f s < dL", now() - t0);
  /* the root's entry time travels with the data: a non-root receives it
   * no earlier than dL later (its own entry may be later than the root's) */
  x[0] = rank == 1 ? 42 : 0;
  x[1] = now();
  MPI_Bcast(x, 2, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  CHECK(x[0] == 42, "Bcast %g", x[0]);
  if (rank != 1) CHECK(now() - x[1] >= dl, "Bcast data %.6f s after the root's entry < dL", now() - x[1]);
  int *all = malloc(sizeof(int) * (size_t)size * 2), mine[2] = {rank, -rank};
  MPI_Alltoall((int[]){rank, rank, rank, rank, rank, rank, rank, rank}, 1, MPI_INT, all, 1, MPI_INT,
               MPI_COMM_WORLD);
  for (int i = 0; i < size; i++) CHECK(all[i] == i, "Alltoall [%d] = %d", i, all[i]);
  MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int i = 0; i < size; i++) CHECK(all[2 * i] == i && all[2 * i + 1] == -i, "Gather [%d]", i);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int hs;
  MPI_Comm_size(half, &hs);
  int v = 1, w = 0;
  MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, half);
  CHECK(w == hs, "Allreduce on a split communicator: %d (expected %d)", w, hs);
  MPI_Comm_free(&half);
  free(all);
}

/* ---- only some ranks affected (LLAMP_INJECT_RANKS=2, 3 ranks) ------------ */
static void case_ranks(void)
{
  double m[2];
  if (rank == 0) {
    for (int src = 1; src <= 2; src++) {
      MPI_Recv(m, 2, MPI_DOUBLE, src, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double a = age(m);
      if (src == 2) CHECK(a >= dl, "2 -> 0 one-way %.6f s < dL", a);
      else CHECK(a < dl / 2, "1 -> 0 one-way %.6f s: delayed although rank 1 and 0 are not listed", a);
    }
  } else {
    if (rank == 2) MPI_Recv(m, 1, MPI_DOUBLE, 1, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 1) MPI_Send(m, 1, MPI_DOUBLE, 2, 51, MPI_COMM_WORLD);
    m[0] = now();
    MPI_Send(m, 2, MPI_DOUBLE, 0, 50, MPI_COMM_WORLD);
  }
}

/* ---- accuracy bench ---------------------------------------------------------- */
static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void case_bench(int reps)
{
  double *pp = malloc(sizeof(double) * (size_t)reps), *b2 = malloc(sizeof(double) * (size_t)reps),
         *wa = malloc(sizeof(double) * (size_t)reps), m[2][2];
  if (rank > 1) return;
  for (int it = 0; it < reps + 10; it++) { /* ping-pong: one-way of both directions */
    if (rank == 0) {
      m[0][0] = now();
      MPI_Send(m[0], 2, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(m[0], 2, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (it >= 10) pp[it - 10] = age(m[0]);
    } else {
      MPI_Recv(m[0], 2, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      m[0][0] = now();
      MPI_Send(m[0], 2, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    }
  }
  for (int it = 0; it < reps + 10; it++) { /* back to back: the second message */
    MPI_Request rq[2];
    if (rank == 1) {
      MPI_Irecv(m[0], 2, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, &rq[0]);
      MPI_Irecv(m[1], 2, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, &rq[1]);
      MPI_Send(m[0], 0, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
      MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
      if (it >= 10) b2[it - 10] = age(m[1]);
      MPI_Send(m[0], 0, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
    } else {
      MPI_Recv(m[0], 0, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      m[0][0] = now();
      MPI_Send(m[0], 2, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
      m[1][0] = now();
      MPI_Send(m[1], 2, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
      MPI_Recv(m[0], 0, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  for (int it = 0; it < reps + 10; it++) { /* Waitany over two tags: the first visible */
    MPI_Request rq[2];
    if (rank == 1) {
      MPI_Irecv(m[0], 2, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, &rq[0]);
      MPI_Irecv(m[1], 2, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, &rq[1]);
      MPI_Send(m[0], 0, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
      int idx;
      MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
      if (it >= 10) wa[it - 10] = age(m[idx]);
      MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
      MPI_Send(m[0], 0, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
    } else {
      MPI_Recv(m[0], 0, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      m[1][0] = now();
      MPI_Send(m[1], 2, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD);
      m[0][0] = now();
      MPI_Send(m[0], 2, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
      MPI_Recv(m[0], 0, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  if (rank == 0) {
    double x = median(pp, reps);
    printf("pingpong  dL %8.3f us  one-way median %9.3f us  minus dL %+8.3f us  (min %.3f)\n", dl * 1e6,
           x * 1e6, (x - dl) * 1e6, pp[0] * 1e6);
    fflush(stdout);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    double x = median(b2, reps), y = median(wa, reps);
    printf("b2b       dL %8.3f us  2nd msg median  %9.3f us  minus dL %+8.3f us  (min %.3f)\n", dl * 1e6,
           x * 1e6, (x - dl) * 1e6, b2[0] * 1e6);
    printf("waitany   dL %8.3f us  1st msg median  %9.3f us  minus dL %+8.3f us  (min %.3f)\n", dl * 1e6,
           y * 1e6, (y - dl) * 1e6, wa[0] * 1e6);
    fflush(stdout);
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: inject_check CASE DL_US [REPS]\n");
    MPI_Finalize();
    return 2;
  }
  dl = atof(argv[2]) * 1e-6;
  const char *c = argv[1];
  if (!strcmp(c, "pingpong")) case_pingpong();
  else if (!strcmp(c, "b2b")) case_b2b();
  else if (!strcmp(c, "waitany")) case_waitany();
  else if (!strcmp(c, "probe")) case_probe();
  else if (!strcmp(c, "persistent")) case_persistent();
  else if (!strcmp(c, "modes")) case_modes();
  else if (!strcmp(c, "large")) case_large();
  else if (!strcmp(c, "coll")) case_coll();
  else if (!strcmp(c, "ranks")) case_ranks();
  else if (!strcmp(c, "bench")) case_bench(argc > 3 ? atoi(argv[3]) : 200);
  else {
    if (rank == 0) fprintf(stderr, "inject_check: unknown case '%s'\n", c);
    fails++;
  }
  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0 && !all) printf("%s: PASS\n", c);
  return all ? 1 : 0;
}
