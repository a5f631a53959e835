/* llamp place - rank placement on a platform's hosts with the engine as the
 * objective (smpi_llamp/place, docs/topology.md "Rank placement"): from
 * each starting mapping (block, round-robin, random, a hostfile), the swap
 * heuristic of seed 000 App. J; the best mapping as an smpirun hostfile. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "llamp_place.h"
#include "llamp_topo.h"
#include "llamp_units.h"

#include "cli.h"

static const char *place_help =
    "usage: llamp place GRAPH --routes FILE [options]\n"
    "Place the ranks of an execution graph on the hosts of a routes file so that\n"
    "the predicted runtime T is low: from each starting mapping, the iterative swap\n"
    "heuristic of the LLAMP paper (App. J) driven by the per-pair sensitivities,\n"
    "each swap checked by the engine (docs/topology.md, \"Rank placement\").\n\n"
    "%s"
    "  (L and G default to the hosts' shortest route latency and largest route\n"
    "  bandwidth: every message then costs exactly its route)\n"
    "Placement:\n"
    "  --routes FILE     candidate hosts and their routes: llamp-routes PLATFORM -n N\n"
    "                    (N hosts in SimGrid's order), or -f HOSTFILE\n"
    "  --slots N         ranks per host at most (default: ceil(ranks / hosts))\n"
    "  --start LIST      starting mappings, comma-separated: block (rank r on host\n"
    "                    r / slots), round-robin (host r mod hosts), random, or a\n"
    "                    hostfile (default block,round-robin)\n"
    "  --seed N          seed of the random start (default: from the clock; printed)\n"
    "  --tries K         predicted swaps checked per iteration before stopping\n"
    "                    (default 8; 1 is the paper's rule)\n"
    "  --max-iters N     at most N iterations per start (default 100000)\n"
    "  -o FILE           write the best mapping there as an smpirun hostfile (rank r's\n"
    "                    host on line r + 1: smpi_llamp-run -hostfile FILE)\n"
    "  --format text|json  summary on stdout (default text)\n"
    "Progress goes to stderr when it is a terminal.\n";

/* A hostfile (NAME or NAME:COUNT per line) as each rank's host. */
static void read_hostfile(const char *path, const llamp_topo_t *t, uint32_t P, uint32_t *hr) {
  FILE *f = fopen(path, "r");
  if (!f) die("%s: cannot open: %s", path, strerror(errno));
  char line[1024];
  uint32_t r = 0, ln = 0;
  while (fgets(line, sizeof line, f) && r < P) {
    ln++;
    line[strcspn(line, "\r\n")] = 0;
    char *colon = strchr(line, ':');
    long count = 1;
    if (colon) {
      char *end;
      *colon = 0;
      count = strtol(colon + 1, &end, 10);
      if (*end || count < 1) die("%s:%u: '%s' (expected NAME or NAME:COUNT)", path, ln, colon + 1);
    }
    if (!line[0]) continue;
    uint32_t h = UINT32_MAX;
    for (uint32_t k = 0; k < llamp_topo_num_hosts(t) && h == UINT32_MAX; k++)
      if (!strcmp(llamp_topo_host_name(t, k), line)) h = k;
    if (h == UINT32_MAX) die("%s:%u: host '%s' is not in the routes file", path, ln, line);
    for (long k = 0; k < count && r < P; k++) hr[r++] = h;
  }
  fclose(f);
  if (r < P) die("%s: %u hosts for %u ranks", path, r, P);
}

typedef struct {
  const char *name;
  int on;
  double t0;
} progress_t;

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void on_progress(void *ctx, uint32_t iter, double T, uint32_t swaps) {
  progress_t *p = ctx;
  char b[48];
  if (p->on)
    fprintf(stderr, "\r%s: place %s: iteration %u, %u swaps, T = %s (%.1f s)   ", prog, p->name,
            iter, swaps, llamp_units_format_time(T, b, sizeof b), wall() - p->t0);
}

typedef struct {
  char name[256];
  double T0, T, seconds;
  llamp_place_result_t res;
} run_t;

