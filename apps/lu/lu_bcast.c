/* lu_bcast.c: the six HPL panel broadcasts (see lu_bcast.h). */
#define _GNU_SOURCE
#include "lu_bcast.h"
#include "llamp_app.h"

#include <string.h>

static const char *const names[LU_BCAST_COUNT] = {"1ring", "1ringM", "2ring",
                                                  "2ringM", "long", "longM"};

int lu_bcast_parse(const char *name)
{
    static const struct {
        const char *alias;
        int v;
    } aliases[] = {{"ring", LU_BCAST_1RING},          {"ring-modified", LU_BCAST_1RINGM},
                   {"2-ring", LU_BCAST_2RING},        {"2-ring-modified", LU_BCAST_2RINGM},
                   {"long-modified", LU_BCAST_LONGM}, {"1rg", LU_BCAST_1RING},
                   {"1rM", LU_BCAST_1RINGM},          {"2rg", LU_BCAST_2RING},
                   {"2rM", LU_BCAST_2RINGM},          {"Lng", LU_BCAST_LONG},
                   {"LnM", LU_BCAST_LONGM}};
    for (int v = 0; v < LU_BCAST_COUNT; v++)
        if (strcmp(name, names[v]) == 0)
            return v;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].alias) == 0)
            return aliases[i].v;
    return -1;
}

const char *lu_bcast_name(int variant)
{
    return variant >= 0 && variant < LU_BCAST_COUNT ? names[variant] : "?";
}

static int is_modified(int v)
{
    return v == LU_BCAST_1RINGM || v == LU_BCAST_2RINGM || v == LU_BCAST_LONGM;
}

static int is_long(int v)
{
    return v == LU_BCAST_LONG || v == LU_BCAST_LONGM;
}

/* Parent and children (in send order) of relative position `rel` in a ring
 * variant over q processes; parent -1 for the root. */
static void ring_links(int variant, int q, int rel, int *parent, int child[3], int *nchild)
{
    int modified = is_modified(variant);
    int two = variant == LU_BCAST_2RING || variant == LU_BCAST_2RINGM;
    int lo = modified ? 2 : 1, n = q - lo;
    int start[2], end[2], nseg = 0;
    if (n > 0) {
        if (two && n >= 2) {
            int h = (n + 1) / 2;
            start[0] = lo;
            end[0] = lo + h - 1;
            start[1] = lo + h;
            end[1] = q - 1;
            nseg = 2;
        } else {
            start[0] = lo;
            end[0] = q - 1;
            nseg = 1;
        }
    }
    *nchild = 0;
    *parent = -1;
    if (rel == 0) {
        if (modified && q > 1)
            child[(*nchild)++] = 1;
        for (int s = 0; s < nseg; s++)
            child[(*nchild)++] = start[s];
        return;
    }
    if (modified && rel == 1) {
        *parent = 0;
        return;
    }
    for (int s = 0; s < nseg; s++)
        if (rel >= start[s] && rel <= end[s]) {
            *parent = rel == start[s] ? 0 : rel - 1;
            if (rel < end[s])
                child[(*nchild)++] = rel + 1;
        }
}

static int to_rank(const lu_bcast_t *b, int rel)
{
    return (b->root + rel) % b->q;
}

/* Spread and roll among positions 0..m: position 0 is the root (relative 0),
 * position j >= 1 is relative j + shift.  Piece p (of m) starts at
 * count * p / m and first goes to position p + 1. */
static long piece_off(const lu_bcast_t *b, int m, int p)
{
    return (long)b->count * p / m;
}

