/* Collective registry, selections, argument errors, and hand-checked
 * schedules of single ranks (golden strings derived on paper from the
 * algorithm descriptions in docs/collectives.md).
 *
 * Schedule strings: "s<peer>:<bytes>:<tag>" a send, "r..." a receive,
 * "c<bytes>" a reduction, "|" the end of a round. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llamp_coll.h"
#include "llamp_test.h"

/* ---- a recording emitter ------------------------------------------------------ */

typedef struct {
  char buf[4096];
  size_t len;
  int fail_at; /* fail the n-th operation (1-based), 0 = never */
  int ops;
} rec_t;

static int rec_add(rec_t *r, const char *fmt, char k, long long a, unsigned long long b, int c) {
  if (r->fail_at && ++r->ops == r->fail_at) return -1;
  char tmp[64];
  int n = k ? snprintf(tmp, sizeof tmp, fmt, k, a, b, c) : snprintf(tmp, sizeof tmp, "%s", fmt);
  if (r->len + (size_t)n + 1 < sizeof r->buf) {
    memcpy(r->buf + r->len, tmp, (size_t)n + 1);
    r->len += (size_t)n;
  }
  return 0;
}
static int rec_send(void *ctx, int peer, uint64_t bytes, int tag) {
  return rec_add(ctx, "%c%lld:%llu:%d ", 's', peer, (unsigned long long)bytes, tag);
}
static int rec_recv(void *ctx, int peer, uint64_t bytes, int tag) {
  return rec_add(ctx, "%c%lld:%llu:%d ", 'r', peer, (unsigned long long)bytes, tag);
}
static int rec_calc(void *ctx, uint64_t bytes) {
  rec_t *r = ctx;
  if (r->fail_at && ++r->ops == r->fail_at) return -1;
  char tmp[32];
  int n = snprintf(tmp, sizeof tmp, "c%llu ", (unsigned long long)bytes);
  if (r->len + (size_t)n + 1 < sizeof r->buf) {
    memcpy(r->buf + r->len, tmp, (size_t)n + 1);
    r->len += (size_t)n;
  }
  return 0;
}
static int rec_end(void *ctx) { return rec_add(ctx, "| ", 0, 0, 0, 0); }

/* Expand one rank and return its schedule (static buffer). */
static const char *sched(llamp_coll_kind_t kind, const char *algo, int p, int rank, int root,
                         uint64_t n, uint64_t elem, const uint64_t *counts) {
  static rec_t r;
  memset(&r, 0, sizeof r);
  llamp_coll_args_t a = {p, rank, root, n, counts, NULL, elem, 0};
  llamp_coll_emit_t e = {&r, rec_send, rec_recv, rec_calc, rec_end, NULL};
  char err[256];
  if (llamp_coll_expand(kind, algo, &a, &e, err, sizeof err) != 0) {
    fprintf(stderr, "expand failed: %s\n", err);
    return "(failed)";
  }
  if (r.len && r.buf[r.len - 1] == ' ') r.buf[--r.len] = '\0';
  return r.buf;
}

#define CHECK_SCHED(got, want)                                                                     \
  do {                                                                                             \
    const char *_g = (got), *_w = (want);                                                          \
    if (strcmp(_g, _w) != 0) {                                                                     \
      fprintf(stderr, "%s:%d: schedule\n  got  '%s'\n  want '%s'\n", __FILE__, __LINE__, _g, _w);  \
      llamp_test_failures++;                                                                       \
    }                                                                                              \
  } while (0)

