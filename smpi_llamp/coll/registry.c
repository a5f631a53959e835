/* registry.c - the collective algorithm registry, argument checks, the
 * expansion entry points, the counting emitter and algorithm selections.
 * Reading order: kinds, the table, lookups and listing, llamp_coll_run,
 * counting, selections. */
#include <ctype.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

#include "coll_internal.h"

/* ---- kinds ------------------------------------------------------------------ */

static const char *const kind_names[LLAMP_COLL_NUM_KINDS] = {
    "barrier",         "bcast",          "reduce",
    "allreduce",       "gather",         "gatherv",
    "scatter",         "scatterv",       "allgather",
    "allgatherv",      "alltoall",       "alltoallv",
    "reduce_scatter",  "reduce_scatter_block", "scan",
    "exscan",          "ibarrier",       "ibcast",
    "ireduce",         "iallreduce",     "igather",
    "igatherv",        "iscatter",       "iscatterv",
    "iallgather",      "iallgatherv",    "ialltoall",
    "ialltoallv",      "ireduce_scatter", "ireduce_scatter_block",
    "iscan",           "iexscan"};

const char *llamp_coll_kind_name(llamp_coll_kind_t kind) {
  if ((int)kind < 0 || kind >= LLAMP_COLL_NUM_KINDS) return NULL;
  return kind_names[kind];
}

int llamp_coll_kind_nonblocking(llamp_coll_kind_t kind) {
  return kind >= LLAMP_COLL_NUM_BLOCKING && kind < LLAMP_COLL_NUM_KINDS;
}

llamp_coll_kind_t llamp_coll_kind_blocking(llamp_coll_kind_t kind) {
  return llamp_coll_kind_nonblocking(kind) ? (llamp_coll_kind_t)(kind - LLAMP_COLL_NUM_BLOCKING)
                                           : kind;
}

llamp_coll_kind_t llamp_coll_kind_to_nonblocking(llamp_coll_kind_t kind) {
  return (int)kind >= 0 && kind < LLAMP_COLL_NUM_BLOCKING
             ? (llamp_coll_kind_t)(kind + LLAMP_COLL_NUM_BLOCKING)
             : kind;
}

int llamp_coll_kind_rooted(llamp_coll_kind_t kind) {
  switch (llamp_coll_kind_blocking(kind)) {
  case LLAMP_COLL_BCAST:
  case LLAMP_COLL_REDUCE:
  case LLAMP_COLL_GATHER:
  case LLAMP_COLL_GATHERV:
  case LLAMP_COLL_SCATTER:
  case LLAMP_COLL_SCATTERV:
    return 1;
  default:
    return 0;
  }
}

/* Kinds whose `counts` (and for alltoallv `rcounts`) are used. */
static int kind_has_counts(llamp_coll_kind_t kind) {
  kind = llamp_coll_kind_blocking(kind);
  return kind == LLAMP_COLL_GATHERV || kind == LLAMP_COLL_SCATTERV ||
         kind == LLAMP_COLL_ALLGATHERV || kind == LLAMP_COLL_ALLTOALLV ||
         kind == LLAMP_COLL_REDUCE_SCATTER;
}

/* snprintf that tolerates a NULL buffer. */
static void set_err(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* Append to err (used to list valid names). */
static void add_err(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || errlen == 0) return;
  size_t used = strlen(err);
  if (used + 1 >= errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err + used, errlen - used, fmt, ap);
  va_end(ap);
}

/* Case-insensitive match of name[0..len) against a kind name, with an
 * optional "MPI_" prefix. */
static int kind_match(const char *name, size_t len, llamp_coll_kind_t *kind) {
  if (len > 4 && strncasecmp(name, "MPI_", 4) == 0) {
    name += 4;
    len -= 4;
  }
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++) {
    if (strlen(kind_names[k]) == len && strncasecmp(name, kind_names[k], len) == 0) {
      *kind = (llamp_coll_kind_t)k;
      return 0;
    }
  }
  return -1;
}

static void list_kinds(char *err, size_t errlen) {
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++)
    add_err(err, errlen, "%s%s", k ? ", " : "", kind_names[k]);
  add_err(err, errlen, ")");
}

int llamp_coll_kind_parse(const char *name, llamp_coll_kind_t *kind, char *err, size_t errlen) {
  if (name && kind_match(name, strlen(name), kind) == 0) return 0;
  set_err(err, errlen, "unknown collective '%s' (valid: ", name ? name : "");
  list_kinds(err, errlen);
  return -1;
}

/* ---- the table ---------------------------------------------------------------- */

/* ALGO(kind, name, default, function, SMPI name, exact, note, help).
 * SMPI names of the form smpi/<key>:default are SMPI 3.32's default
 * selector; "(built-in)" is what SMPI always runs for a collective it has no
 * setting for. */
