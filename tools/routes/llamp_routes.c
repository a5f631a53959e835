/* llamp-routes - a SimGrid platform's routes between the hosts a run would
 * use, as a routes file (docs/topology.md), without running a program: the
 * what-if runner predicts each platform variant from one capture with it,
 * and the tests check hop counts on hand-written platforms. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/engine.h>
#include <simgrid/host.h>

#include "llamp_topo.h"

/* libsimgrid's SMPI settings (smpi/os ...), which platforms made for SMPI
 * set in their <config> block: declared in smpi/smpi.h, which would bring
 * the whole MPI API along */
void smpi_init_options(void);
#include "llamp_topo_sg.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: llamp-routes PLATFORM.xml (-n N | -f HOSTFILE | --like ROUTES) [-o FILE] [--table]\n"
          "  -n N          ranks 0..N-1 on the platform's first N hosts in SimGrid's order\n"
          "                (what smpirun does without a hostfile)\n"
          "  -f HOSTFILE   one host per rank, smpirun's format (NAME or NAME:COUNT per line)\n"
          "  --like FILE   the ranks' hosts (by name) of another routes file, e.g. a capture's\n"
          "  -o FILE       write the routes file there (default: stdout)\n"
          "  --table       print every rank pair instead: src dst links switches latency(s)\n"
          "                bandwidth(B/s) and the links per class\n");
}

static void die(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "llamp-routes: ");
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  exit(1);
}

int main(int argc, char **argv) {
  const char *platform = NULL, *hostfile = NULL, *like = NULL, *out = NULL;
  long n = -1;
  int table = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--version")) {
      printf("llamp-routes %s\n", LLAMP_TOOL_VERSION);
      return 0;
    } else if (!strcmp(a, "--table")) {
      table = 1;
    } else if ((!strcmp(a, "-n") || !strcmp(a, "-f") || !strcmp(a, "--like") || !strcmp(a, "-o")) &&
               i + 1 < argc) {
      const char *v = argv[++i];
      if (!strcmp(a, "-n")) {
        char *end;
        n = strtol(v, &end, 10);
        if (*end || n < 1) die("-n '%s': expected a positive number of ranks%s", v, "");
      } else if (!strcmp(a, "-f")) hostfile = v;
      else if (!strcmp(a, "--like")) like = v;
      else out = v;
    } else if (a[0] == '-') {
      usage(stderr);
      die("unknown option or missing value: %s%s", a, "");
    } else if (!platform) {
      platform = a;
    } else {
      die("one platform only (got '%s' and '%s')", platform, a);
    }
  }
  if (!platform || (n < 0) + !hostfile + !like != 2) {
    usage(stderr);
    return 1;
  }
  FILE *pf = fopen(platform, "r");
  if (!pf) die("%s: cannot open: %s", platform, strerror(errno));
  fclose(pf);
  char *names[2] = {argv[0], "--log=root.thres:warning"};
  int sargc = 2;
  simgrid_init(&sargc, names);
  smpi_init_options();
  simgrid_load_platform(platform);
  size_t nh = sg_host_count();
  sg_host_t *all = sg_host_list();
  sg_host_t *hosts = NULL;
  size_t P = 0, cap = 0;
  char err[600];
  if (n > 0) {
    if ((size_t)n > nh) {
      char b[64];
      snprintf(b, sizeof b, "%zu", nh);
      die("-n: the platform has only %s hosts%s", b, "");
    }
    P = (size_t)n;
    hosts = malloc(P * sizeof *hosts);
    for (size_t i = 0; i < P; i++) hosts[i] = all[i];
  } else {
    llamp_topo_t *ref = NULL;
    FILE *f = NULL;
    if (like) {
      if (!(ref = llamp_topo_read(like, err, sizeof err))) die("%s%s", err, "");
    } else if (!(f = fopen(hostfile, "r"))) {
      die("%s: cannot open: %s", hostfile, strerror(errno));
    }
    char line[1024];
    uint32_t r = 0;
    for (;;) {
      const char *name;
      long count = 1;
      if (ref) {
        if (r == llamp_topo_num_ranks(ref)) break;
        name = llamp_topo_host_name(ref, llamp_topo_rank_host(ref, r++));
      } else {
        if (!fgets(line, sizeof line, f)) break;
        line[strcspn(line, "\r\n")] = 0;
        char *colon = strchr(line, ':');
        if (colon) {
          *colon = 0;
          char *end;
          count = strtol(colon + 1, &end, 10);
          if (*end || count < 1) die("%s: bad count in '%s'", hostfile, line);
        }
        if (!line[0]) continue;
        name = line;
      }
      sg_host_t h = sg_host_by_name(name);
      if (!h) die("host '%s' is not in %s", name, platform);
      for (long k = 0; k < count; k++) {
        if (P == cap) {
          cap = cap ? 2 * cap : 64;
          hosts = realloc(hosts, cap * sizeof *hosts);
          if (!hosts) die("out of memory%s%s", "", "");
        }
        hosts[P++] = h;
      }
    }
    if (f) fclose(f);
    llamp_topo_destroy(ref);
    if (P == 0) die("no hosts in %s%s", hostfile ? hostfile : like, "");
  }
  llamp_topo_t *t = llamp_topo_from_simgrid(hosts, (uint32_t)P, err, sizeof err);
  if (!t) die("%s%s", err, "");
  int rc = 0;
  if (table) {
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) die("%s: cannot write: %s", out, strerror(errno));
    fprintf(f, "# src dst links switches latency bandwidth");
    for (uint32_t c = 0; c < llamp_topo_num_classes(t); c++) fprintf(f, " %s", llamp_topo_class_name(t, c));
    fputc('\n', f);
    for (uint32_t i = 0; i < P; i++)
      for (uint32_t j = 0; j < P; j++) {
        llamp_topo_route_t ro;
        llamp_topo_route(t, llamp_topo_rank_host(t, i), llamp_topo_rank_host(t, j), &ro);
        fprintf(f, "%u %u %u %u %.9g %.9g", i, j, ro.links, ro.switches, ro.latency, ro.bandwidth);
        for (uint32_t c = 0; c < llamp_topo_num_classes(t); c++) fprintf(f, " %u", ro.per_class[c]);
        fputc('\n', f);
      }
    if (out && fclose(f) != 0) die("%s: write failed%s", out, "");
  } else if (llamp_topo_write(t, out ? out : "/dev/stdout", err, sizeof err)) {
    fprintf(stderr, "llamp-routes: %s\n", err);
    rc = 1;
  }
  llamp_topo_destroy(t);
  free(hosts);
  free(all);
  return rc;
}