static void spread_roll(lu_bcast_t *b, int shift)
{
    int m = b->q - 1 - shift;
    if (m < 1)
        return;
    int rel = (b->me - b->root + b->q) % b->q;
    int pos = rel == 0 ? 0 : rel - shift;
    if (pos < 0)
        return; /* the leaf of longM: not in the spread */
    int M = m + 1, mask;
    const int tag_spread = b->tag + 1, tag_roll = b->tag + 2;
    if (pos != 0) {
        int low = pos & -pos, parent = pos - low;
        int hi = pos + low < M ? pos + low : M;
        long a = piece_off(b, m, pos - 1), z = piece_off(b, m, hi - 1);
        MPI_Recv(b->buf + a, (int)(z - a), MPI_DOUBLE, to_rank(b, parent ? parent + shift : 0),
                 tag_spread, b->comm, MPI_STATUS_IGNORE);
        mask = low >> 1;
    } else {
        mask = 1;
        while (mask < M)
            mask <<= 1;
        mask >>= 1;
    }
    for (; mask > 0; mask >>= 1) {
        int child = pos + mask;
        if (child >= M)
            continue;
        int hi = child + mask < M ? child + mask : M;
        long a = piece_off(b, m, child - 1), z = piece_off(b, m, hi - 1);
        MPI_Send(b->buf + a, (int)(z - a), MPI_DOUBLE, to_rank(b, child + shift), tag_spread,
                 b->comm);
    }
    if (pos == 0)
        return;
    int next = pos % m + 1, prev = (pos - 2 + m) % m + 1;
    for (int s = 0; s < m - 1; s++) {
        int ps = ((pos - 1 - s) % m + m) % m, pr = ((pos - 2 - s) % m + m) % m;
        long sa = piece_off(b, m, ps), sz = piece_off(b, m, ps + 1);
        long ra = piece_off(b, m, pr), rz = piece_off(b, m, pr + 1);
        MPI_Sendrecv(b->buf + sa, (int)(sz - sa), MPI_DOUBLE, to_rank(b, next + shift), tag_roll,
                     b->buf + ra, (int)(rz - ra), MPI_DOUBLE, to_rank(b, prev + shift), tag_roll,
                     b->comm, MPI_STATUS_IGNORE);
    }
}

static void post_sends(lu_bcast_t *b)
{
    int rel = (b->me - b->root + b->q) % b->q, parent, child[3], nchild;
    ring_links(b->variant, b->q, rel, &parent, child, &nchild);
    b->nsend = 0;
    for (int c = 0; c < nchild; c++)
        MPI_Isend(b->buf, b->count, MPI_DOUBLE, to_rank(b, child[c]), b->tag, b->comm,
                  &b->sreq[b->nsend++]);
}

void lu_bcast_start(lu_bcast_t *b, int variant, MPI_Comm comm, int root, int k, double *buf,
                    int count)
{
    memset(b, 0, sizeof *b);
    b->variant = variant;
    b->comm = comm;
    b->root = root;
    MPI_Comm_rank(comm, &b->me);
    MPI_Comm_size(comm, &b->q);
    b->tag = 1000 + 10 * (k & 1);
    b->buf = buf;
    b->count = count;
    b->active = 1;
    b->rreq = MPI_REQUEST_NULL;
    if (b->q == 1) {
        b->received = 1;
        return;
    }
    int rel = (b->me - root + b->q) % b->q;
    if (is_long(variant)) {
        if (rel != 0)
            return; /* receivers do everything in lu_bcast_wait */
        if (variant == LU_BCAST_LONGM)
            MPI_Send(buf, count, MPI_DOUBLE, to_rank(b, 1), b->tag, comm);
        spread_roll(b, variant == LU_BCAST_LONGM ? 1 : 0);
        b->received = 1;
        return;
    }
    if (rel == 0) {
        b->received = 1;
        post_sends(b);
        return;
    }
    int parent, child[3], nchild;
    ring_links(variant, b->q, rel, &parent, child, &nchild);
    MPI_Irecv(buf, count, MPI_DOUBLE, to_rank(b, parent), b->tag, comm, &b->rreq);
}

int lu_bcast_progress(lu_bcast_t *b)
{
    if (!b->active || b->received || is_long(b->variant))
        return b->received;
    int flag = 0;
    MPI_Test(&b->rreq, &flag, MPI_STATUS_IGNORE);
    if (flag) {
        b->received = 1;
        post_sends(b);
    }
    return b->received;
}

void lu_bcast_wait(lu_bcast_t *b)
{
    if (!b->active)
        return;
    if (is_long(b->variant)) {
        if (!b->received) {
            int rel = (b->me - b->root + b->q) % b->q;
            if (b->variant == LU_BCAST_LONGM && rel == 1)
                MPI_Recv(b->buf, b->count, MPI_DOUBLE, to_rank(b, 0), b->tag, b->comm,
                         MPI_STATUS_IGNORE);
            else
                spread_roll(b, b->variant == LU_BCAST_LONGM ? 1 : 0);
            b->received = 1;
        }
    } else {
        if (!b->received) {
            MPI_Wait(&b->rreq, MPI_STATUS_IGNORE);
            b->received = 1;
            post_sends(b);
        }
        if (b->nsend)
            llamp_app_waitall(b->nsend, b->sreq);
    }
    b->active = 0;
}