#define ALGO(kind, name, def, fn, smpi, exact, note, help)                                         \
  { LLAMP_COLL_##kind, name, help, def, smpi, note, exact, fn }

static const llamp_coll_algo_t algos[] = {
    ALGO(BARRIER, "dissemination", 1, llamp_coll_barrier_dissemination, "smpi/barrier:ompi_bruck",
         1, "", "ceil(log2 p) rounds: 0-byte sendrecv to r+2^k, from r-2^k"),
    ALGO(BARRIER, "recursive_doubling", 0, llamp_coll_barrier_recursive_doubling,
         "smpi/barrier:ompi_recursivedoubling", 1, "",
         "ranks r >= q (power of two) pair with r-q; 0-byte exchanges with r^2^k; release"),
    ALGO(BARRIER, "linear", 0, llamp_coll_barrier_linear, "smpi/barrier:ompi_basic_linear", 1,
         "", "0-byte send to rank 0 and receive from it; rank 0 receives all, then sends all "
             "(SMPI's default barrier)"),

    ALGO(BCAST, "binomial", 1, llamp_coll_bcast_binomial, "smpi/bcast:binomial_tree", 1, "",
         "binomial tree: receive from the parent, send to children largest subtree first "
         "(SMPI's default bcast)"),
    ALGO(BCAST, "linear", 0, llamp_coll_bcast_linear, "smpi/bcast:flattree", 1, "",
         "the root sends the vector to every rank in one round"),

    ALGO(REDUCE, "binomial", 1, llamp_coll_reduce_binomial, "smpi/reduce:binomial", 1, "",
         "binomial tree: receive and reduce children's partials, send to the parent"),
    ALGO(REDUCE, "linear", 0, llamp_coll_reduce_linear, "smpi/reduce:flat_tree", 1, "",
         "every rank sends to the root, which receives p-1 .. 0 one at a time and reduces"),
    ALGO(REDUCE, "linear_nb", 0, llamp_coll_reduce_default, "smpi/reduce:default", 1, "",
         "every rank sends to the root, which posts all receives in one round, then reduces "
         "(SMPI's default reduce; linear for non-commutative operations and derived datatypes)"),

    ALGO(ALLREDUCE, "recursive_doubling", 1, llamp_coll_allreduce_recursive_doubling,
         "smpi/allreduce:rdb", 1, "",
         "fold extra ranks, log2 q whole-vector exchanges r^2^k, unfold"),
    ALGO(ALLREDUCE, "ring", 0, llamp_coll_allreduce_ring, NULL, 0,
         "SMPI's lr (lr here) cuts p equal blocks and runs redbcast on the remainder",
         "ring reduce-scatter + ring allgather: 2(p-1) steps of n/p bytes"),
    ALGO(ALLREDUCE, "lr", 0, llamp_coll_allreduce_lr, "smpi/allreduce:lr", 1, "",
         "SMPI's lr: ring of p equal blocks of count/p elements, redbcast for the remainder "
         "(all of it below p elements)"),
    ALGO(ALLREDUCE, "rabenseifner", 0, llamp_coll_allreduce_rabenseifner, "smpi/allreduce:rab_rdb",
         1, "", "fold, reduce-scatter by recursive halving, allgather by recursive doubling, unfold"),
    ALGO(ALLREDUCE, "reduce_bcast", 0, llamp_coll_allreduce_reduce_bcast, "smpi/allreduce:redbcast",
         1, "", "the selected reduce to rank 0, then the selected bcast from rank 0"),
    ALGO(ALLREDUCE, "linear_reduce_bcast", 0, llamp_coll_allreduce_linear_reduce_bcast,
         "smpi/allreduce:default", 1, "",
         "nonblocking linear reduce to rank 0, then binomial bcast from rank 0 (SMPI's default "
         "allreduce; ompi for derived datatypes)"),
    ALGO(ALLREDUCE, "ompi", 0, llamp_coll_allreduce_ompi, "smpi/allreduce:ompi", 1, "",
         "Open MPI's decision by p, bytes and commutativity: reduce_bcast, recursive_doubling, "
         "lr or rabenseifner"),

    ALGO(GATHER, "binomial", 1, llamp_coll_gather_binomial, "smpi/gather:ompi_binomial", 1, "",
         "binomial tree: receive children's subtrees smallest first, send the subtree up"),
    ALGO(GATHER, "linear", 0, llamp_coll_gather_linear, "smpi/gather:ompi_basic_linear", 1, "",
         "every rank sends its block; the root receives them one at a time in rank order"),
    ALGO(GATHER, "linear_nb", 0, llamp_coll_gatherv_linear, "smpi/gather:default", 1, "",
         "every rank sends its block; the root receives all of them in one round (SMPI's "
         "default gather)"),
    ALGO(GATHERV, "linear", 1, llamp_coll_gatherv_linear, "(built-in)", 1, "",
         "every rank sends its block; the root receives all of them in one round"),
    ALGO(GATHERV, "binomial", 0, llamp_coll_gather_binomial, NULL, 0,
         "SMPI's MPI_Gatherv is always linear",
         "binomial tree with per-rank block sizes (subtree sums)"),

    ALGO(SCATTER, "binomial", 1, llamp_coll_scatter_binomial, "smpi/scatter:ompi_binomial", 1, "",
         "binomial tree: receive the subtree's blocks, send children theirs smallest first"),
    ALGO(SCATTER, "linear", 0, llamp_coll_scatter_linear, "smpi/scatter:ompi_basic_linear", 1, "",
         "the root sends each rank its block, one blocking send at a time in rank order"),
    ALGO(SCATTER, "linear_nb", 0, llamp_coll_scatterv_linear, "smpi/scatter:ompi_linear_nb", 1, "",
         "the root sends each rank its block, all in one round (SMPI's default scatter)"),
    ALGO(SCATTERV, "linear", 1, llamp_coll_scatterv_linear, "(built-in)", 1, "",
         "the root sends each rank its block, all in one round"),
    ALGO(SCATTERV, "binomial", 0, llamp_coll_scatter_binomial, NULL, 0,
         "SMPI's MPI_Scatterv is always linear",
         "binomial tree with per-rank block sizes (subtree sums)"),

    ALGO(ALLGATHER, "ring", 1, llamp_coll_allgather_ring, "smpi/allgather:NTSLR", 1, "",
         "p-1 steps: forward the last received block to r+1"),
    ALGO(ALLGATHER, "recursive_doubling", 0, llamp_coll_allgather_recursive_doubling,
         "smpi/allgather:rdb", 0, "identical for powers of two; rdb does not fold",
         "fold extra ranks, log2 q exchanges of everything held, unfold"),
    ALGO(ALLGATHER, "linear_nb", 0, llamp_coll_allgather_linear_nb, "smpi/allgather:default", 1,
         "", "one round: send the block to every rank, receive every rank's (SMPI's default)"),
    ALGO(ALLGATHERV, "ring", 1, llamp_coll_allgather_ring, "smpi/allgatherv:mpich_ring", 0,
         "mpich_ring pipelines blocks > 256 KiB and skips empty blocks",
         "p-1 steps: forward the last received block to r+1"),
    ALGO(ALLGATHERV, "recursive_doubling", 0, llamp_coll_allgather_recursive_doubling,
         "smpi/allgatherv:mpich_rdb", 0, "identical for powers of two; mpich_rdb does not fold",
         "fold extra ranks, log2 q exchanges of everything held, unfold"),
    ALGO(ALLGATHERV, "linear_nb", 0, llamp_coll_allgather_linear_nb, "smpi/allgatherv:default", 1,
         "", "one round: send the block to every rank, receive every rank's (SMPI's default)"),

    ALGO(ALLTOALL, "pairwise", 1, llamp_coll_alltoall_pairwise, "smpi/alltoall:ring", 0,
         "ring pairs r+i/r-i also for powers of two (ring here), where smpi/alltoall:pair "
         "(r^i) is exact",
         "p-1 sendrecv steps with r^i (powers of two) or r+i / r-i"),
    ALGO(ALLTOALL, "ring", 0, llamp_coll_alltoall_ring, "smpi/alltoall:ring", 1, "",
         "p-1 sendrecv steps to r+i, from r-i"),
    ALGO(ALLTOALL, "linear", 0, llamp_coll_alltoall_linear, "smpi/alltoall:basic_linear", 1, "",
         "all p-1 receives and p-1 sends in one round"),
    ALGO(ALLTOALL, "bruck", 0, llamp_coll_alltoall_bruck, "smpi/alltoall:bruck", 1,
         "", "ceil(log2 p) steps to r+2^k of the blocks with bit k set"),
    ALGO(ALLTOALL, "ompi", 0, llamp_coll_alltoall_ompi, "smpi/alltoall:ompi", 1, "",
         "Open MPI's choice by p and n of linear, pairwise or bruck (SMPI's default alltoall)"),
    ALGO(ALLTOALLV, "pairwise", 1, llamp_coll_alltoall_pairwise, "smpi/alltoallv:ring", 1, "",
         "p-1 sendrecv steps with r^i (powers of two) or r+i / r-i"),
    ALGO(ALLTOALLV, "linear", 0, llamp_coll_alltoall_linear, "smpi/alltoallv:ompi_basic_linear", 1,
         "", "all p-1 receives and p-1 sends in one round (SMPI's default alltoallv)"),

    ALGO(REDUCE_SCATTER, "ring", 1, llamp_coll_reduce_scatter_ring, "smpi/reduce_scatter:ompi_ring",
         0, "ompi_ring posts each receive one step earlier",
         "p-1 steps: send the partial block r-k to r+1, reduce block r-k-1"),
    ALGO(REDUCE_SCATTER, "recursive_halving", 0, llamp_coll_reduce_scatter_recursive_halving,
         "smpi/reduce_scatter:ompi_basic_recursivehalving", 0,
         "Open MPI skips exchanges with an empty half",
         "fold, log2 q halving exchanges (distance q/2 first), unfold"),
    ALGO(REDUCE_SCATTER, "pairwise", 0, llamp_coll_reduce_scatter_pairwise,
         "smpi/reduce_scatter:mpich_pair", 1, "",
         "p-1 sendrecv steps: block r+i to r+i, this rank's block from r-i"),
    ALGO(REDUCE_SCATTER, "recursive_doubling", 0, llamp_coll_reduce_scatter_recursive_doubling,
         "smpi/reduce_scatter:mpich_rdb", 1, "",
         "log2 steps exchanging all blocks outside the own / partner subtree (MPICH)"),
    ALGO(REDUCE_SCATTER, "reduce_scatterv", 0, llamp_coll_reduce_scatter_reduce_scatterv,
         "smpi/reduce_scatter:default", 1, "",
         "equal blocks: nonblocking linear reduce to 0 and scatterv; else MPICH's choice "
         "(SMPI's default)"),
    ALGO(REDUCE_SCATTER_BLOCK, "ring", 1, llamp_coll_reduce_scatter_ring,
         "smpi/reduce_scatter:ompi_ring", 0,
         "SMPI runs MPI_Reduce_scatter_block through its reduce_scatter setting; ompi_ring posts "
         "each receive one step earlier",
         "p-1 steps: send the partial block r-k to r+1, reduce block r-k-1"),
    ALGO(REDUCE_SCATTER_BLOCK, "recursive_halving", 0, llamp_coll_reduce_scatter_recursive_halving,
         "smpi/reduce_scatter:ompi_basic_recursivehalving", 0,
         "SMPI runs MPI_Reduce_scatter_block through its reduce_scatter setting",
         "fold, log2 q halving exchanges (distance q/2 first), unfold"),
    ALGO(REDUCE_SCATTER_BLOCK, "pairwise", 0, llamp_coll_reduce_scatter_pairwise,
         "smpi/reduce_scatter:mpich_pair", 1, "",
         "p-1 sendrecv steps: block r+i to r+i, this rank's block from r-i"),
    ALGO(REDUCE_SCATTER_BLOCK, "recursive_doubling", 0,
         llamp_coll_reduce_scatter_recursive_doubling, "smpi/reduce_scatter:mpich_rdb", 1, "",
         "log2 steps exchanging all blocks outside the own / partner subtree (MPICH)"),
    ALGO(REDUCE_SCATTER_BLOCK, "reduce_scatterv", 0, llamp_coll_reduce_scatter_reduce_scatterv,
         "smpi/reduce_scatter:default", 1, "",
         "nonblocking linear reduce to 0, then scatterv (SMPI's default)"),

    ALGO(SCAN, "recursive_doubling", 1, llamp_coll_scan_recursive_doubling, NULL, 0,
         "SMPI's MPI_Scan is always direct",
         "exchange partials with r^2^k (when it exists), reduce"),
    ALGO(SCAN, "linear", 0, llamp_coll_scan_linear, NULL, 0, "SMPI's MPI_Scan is always direct",
         "chain: receive the prefix from r-1, reduce, send to r+1"),
    ALGO(SCAN, "direct", 0, llamp_coll_scan_direct, "(built-in)", 1, "",
         "one round: receive from every lower rank, send to every higher rank"),
    ALGO(EXSCAN, "recursive_doubling", 1, llamp_coll_scan_recursive_doubling, NULL, 0,
         "SMPI's MPI_Exscan is always direct",
         "exchange partials with r^2^k (when it exists), reduce"),
    ALGO(EXSCAN, "linear", 0, llamp_coll_scan_linear, NULL, 0, "SMPI's MPI_Exscan is always direct",
         "chain: receive the prefix from r-1, reduce, send to r+1"),
    ALGO(EXSCAN, "direct", 0, llamp_coll_scan_direct, "(built-in)", 1, "",
         "one round: receive from every lower rank, send to every higher rank"),

    /* The nonblocking collectives: SMPI 3.32 runs one fixed algorithm for
     * each (smpi_nbc_impl.cpp), the default here.  Other names fall back to
     * the blocking kind's algorithms (llamp_coll_find). */
    ALGO(IBARRIER, "linear_nb", 1, llamp_coll_barrier_linear_nb, "(built-in)", 1, "",
         "one round: ranks > 0 send to and receive from rank 0, which sends without waiting"),
    ALGO(IBCAST, "linear", 1, llamp_coll_bcast_linear, "(built-in)", 1, "",
         "the root sends the vector to every rank in one round"),
    ALGO(IREDUCE, "linear_nb", 1, llamp_coll_reduce_linear_nb, "(built-in)", 1, "",
         "every rank sends to the root, which receives all in one round, then reduces"),
    ALGO(IALLREDUCE, "linear_nb", 1, llamp_coll_allreduce_linear_nb, "(built-in)", 1, "",
         "one round: send the vector to every rank and receive every rank's, then reduce"),
    ALGO(IGATHER, "linear_nb", 1, llamp_coll_gatherv_linear, "(built-in)", 1, "",
         "every rank sends its block; the root receives all of them in one round"),
    ALGO(IGATHERV, "linear", 1, llamp_coll_gatherv_linear, "(built-in)", 1, "",
         "every rank sends its block; the root receives all of them in one round"),
    ALGO(ISCATTER, "linear_nb", 1, llamp_coll_scatterv_linear, "(built-in)", 1, "",
         "the root sends each rank its block, all in one round"),
    ALGO(ISCATTERV, "linear", 1, llamp_coll_scatterv_linear, "(built-in)", 1, "",
         "the root sends each rank its block, all in one round"),
    ALGO(IALLGATHER, "linear_nb", 1, llamp_coll_allgather_linear_nb, "(built-in)", 1, "",
         "one round: send the block to every rank, receive every rank's"),
    ALGO(IALLGATHERV, "linear_nb", 1, llamp_coll_allgather_linear_nb, "(built-in)", 1, "",
         "one round: send the block to every rank, receive every rank's"),
    ALGO(IALLTOALL, "linear", 1, llamp_coll_alltoall_linear, "(built-in)", 1, "",
         "all p-1 receives and p-1 sends in one round"),
    ALGO(IALLTOALLV, "linear", 1, llamp_coll_alltoall_linear, "(built-in)", 1, "",
         "all p-1 receives and p-1 sends in one round"),
    ALGO(IREDUCE_SCATTER, "linear_nb", 1, llamp_coll_reduce_scatter_linear_nb, "(built-in)", 1, "",
         "one round: block i to every rank i, this rank's block from every rank; reduce"),
    ALGO(IREDUCE_SCATTER_BLOCK, "linear_nb", 1, llamp_coll_reduce_scatter_linear_nb, "(built-in)",
         1, "", "one round: block i to every rank i, this rank's block from every rank; reduce"),
    ALGO(ISCAN, "direct", 1, llamp_coll_scan_direct, "(built-in)", 1, "",
         "one round: receive from every lower rank, send to every higher rank"),
    ALGO(IEXSCAN, "direct", 1, llamp_coll_scan_direct, "(built-in)", 1, "",
         "one round: receive from every lower rank, send to every higher rank"),
};

#define NUM_ALGOS (sizeof algos / sizeof algos[0])

const llamp_coll_algo_t *llamp_coll_algos(size_t *count) {
  if (count) *count = NUM_ALGOS;
  return algos;
}

static int is_default_name(const char *name) {
  return !name || !*name || strcmp(name, "default") == 0;
}

const llamp_coll_algo_t *llamp_coll_find(llamp_coll_kind_t kind, const char *name) {
  for (size_t i = 0; i < NUM_ALGOS; i++) {
    if (algos[i].kind != kind) continue;
    if (is_default_name(name) ? algos[i].is_default : strcmp(algos[i].name, name) == 0)
      return &algos[i];
  }
  /* a nonblocking kind: the blocking kind's algorithm of that name */
  if (llamp_coll_kind_nonblocking(kind) && !is_default_name(name))
    return llamp_coll_find(llamp_coll_kind_blocking(kind), name);
  return NULL;
}

/* "unknown allreduce algorithm 'x' (valid: recursive_doubling, ring, ...)" for
 * name[0..len). */
static void unknown_algo(llamp_coll_kind_t kind, const char *name, int len, char *err,
                         size_t errlen) {
  set_err(err, errlen, "unknown %s algorithm '%.*s' (valid:", kind_names[kind], len, name);
  for (size_t i = 0; i < NUM_ALGOS; i++)
    if (algos[i].kind == kind) add_err(err, errlen, " %s", algos[i].name);
  if (llamp_coll_kind_nonblocking(kind))
    add_err(err, errlen, " and every %s algorithm", kind_names[llamp_coll_kind_blocking(kind)]);
  add_err(err, errlen, ")");
}

int llamp_coll_lookup(llamp_coll_kind_t kind, const char *name, const llamp_coll_algo_t **algo,
                      char *err, size_t errlen) {
  if ((int)kind < 0 || kind >= LLAMP_COLL_NUM_KINDS) {
    set_err(err, errlen, "invalid collective kind %d", (int)kind);
    return -1;
  }
  const llamp_coll_algo_t *a = llamp_coll_find(kind, name);
  if (!a) {
    unknown_algo(kind, name, (int)strlen(name), err, errlen);
    return -1;
  }
  *algo = a;
  return 0;
}

void llamp_coll_print_list(FILE *out) {
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++) {
    fprintf(out, "%s:\n", kind_names[k]);
    for (size_t i = 0; i < NUM_ALGOS; i++) {
      const llamp_coll_algo_t *a = &algos[i];
      if ((int)a->kind != k) continue;
      fprintf(out, "  %-20s%s %s\n", a->name, a->is_default ? " (default)" : "          ", a->help);
      fprintf(out, "  %-30s SMPI: %s%s%s%s%s\n", "", a->smpi ? a->smpi : "none",
              a->smpi && !a->smpi_exact ? " (not exact)" : "", *a->smpi_note ? " (" : "",
              a->smpi_note, *a->smpi_note ? ")" : "");
    }
    if (llamp_coll_kind_nonblocking((llamp_coll_kind_t)k))
      fprintf(out, "  (and every %s algorithm, which SMPI cannot run for %s)\n",
              kind_names[llamp_coll_kind_blocking((llamp_coll_kind_t)k)], kind_names[k]);
  }
}

