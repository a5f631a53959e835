/* llamp_topo.h - the platform's routes between the hosts of a run, and what
 * they make of each message's cost: hop counts and the coefficients of the
 * topology parameters (docs/topology.md).
 *
 * Error rule: int functions return 0 / -1 and pointer functions NULL, with a
 * one-line reason in the caller's `err` buffer; nothing is printed.
 *
 * A routes table holds hosts, the links their routes cross (latency,
 * bandwidth, shared or not, a class), every host pair's route (its links in
 * order) and each rank's host.  The capture fills it from SimGrid
 * (llamp_topo_sg.h) and writes it as `routes.txt` next to the graph; `llamp
 * analyze --routes` reads it back.  From a table the engine gets, per rank
 * pair, a message latency that is affine in the topology parameters
 * (llamp_engine.h, llamp_pairs_t):
 *
 *     latency(i, j) = L + c0(i, j) + n_link(i, j) l_wire + n_switch(i, j) d_switch
 *                       + sum_k n_k(i, j) dl_k                (per link class k)
 *     per byte      = G x gscale(i, j)
 *
 * with the reference values chosen so that at L = L0, l_wire = l_wire0,
 * d_switch = 0 and dl_k = 0 every pair costs exactly its route's latency
 * and 1 / bandwidth (docs/topology.md, "Reference values").
 *
 * Hop links are a route's links except SimGrid's zero-latency limiter links
 * (`*_limiter`); loopback links (`*_loopback`, `self*`) are their own class
 * and no hop.  A route of n hop links crosses n - 1 switches (routers; on a
 * torus the hosts in between), minus one per cluster backbone link
 * (`*_backbone`, which models the one switch it belongs to). */
#ifndef LLAMP_TOPO_H
#define LLAMP_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "llamp_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LLAMP_TOPO_MAX_CLASSES 6

typedef struct llamp_topo llamp_topo_t;

/* One route summarised. */
typedef struct {
  double latency;   /* sum of its links' latencies, s */
  double bandwidth; /* what one flow gets alone, B/s (INFINITY: no link): its smallest link
                       bandwidth, with the table's flow bounds (llamp_topo_set_flow) */
  uint32_t links;   /* hop links */
  uint32_t switches;
  uint32_t per_class[LLAMP_TOPO_MAX_CLASSES]; /* links per class (loopback included) */
} llamp_topo_route_t;

/* ---- building (the capture, the tools) ----------------------------------------- */

llamp_topo_t *llamp_topo_create(void);
void llamp_topo_destroy(llamp_topo_t *t);
/* Host index of `name`, added if new; -1 when out of memory. */
int64_t llamp_topo_host(llamp_topo_t *t, const char *name);
/* Link index of `name`, added with these properties if new. */
int64_t llamp_topo_link(llamp_topo_t *t, const char *name, double latency, double bandwidth,
                        int shared);
/* The route from host a to host b: `n` link indices in the order crossed. */
int llamp_topo_set_route(llamp_topo_t *t, uint32_t a, uint32_t b, const uint32_t *links, size_t n,
                         char *err, size_t errlen);
/* SimGrid's bounds on one flow besides its links' bandwidths (network_cm02.cpp):
 * network/TCP-gamma (0: none) caps it at tcp_gamma / (2 x route latency);
 * with network/crosstraffic a transfer also takes 5 % of each link of the
 * back route, so a shared (not fatpipe) link on both routes carries 1.05
 * of it.  A table without them (0, 0: older routes files) has neither. */
void llamp_topo_set_flow(llamp_topo_t *t, double tcp_gamma, int crosstraffic);
/* Each rank's host (P entries). */
int llamp_topo_set_ranks(llamp_topo_t *t, uint32_t P, const uint32_t *host_of_rank, char *err,
                         size_t errlen);
