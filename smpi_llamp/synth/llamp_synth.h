/* llamp_synth.h - synthetic execution graphs for tests and benchmarks.
 *
 * A pattern (halo2d, halo3d, allreduce_recdoub, ...) emits operations through
 * a sink: one call per operation, one call per dependency.  Ranks are emitted
 * one after another (every operation of rank 0, then of rank 1, ...), as the
 * graph builder and the GOAL format want each rank's program contiguous.
 * Two sinks come with the module: one feeding a llamp_builder_t (an in-memory
 * llamp_graph_t) and a streaming GOAL text writer that never holds the graph
 * (10^8-event files at disk speed).  Patterns keep O(1) state per rank, with
 * 64-bit counters throughout.
 *
 * Patterns live in one registry (name, help, parameters, function); callers
 * pass parameters as "key=value" strings (`px=16 bytes=8KiB compute=10us`).
 *
 * Error rule: int functions return 0 on success and -1 on failure, pointer
 * functions NULL; the one-line reason is written into the caller's `err`
 * buffer.  The library never prints except into a FILE* the caller passes. */
#ifndef LLAMP_SYNTH_H
#define LLAMP_SYNTH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "llamp_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the sink ----------------------------------------------------------- */

/* Where a pattern's operations go.  `op` and `dep` are required; the others
 * may be NULL.  Values are integers: calc durations in nanoseconds (the GOAL
 * convention), message sizes in bytes.
 *
 *   begin(ctx, num_ranks)   once, before any operation
 *   op(...)                 append an operation to `rank`; returns its local
 *                           index in that rank's program (0, 1, 2, ... in
 *                           call order) or -1 on failure.  Ranks arrive in
 *                           non-decreasing order; a rank with no operation
 *                           is skipped.  peer: destination (send) or source
 *                           (recv, LLAMP_ANY_SOURCE allowed); tag may be
 *                           LLAMP_ANY_TAG on a recv; both ignored for calc.
 *   dep(...)                `after` may start once `before` completed
 *                           (LLAMP_EDGE_REQUIRES) or started (IREQUIRES);
 *                           both are local indices of `rank`, already emitted,
 *                           and rank is the rank of the last op call.
 *   end(ctx)                once, after the last operation (not called when
 *                           the pattern failed)
 *   error(ctx)              the message of the sink's last failure */
typedef struct {
  void *ctx;
  int (*begin)(void *ctx, uint32_t num_ranks);
  int64_t (*op)(void *ctx, uint32_t rank, llamp_vertex_kind_t kind, uint64_t value, int32_t peer,
                int32_t tag);
  int (*dep)(void *ctx, uint32_t rank, int64_t after, int64_t before, llamp_edge_kind_t kind);
  int (*end)(void *ctx);
  const char *(*error)(void *ctx);
} llamp_synth_sink_t;

/* What a pattern emitted (filled by llamp_synth_run). */
typedef struct {
  uint32_t num_ranks;
  uint64_t ops;                 /* all operations (graph vertices) */
  uint64_t calcs, sends, recvs; /* by kind; messages = sends */
  uint64_t requires, irequires; /* dependency lines */
  uint64_t bytes;               /* sum of message sizes */
  uint64_t compute_ns;          /* sum of calc durations */
} llamp_synth_stats_t;

/* ---- the registry ------------------------------------------------------- */

typedef enum {
  LLAMP_SYNTH_INT,   /* non-negative integer, within [min, max] */
  LLAMP_SYNTH_BOOL,  /* 0/1, yes/no, true/false, on/off */
  LLAMP_SYNTH_BYTES, /* size with optional suffix: 8, 8KiB, 1MB (whole bytes) */
  LLAMP_SYNTH_TIME,  /* duration with optional suffix (default ns): 10us, 500 */
  LLAMP_SYNTH_PROB,  /* probability in [0, 1] */
  LLAMP_SYNTH_SIZES  /* ':'-separated list of sizes: 8:1KiB:300KiB (up to 16) */
} llamp_synth_ptype_t;