static void golden(void) {
  /* bcast binomial p=8 root 0: rank 0 sends to 4, 2, 1; rank 6 (110b) gets
   * from 4 and sends to 7. */
  CHECK_SCHED(sched(LLAMP_COLL_BCAST, "binomial", 8, 0, 0, 100, 1, NULL),
              "s4:100:0 | s2:100:0 | s1:100:0 |");
  CHECK_SCHED(sched(LLAMP_COLL_BCAST, "binomial", 8, 6, 0, 100, 1, NULL), "r4:100:0 | s7:100:0 |");
  /* root 3, p=5: rank 1 is virtual 3 (011b): from virtual 2 = rank 0. */
  CHECK_SCHED(sched(LLAMP_COLL_BCAST, "binomial", 5, 1, 3, 100, 1, NULL), "r0:100:0 |");
  CHECK_SCHED(sched(LLAMP_COLL_BCAST, "linear", 4, 2, 2, 9, 1, NULL), "s0:9:0 s1:9:0 s3:9:0 |");

  /* reduce binomial p=6 root 0: rank 0 takes 1, 2, 4; rank 4 takes 5 then
   * sends to 0. */
  CHECK_SCHED(sched(LLAMP_COLL_REDUCE, "binomial", 6, 0, 0, 8, 1, NULL),
              "r1:8:0 | c8 | r2:8:0 | c8 | r4:8:0 | c8 |");
  CHECK_SCHED(sched(LLAMP_COLL_REDUCE, "binomial", 6, 4, 0, 8, 1, NULL), "r5:8:0 | c8 | s0:8:0 |");
  /* reduce linear p=4 root 1: from 3, then 2 (+reduce), own (reduce), 0. */
  CHECK_SCHED(sched(LLAMP_COLL_REDUCE, "linear", 4, 1, 1, 8, 1, NULL),
              "r3:8:0 | r2:8:0 | c8 | c8 | r0:8:0 | c8 |");

  /* allreduce recursive doubling p=5 (q=4, rem=1): rank 0 folds into 1;
   * rank 1 (new 0) exchanges with new 1 = rank 2 and new 2 = rank 3; rank 4
   * (new 3) with new 2 = rank 3 and new 1 = rank 2. */
  CHECK_SCHED(sched(LLAMP_COLL_ALLREDUCE, "recursive_doubling", 5, 0, 0, 8, 1, NULL),
              "s1:8:0 | r1:8:2 |");
  CHECK_SCHED(sched(LLAMP_COLL_ALLREDUCE, "recursive_doubling", 5, 1, 0, 8, 1, NULL),
              "r0:8:0 | c8 | s2:8:1 r2:8:1 | c8 | s3:8:1 r3:8:1 | c8 | s0:8:2 |");
  CHECK_SCHED(sched(LLAMP_COLL_ALLREDUCE, "recursive_doubling", 5, 4, 0, 8, 1, NULL),
              "s3:8:1 r3:8:1 | c8 | s2:8:1 r2:8:1 | c8 |");
  /* ring p=3, 10 one-byte elements: blocks 4,3,3.  Rank 0: RS sends block 2
   * then 1, receives 1 then 0; AG sends 0 then 2, receives 2 then 1. */
  CHECK_SCHED(sched(LLAMP_COLL_ALLREDUCE, "ring", 3, 0, 0, 10, 1, NULL),
              "s1:3:0 r2:3:0 | c3 | s1:3:0 r2:4:0 | c4 | s1:4:1 r2:3:1 | s1:3:1 r2:3:1 |");
  /* ring cuts at element boundaries: 3 doubles over 2 ranks = 16 + 8 bytes. */
  CHECK_SCHED(sched(LLAMP_COLL_ALLREDUCE, "ring", 2, 0, 0, 24, 8, NULL),
              "s1:8:0 r1:16:0 | c16 | s1:16:1 r1:8:1 |");
  /* Rabenseifner p=4, 10 elements: blocks 2,2,2,4.  Rank 0 (new 0): RS with
   * 1 keeps blocks 0-1 (sends 2-3 = 6, gets 4), with 2 keeps block 0 (sends
   * 2, gets 2); AG with 2 gets block 1, with 1 gets blocks 2-3. */
  CHECK_SCHED(sched(LLAMP_COLL_ALLREDUCE, "rabenseifner", 4, 0, 0, 10, 1, NULL),
              "s1:6:1 r1:4:1 | c4 | s2:2:1 r2:2:1 | c2 | s2:2:2 r2:2:2 | s1:4:2 r1:6:2 |");
  /* Rank 3 (new 3) ends the reduce-scatter with block 3 (4 elements). */
  CHECK_SCHED(sched(LLAMP_COLL_ALLREDUCE, "rabenseifner", 4, 3, 0, 10, 1, NULL),
              "s2:4:1 r2:6:1 | c6 | s1:2:1 r1:4:1 | c4 | s1:4:2 r1:2:2 | s2:6:2 r2:4:2 |");
  CHECK_SCHED(sched(LLAMP_COLL_ALLREDUCE, "reduce_bcast", 3, 1, 0, 8, 1, NULL),
              "s0:8:0 | r0:8:1 |");

  /* barriers */
  CHECK_SCHED(sched(LLAMP_COLL_BARRIER, "dissemination", 5, 0, 0, 0, 1, NULL),
              "s1:0:0 r4:0:0 | s2:0:0 r3:0:0 | s4:0:0 r1:0:0 |");
  CHECK_SCHED(sched(LLAMP_COLL_BARRIER, "recursive_doubling", 3, 2, 0, 0, 1, NULL),
              "s0:0:0 r0:0:0 |");
  CHECK_SCHED(sched(LLAMP_COLL_BARRIER, "recursive_doubling", 3, 0, 0, 0, 1, NULL),
              "r2:0:0 | s1:0:0 r1:0:0 | s2:0:0 |");

  /* gather binomial p=6 root 2: the root takes virtual 1 (rank 3, 1 block),
   * 2 (rank 4, 2 blocks), 4 (rank 0, 2 blocks). */
  CHECK_SCHED(sched(LLAMP_COLL_GATHER, "binomial", 6, 2, 2, 1, 1, NULL),
              "r3:1:0 | r4:2:0 | r0:2:0 |");
  /* gatherv: rank 4 is virtual 2, holds virtual 2-3 = ranks 4, 5. */
  static const uint64_t gc[6] = {10, 11, 12, 13, 14, 15};
  CHECK_SCHED(sched(LLAMP_COLL_GATHERV, "binomial", 6, 4, 2, 0, 1, gc), "r5:15:0 | s2:29:0 |");
  CHECK_SCHED(sched(LLAMP_COLL_GATHERV, "linear", 3, 0, 0, 0, 1, gc), "r1:11:0 r2:12:0 |");
  CHECK_SCHED(sched(LLAMP_COLL_GATHER, "linear", 3, 0, 0, 5, 1, NULL), "r1:5:0 | r2:5:0 |");
  /* scatter binomial p=6 root 2: smallest subtree first. */
  CHECK_SCHED(sched(LLAMP_COLL_SCATTER, "binomial", 6, 2, 2, 1, 1, NULL),
              "s3:1:0 | s4:2:0 | s0:2:0 |");
  CHECK_SCHED(sched(LLAMP_COLL_SCATTERV, "binomial", 6, 4, 2, 0, 1, gc), "r2:29:0 | s5:15:0 |");

  /* allgather */
  CHECK_SCHED(sched(LLAMP_COLL_ALLGATHERV, "ring", 3, 1, 0, 0, 1, gc),
              "s2:11:0 r0:10:0 | s2:10:0 r0:12:0 |");
  /* recursive doubling p=3: rank 0 folds into 1; rank 1 (new 0, blocks
   * 0-1) swaps with rank 2 and returns block 2 to rank 0. */
  CHECK_SCHED(sched(LLAMP_COLL_ALLGATHERV, "recursive_doubling", 3, 1, 0, 0, 1, gc),
              "r0:10:0 | s2:21:1 r2:12:1 | s0:23:2 |");

  /* alltoall */
  CHECK_SCHED(sched(LLAMP_COLL_ALLTOALL, "bruck", 5, 0, 0, 10, 1, NULL),
              "s1:20:0 r4:20:0 | s2:20:0 r3:20:0 | s4:10:0 r1:10:0 |");
  CHECK_SCHED(sched(LLAMP_COLL_ALLTOALL, "pairwise", 4, 1, 0, 3, 1, NULL),
              "s0:3:0 r0:3:0 | s3:3:0 r3:3:0 | s2:3:0 r2:3:0 |");
  CHECK_SCHED(sched(LLAMP_COLL_ALLTOALL, "pairwise", 3, 1, 0, 3, 1, NULL),
              "s2:3:0 r0:3:0 | s0:3:0 r2:3:0 |");
  CHECK_SCHED(sched(LLAMP_COLL_ALLTOALL, "linear", 3, 1, 0, 3, 1, NULL),
              "r2:3:0 r0:3:0 s0:3:0 s2:3:0 |");

  /* reduce_scatter recursive halving p=3, blocks 1,2,3: rank 0 folds the
   * vector into 1 and gets block 0 back; rank 1 (new 0 = blocks 0,1) swaps
   * halves with rank 2 (new 1 = block 2). */
  static const uint64_t rc[3] = {1, 2, 3};
  CHECK_SCHED(sched(LLAMP_COLL_REDUCE_SCATTER, "recursive_halving", 3, 0, 0, 0, 1, rc),
              "s1:6:0 | r1:1:2 |");
  CHECK_SCHED(sched(LLAMP_COLL_REDUCE_SCATTER, "recursive_halving", 3, 1, 0, 0, 1, rc),
              "r0:6:0 | c6 | s2:3:1 r2:3:1 | c3 | s0:1:2 |");
  CHECK_SCHED(sched(LLAMP_COLL_REDUCE_SCATTER, "recursive_halving", 3, 2, 0, 0, 1, rc),
              "s1:3:1 r1:3:1 | c3 |");
  CHECK_SCHED(sched(LLAMP_COLL_REDUCE_SCATTER, "ring", 3, 0, 0, 0, 1, rc),
              "s1:3:0 r2:2:0 | c2 | s1:2:0 r2:1:0 | c1 |");
  CHECK_SCHED(sched(LLAMP_COLL_REDUCE_SCATTER_BLOCK, "ring", 3, 0, 0, 4, 1, rc),
              "s1:4:0 r2:4:0 | c4 | s1:4:0 r2:4:0 | c4 |");

  /* scans */
  CHECK_SCHED(sched(LLAMP_COLL_EXSCAN, "direct", 4, 3, 0, 8, 1, NULL),
              "r0:8:0 r1:8:0 r2:8:0 | c16 |");
  CHECK_SCHED(sched(LLAMP_COLL_SCAN, "direct", 4, 3, 0, 8, 1, NULL),
              "r0:8:0 r1:8:0 r2:8:0 | c24 |");
  CHECK_SCHED(sched(LLAMP_COLL_SCAN, "direct", 4, 0, 0, 8, 1, NULL), "s1:8:0 s2:8:0 s3:8:0 |");
  CHECK_SCHED(sched(LLAMP_COLL_SCAN, "linear", 3, 1, 0, 8, 1, NULL), "r0:8:0 | c8 | s2:8:0 |");
  CHECK_SCHED(sched(LLAMP_COLL_EXSCAN, "linear", 3, 2, 0, 8, 1, NULL), "r1:8:0 |");
  /* recursive doubling p=3, rank 2: no partner at distance 1 (3 >= p). */
  CHECK_SCHED(sched(LLAMP_COLL_SCAN, "recursive_doubling", 3, 2, 0, 8, 1, NULL),
              "s0:8:0 r0:8:0 | c16 |");
  CHECK_SCHED(sched(LLAMP_COLL_EXSCAN, "recursive_doubling", 4, 3, 0, 8, 1, NULL),
              "s2:8:0 r2:8:0 | c8 | s1:8:0 r1:8:0 | c16 |");
  CHECK_SCHED(sched(LLAMP_COLL_EXSCAN, "recursive_doubling", 4, 1, 0, 8, 1, NULL),
              "s0:8:0 r0:8:0 | c8 | s3:8:0 r3:8:0 | c8 |");

  /* size 1 emits nothing */
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++)
    CHECK_SCHED(sched((llamp_coll_kind_t)k, NULL, 1, 0, 0, 100, 1, gc), "");
}