/* ---- running an algorithm --------------------------------------------------------- */

/* Check the arguments of one expansion; 0 or -1 with a message. */
static int check_args(const llamp_coll_algo_t *algo, const llamp_coll_args_t *a,
                      const llamp_coll_emit_t *e, char *err, size_t errlen) {
  const char *kn = kind_names[algo->kind];
  if (!a || !e) {
    set_err(err, errlen, "%s/%s: NULL %s", kn, algo->name, a ? "emitter" : "arguments");
    return -1;
  }
  if (!e->send || !e->recv || !e->end_round) {
    set_err(err, errlen, "%s/%s: the emitter needs send, recv and end_round callbacks", kn,
            algo->name);
    return -1;
  }
  if (a->size < 1 || a->size > LLAMP_COLL_MAX_SIZE) {
    set_err(err, errlen, "%s/%s: communicator size %d outside [1, %d]", kn, algo->name, a->size,
            LLAMP_COLL_MAX_SIZE);
    return -1;
  }
  if (a->rank < 0 || a->rank >= a->size) {
    set_err(err, errlen, "%s/%s: rank %d outside [0, %d)", kn, algo->name, a->rank, a->size);
    return -1;
  }
  if (llamp_coll_kind_rooted(algo->kind) && (a->root < 0 || a->root >= a->size)) {
    set_err(err, errlen, "%s/%s: root %d outside [0, %d)", kn, algo->name, a->root, a->size);
    return -1;
  }
  /* Every byte total an algorithm forms must fit in 64 bits: the sum of the
   * per-rank blocks, or size * bytes (Bruck, reduce_scatter_block, ...). */
  uint64_t total = 0;
  const uint64_t *arrays[2] = {kind_has_counts(algo->kind) ? a->counts : NULL,
                               llamp_coll_kind_blocking(algo->kind) == LLAMP_COLL_ALLTOALLV
                                   ? a->rcounts
                                   : NULL};
  for (int k = 0; k < 2; k++) {
    if (!arrays[k]) continue;
    total = 0;
    for (int i = 0; i < a->size; i++) {
      if (arrays[k][i] > UINT64_MAX - total) {
        set_err(err, errlen, "%s/%s: the %s add up to more than 2^64 bytes", kn, algo->name,
                k ? "rcounts" : "counts");
        return -1;
      }
      total += arrays[k][i];
    }
  }
  if (a->bytes > UINT64_MAX / 2 / (uint64_t)a->size) {
    set_err(err, errlen, "%s/%s: %llu bytes per rank times %d ranks overflows 64 bits", kn,
            algo->name, (unsigned long long)a->bytes, a->size);
    return -1;
  }
  return 0;
}

