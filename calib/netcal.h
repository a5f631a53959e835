/* netcal.h - what the network benchmark (netbench.c) and the fitter
 * (netfit.c) share: the measurement kinds, the raw file's columns and the
 * receiver's delay.  docs/calib.md, "Network calibration". */
#ifndef LLAMP_NETCAL_H
#define LLAMP_NETCAL_H

/* One raw line per sample:  kind,scope,size,duration,load
 *   kind      one of the names below
 *   scope     intra (both ranks on one node) or inter
 *   size      message size in bytes (integer >= 0)
 *   duration  seconds (the median of the sample's repetitions)
 *   load      0, or 1 when both ranks ran the compute load before each
 *             repetition (dgemm-like loop + MPI_Iprobe, seed 004 Sec. 4.1) */
#define NETCAL_CSV_HEADER "kind,scope,size,duration,load"

typedef enum {
  NETCAL_PINGPONG, /* half the round trip of MPI_Send/MPI_Recv: the one-way time */
  NETCAL_SEND,     /* MPI_Send call, receive pre-posted: o_s(s) */
  NETCAL_RECV,     /* MPI_Recv call of a message sent netcal_delay(s) earlier: o_r(s) */
  NETCAL_ISEND,    /* MPI_Isend call, receive pre-posted: o_is(s) */
  NETCAL_LATE,     /* MPI_Send call, receive posted netcal_delay(s) later:
                      eager when the call returns before netcal_delay(s) / 2 */
  NETCAL_NKINDS
} netcal_kind_t;

static const char *const netcal_kind_names[NETCAL_NKINDS] = {"pingpong", "send", "recv", "isend", "late"};

/* The receiver's delay for `recv` and `late`: well beyond the one-way time
 * of `size` bytes on any network this runs on (>= 0.5 GB/s). */
static inline double netcal_delay(double size) { return 50e-6 + 2e-9 * size; }

/* `late` sizes stop here: beyond, every MPI sends by rendezvous. */
#define NETCAL_LATE_MAX (4L << 20)
#endif