/* ---- registry ---------------------------------------------------------------------- */

static void registry(void) {
  size_t n;
  const llamp_coll_algo_t *al = llamp_coll_algos(&n);
  CHECK(n >= 37);
  int defaults[LLAMP_COLL_NUM_KINDS] = {0};
  for (size_t i = 0; i < n; i++) {
    CHECK(llamp_coll_kind_name(al[i].kind) != NULL);
    CHECK(al[i].name && *al[i].name && al[i].help && *al[i].help && al[i].smpi_note);
    CHECK(al[i].expand != NULL);
    CHECK(!al[i].smpi || !strcmp(al[i].smpi, "(built-in)") || !strncmp(al[i].smpi, "smpi/", 5));
    if (al[i].is_default) defaults[al[i].kind]++;
    for (size_t j = 0; j < i; j++)
      CHECK(al[j].kind != al[i].kind || strcmp(al[j].name, al[i].name));
    if (i > 0) CHECK(al[i].kind >= al[i - 1].kind);
    CHECK(llamp_coll_find(al[i].kind, al[i].name) == &al[i]);
  }
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++) {
    CHECK(defaults[k] == 1);
    const llamp_coll_algo_t *d = llamp_coll_find((llamp_coll_kind_t)k, NULL);
    CHECK(d && d->is_default && (int)d->kind == k);
    CHECK(llamp_coll_find((llamp_coll_kind_t)k, "default") == d);
    CHECK(llamp_coll_find((llamp_coll_kind_t)k, "") == d);
  }
  /* The algorithms the design asks for, and the defaults. */
  static const struct {
    llamp_coll_kind_t k;
    const char *name;
    int def;
  } want[] = {
      {LLAMP_COLL_BCAST, "binomial", 1},
      {LLAMP_COLL_BCAST, "linear", 0},
      {LLAMP_COLL_REDUCE, "binomial", 1},
      {LLAMP_COLL_REDUCE, "linear", 0},
      {LLAMP_COLL_ALLREDUCE, "recursive_doubling", 1},
      {LLAMP_COLL_ALLREDUCE, "ring", 0},
      {LLAMP_COLL_ALLREDUCE, "rabenseifner", 0},
      {LLAMP_COLL_ALLREDUCE, "reduce_bcast", 0},
      {LLAMP_COLL_BARRIER, "dissemination", 1},
      {LLAMP_COLL_BARRIER, "recursive_doubling", 0},
      {LLAMP_COLL_ALLTOALL, "pairwise", 1},
      {LLAMP_COLL_ALLTOALL, "linear", 0},
      {LLAMP_COLL_ALLTOALL, "bruck", 0},
      {LLAMP_COLL_ALLTOALLV, "pairwise", 1},
      {LLAMP_COLL_ALLTOALLV, "linear", 0},
      {LLAMP_COLL_ALLGATHER, "ring", 1},
      {LLAMP_COLL_ALLGATHER, "recursive_doubling", 0},
      {LLAMP_COLL_ALLGATHERV, "ring", 1},
      {LLAMP_COLL_GATHER, "binomial", 1},
      {LLAMP_COLL_GATHER, "linear", 0},
      {LLAMP_COLL_GATHERV, "linear", 1},
      {LLAMP_COLL_GATHERV, "binomial", 0},
      {LLAMP_COLL_SCATTER, "binomial", 1},
      {LLAMP_COLL_SCATTER, "linear", 0},
      {LLAMP_COLL_SCATTERV, "linear", 1},
      {LLAMP_COLL_SCATTERV, "binomial", 0},
      {LLAMP_COLL_REDUCE_SCATTER, "ring", 1},
      {LLAMP_COLL_REDUCE_SCATTER, "recursive_halving", 0},
      {LLAMP_COLL_REDUCE_SCATTER_BLOCK, "ring", 1},
      {LLAMP_COLL_REDUCE_SCATTER_BLOCK, "recursive_halving", 0},
      {LLAMP_COLL_SCAN, "recursive_doubling", 1},
      {LLAMP_COLL_SCAN, "linear", 0},
      {LLAMP_COLL_EXSCAN, "recursive_doubling", 1},
      {LLAMP_COLL_EXSCAN, "linear", 0},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const llamp_coll_algo_t *a = llamp_coll_find(want[i].k, want[i].name);
    CHECK(a != NULL);
    if (a) CHECK(a->is_default == want[i].def);
  }
  CHECK(llamp_coll_find(LLAMP_COLL_ALLGATHERV, "bruck") == NULL);
  CHECK(llamp_coll_find(LLAMP_COLL_ALLTOALLV, "bruck") == NULL);
  CHECK(llamp_coll_find(LLAMP_COLL_IALLTOALLV, "bruck") == NULL);
  CHECK(llamp_coll_find(LLAMP_COLL_IALLTOALLV, "pairwise") ==
        llamp_coll_find(LLAMP_COLL_ALLTOALLV, "pairwise"));

  /* kinds */
  llamp_coll_kind_t k;
  char err[512];
  CHECK(llamp_coll_kind_parse("MPI_Allreduce", &k, err, sizeof err) == 0 &&
        k == LLAMP_COLL_ALLREDUCE);
  CHECK(llamp_coll_kind_parse("reduce_scatter_block", &k, err, sizeof err) == 0 &&
        k == LLAMP_COLL_REDUCE_SCATTER_BLOCK);
  CHECK(llamp_coll_kind_parse("allreduc", &k, err, sizeof err) == -1);
  CHECK(strstr(err, "unknown collective 'allreduc'") && strstr(err, "exscan"));
  CHECK(llamp_coll_kind_name(LLAMP_COLL_NUM_KINDS) == NULL);
  CHECK(llamp_coll_kind_rooted(LLAMP_COLL_GATHERV) &&
        !llamp_coll_kind_rooted(LLAMP_COLL_ALLGATHER));

  /* listing */
  char *text = NULL;
  size_t tlen = 0;
  FILE *f = open_memstream(&text, &tlen);
  llamp_coll_print_list(f);
  fclose(f);
  for (size_t i = 0; i < n; i++) CHECK(strstr(text, al[i].name) != NULL);
  CHECK(strstr(text, "reduce_scatter_block:") && strstr(text, "smpi/allreduce:rab_rdb"));
  free(text);
}