typedef struct {
  const char *key;
  llamp_synth_ptype_t type;
  const char *def;   /* default, in the same syntax as a user value */
  uint64_t min, max; /* bounds for INT, BYTES and TIME (ns); 0,0 = none */
  const char *help;
} llamp_synth_param_t;

struct llamp_synth_args;
struct llamp_synth_out;

typedef struct {
  const char *name;
  const char *help; /* one line */
  const llamp_synth_param_t *params; /* terminated by an entry with key == NULL */
  int (*run)(const struct llamp_synth_args *args, struct llamp_synth_out *out);
} llamp_synth_pattern_t;

/* The registry: *count patterns (count may be NULL). */
const llamp_synth_pattern_t *llamp_synth_patterns(size_t *count);
/* Look a pattern up by name; NULL when unknown. */
const llamp_synth_pattern_t *llamp_synth_find(const char *name);
/* Print the pattern names with their help lines (for `llamp generate --list`). */
void llamp_synth_print_list(FILE *out);
/* Print one pattern's help and parameters with defaults; -1 (and the list of
 * valid names in err) when the name is unknown. */
int llamp_synth_print_help(const char *pattern, FILE *out, char *err, size_t errlen);

/* ---- running a pattern -------------------------------------------------- */

/* Run `pattern` with `argc` parameters "key=value" into `sink` (NULL: only
 * count; `stats` then tells the size without producing anything).  Unknown
 * pattern names, unknown keys and bad values fail with a one-line message
 * naming the key and what was expected; a failing sink fails the run with
 * the sink's message. */
int llamp_synth_run(const char *pattern, int argc, char *const *argv,
                    const llamp_synth_sink_t *sink, llamp_synth_stats_t *stats, char *err,
                    size_t errlen);

/* Same, with the parameters in one string separated by commas or blanks:
 * "px=4,py=4,iters=10" (NULL or "" = all defaults). */
int llamp_synth_run_str(const char *pattern, const char *params, const llamp_synth_sink_t *sink,
                        llamp_synth_stats_t *stats, char *err, size_t errlen);

/* ---- sink 1: an in-memory graph ----------------------------------------- */

/* Build the pattern into a frozen graph (through llamp_builder_*; calc
 * durations become seconds).  NULL with a message on failure. */
llamp_graph_t *llamp_synth_build(const char *pattern, int argc, char *const *argv,
                                 llamp_synth_stats_t *stats, char *err, size_t errlen);
/* Convenience for tests and benchmarks: params as in llamp_synth_run_str. */
llamp_graph_t *llamp_synth_graph(const char *pattern, const char *params, char *err,
                                 size_t errlen);

/* ---- sink 2: streaming GOAL text ---------------------------------------- */

typedef struct llamp_synth_goal llamp_synth_goal_t;

/* A GOAL writer on an open stream (not closed by the writer); `name` is
 * quoted in error messages (a path, "stdout").  The writer formats into a
 * large buffer and writes it with fwrite; memory use is constant. */
llamp_synth_goal_t *llamp_synth_goal_create(FILE *f, const char *name);
/* Fill *sink with callbacks writing to w. */
void llamp_synth_goal_sink(llamp_synth_goal_t *w, llamp_synth_sink_t *sink);
/* Flush, report the bytes written (may be NULL) and destroy the writer;
 * -1 with a message when any write failed.  Does not fclose. */
int llamp_synth_goal_finish(llamp_synth_goal_t *w, uint64_t *bytes, char *err, size_t errlen);

/* Run a pattern straight into a GOAL file (`path`, "-" = stdout). */
int llamp_synth_write_goal(const char *pattern, int argc, char *const *argv, const char *path,
                           llamp_synth_stats_t *stats, uint64_t *bytes, char *err,
                           size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
