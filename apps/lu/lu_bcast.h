/* lu_bcast.h: HPL's six panel broadcasts along a process row, over
 * point-to-point messages.
 *
 * The root (the process column that factored the panel) sends the packed
 * panel to the other Q-1 processes of its row:
 *
 *   1ring    root -> 1 -> 2 -> ... -> Q-1 (each forwards to the next)
 *   1ringM   root -> 1 (which keeps it), then root -> 2 -> 3 -> ... -> Q-1
 *   2ring    two chains: root -> 1 -> ... -> h and root -> h+1 -> ... -> Q-1
 *   2ringM   root -> 1 (keeps it), then two chains over 2..Q-1
 *   long     spread and roll: the panel is cut into Q-1 pieces, scattered by
 *            a binomial tree (spread), then passed around the ring of the
 *            Q-1 receivers until everyone has all pieces (roll)
 *   longM    root -> 1 whole panel (keeps it), then long over root, 2..Q-1
 *
 * Positions are relative to the root (increasing mod Q).  The "modified"
 * variants serve process 1 -- the next panel's root -- first and take it out
 * of the broadcast, as in HPL.
 *
 * The ring variants are non-blocking: the root's sends and a receiver's
 * receive are posted by lu_bcast_start; lu_bcast_progress (called between
 * update chunks) tests the receive and forwards as soon as it completed;
 * lu_bcast_wait finishes.  The long variants are blocking, as in HPL 2.x: the
 * root runs the whole broadcast in lu_bcast_start, the receivers in
 * lu_bcast_wait.
 */
#ifndef LU_BCAST_H
#define LU_BCAST_H

#include <mpi.h>

typedef enum {
    LU_BCAST_1RING,
    LU_BCAST_1RINGM,
    LU_BCAST_2RING,
    LU_BCAST_2RINGM,
    LU_BCAST_LONG,
    LU_BCAST_LONGM,
    LU_BCAST_COUNT
} lu_bcast_variant_t;

/* HPL's names ("1ring", "1ringM", "2ring", "2ringM", "long", "longM"),
 * also accepted: ring, ring-modified, 2-ring, 2-ring-modified, long-modified.
 * Returns -1 for an unknown name. */
int lu_bcast_parse(const char *name);
const char *lu_bcast_name(int variant);

typedef struct {
    int variant;
    MPI_Comm comm; /* the process row; rank = process column */
    int root, me, q;
    int tag;
    double *buf;
    int count;
    int active;     /* started, not yet waited */
    int received;   /* this process has the whole panel */
    MPI_Request rreq;
    MPI_Request sreq[3];
    int nsend;
} lu_bcast_t;

/* Begins broadcasting buf[0..count) from `root` over `comm` (panel number
 * `k` picks the tags).  Every process of the row calls it; the root with the
 * panel in buf, the others with room for it. */
void lu_bcast_start(lu_bcast_t *b, int variant, MPI_Comm comm, int root, int k, double *buf,
                    int count);

/* Lets a ring broadcast advance (test the receive, forward).  Cheap; returns
 * 1 when this process has the panel. */
int lu_bcast_progress(lu_bcast_t *b);

/* Completes this process's part: the panel is in buf and its sends are done. */
void lu_bcast_wait(lu_bcast_t *b);

#endif /* LU_BCAST_H */