/* ---- selections ---------------------------------------------------------------------- */

static void selections(void) {
  llamp_coll_selection_t sel, before;
  char err[512], buf[1024], miss[512];
  CHECK(llamp_coll_parse_selection("allreduce=ring,bcast=binomial", &sel, err, sizeof err) == 0);
  CHECK(!strcmp(sel.algo[LLAMP_COLL_ALLREDUCE]->name, "ring"));
  CHECK(!strcmp(sel.algo[LLAMP_COLL_BCAST]->name, "binomial"));
  CHECK(sel.algo[LLAMP_COLL_ALLTOALL] == llamp_coll_find(LLAMP_COLL_ALLTOALL, NULL));
  /* blanks and semicolons, MPI_ names, "default" */
  CHECK(llamp_coll_parse_selection(
            " MPI_Alltoall=bruck; barrier=recursive_doubling  allreduce=default", &sel, err,
            sizeof err) == 0);
  CHECK(!strcmp(sel.algo[LLAMP_COLL_ALLTOALL]->name, "bruck"));
  CHECK(!strcmp(sel.algo[LLAMP_COLL_BARRIER]->name, "recursive_doubling"));
  CHECK(sel.algo[LLAMP_COLL_ALLREDUCE]->is_default);
  CHECK(llamp_coll_parse_selection(NULL, &sel, err, sizeof err) == 0);
  CHECK(llamp_coll_parse_selection("", &sel, err, sizeof err) == 0);

  /* errors list the valid names and leave the selection alone */
  llamp_coll_parse_selection("allreduce=ring", &sel, err, sizeof err);
  before = sel;
  CHECK(llamp_coll_parse_selection("bcast=linear,allreduce=nonsense", &sel, err, sizeof err) == -1);
  CHECK(strstr(err, "unknown allreduce algorithm 'nonsense'") != NULL);
  CHECK(strstr(err, "recursive_doubling") && strstr(err, "rabenseifner") &&
        strstr(err, "reduce_bcast"));
  CHECK(!memcmp(&sel, &before, sizeof sel));
  CHECK(llamp_coll_parse_selection("allreduc=ring", &sel, err, sizeof err) == -1);
  CHECK(strstr(err, "unknown collective 'allreduc'") && strstr(err, "reduce_scatter_block"));
  CHECK(llamp_coll_parse_selection("allreduce", &sel, err, sizeof err) == -1);
  CHECK(strstr(err, "collective=algorithm") != NULL);
  CHECK(llamp_coll_parse_selection("allreduce=", &sel, err, sizeof err) == -1);
  CHECK(strstr(err, "unknown allreduce algorithm ''") != NULL);
  CHECK(llamp_coll_parse_selection("alltoallv=bruck", &sel, err, sizeof err) == -1);
  CHECK(strstr(err, "(valid: pairwise linear)") != NULL);
  CHECK(!memcmp(&sel, &before, sizeof sel));

  /* update layers; format reads back */
  CHECK(llamp_coll_update_selection("bcast=linear", &sel, err, sizeof err) == 0);
  CHECK(!strcmp(sel.algo[LLAMP_COLL_ALLREDUCE]->name, "ring"));
  CHECK(!strcmp(sel.algo[LLAMP_COLL_BCAST]->name, "linear"));
  int len = llamp_coll_selection_format(&sel, buf, sizeof buf);
  CHECK(len > 0 && (size_t)len < sizeof buf);
  CHECK(strstr(buf, "allreduce=ring") && strstr(buf, "bcast=linear,"));
  llamp_coll_selection_t back;
  CHECK(llamp_coll_parse_selection(buf, &back, err, sizeof err) == 0);
  CHECK(!memcmp(&sel, &back, sizeof sel));
  char tiny[8];
  CHECK(llamp_coll_selection_format(&sel, tiny, sizeof tiny) == len && strlen(tiny) == 7);

  /* the SMPI options */
  llamp_coll_selection_default(&sel);
  int nm = llamp_coll_selection_smpi_cfg(&sel, buf, sizeof buf, miss, sizeof miss);
  CHECK(strstr(buf, "--cfg=smpi/allreduce:rdb") && strstr(buf, "--cfg=smpi/bcast:binomial_tree"));
  CHECK(strstr(buf, "--cfg=smpi/reduce_scatter:ompi_ring") != NULL);
  CHECK(strstr(strstr(buf, "smpi/reduce_scatter:") + 1, "smpi/reduce_scatter:") == NULL);
  CHECK(strstr(buf, "smpi/gatherv") == NULL && strstr(buf, "smpi/scan") == NULL); /* built-in */
  CHECK(nm == 2 && !strcmp(miss, "scan=recursive_doubling exscan=recursive_doubling"));
  llamp_coll_parse_selection(
      "reduce_scatter=ring,reduce_scatter_block=recursive_halving,scan=direct,"
      "exscan=direct",
      &sel, err, sizeof err);
  nm = llamp_coll_selection_smpi_cfg(&sel, buf, sizeof buf, miss, sizeof miss);
  CHECK(nm == 1 && !strcmp(miss, "reduce_scatter_block=recursive_halving"));
  /* redbcast runs the selected reduce and bcast, as reduce_bcast does */
  llamp_coll_parse_selection("allreduce=reduce_bcast", &sel, err, sizeof err);
  CHECK(llamp_coll_selection_smpi_cfg(&sel, buf, sizeof buf, NULL, 0) == 2);
  CHECK(strstr(buf, "smpi/allreduce:redbcast") != NULL);
  llamp_coll_parse_selection("allreduce=reduce_bcast,reduce=linear", &sel, err, sizeof err);
  CHECK(llamp_coll_selection_smpi_cfg(&sel, buf, sizeof buf, miss, sizeof miss) == 2);
  CHECK(strstr(buf, "smpi/allreduce:redbcast") && strstr(buf, "smpi/reduce:flat_tree"));
  /* nonblocking collectives: SMPI's are fixed */
  llamp_coll_parse_selection("iallreduce=ring,ibarrier=linear_nb", &sel, err, sizeof err);
  CHECK(!strcmp(sel.algo[LLAMP_COLL_IALLREDUCE]->name, "ring"));
  CHECK(sel.algo[LLAMP_COLL_IALLREDUCE]->kind == LLAMP_COLL_ALLREDUCE);
  nm = llamp_coll_selection_smpi_cfg(&sel, buf, sizeof buf, miss, sizeof miss);
  CHECK(nm == 3 && strstr(miss, "iallreduce=ring") && !strstr(miss, "ibarrier"));
  /* only some kinds: what -llamp-coll names */
  int only[LLAMP_COLL_NUM_KINDS] = {0};
  only[LLAMP_COLL_ALLREDUCE] = only[LLAMP_COLL_IBARRIER] = 1;
  llamp_coll_parse_selection("allreduce=lr", &sel, err, sizeof err);
  nm = llamp_coll_selection_smpi_cfg_only(&sel, only, buf, sizeof buf, miss, sizeof miss);
  CHECK(nm == 0 && !strcmp(buf, "--cfg=smpi/allreduce:lr"));
  llamp_coll_parse_selection("allreduce=ring", &sel, err, sizeof err);
  nm = llamp_coll_selection_smpi_cfg_only(&sel, only, buf, sizeof buf, miss, sizeof miss);
  CHECK(nm == 1 && !strcmp(miss, "allreduce=ring") && !strcmp(buf, ""));
}

