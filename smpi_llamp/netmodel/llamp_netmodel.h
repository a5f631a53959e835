/* llamp_netmodel.h - size-dependent (piecewise) message costs: SMPI's
 * os/or/ois overheads and lat-factor/bw-factor, or a calibrated LogGPS fit,
 * as the DAG charges them (docs/model.md, "Size-dependent costs").
 *
 * Error rule: int functions return 0 / -1 with a one-line reason in the
 * caller's `err` buffer; nothing is printed.
 *
 * A model gives, for a message of s bytes (the payload, as the trace
 * records it):
 *   cpu_send(s)   CPU time of a blocking send      (SMPI: os, eager only)
 *   cpu_isend(s)  CPU time of a nonblocking send   (SMPI: ois, any size)
 *   cpu_recv(s)   CPU time of a receive            (SMPI: or, eager only)
 *   c(s), k(s)    the transfer time L + c(s) + k(s) G, affine in L and G:
 *     factors     c = (lat_factor(s + env) - 1) L_ref,  k = (s + env) / bw_factor(s + env)
 *                 (SimGrid: latency x lat_factor + (s + 16) / (bandwidth x bw_factor))
 *     one-way     c = offset(s) - L_ref,  k = per_byte(s) s / G_ref  (a fitted curve)
 * so that at L = L_ref and G = G_ref the transfer time is the model's, and
 * L, G stay an additive offset and a scale of it.  L_ref is the latency the
 * curves were made for (SimGrid: the route latency), G_ref = 1 / bandwidth. */
#ifndef LLAMP_NETMODEL_H
#define LLAMP_NETMODEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LLAMP_NETMODEL_MAX_SEGS 512 /* calibrated curves come in many short pieces */

/* One piece: value(s) = offset + per_byte * s for from <= s < next from. */
typedef struct {
  double from, offset, per_byte;
} llamp_netmodel_seg_t;

/* Pieces sorted by `from`, the first one from 0; n = 0: not given. */
typedef struct {
  unsigned n;
  llamp_netmodel_seg_t seg[LLAMP_NETMODEL_MAX_SEGS];
} llamp_netmodel_curve_t;

typedef struct {
  llamp_netmodel_curve_t o_send, o_isend, o_recv; /* seconds (absent: 0) */
  llamp_netmodel_curve_t lat_factor, bw_factor;   /* factors (absent: 1) */
  llamp_netmodel_curve_t one_way;                 /* seconds; used when no factor is given */
  double envelope;     /* bytes added to s by the factors' transfer (SMPI: 16) */
  double L_ref, G_ref; /* s, s/B: what the curves assume (G_ref > 0 for one_way) */
  char source[512];    /* where it comes from, for reports */
} llamp_netmodel_t;

/* The costs of one message of s bytes (see the top of this file). */
typedef struct {
  double cpu_send, cpu_isend, cpu_recv, c, k;
} llamp_netmodel_msg_t;

/* Every curve absent, envelope 16, L_ref = G_ref = 0. */
void llamp_netmodel_init(llamp_netmodel_t *m);

/* Parse a SimGrid piecewise setting into a curve, with SimGrid's own
 * semantics (smpi_utils.cpp parse_factor, smpi_host.cpp, network_smpi.cpp):
 *   overhead  "T:OFFSET:PER_BYTE;..."  a section holds for s > T, the first
 *             one also below its T (values may carry a time unit: "1us");
 *   factor    "T:F;..."  a section holds for s + envelope > T, 1 below the
 *             first; stored shifted into the payload size s.
 * `name` prefixes the error ("smpi/os"). */
int llamp_netmodel_parse_overhead(const char *text, const char *name, llamp_netmodel_curve_t *out,
                                  char *err, size_t errlen);
int llamp_netmodel_parse_factor(const char *text, const char *name, double envelope,
                                llamp_netmodel_curve_t *out, char *err, size_t errlen);

/* Check a curve given as pieces (the `network` group): sorted, first from 0,
 * finite non-negative values (factors: > 0 when `factor`). */
