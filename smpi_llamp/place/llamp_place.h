/* llamp_place.h - rank placement with the engine as the objective: the
 * iterative swap heuristic of seed 000 App. J (Algorithm 3) driven by the
 * per-pair sensitivities (llamp_engine_pair_lambda), over the hosts of a
 * routes table (llamp_topo.h).  docs/topology.md, "Rank placement".
 *
 * Error rule: pointer functions return NULL and int functions -1, with a
 * one-line reason in the caller's `err` buffer; nothing is printed.
 *
 * The candidate hosts are the routes table's hosts (in its order: SimGrid's
 * for a table written by `llamp-routes PLATFORM -n N`), each with `slots`
 * places.  A mapping gives each of the P ranks a host (host_of_rank[r]); no
 * host gets more than `slots` ranks.  Its cost is the engine's T with every
 * message charged its route: a latency term costs L + (route latency - L0)
 * and a byte G x (G_route / G0), L0 and G0 being the shortest route latency
 * and the largest route bandwidth between distinct candidate hosts (so at L
 * = L0, G = G0 each message costs exactly its route, as `llamp analyze
 * --routes R --hostfile H` charges the same mapping).
 *
 * The heuristic (llamp_place_optimize): evaluate T and the per-pair
 * sensitivities lambda_L^{ij}, lambda_G^{ij} at the current mapping;
 * predict for every swap of two ranks (or of a rank and a free place) the
 * change of T to first order, sum over the pairs of either rank of
 * lambda x (new route cost - old route cost); evaluate the swaps with the
 * largest predicted gains in that order and keep the first that lowers T;
 * stop when none of the `tries` best (the paper: 1) lowers T, or no swap is
 * predicted to gain. */
#ifndef LLAMP_PLACE_H
#define LLAMP_PLACE_H

#include <stddef.h>
#include <stdint.h>

#include "llamp_engine.h"
#include "llamp_graph.h"
#include "llamp_topo.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct llamp_place llamp_place_t;

typedef enum {
  LLAMP_PLACE_BLOCK = 0,       /* rank r on host r / slots (fill each host in turn) */
  LLAMP_PLACE_ROUND_ROBIN = 1, /* rank r on host r mod hosts (one per host in turn) */
  LLAMP_PLACE_RANDOM = 2       /* a uniform random assignment of the places (seeded) */
} llamp_place_start_t;

/* The reference L0 and G0 of a routes table's hosts (see above): what L
 * and G default to for placement. */
int llamp_place_reference(const llamp_topo_t *t, double *L0, double *G0, char *err, size_t errlen);

/* Ranks of graph g on the hosts of t, `slots` places per host (0: as few as
 * fit, ceil(P / hosts)), under the model p (its L and G: see above; p->pairs
 * is ignored).  Borrows g and t. */
llamp_place_t *llamp_place_create(const llamp_graph_t *g, const llamp_params_t *p,
                                  const llamp_topo_t *t, uint32_t slots, char *err, size_t errlen);
void llamp_place_destroy(llamp_place_t *pl);
uint32_t llamp_place_ranks(const llamp_place_t *pl);
uint32_t llamp_place_slots(const llamp_place_t *pl);

/* A starting mapping (P entries); `seed` is used by LLAMP_PLACE_RANDOM only. */
int llamp_place_initial(const llamp_place_t *pl, llamp_place_start_t how, uint64_t seed,
                        uint32_t *host_of_rank);
const char *llamp_place_start_name(llamp_place_start_t how); /* "block", "round-robin", "random" */

/* T of a mapping (checked: hosts in range, no host over its slots). */
int llamp_place_eval(llamp_place_t *pl, const uint32_t *host_of_rank, double *T, char *err,
                     size_t errlen);

/* The per-pair sensitivities of a mapping (llamp_engine_pair_lambda). */
int llamp_place_pair_lambda(llamp_place_t *pl, const uint32_t *host_of_rank,
                            llamp_pair_lambda_t **out, size_t *count, char *err, size_t errlen);

typedef struct {
  uint32_t tries;     /* predicted swaps evaluated per iteration (0: 8; 1: the paper's rule) */
  uint32_t max_iters; /* 0: 100000 */
  /* called after every iteration (may be NULL): its number, T, swaps so far */
  void (*progress)(void *ctx, uint32_t iter, double T, uint32_t swaps);
  void *ctx;
} llamp_place_opts_t;

typedef struct {
  double T0, T;          /* at the start and at the end */
  uint32_t iterations;   /* sensitivity evaluations */
  uint32_t swaps;        /* swaps kept */
  uint32_t evaluations;  /* engine passes in all */
  uint32_t rejected;     /* predicted swaps that did not lower T */
} llamp_place_result_t;

/* Improve host_of_rank in place (P entries) by the heuristic above. */
int llamp_place_optimize(llamp_place_t *pl, uint32_t *host_of_rank, const llamp_place_opts_t *o,
                         llamp_place_result_t *res, char *err, size_t errlen);

/* The mapping as a hostfile smpirun accepts: rank r's host on line r + 1. */
int llamp_place_write_hostfile(const llamp_place_t *pl, const uint32_t *host_of_rank,
                               const char *path, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