/* ---- what SimGrid runs ---------------------------------------------------------------- */

static void simgrid(void) {
  static const struct {
    llamp_coll_kind_t k;
    const char *smpi, *ours;
    int exact;
  } map[] = {
      /* SMPI 3.32's default selector */
      {LLAMP_COLL_BARRIER, "default", "linear", 1},
      {LLAMP_COLL_BCAST, "default", "binomial", 1},
      {LLAMP_COLL_REDUCE, "default", "linear_nb", 1},
      {LLAMP_COLL_ALLREDUCE, "default", "linear_reduce_bcast", 1},
      {LLAMP_COLL_GATHER, "default", "linear_nb", 1},
      {LLAMP_COLL_SCATTER, "default", "linear_nb", 1},
      {LLAMP_COLL_ALLGATHER, "default", "linear_nb", 1},
      {LLAMP_COLL_ALLGATHERV, "default", "linear_nb", 1},
      {LLAMP_COLL_ALLTOALL, "default", "ompi", 1},
      {LLAMP_COLL_ALLTOALLV, "default", "linear", 1},
      {LLAMP_COLL_REDUCE_SCATTER, "default", "reduce_scatterv", 1},
      {LLAMP_COLL_REDUCE_SCATTER_BLOCK, "default", "reduce_scatterv", 1},
      /* fixed algorithms (the name is ignored) */
      {LLAMP_COLL_GATHERV, "anything", "linear", 1},
      {LLAMP_COLL_SCAN, NULL, "direct", 1},
      {LLAMP_COLL_IBARRIER, "default", "linear_nb", 1},
      {LLAMP_COLL_IBCAST, NULL, "linear", 1},
      {LLAMP_COLL_IALLREDUCE, NULL, "linear_nb", 1},
      {LLAMP_COLL_IREDUCE_SCATTER_BLOCK, NULL, "linear_nb", 1},
      {LLAMP_COLL_IEXSCAN, NULL, "direct", 1},
      /* explicit names */
      {LLAMP_COLL_ALLREDUCE, "rdb", "recursive_doubling", 1},
      {LLAMP_COLL_ALLREDUCE, "lr", "lr", 1},
      {LLAMP_COLL_ALLREDUCE, "redbcast", "reduce_bcast", 1},
      {LLAMP_COLL_REDUCE, "ompi_basic_linear", "linear", 1},
      {LLAMP_COLL_REDUCE, "flat_tree", "linear", 1},
      {LLAMP_COLL_ALLTOALL, "ring", "ring", 1},
      {LLAMP_COLL_ALLTOALL, "pair", "pairwise", 1},
      {LLAMP_COLL_ALLTOALLV, "pair", "pairwise", 1},
      {LLAMP_COLL_ALLTOALL, "ompi", "ompi", 1},
      {LLAMP_COLL_ALLGATHER, "rdb", "recursive_doubling", 0},
      {LLAMP_COLL_REDUCE_SCATTER_BLOCK, "mpich_rdb", "recursive_doubling", 1},
      {LLAMP_COLL_REDUCE_SCATTER, "ompi_ring", "ring", 0},
      {LLAMP_COLL_ALLREDUCE, "ompi", "ompi", 1},
      /* not modelled */
      {LLAMP_COLL_ALLREDUCE, "smp_rsag", NULL, 0},
      {LLAMP_COLL_BCAST, "mpich", NULL, 0},
      {LLAMP_COLL_BARRIER, "nonsense", NULL, 0},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
    const char *note = "unset";
    const llamp_coll_algo_t *a = llamp_coll_smpi_find(map[i].k, map[i].smpi, &note);
    if (!map[i].ours) {
      CHECK(a == NULL && !strcmp(note, ""));
      continue;
    }
    if (!a || strcmp(a->name, map[i].ours) != 0 || (map[i].exact != !*note)) {
      fprintf(stderr, "%s:%s -> %s (note '%s'), expected %s\n", llamp_coll_kind_name(map[i].k),
              map[i].smpi ? map[i].smpi : "-", a ? a->name : "NULL", note, map[i].ours);
      llamp_test_failures++;
    }
  }
  /* every kind resolves SMPI's default selector */
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++) {
    CHECK(llamp_coll_smpi_find((llamp_coll_kind_t)k, "default", NULL) != NULL);
    const char *key = llamp_coll_smpi_key((llamp_coll_kind_t)k);
    CHECK(!key == (k >= LLAMP_COLL_NUM_BLOCKING || k == LLAMP_COLL_GATHERV ||
                   k == LLAMP_COLL_SCATTERV || k == LLAMP_COLL_SCAN || k == LLAMP_COLL_EXSCAN));
  }
  CHECK(!strcmp(llamp_coll_smpi_key(LLAMP_COLL_REDUCE_SCATTER_BLOCK), "reduce_scatter"));
  CHECK(llamp_coll_kind_blocking(LLAMP_COLL_IALLTOALLV) == LLAMP_COLL_ALLTOALLV);
  CHECK(llamp_coll_kind_to_nonblocking(LLAMP_COLL_SCAN) == LLAMP_COLL_ISCAN);
  CHECK(llamp_coll_kind_rooted(LLAMP_COLL_ISCATTERV) && !llamp_coll_kind_rooted(LLAMP_COLL_IBARRIER));
}