/* Run `algo` for `a` under the selection `sel` (NULL: default parts). */
static int run_in(const llamp_coll_selection_t *sel, const llamp_coll_algo_t *algo,
                  const llamp_coll_args_t *a, const llamp_coll_emit_t *emit, char *err,
                  size_t errlen) {
  if (!algo) {
    set_err(err, errlen, "no collective algorithm given");
    return -1;
  }
  if (check_args(algo, a, emit, err, errlen) != 0) return -1;
  if (a->size == 1) return 0;
  const llamp_coll_kind_t kind = llamp_coll_kind_blocking(algo->kind);
  /* Normalise: the counts of non-v kinds are ignored. */
  llamp_coll_args_t norm = *a;
  if (!kind_has_counts(kind)) norm.counts = NULL;
  if (kind != LLAMP_COLL_ALLTOALLV) norm.rcounts = NULL;
  if (!llamp_coll_kind_rooted(kind)) norm.root = 0;
  llamp_coll_ctx_t c;
  memset(&c, 0, sizeof c);
  c.algo = algo;
  c.a = &norm;
  c.e = emit;
  c.sel = sel;
  c.kind = kind;
  c.p = a->size;
  c.r = a->rank;
  int rc = algo->expand(&c);
  if (rc == 0) rc = coll_end_round(&c);
  if (rc != 0) {
    const char *kn = kind_names[algo->kind];
    if (c.failed_op && c.failed_peer >= 0)
      set_err(err, errlen, "%s/%s: rank %d: the emitter's %s (peer %d) failed at operation %llu",
              kn, algo->name, c.r, c.failed_op, c.failed_peer, (unsigned long long)c.ops);
    else if (c.failed_op)
      set_err(err, errlen, "%s/%s: rank %d: the emitter's %s failed after operation %llu", kn,
              algo->name, c.r, c.failed_op, (unsigned long long)c.ops);
    else
      set_err(err, errlen, "%s/%s: rank %d: expansion failed", kn, algo->name, c.r);
    return -1;
  }
  return 0;
}

