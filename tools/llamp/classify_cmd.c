/* classify_cmd.c - `llamp classify GRAPH`: classes C1-C5 (llamp_classify.h,
 * docs/classify.md), and the anchor parser `llamp analyze --classify` shares. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "llamp_classify.h"
#include "llamp_report.h"

void classify_anchor(const char *opt, const char *text, llamp_params_t *p) {
  char err[512];
  if (llamp_classify_anchor(text, p, err, sizeof err)) die("--%s: %s", opt, err);
}

static double parse_share(const char *opt, const char *text, int ratio) {
  char *end;
  double x = strtod(text, &end);
  if (end == text || *end || !(ratio ? x > 1 : (x > 0 && x < 100)))
    die("--%s: '%s' (expected %s)", opt, text, ratio ? "a factor > 1" : "a percentage between 0 and 100");
  return ratio ? x : x / 100;
}

static const char *classify_help =
    "usage: llamp classify GRAPH [options]\n"
    "Classify the application as computation-, load-imbalance-, bandwidth-,\n"
    "latency- or communication-bound (C1-C5, Tong et al.) from the trend of its\n"
    "predicted time over three sets of 7 configurations around an anchor:\n"
    "(BW, kL), (kBW, L), (kBW, L/k) for k = 1/8 .. 8 (docs/classify.md).\n\n"
    "%s"
    "Classification:\n"
    "  --at ANCHOR         here (the L and G above, default), e1g (1 Gb/s, 50 us),\n"
    "                      e10g (10 Gb/s, 5 us), qdr (32 Gb/s, 1.3 us) or BW@L (10Gbps@5us)\n"
    "  --compute-share P   C1: compute >= P %% of T (default 90)\n"
    "  --bound-share P     C2-C5 \"-bound\": wait / communication >= P %% (default 25)\n"
    "  --sensitive-share P C2-C5 \"-sensitive\": >= P %% (default 10)\n"
    "  --insensitive P     \"insensitive\": changes by less than P %% (default 5)\n"
    "  --factor F          C3-C5: communication shrinks by F or more (default 2)\n"
    "  --format text|json  output format (default text)\n"
    "  -o FILE             write to FILE instead of stdout\n";

enum { OPT_AT = 2000, OPT_CSHARE, OPT_BSHARE, OPT_SSHARE, OPT_INS, OPT_FACTOR };

int cmd_classify(int argc, char **argv) {
  common_opts_t co;
  common_init(&co);
  llamp_classify_rules_t rules;
  llamp_classify_rules_default(&rules);
  const char *anchor = "here", *format = "text", *out_path = NULL;
  static struct option lo[] = {COMMON_LONG_OPTIONS,
                               {"at", required_argument, 0, OPT_AT},
                               {"compute-share", required_argument, 0, OPT_CSHARE},
                               {"bound-share", required_argument, 0, OPT_BSHARE},
                               {"sensitive-share", required_argument, 0, OPT_SSHARE},
                               {"insensitive", required_argument, 0, OPT_INS},
                               {"factor", required_argument, 0, OPT_FACTOR},
                               {"format", required_argument, 0, OPT_FORMAT},
                               {0, 0, 0, 0}};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
    if (common_option(c, &co)) continue;
    switch (c) {
    case 'h': printf(classify_help, params_help); return 0;
    case 'o': out_path = optarg; break;
    case OPT_AT: anchor = optarg; break;
    case OPT_CSHARE: rules.compute_share = parse_share("compute-share", optarg, 0); break;
    case OPT_BSHARE: rules.bound_share = parse_share("bound-share", optarg, 0); break;
    case OPT_SSHARE: rules.sensitive_share = parse_share("sensitive-share", optarg, 0); break;
    case OPT_INS: rules.insensitive = parse_share("insensitive", optarg, 0); break;
    case OPT_FACTOR: rules.factor = parse_share("factor", optarg, 1); break;
    case OPT_FORMAT:
      if (strcmp(optarg, "text") && strcmp(optarg, "json")) die("--format: '%s' (expected text or json)", optarg);
      format = optarg;
      break;
    default: bad_usage("classify");
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "%s: classify needs exactly one GRAPH argument\n", prog);
    bad_usage("classify");
  }
  if (rules.sensitive_share > rules.bound_share)
    die("--sensitive-share %g %% is above --bound-share %g %% (expected at most)", 100 * rules.sensitive_share,
        100 * rules.bound_share);
  const char *path = argv[optind];
  common_finish(&co);
  classify_anchor("at", anchor, &co.params);
  llamp_graph_t *g = load_graph(path, &co);
  char err[1024];
  llamp_engine_t *e = llamp_engine_create(g, &co.params, err, sizeof err);
  if (!e) die("%s: %s", path, err);
  llamp_classification_t cl;
  stage_begin("classifying (19 evaluations)", "");
  if (llamp_classify(e, g, &co.params, &rules, &cl, err, sizeof err)) die("%s: %s", path, err);
  stage_end();
  FILE *out = stdout;
  if (out_path && !(out = fopen(out_path, "w"))) die("%s: cannot write: %s", out_path, strerror(errno));
  if (!strcmp(format, "json")) {
    fprintf(out, "{\n  \"graph\": \"");
    for (const char *s = path; *s; s++) {
      if (*s == '"' || *s == '\\') fputc('\\', out);
      fputc(*s, out);
    }
    fprintf(out, "\",\n  \"classification\": {\n");
    llamp_classify_json(out, &cl, "    ");
    fprintf(out, "  }\n}\n");
  } else {
    fprintf(out, "%s: %u ranks, %llu events\n", path, llamp_graph_num_ranks(g),
            (unsigned long long)llamp_graph_num_vertices(g));
    llamp_classify_text(out, &cl, "", 1);
  }
  if (out != stdout && fclose(out) != 0) die("%s: write failed", out_path);
  llamp_engine_destroy(e);
  llamp_graph_destroy(g);
  return 0;
}
