/* llamp_goal.h - read and write the GOAL text format of LogGOPSim / Schedgen.
 *
 * Error rule: pointer functions return NULL on failure, int functions 0 / -1.
 * On failure a one-line message "FILE:LINE: what was expected" is written to
 * the caller's `err` buffer (may be NULL); the library never prints and never
 * returns a partial graph.
 *
 * docs/goal.md describes the accepted grammar, the matching rule, the units
 * and what the writer guarantees. */
#ifndef LLAMP_GOAL_H
#define LLAMP_GOAL_H

#include <stddef.h>
#include <stdio.h>

#include "llamp_graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Unit of the integers after `calc` (GOAL convention: ns). */
typedef enum {
  LLAMP_GOAL_PS = 0,
  LLAMP_GOAL_NS = 1, /* default */
  LLAMP_GOAL_US = 2,
  LLAMP_GOAL_MS = 3,
  LLAMP_GOAL_S = 4
} llamp_goal_time_unit_t;

typedef struct {
  llamp_goal_time_unit_t time_unit; /* unit of calc values (read and write) */
  const char *source; /* name quoted in errors; NULL = the path (or "<buffer>") */
} llamp_goal_options_t;

/* Fill *opt with the defaults (ns, source = NULL).  Passing opt = NULL to the
 * functions below means the same. */
void llamp_goal_options_default(llamp_goal_options_t *opt);

/* Parse a time unit name ("ps", "ns", "us", "ms", "s"), as given to the CLI's
 * --goal-time-unit.  Returns 0, or -1 if the name is unknown. */
int llamp_goal_time_unit_parse(const char *name, llamp_goal_time_unit_t *out);
const char *llamp_goal_time_unit_name(llamp_goal_time_unit_t unit);
/* How many of `unit` make one second (1e9 for ns). */
double llamp_goal_time_unit_scale(llamp_goal_time_unit_t unit);

/* Read a GOAL text file into a frozen graph (messages matched, checked). */
llamp_graph_t *llamp_goal_read(const char *path, const llamp_goal_options_t *opt, char *err,
                               size_t errlen);

/* The same from a memory buffer of `len` bytes (need not be NUL-terminated). */
llamp_graph_t *llamp_goal_read_buffer(const char *data, size_t len,
                                      const llamp_goal_options_t *opt, char *err,
                                      size_t errlen);

/* Write g as GOAL text that LogGOPSim's txt2bin accepts: ranks in order, each
 * rank's operations in posting order labelled l<index>, explicit tags, then
 * one requires / irequires line per non-message in-edge.  calc durations are
 * rounded to the nearest integer in opt->time_unit. */
int llamp_goal_write(const llamp_graph_t *g, const char *path, const llamp_goal_options_t *opt,
                     char *err, size_t errlen);

/* The same to an open stream (not closed; flushed on success). */
int llamp_goal_write_stream(const llamp_graph_t *g, FILE *f, const llamp_goal_options_t *opt,
                            char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