/* ---- argument errors, callback failures, determinism ---------------------------------- */

static void errors(void) {
  rec_t r;
  memset(&r, 0, sizeof r);
  llamp_coll_emit_t e = {&r, rec_send, rec_recv, rec_calc, rec_end, NULL};
  llamp_coll_args_t a = {4, 0, 0, 8, NULL, NULL, 1, 0};
  char err[512];
  a.size = 0;
  CHECK(llamp_coll_expand(LLAMP_COLL_ALLREDUCE, NULL, &a, &e, err, sizeof err) == -1);
  CHECK(strstr(err, "allreduce/recursive_doubling: communicator size 0") != NULL);
  a.size = 4, a.rank = 4;
  CHECK(llamp_coll_expand(LLAMP_COLL_ALLREDUCE, NULL, &a, &e, err, sizeof err) == -1);
  CHECK(strstr(err, "rank 4 outside [0, 4)") != NULL);
  a.rank = 0, a.root = -1;
  CHECK(llamp_coll_expand(LLAMP_COLL_ALLREDUCE, NULL, &a, &e, err, sizeof err) == 0); /* unrooted */
  CHECK(llamp_coll_expand(LLAMP_COLL_BCAST, NULL, &a, &e, err, sizeof err) == -1);
  CHECK(strstr(err, "bcast/binomial: root -1 outside [0, 4)") != NULL);
  a.root = 0;
  CHECK(llamp_coll_expand(LLAMP_COLL_BCAST, "tree", &a, &e, err, sizeof err) == -1);
  CHECK(strstr(err, "unknown bcast algorithm 'tree' (valid: binomial linear)") != NULL);
  CHECK(llamp_coll_expand(LLAMP_COLL_NUM_KINDS, NULL, &a, &e, err, sizeof err) == -1);
  llamp_coll_emit_t bad = e;
  bad.end_round = NULL;
  CHECK(llamp_coll_expand(LLAMP_COLL_BCAST, NULL, &a, &bad, err, sizeof err) == -1);
  CHECK(strstr(err, "send, recv and end_round") != NULL);
  CHECK(llamp_coll_run(NULL, &a, &e, err, sizeof err) == -1);
  CHECK(llamp_coll_expand(LLAMP_COLL_BCAST, NULL, &a, &e, NULL, 0) == 0); /* err may be NULL */
  uint64_t huge[4] = {UINT64_MAX, 1, 0, 0};
  a.counts = huge;
  CHECK(llamp_coll_expand(LLAMP_COLL_GATHERV, NULL, &a, &e, err, sizeof err) == -1);
  CHECK(strstr(err, "counts add up to more than 2^64") != NULL);
  CHECK(llamp_coll_expand(LLAMP_COLL_GATHER, NULL, &a, &e, err, sizeof err) == 0); /* ignored */
  a.counts = NULL;
  a.bytes = UINT64_MAX / 4;
  CHECK(llamp_coll_expand(LLAMP_COLL_ALLTOALL, "bruck", &a, &e, err, sizeof err) == -1);
  CHECK(strstr(err, "overflows") != NULL);
  a.bytes = 8;

  /* calc may be NULL: the reductions disappear, rounds stay non-empty */
  llamp_coll_emit_t nocalc = e;
  nocalc.calc = NULL;
  memset(&r, 0, sizeof r);
  a.rank = 1, a.size = 5;
  CHECK(llamp_coll_expand(LLAMP_COLL_ALLREDUCE, NULL, &a, &nocalc, err, sizeof err) == 0);
  CHECK(!strcmp(r.buf, "r0:8:0 | s2:8:1 r2:8:1 | s3:8:1 r3:8:1 | s0:8:2 | "));

  /* a failing callback stops the expansion with a message naming it */
  memset(&r, 0, sizeof r);
  r.fail_at = 2;
  CHECK(llamp_coll_expand(LLAMP_COLL_ALLREDUCE, NULL, &a, &e, err, sizeof err) == -1);
  CHECK(strstr(err, "allreduce/recursive_doubling: rank 1: the emitter's end_round failed") !=
        NULL);
  memset(&r, 0, sizeof r);
  r.fail_at = 3;
  CHECK(llamp_coll_expand(LLAMP_COLL_ALLREDUCE, NULL, &a, &e, err, sizeof err) == -1);
  CHECK(strstr(err, "the emitter's calc failed") != NULL);
  memset(&r, 0, sizeof r);
  r.fail_at = 5;
  CHECK(llamp_coll_expand(LLAMP_COLL_ALLREDUCE, NULL, &a, &e, err, sizeof err) == -1);
  CHECK(strstr(err, "the emitter's send (peer 2) failed") != NULL);

  /* determinism and the counting emitter */
  size_t n;
  const llamp_coll_algo_t *al = llamp_coll_algos(&n);
  static const uint64_t cnts[13] = {5, 0, 7, 1, 9, 3, 3, 8, 2, 6, 4, 1, 1};
  for (size_t i = 0; i < n; i++) {
    llamp_coll_args_t b = {13, 5, 3, 1000, cnts, cnts, 8, 0};
    char first[4096];
    memset(&r, 0, sizeof r);
    CHECK(llamp_coll_run(&al[i], &b, &e, err, sizeof err) == 0);
    memcpy(first, r.buf, sizeof first);
    memset(&r, 0, sizeof r);
    CHECK(llamp_coll_run(&al[i], &b, &e, err, sizeof err) == 0);
    CHECK(!strcmp(first, r.buf));
    llamp_coll_stats_t st;
    CHECK(llamp_coll_count(&al[i], &b, &st, err, sizeof err) == 0);
    uint64_t bars = 0, sends = 0;
    for (const char *s = first; *s; s++) {
      if (*s == '|') bars++;
      if (*s == 's' && (s == first || s[-1] == ' ')) sends++;
    }
    CHECK(st.rounds == bars && st.sends == sends);
  }
}

int main(void) {
  golden();
  registry();
  selections();
  errors();
  simgrid();
  TEST_DONE();
}
