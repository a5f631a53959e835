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

/* Results of the collectives whose data moves with MPICH's nonblocking
 * counterpart while the tokens run: in place, derived datatypes, a user
 * operation, scans, v-variants, a large broadcast. */
static void pair_max(void *in, void *inout, int *len, MPI_Datatype *t)
{
  (void)t;
  double *a = in, *b = inout;
  for (int i = 0; i < *len; i++)
    if (a[2 * i] > b[2 * i]) b[2 * i] = a[2 * i], b[2 * i + 1] = a[2 * i + 1];
}
static void coll_semantics(void)
{
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MPI_Type_commit(&pair);
  MPI_Op op;
  MPI_Op_create(pair_max, 1, &op);
  double pv[4] = {rank == 1 ? 9 : rank, rank + 0.5, -rank, rank};
  MPI_Allreduce(MPI_IN_PLACE, pv, 2, pair, op, MPI_COMM_WORLD);
  CHECK(pv[0] == 9 && pv[1] == 1.5 && pv[2] == 0 && pv[3] == 0, "Allreduce in place, user op: %g %g %g %g",
        pv[0], pv[1], pv[2], pv[3]);
  MPI_Op_free(&op);
  MPI_Type_free(&pair);
  int v = rank + 1, sc = 0, ex = -7;
  MPI_Scan(&v, &sc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Exscan(&v, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sc == (rank + 1) * (rank + 2) / 2, "Scan %d", sc);
  if (rank > 0) CHECK(ex == rank * (rank + 1) / 2, "Exscan %d", ex);
  int *cnt = malloc(sizeof(int) * (size_t)size), *dsp = malloc(sizeof(int) * (size_t)size), tot = 0;
  for (int i = 0; i < size; i++) cnt[i] = i + 1, dsp[i] = tot, tot += i + 1;
  int *mine = malloc(sizeof(int) * (size_t)(rank + 1)), *all = malloc(sizeof(int) * (size_t)tot);
  for (int i = 0; i <= rank; i++) mine[i] = 100 * rank + i;
  MPI_Allgatherv(mine, rank + 1, MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
  int ok = 1;
  for (int i = 0; i < size; i++)
    for (int j = 0; j <= i; j++) ok &= all[dsp[i] + j] == 100 * i + j;
  CHECK(ok, "Allgatherv");
  memset(all, 0, sizeof(int) * (size_t)tot);
  MPI_Gatherv(mine, rank + 1, MPI_INT, all, cnt, dsp, MPI_INT, size - 1, MPI_COMM_WORLD);
  if (rank == size - 1) {
    for (int i = 0; i < size; i++)
      for (int j = 0; j <= i; j++) ok &= all[dsp[i] + j] == 100 * i + j;
    CHECK(ok, "Gatherv");
  }
  int blk[2] = {0, 0}, *src = malloc(sizeof(int) * 2 * (size_t)size);
  for (int i = 0; i < 2 * size; i++) src[i] = i;
  MPI_Scatter(src, 2, MPI_INT, rank == 0 ? MPI_IN_PLACE : blk, 2, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank > 0) CHECK(blk[0] == 2 * rank && blk[1] == 2 * rank + 1, "Scatter %d %d", blk[0], blk[1]);
  for (int i = 0; i < size; i++) src[i] = rank + i;
  MPI_Reduce_scatter_block(src, blk, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(blk[0] == size * (size - 1) / 2 + size * rank, "Reduce_scatter_block %d", blk[0]);
  sc = v;
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &v, &sc, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) CHECK(sc == size, "Reduce in place %d", sc);
  /* strided vector through Alltoallv with 0-sized blocks to oneself */
  int sz[8], sd[8], rz[8], rd[8];
  for (int i = 0; i < size && i < 8; i++) sz[i] = rz[i] = i != rank, sd[i] = rd[i] = i;
  int sb[8], rb[8];
  for (int i = 0; i < 8; i++) sb[i] = 10 * rank + i, rb[i] = -1;
  if (size <= 8) {
    MPI_Alltoallv(sb, sz, sd, MPI_INT, rb, rz, rd, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
      CHECK(rb[i] == (i == rank ? -1 : 10 * i + rank), "Alltoallv [%d] = %d", i, rb[i]);
  }
  /* 1 MiB broadcast (rendezvous tokens at -S below it), every byte */
  const int big = 1 << 18;
  int *b = malloc(sizeof(int) * big);
  for (int i = 0; i < big; i++) b[i] = rank == 1 ? i ^ 0x5a5a : 0;
  MPI_Bcast(b, big, MPI_INT, 1, MPI_COMM_WORLD);
  ok = 1;
  for (int i = 0; i < big; i++) ok &= b[i] == (i ^ 0x5a5a);
  CHECK(ok, "1 MiB Bcast corrupted");
  free(b);
  free(src);
  free(mine);
  free(all);
  free(cnt);
  free(dsp);
}

/* ---- collectives: results right, latency on the DAG's algorithm ----------- */
/* A rank leaves a barrier or an allreduce no earlier than dL after every
 * other rank entered it (a rank that enters late may wait less than dL:
 * the DAG's own rule, no extra synchronisation). */
static void check_after_all(const char *what, double t_in)
{
  double t_out = now(), *in = malloc(sizeof(double) * (size_t)size);
  MPI_Allgather(&t_in, 1, MPI_DOUBLE, in, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int i = 0; i < size; i++)
    if (i != rank) CHECK(t_out - in[i] >= dl, "left %s %.6f s after rank %d entered it < dL", what, t_out - in[i], i);
  free(in);
}

static void case_coll(void)
{
  double t0, x[4], y[4];
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = now();
  MPI_Barrier(MPI_COMM_WORLD);
  check_after_all("Barrier", t0);
  for (int i = 0; i < 4; i++) x[i] = rank + i;
  t0 = now();
  MPI_Allreduce(x, y, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  check_after_all("Allreduce", t0);
  double s = size * (size - 1) / 2.0;
  CHECK(y[0] == s && y[3] == s + 3 * size, "Allreduce %g %g", y[0], y[3]);
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
  coll_semantics();
}

/* ---- a collective adds the DAG's latencies, no extra synchronisation ---- */
/* Per iteration Barrier; rank 0 sends to rank 1; Gather to rank 0 (the
 * latency_example's pattern).  On the DAG (dissemination barrier, binomial
 * gather, eager), from the end of one Gather at rank 0 to the next: rank 1
 * entered the barrier dL before rank 0, so rank 0 leaves the barrier at
 * once, its message reaches rank 1 after dL, rank 1's gather token reaches
 * rank 0 after another dL: 2 dL.  MPICH's own blocking collective after the
 * tokens would add a third (rank 0 waits in MPICH's barrier for rank 1,
 * which leaves the tokens dL later).  The injector guarantees >= 2 dL per
 * iteration (every token is visible no earlier than dL after its send);
 * the upper bound has dL / 2 of slack per iteration at dL = 50 ms. */
static void case_collsync(void)
{
  const int n = 6;
  double m[2] = {0, 0}, both[4], t1 = 0;
  for (int it = 0; it <= n; it++) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) MPI_Send(m, 2, MPI_DOUBLE, 1, 60, MPI_COMM_WORLD);
    else if (rank == 1) MPI_Recv(m, 2, MPI_DOUBLE, 0, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    m[0] = rank;
    m[1] = it;
    MPI_Gather(m, 2, MPI_DOUBLE, both, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) CHECK(both[2] == 1 && both[3] == it, "Gather %g %g", both[2], both[3]);
    if (it == 0) t1 = now();
  }
  if (rank == 0) {
    double per = (now() - t1) / n / dl;
    printf("collsync: %.3f dL per iteration (DAG: 2)\n", per);
    CHECK(per >= 2, "%.3f dL per iteration < 2 dL", per);
    CHECK(per < 2.5, "%.3f dL per iteration >= 2.5 dL: a collective synchronises beyond the DAG", per);
  }
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
  else if (!strcmp(c, "collsync")) case_collsync();
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