int llamp_coll_run(const llamp_coll_algo_t *algo, const llamp_coll_args_t *a,
                   const llamp_coll_emit_t *emit, char *err, size_t errlen) {
  return run_in(NULL, algo, a, emit, err, errlen);
}

int llamp_coll_run_selected(const llamp_coll_selection_t *sel, llamp_coll_kind_t kind,
                            const llamp_coll_args_t *a, const llamp_coll_emit_t *emit, char *err,
                            size_t errlen) {
  if ((int)kind < 0 || kind >= LLAMP_COLL_NUM_KINDS) {
    set_err(err, errlen, "invalid collective kind %d", (int)kind);
    return -1;
  }
  const llamp_coll_algo_t *algo = sel && sel->algo[kind] ? sel->algo[kind] : llamp_coll_find(kind, NULL);
  return run_in(sel, algo, a, emit, err, errlen);
}

const llamp_coll_algo_t *llamp_coll_part_algo(const llamp_coll_ctx_t *c, llamp_coll_kind_t kind) {
  if (c->sel && c->sel->algo[kind]) return c->sel->algo[kind];
  return llamp_coll_find(kind, NULL);
}

int llamp_coll_part(llamp_coll_ctx_t *c, const llamp_coll_algo_t *algo, int root, uint64_t bytes,
                    const uint64_t *counts, int tag_add) {
  const llamp_coll_algo_t *algo0 = c->algo;
  const llamp_coll_args_t *a0 = c->a;
  const llamp_coll_kind_t kind0 = c->kind;
  const int tag0 = c->tag_add;
  llamp_coll_args_t a = *a0;
  a.root = root;
  a.bytes = bytes;
  a.counts = counts;
  a.rcounts = NULL;
  c->algo = algo;
  c->a = &a;
  c->kind = llamp_coll_kind_blocking(algo->kind);
  c->tag_add = tag0 + tag_add;
  int rc = algo->expand(c);
  c->algo = algo0;
  c->a = a0;
  c->kind = kind0;
  c->tag_add = tag0;
  return rc;
}