int llamp_netmodel_curve_check(const llamp_netmodel_curve_t *c, const char *name, int factor,
                               char *err, size_t errlen);

/* A curve's value at s (`absent` when it has no piece). */
double llamp_netmodel_curve_eval(const llamp_netmodel_curve_t *c, double s, double absent);

/* The costs of a message of s bytes; `eager` (s <= S) decides os / or. */
void llamp_netmodel_message(const llamp_netmodel_t *m, double s, int eager,
                            llamp_netmodel_msg_t *out);

/* What the DAG charges a send or receive vertex of an s-byte message (the
 * engine and the LP export both use this): cpu = CPU time besides o (a
 * blocking send: cpu_send, a send `nonblocking` -- one some successor only
 * irequires or one flagged LLAMP_VERTEX_F_ISEND, as SMPI's MPI_Isend,
 * Sendrecv and collectives charge -- cpu_isend; `nonblocking` 2, the
 * MPI_Start of an MPI_Send_init request (LLAMP_VERTEX_F_OS): cpu_send; a
 * receive: cpu_recv), c and k = its transfer, start = what an irequires
 * successor waits (an Isend's cpu_isend, a Start's cpu_send, else 0).  SMPI
 * sleeps os in a detached send (s <= S) and in a synchronous one (`sync`,
 * never detached), or in a receive from a detached send only. */
typedef struct {
  double cpu, c, k, start;
} llamp_netmodel_vertex_t;
void llamp_netmodel_vertex(const llamp_netmodel_t *m, int is_send, int nonblocking, double s, double S,
                           int sync, llamp_netmodel_vertex_t *out);

/* 1 when c(s) comes from SimGrid's factors ((lat_factor - 1) L_ref), 0 for a
 * fitted one-way curve. */
int llamp_netmodel_by_factors(const llamp_netmodel_t *m);
/* c(s) of a message whose route has latency route_lat: SimGrid multiplies
 * each route's own latency by lat_factor (network_cm02.cpp,
 * comm_action_set_bounds), so with the factors c scales to (lat_factor - 1)
 * route_lat (0 when L_ref is 0); a fitted curve's c holds for every route. */
double llamp_netmodel_route_c(const llamp_netmodel_t *m, double c, double route_lat);

/* 1 when the model charges exactly what the scalar LogGPS model of
 * docs/model.md does up to its 16-byte envelope (no overhead, factors 1). */
int llamp_netmodel_is_trivial(const llamp_netmodel_t *m);

/* ---- model files (netmodel_file.c, libsmpi_llamp_netmodel_file: libconfig) ---- */

#define LLAMP_NETMODEL_MAX_SETTINGS 8

/* What a model file's `smpi` and `network` groups say (docs/models.md). */
typedef struct {
  int have_model;        /* 1: `model` holds the smpi group's, else the network group's costs */
  const char *group;     /* "smpi", "network" or "" */
  llamp_netmodel_t model;
  int have_S;            /* the eager limit: smpi.send_is_detached_thresh - 1, network.eager_max */
  double S;
  int have_L, have_G;    /* the reference values, also the parameters' L0 and G0 */
  double L, G;
  /* the smpi group as SimGrid settings (smpi_llamp-run passes them as --cfg) */
  unsigned nsettings;
  char key[LLAMP_NETMODEL_MAX_SETTINGS][40];    /* "smpi/os", "smpi/lat-factor", ... */
  char value[LLAMP_NETMODEL_MAX_SETTINGS][16384];
} llamp_netmodel_file_t;

/* Read the `smpi` and `network` groups of a libconfig model file; a file
 * with neither leaves have_model 0.  Errors name file:line, the key and
 * what was expected.  L_ref and G_ref default to `L0` and `G0` (the
 * caller's loggps values) when the file does not give them. */
int llamp_netmodel_file_read(const char *path, double L0, double G0, llamp_netmodel_file_t *out,
                             char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