/* Classify the links (after adding them all): dragonfly names (local_link:
 * terminal, green/black_link: intra, blue_link: inter), else the link's
 * level = its distance from the nearer end of the routes it is on (0 =
 * host link), capped at LLAMP_TOPO_MAX_CLASSES - 2; loopbacks: "loopback". */
int llamp_topo_classify(llamp_topo_t *t, char *err, size_t errlen);

/* A subset table holds only the routes of some host pairs (the capture's,
 * for the pairs its messages use on large runs: docs/topology.md, "Large
 * runs"); the reference point and per-pair costs then come from those
 * routes, and a pair outside them is an error where it is needed. */
void llamp_topo_set_subset(llamp_topo_t *t);
int llamp_topo_is_subset(const llamp_topo_t *t);
/* Above this many ranks the engine's per-pair costs are kept per host pair
 * present (sparse), not in a ranks x ranks table. */
#define LLAMP_TOPO_DENSE_MAX_RANKS 1024u

/* ---- the routes file ------------------------------------------------------------ */

int llamp_topo_write(const llamp_topo_t *t, const char *path, char *err, size_t errlen);
/* Errors name the file, the line and what was expected. */
llamp_topo_t *llamp_topo_read(const char *path, char *err, size_t errlen);

/* ---- reading ---------------------------------------------------------------------- */

uint32_t llamp_topo_num_hosts(const llamp_topo_t *t);
uint32_t llamp_topo_num_links(const llamp_topo_t *t);
uint32_t llamp_topo_num_ranks(const llamp_topo_t *t);
uint32_t llamp_topo_num_classes(const llamp_topo_t *t);
const char *llamp_topo_host_name(const llamp_topo_t *t, uint32_t h);
const char *llamp_topo_class_name(const llamp_topo_t *t, uint32_t c);
uint32_t llamp_topo_rank_host(const llamp_topo_t *t, uint32_t rank);
/* 0, or -1 when the table has no route from a to b. */
int llamp_topo_route(const llamp_topo_t *t, uint32_t a, uint32_t b, llamp_topo_route_t *out);
/* The links of the route a -> b (valid while t lives); NULL: no route. */
const uint32_t *llamp_topo_route_links(const llamp_topo_t *t, uint32_t a, uint32_t b, size_t *n);
const char *llamp_topo_link_name(const llamp_topo_t *t, uint32_t l);
int llamp_topo_link_shared(const llamp_topo_t *t, uint32_t l);

/* The reference point of a mapping of P ranks to hosts (host_of_rank NULL:
 * the table's own; docs/topology.md): L0 = the shortest route latency
 * between two distinct hosts of the ranks (the route to oneself when every
 * rank shares one host), G0 = 1 / the largest such route bandwidth, l_wire0
 * = the most common hop-link latency, d_switch0 = 0.  Of a subset table:
 * over the routes it holds between hosts of the ranks. */
typedef struct {
  double L0, G0, l_wire0, d_switch0;
} llamp_topo_ref_t;
int llamp_topo_reference(const llamp_topo_t *t, const uint32_t *host_of_rank, uint32_t P,
                         llamp_topo_ref_t *out, char *err, size_t errlen);

/* The engine's per-pair costs under a rank -> host mapping of P ranks
 * (host_of_rank NULL: the table's own ranks, P ignored) around `ref`: parameters l_wire, d_switch, then dl_<class>
 * for every class present.  Free with llamp_pairs_free. */
llamp_pairs_t *llamp_topo_pairs(const llamp_topo_t *t, const uint32_t *host_of_rank, uint32_t P,
                                const llamp_topo_ref_t *ref, char *err, size_t errlen);
void llamp_pairs_free(llamp_pairs_t *p);

/* Do the routes a -> b and c -> d share a link (a shared one, or any when
 * `any`)?  1 yes, 0 no. */
int llamp_topo_routes_share(const llamp_topo_t *t, uint32_t a, uint32_t b, uint32_t c, uint32_t d);

#ifdef __cplusplus
}
#endif
#endif