int llamp_coll_expand(llamp_coll_kind_t kind, const char *algorithm, const llamp_coll_args_t *a,
                      const llamp_coll_emit_t *emit, char *err, size_t errlen) {
  const llamp_coll_algo_t *algo;
  if (llamp_coll_lookup(kind, algorithm, &algo, err, errlen) != 0) return -1;
  return llamp_coll_run(algo, a, emit, err, errlen);
}

/* ---- counting ---------------------------------------------------------------------- */

static int count_send(void *ctx, int peer, uint64_t bytes, int tag) {
  (void)peer, (void)tag;
  llamp_coll_stats_t *s = ctx;
  s->sends++;
  s->bytes_sent += bytes;
  return 0;
}
static int count_recv(void *ctx, int peer, uint64_t bytes, int tag) {
  (void)peer, (void)tag;
  llamp_coll_stats_t *s = ctx;
  s->recvs++;
  s->bytes_recv += bytes;
  return 0;
}
static int count_calc(void *ctx, uint64_t bytes) {
  llamp_coll_stats_t *s = ctx;
  s->calcs++;
  s->bytes_reduced += bytes;
  return 0;
}
static int count_round(void *ctx) {
  llamp_coll_stats_t *s = ctx;
  s->rounds++;
  return 0;
}

int llamp_coll_count(const llamp_coll_algo_t *algo, const llamp_coll_args_t *a,
                     llamp_coll_stats_t *stats, char *err, size_t errlen) {
  memset(stats, 0, sizeof *stats);
  llamp_coll_emit_t e = {stats, count_send, count_recv, count_calc, count_round, NULL};
  return llamp_coll_run(algo, a, &e, err, errlen);
}

/* ---- selections ---------------------------------------------------------------------- */

void llamp_coll_selection_default(llamp_coll_selection_t *sel) {
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++)
    sel->algo[k] = llamp_coll_find((llamp_coll_kind_t)k, NULL);
}

static int is_sep(char ch) { return ch == ',' || ch == ';' || isspace((unsigned char)ch); }