int cmd_place(int argc, char **argv) {
  common_opts_t co;
  common_init(&co);
  const char *routes_path = NULL, *starts = "block,round-robin", *out = NULL, *format = "text";
  long slots = 0, tries = 8, max_iters = 0;
  unsigned long long seed = 0;
  int seed_given = 0, L_given = 0, G_given = 0;
  enum { OPT_SLOTS = 2000, OPT_START, OPT_SEED, OPT_TRIES, OPT_ITERS };
  static struct option lo[] = {COMMON_LONG_OPTIONS,
                               {"routes", required_argument, 0, OPT_ROUTES},
                               {"slots", required_argument, 0, OPT_SLOTS},
                               {"start", required_argument, 0, OPT_START},
                               {"seed", required_argument, 0, OPT_SEED},
                               {"tries", required_argument, 0, OPT_TRIES},
                               {"max-iters", required_argument, 0, OPT_ITERS},
                               {"format", required_argument, 0, OPT_FORMAT},
                               {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
    L_given |= c == OPT_L;
    G_given |= c == OPT_G;
    if (common_option(c, &co)) continue;
    char *end = NULL;
    switch (c) {
    case 'h': printf(place_help, params_help); return 0;
    case 'o': out = optarg; break;
    case OPT_ROUTES: routes_path = optarg; break;
    case OPT_START: starts = optarg; break;
    case OPT_SLOTS:
      slots = strtol(optarg, &end, 10);
      if (*end || slots < 1) die("--slots: '%s' (expected a positive number)", optarg);
      break;
    case OPT_TRIES:
      tries = strtol(optarg, &end, 10);
      if (*end || tries < 1) die("--tries: '%s' (expected a positive number)", optarg);
      break;
    case OPT_ITERS:
      max_iters = strtol(optarg, &end, 10);
      if (*end || max_iters < 1) die("--max-iters: '%s' (expected a positive number)", optarg);
      break;
    case OPT_SEED:
      errno = 0;
      seed = strtoull(optarg, &end, 10);
      if (*end || errno || optarg[0] == '-') die("--seed: '%s' (expected a number >= 0)", optarg);
      seed_given = 1;
      break;
    case OPT_FORMAT:
      if (strcmp(optarg, "text") && strcmp(optarg, "json"))
        die("--format: '%s' (expected text or json)", optarg);
      format = optarg;
      break;
    default: bad_usage("place");
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "%s: place needs exactly one GRAPH argument\n", prog);
    bad_usage("place");
  }
  if (!routes_path) die("place needs --routes FILE (llamp-routes PLATFORM -n HOSTS -o FILE)");
  const char *path = argv[optind];
  char err[1024];
  llamp_graph_t *g = load_graph(path, &co);
  llamp_topo_t *t = llamp_topo_read(routes_path, err, sizeof err);
  if (!t) die("%s", err);
  double L0, G0;
  if (llamp_place_reference(t, &L0, &G0, err, sizeof err)) die("%s: %s", routes_path, err);
  if (!L_given) co.params.L = L0;
  if (!G_given && G0 > 0) co.params.G = G0;
  llamp_place_t *pl = llamp_place_create(g, &co.params, t, (uint32_t)slots, err, sizeof err);
  if (!pl) die("%s: %s", path, err);
  uint32_t P = llamp_place_ranks(pl);
  if (!seed_given) seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 20);

  run_t runs[16];
  size_t nruns = 0, best = 0;
  uint32_t *hr = malloc((P ? P : 1) * sizeof *hr), *best_hr = malloc((P ? P : 1) * sizeof *best_hr);
  if (!hr || !best_hr) die("out of memory");
  char *list = strdup(starts), *save = NULL;
  int used_random = 0;
  for (char *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
    if (nruns == 16) die("--start: at most 16 starting mappings");
    run_t *r = &runs[nruns];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", s);
    if (!strcmp(s, "block")) llamp_place_initial(pl, LLAMP_PLACE_BLOCK, 0, hr);
    else if (!strcmp(s, "round-robin") || !strcmp(s, "rr")) llamp_place_initial(pl, LLAMP_PLACE_ROUND_ROBIN, 0, hr);
    else if (!strcmp(s, "random")) {
      if (llamp_place_initial(pl, LLAMP_PLACE_RANDOM, seed + used_random, hr)) die("out of memory");
      if (used_random++) snprintf(r->name, sizeof r->name, "random+%d", used_random - 1);
    } else read_hostfile(s, t, P, hr);
    if (llamp_place_eval(pl, hr, &r->T0, err, sizeof err)) die("--start %s: %s", s, err);
    progress_t pg = {r->name, isatty(2), wall()};
    llamp_place_opts_t o = {(uint32_t)tries, (uint32_t)max_iters, on_progress, &pg};
    if (llamp_place_optimize(pl, hr, &o, &r->res, err, sizeof err)) die("%s", err);
    r->seconds = wall() - pg.t0;
    if (pg.on) fputc('\n', stderr);
    r->T = r->res.T;
    if (!nruns || r->T < runs[best].T) {
      best = nruns;
      memcpy(best_hr, hr, P * sizeof *hr);
    }
    nruns++;
  }
  free(list);
  if (!nruns) die("--start: empty list");
  if (out && llamp_place_write_hostfile(pl, best_hr, out, err, sizeof err)) die("%s", err);

  char b1[48], b2[48], b3[48];
  if (!strcmp(format, "json")) {
    printf("{\n  \"graph\": \"%s\", \"ranks\": %u, \"hosts\": %u, \"slots\": %u,\n", path, P,
           llamp_topo_num_hosts(t), llamp_place_slots(pl));
    printf("  \"L\": %.12g, \"G\": %.12g, \"L0\": %.12g, \"G0\": %.12g, \"seed\": %llu, \"tries\": %ld,\n",
           co.params.L, co.params.G, L0, G0, seed, tries);
    printf("  \"starts\": [");
    for (size_t i = 0; i < nruns; i++)
      printf("%s\n    {\"start\": \"%s\", \"T_start\": %.12g, \"T\": %.12g, \"swaps\": %u, "
             "\"iterations\": %u, \"evaluations\": %u, \"rejected\": %u, \"seconds\": %.3f}",
             i ? "," : "", runs[i].name, runs[i].T0, runs[i].T, runs[i].res.swaps,
             runs[i].res.iterations, runs[i].res.evaluations, runs[i].res.rejected, runs[i].seconds);
    printf("\n  ],\n  \"best\": {\"start\": \"%s\", \"T\": %.12g, \"hostfile\": ", runs[best].name,
           runs[best].T);
    if (out) printf("\"%s\"}\n}\n", out);
    else printf("null}\n}\n");
  } else {
    printf("%s: %u ranks on %u hosts x %u slots (%s); L = %s, G = %.4g ns/B\n", path, P,
           llamp_topo_num_hosts(t), llamp_place_slots(pl), routes_path,
           llamp_units_format_time(co.params.L, b1, sizeof b1), co.params.G * 1e9);
    if (used_random) printf("seed %llu\n", seed);
    for (size_t i = 0; i < nruns; i++)
      printf("%-12s T = %-10s -> optimised %-10s (%+.2f %%)  %u swaps, %u iterations, %u evaluations, %.2f s\n",
             runs[i].name, llamp_units_format_time(runs[i].T0, b1, sizeof b1),
             llamp_units_format_time(runs[i].T, b2, sizeof b2),
             runs[i].T0 > 0 ? 100 * (runs[i].T - runs[i].T0) / runs[i].T0 : 0.0, runs[i].res.swaps,
             runs[i].res.iterations, runs[i].res.evaluations, runs[i].seconds);
    printf("best: from %s, T = %s%s%s\n", runs[best].name,
           llamp_units_format_time(runs[best].T, b3, sizeof b3), out ? ", hostfile " : "", out ? out : "");
  }
  free(hr);
  free(best_hr);
  llamp_place_destroy(pl);
  llamp_topo_destroy(t);
  llamp_graph_destroy(g);
  return 0;
}
