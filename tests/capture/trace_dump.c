/* trace_dump - print the capture's per-rank trace files as text, one record
 * a line, for the golden tests (tests/capture.cmake):
 *     trace_dump [-t] DIR      DIR/trace/rank-0.llt ... (world size from rank 0)
 * Fields: rank, record number, MPI function, communicator, peer, tag, bytes,
 * request, status, flags and the payload decoded by record kind.  Times are
 * left out (-t prints them) but checked: every record must start no earlier
 * than the previous one ended and end no earlier than it started; a
 * violation, or an unreadable file, exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llamp_trace.h"

static int is_completion(int op) {
  return (op >= LLAMP_OP_WAIT && op <= LLAMP_OP_REQUEST_FREE) || op == LLAMP_OP_STARTALL;
}

static int is_comm(int op) { return op >= LLAMP_OP_COMM_SPLIT && op <= LLAMP_OP_COMM_FREE; }

static void print_req(uint64_t id) {
  if (id == LLAMP_TRACE_NO_REQ) printf("null");
  else printf("%llu", (unsigned long long)id);
}

int main(int argc, char **argv) {
  int times = 0, ai = 1;
  if (argc > 1 && strcmp(argv[1], "-t") == 0) times = 1, ai++;
  if (ai != argc - 1) {
    fprintf(stderr, "usage: trace_dump [-t] DIR\n");
    return 1;
  }
  char path[4096], err[1024];
  uint32_t world = 1;
  for (uint32_t r = 0; r < world; r++) {
    snprintf(path, sizeof path, "%s/trace/rank-%u.llt", argv[ai], r);
    llamp_trace_reader_t *rd = llamp_trace_reader_open(path, err, sizeof err);
    if (!rd) {
      fprintf(stderr, "trace_dump: %s\n", err);
      return 1;
    }
    if (r == 0) world = llamp_trace_reader_world_size(rd);
    llamp_trace_rec_t rec;
    const uint64_t *pl;
    int rc;
    uint64_t i = 0;
    double prev_end = -1;
    while ((rc = llamp_trace_next(rd, &rec, &pl, err, sizeof err)) == 1) {
      if (rec.t_end < rec.t_start || rec.t_start < prev_end - 1e-15) {
        fprintf(stderr, "trace_dump: %s: record %llu (%s) at [%.12g, %.12g] after one ending at %.12g\n",
                path, (unsigned long long)i, llamp_trace_op_name((llamp_trace_op_t)rec.op), rec.t_start,
                rec.t_end, prev_end);
        return 1;
      }
      prev_end = rec.t_end;
      printf("%u %3llu %s", r, (unsigned long long)i++, llamp_trace_op_name((llamp_trace_op_t)rec.op));
      if (times) printf(" t=%.3f..%.3fus", rec.t_start * 1e6, rec.t_end * 1e6);
      if (rec.op == LLAMP_OP_UNMODELLED) {
        const char *name = llamp_trace_name(rd, rec.tag);
        printf(" %s\n", name ? name : "?");
        continue;
      }
      if (rec.op == LLAMP_OP_INIT || rec.op == LLAMP_OP_FINALIZE) {
        putchar('\n');
        continue;
      }
      printf(" comm=%u", rec.comm);
      if (rec.peer != LLAMP_TRACE_NO_PEER) printf(" peer=%d", rec.peer);
      if (rec.tag != -1) printf(" tag=%d", rec.tag);
      if (rec.bytes) printf(" bytes=%llu", (unsigned long long)rec.bytes);
      if (rec.req != LLAMP_TRACE_NO_REQ) printf(" req=%llu", (unsigned long long)rec.req);
      if (rec.status_source != -1 || rec.status_tag != -1)
        printf(" status=%d/%d", rec.status_source, rec.status_tag);
      if (rec.flags & LLAMP_TRACE_F_COMPLETED) printf(" completed");
      if (rec.nwords && is_completion(rec.op)) {
        printf(" reqs=");
        for (uint32_t k = 0; k + 1 < rec.nwords; k += 2) {
          if (k) putchar(',');
          print_req(pl[k]);
          if (llamp_trace_status_completed(pl[k + 1])) {
            putchar('*');
            int32_t s = llamp_trace_status_source(pl[k + 1]), t = llamp_trace_status_tag(pl[k + 1]);
            if (s != -1 || t != -1) printf("(%d/%d)", s, t);
          }
        }
      } else if (rec.nwords && (rec.op == LLAMP_OP_SENDRECV || rec.op == LLAMP_OP_SENDRECV_REPLACE)) {
        printf(" recv=%d/%d/%llu", (int32_t)(uint32_t)pl[0], (int32_t)(uint32_t)pl[1],
               (unsigned long long)pl[2]);
      } else if (rec.nwords && is_comm(rec.op)) {
        if (pl[0] == UINT32_MAX) printf(" new=null");
        else {
          printf(" new=%llu members=", (unsigned long long)pl[0]);
          for (uint64_t k = 0; k < pl[1] && 2 + k < rec.nwords; k++)
            printf("%s%llu", k ? "," : "", (unsigned long long)pl[2 + k]);
        }
        if (rec.flags & LLAMP_TRACE_F_COMM_BCAST) printf(" bcast");
        if (rec.flags & LLAMP_TRACE_F_COMM_SPLIT) printf(" split");
        uint64_t off = 2 + (pl[0] == UINT32_MAX ? 0 : pl[1]);
        if ((rec.flags & LLAMP_TRACE_F_COMM_SPLIT) && off < rec.nwords) {
          /* the parent's rank 0: the groups it sends to */
          printf(" groups=");
          uint64_t ng = pl[off++];
          for (uint64_t g = 0; g < ng && off < rec.nwords; g++) {
            uint64_t n = pl[off++];
            printf("%s[", g ? "," : "");
            for (uint64_t k = 0; k < n && off < rec.nwords; k++)
              printf("%s%llu", k ? "," : "", (unsigned long long)pl[off++]);
            putchar(']');
          }
        }
      } else if (rec.nwords) {
        printf(" words=");
        for (uint32_t k = 0; k < rec.nwords; k++) printf("%s%llu", k ? "," : "", (unsigned long long)pl[k]);
      }
      putchar('\n');
    }
    if (rc < 0) {
      fprintf(stderr, "trace_dump: %s\n", err);
      return 1;
    }
    llamp_trace_reader_destroy(rd);
  }
  return 0;
}