int llamp_coll_update_selection(const char *spec, llamp_coll_selection_t *sel, char *err,
                                size_t errlen) {
  llamp_coll_selection_t tmp = *sel;
  const char *s = spec ? spec : "";
  while (*s) {
    while (*s && is_sep(*s)) s++;
    if (!*s) break;
    const char *item = s;
    while (*s && !is_sep(*s)) s++;
    size_t len = (size_t)(s - item);
    const char *eq = memchr(item, '=', len);
    if (!eq) {
      set_err(err, errlen, "collective selection: '%.*s' is not collective=algorithm", (int)len,
              item);
      return -1;
    }
    llamp_coll_kind_t kind;
    if (kind_match(item, (size_t)(eq - item), &kind) != 0) {
      set_err(err, errlen,
              "collective selection: unknown collective '%.*s' (valid: ", (int)(eq - item), item);
      list_kinds(err, errlen);
      return -1;
    }
    const char *name = eq + 1;
    int nlen = (int)(item + len - name);
    char buf[64];
    if (nlen <= 0 || nlen >= (int)sizeof buf) {
      unknown_algo(kind, name, nlen > 0 ? nlen : 0, err, errlen);
      return -1;
    }
    memcpy(buf, name, (size_t)nlen);
    buf[nlen] = '\0';
    const llamp_coll_algo_t *a = llamp_coll_find(kind, buf);
    if (!a) {
      unknown_algo(kind, name, nlen, err, errlen);
      return -1;
    }
    tmp.algo[kind] = a;
  }
  *sel = tmp;
  return 0;
}

int llamp_coll_parse_selection(const char *spec, llamp_coll_selection_t *sel, char *err,
                               size_t errlen) {
  llamp_coll_selection_t tmp;
  llamp_coll_selection_default(&tmp);
  if (llamp_coll_update_selection(spec, &tmp, err, errlen) != 0) return -1;
  *sel = tmp;
  return 0;
}

/* snprintf-style appender: keeps counting when the buffer is full. */
typedef struct {
  char *buf;
  size_t len, used;
} sbuf_t;

static void sb_add(sbuf_t *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t room = b->used < b->len ? b->len - b->used : 0;
  int n = vsnprintf(room ? b->buf + b->used : NULL, room, fmt, ap);
  va_end(ap);
  if (n > 0) b->used += (size_t)n;
}

int llamp_coll_selection_format(const llamp_coll_selection_t *sel, char *buf, size_t len) {
  sbuf_t b = {buf, len, 0};
  if (buf && len) buf[0] = '\0';
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++) {
    const llamp_coll_algo_t *a = sel->algo[k] ? sel->algo[k] : llamp_coll_find(k, NULL);
    sb_add(&b, "%s%s=%s", k ? "," : "", kind_names[k], a->name);
  }
  return (int)b.used;
}

int llamp_coll_selection_smpi_cfg_only(const llamp_coll_selection_t *sel, const int *only,
                                       char *buf, size_t len, char *missing, size_t missinglen) {
  sbuf_t b = {buf, len, 0}, m = {missing, missinglen, 0};
  if (buf && len) buf[0] = '\0';
  if (missing && missinglen) missing[0] = '\0';
  int nmissing = 0;
  const char *keys[LLAMP_COLL_NUM_KINDS] = {0}; /* "smpi/<key>:" already written, per kind */
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++) {
    if (only && !only[k]) continue;
    const llamp_coll_algo_t *a = sel->algo[k] ? sel->algo[k] : llamp_coll_find(k, NULL);
    int builtin = a->smpi && strcmp(a->smpi, "(built-in)") == 0;
    /* SMPI runs one fixed algorithm per nonblocking collective */
    if (llamp_coll_kind_nonblocking((llamp_coll_kind_t)k) && (int)a->kind == k && builtin) continue;
    if (builtin && (int)a->kind == k) continue;
    if (!a->smpi || builtin || llamp_coll_kind_nonblocking((llamp_coll_kind_t)k)) {
      sb_add(&m, "%s%s=%s", nmissing ? " " : "", kind_names[k], a->name);
      nmissing++;
      continue;
    }
    const char *colon = strchr(a->smpi, ':');
    size_t keylen = colon ? (size_t)(colon - a->smpi) : strlen(a->smpi);
    int clash = 0, dup = 0;
    for (int j = 0; j < k; j++) {
      if (!keys[j] || strncmp(keys[j], a->smpi, keylen) != 0 || keys[j][keylen] != ':') continue;
      if (strcmp(keys[j], a->smpi) == 0)
        dup = 1;
      else
        clash = 1;
    }
    if (clash) {
      sb_add(&m, "%s%s=%s", nmissing ? " " : "", kind_names[k], a->name);
      nmissing++;
      continue;
    }
    keys[k] = a->smpi;
    if (!dup) sb_add(&b, "%s--cfg=%s", b.used ? " " : "", a->smpi);
  }
  return nmissing;
}

int llamp_coll_selection_smpi_cfg(const llamp_coll_selection_t *sel, char *buf, size_t len,
                                  char *missing, size_t missinglen) {
  return llamp_coll_selection_smpi_cfg_only(sel, NULL, buf, len, missing, missinglen);
}

/* ---- what SimGrid runs ------------------------------------------------------------------ */

const char *llamp_coll_smpi_key(llamp_coll_kind_t kind) {
  switch (kind) {
  case LLAMP_COLL_BARRIER: return "barrier";
  case LLAMP_COLL_BCAST: return "bcast";
  case LLAMP_COLL_REDUCE: return "reduce";
  case LLAMP_COLL_ALLREDUCE: return "allreduce";
  case LLAMP_COLL_GATHER: return "gather";
  case LLAMP_COLL_SCATTER: return "scatter";
  case LLAMP_COLL_ALLGATHER: return "allgather";
  case LLAMP_COLL_ALLGATHERV: return "allgatherv";
  case LLAMP_COLL_ALLTOALL: return "alltoall";
  case LLAMP_COLL_ALLTOALLV: return "alltoallv";
  case LLAMP_COLL_REDUCE_SCATTER:
  case LLAMP_COLL_REDUCE_SCATTER_BLOCK: return "reduce_scatter";
  default: return NULL;
  }
}

/* SMPI names that no registry entry carries as its own: the default
 * selector's choices and second names of the same structure. */
static const struct {
  llamp_coll_kind_t kind;
  const char *smpi, *ours, *note;
} smpi_aliases[] = {
    {LLAMP_COLL_BARRIER, "default", "linear", ""},
    {LLAMP_COLL_BCAST, "default", "binomial", ""},
    {LLAMP_COLL_REDUCE, "ompi_basic_linear", "linear", ""},
    {LLAMP_COLL_SCATTER, "default", "linear_nb", ""},
    {LLAMP_COLL_ALLTOALL, "default", "ompi", ""},
    {LLAMP_COLL_ALLTOALL, "pair", "pairwise", ""}, /* SMPI's pair: powers of two only */
    {LLAMP_COLL_ALLTOALLV, "default", "linear", ""},
    {LLAMP_COLL_ALLTOALLV, "pair", "pairwise", ""}, /* SMPI's pair: powers of two only */
};

const llamp_coll_algo_t *llamp_coll_smpi_find(llamp_coll_kind_t kind, const char *name,
                                              const char **note) {
  if ((int)kind < 0 || kind >= LLAMP_COLL_NUM_KINDS) return NULL;
  const char *key = llamp_coll_smpi_key(kind);
  const llamp_coll_algo_t *found = NULL;
  const char *alias_note = NULL;
  if (!key) { /* SMPI's fixed algorithm */
    for (size_t i = 0; i < NUM_ALGOS && !found; i++)
      if (algos[i].kind == kind && algos[i].smpi && !strcmp(algos[i].smpi, "(built-in)"))
        found = &algos[i];
  } else if (name) {
    for (size_t i = 0; i < sizeof smpi_aliases / sizeof smpi_aliases[0] && !found; i++)
      if (smpi_aliases[i].kind == kind && !strcmp(smpi_aliases[i].smpi, name)) {
        found = llamp_coll_find(kind, smpi_aliases[i].ours);
        alias_note = smpi_aliases[i].note;
      }
    /* smpi/<key>:<name>, exact entries first */
    size_t klen = strlen(key);
    for (int pass = 0; pass < 2 && !found; pass++)
      for (size_t i = 0; i < NUM_ALGOS && !found; i++) {
        const char *sm = algos[i].smpi;
        if (algos[i].kind != kind || !sm || algos[i].smpi_exact != !pass) continue;
        if (!strncmp(sm, "smpi/", 5) && !strncmp(sm + 5, key, klen) && sm[5 + klen] == ':' &&
            !strcmp(sm + 6 + klen, name))
          found = &algos[i];
      }
  }
  if (note) *note = !found ? "" : alias_note ? alias_note : found->smpi_exact ? "" : found->smpi_note;
  return found;
}

/* ---- reductions SMPI runs otherwise ------------------------------------------------ */

static int reduce_follows(const llamp_coll_algo_t *reduce) {
  /* SMPI's default reduce switches to basic linear, as linear_nb does here;
   * flat tree and basic linear have one structure for any operation */
  return !strcmp(reduce->name, "linear_nb") || !strcmp(reduce->name, "linear");
}

int llamp_coll_flags_followed(const llamp_coll_selection_t *sel, llamp_coll_kind_t kind,
                              const llamp_coll_args_t *a) {
  if (!(a->flags & LLAMP_COLL_F_NONCOMMUTATIVE) || llamp_coll_kind_nonblocking(kind)) return 1;
  llamp_coll_selection_t def;
  if (!sel) {
    llamp_coll_selection_default(&def);
    sel = &def;
  }
  const llamp_coll_algo_t *algo = sel->algo[kind];
  if (!algo) return 1;
  const char *n = algo->name;
  const int reduce_ok = sel->algo[LLAMP_COLL_REDUCE] && reduce_follows(sel->algo[LLAMP_COLL_REDUCE]);
  switch (kind) {
  case LLAMP_COLL_REDUCE:
    return reduce_follows(algo);
  case LLAMP_COLL_ALLREDUCE: {
    if (!strcmp(n, "recursive_doubling")) return 1; /* SMPI's rdb only orders the operands */
    if (!strcmp(n, "reduce_bcast") || !strcmp(n, "lr")) return reduce_ok;
    int choice = 0;
    if (!strcmp(n, "ompi") || (!strcmp(n, "linear_reduce_bcast") && (a->flags & LLAMP_COLL_F_DERIVED)))
      choice = llamp_coll_allreduce_ompi_choice(a->size, a->bytes, 1);
    else if (!strcmp(n, "linear_reduce_bcast"))
      return 1; /* its own default reduce follows */
    else
      return 0;
    return choice == 3 ? 1 : choice == 6 ? 0 : reduce_ok;
  }
  case LLAMP_COLL_REDUCE_SCATTER:
  case LLAMP_COLL_REDUCE_SCATTER_BLOCK:
    if (strcmp(n, "reduce_scatterv")) return 0;
    if (kind == LLAMP_COLL_REDUCE_SCATTER_BLOCK || !a->counts) return 1;
    for (int i = 1; i < a->size; i++)
      if (a->counts[i] != a->counts[0]) return 0; /* SMPI's mpich choice, non-commutative */
    return 1;
  default:
    return 1;
  }
}
