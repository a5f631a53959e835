/* check_netmodel FILE [KEY...]: read a model file written by llamp-calibrate
 * network with libconfig; without keys, require the network and smpi groups
 * (docs/models.md) and print "ok"; with keys, print each key's value (one
 * per line) for the test scripts.  Errors: file:line, key, expected. */
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *file;
static int bad;

static void fail(const config_setting_t *s, const char *key, const char *expected) {
  fprintf(stderr, "%s:%d: %s: expected %s\n", file, s ? config_setting_source_line(s) : 0, key, expected);
  bad = 1;
}

static void curve(const config_setting_t *g, const char *key, int required) {
  const config_setting_t *c = config_setting_get_member(g, key);
  if (!c) {
    if (required) fail(g, key, "a list of segments");
    return;
  }
  if (!config_setting_is_list(c) || config_setting_length(c) < 1) {
    fail(c, key, "a non-empty list of { from; offset; per_byte; }");
    return;
  }
  double prev = -1;
  for (int i = 0; i < config_setting_length(c); i++) {
    const config_setting_t *seg = config_setting_get_elem(c, (unsigned)i);
    int from;
    double off, pb;
    if (!config_setting_lookup_int(seg, "from", &from) || !config_setting_lookup_float(seg, "offset", &off) ||
        !config_setting_lookup_float(seg, "per_byte", &pb)) {
      fail(seg, key, "{ from = integer; offset = number; per_byte = number; }");
      continue;
    }
    if ((i == 0 && from != 0) || from <= prev) fail(seg, key, "from = 0 first, then increasing");
    prev = from;
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: check_netmodel FILE [KEY...]\n");
    return 2;
  }
  file = argv[1];
  config_t cfg;
  config_init(&cfg);
  if (!config_read_file(&cfg, file)) {
    fprintf(stderr, "%s:%d: %s\n", file, config_error_line(&cfg), config_error_text(&cfg));
    return 1;
  }
  if (argc > 2) {
    for (int i = 2; i < argc; i++) {
      const config_setting_t *s = config_lookup(&cfg, argv[i]);
      if (!s) {
        fprintf(stderr, "%s: %s: missing\n", file, argv[i]);
        return 1;
      }
      switch (config_setting_type(s)) {
      case CONFIG_TYPE_STRING: printf("%s\n", config_setting_get_string(s)); break;
      case CONFIG_TYPE_INT: printf("%d\n", config_setting_get_int(s)); break;
      case CONFIG_TYPE_FLOAT: printf("%.17g\n", config_setting_get_float(s)); break;
      default: fprintf(stderr, "%s: %s: not a scalar\n", file, argv[i]); return 1;
      }
    }
    return 0;
  }
  const config_setting_t *net = config_lookup(&cfg, "network"), *smpi = config_lookup(&cfg, "smpi");
  if (!net) fail(NULL, "network", "a group");
  if (!smpi) fail(NULL, "smpi", "a group");
  if (bad) return 1;
  const char *scope;
  if (!config_setting_lookup_string(net, "scope", &scope) || (strcmp(scope, "intra") && strcmp(scope, "inter")))
    fail(net, "network.scope", "\"intra\" or \"inter\"");
  curve(net, "one_way", 1);
  curve(net, "o_send", 1);
  curve(net, "o_recv", 1);
  curve(net, "o_isend", 1);
  int S;
  double L, G, r2;
  if (!config_setting_lookup_int(net, "eager_max", &S) || S < 0) fail(net, "network.eager_max", "an integer >= 0");
  if (!config_setting_lookup_float(net, "L", &L) || L <= 0) fail(net, "network.L", "seconds > 0");
  if (!config_setting_lookup_float(net, "G", &G)) fail(net, "network.G", "seconds per byte");
  if (!config_lookup_float(&cfg, "network.fit.r2", &r2) || r2 > 1) fail(net, "network.fit.r2", "a number <= 1");
  static const char *const strs[] = {"os", "or", "ois", "lat_factor", "bw_factor"};
  for (int i = 0; i < 5; i++) {
    const char *v;
    if (!config_setting_lookup_string(smpi, strs[i], &v) || strncmp(v, "0:", 2))
      fail(smpi, strs[i], "a SimGrid piecewise string starting at \"0:\"");
  }
  double lat, bw;
  int thr;
  if (!config_setting_lookup_float(smpi, "reference_latency", &lat) || lat <= 0)
    fail(smpi, "smpi.reference_latency", "seconds > 0");
  if (!config_setting_lookup_float(smpi, "reference_bandwidth", &bw) || bw <= 0)
    fail(smpi, "smpi.reference_bandwidth", "bytes per second > 0");
  if (!config_setting_lookup_int(smpi, "send_is_detached_thresh", &thr) || thr != S + 1)
    fail(smpi, "smpi.send_is_detached_thresh", "network.eager_max + 1");
  config_destroy(&cfg);
  if (bad) return 1;
  printf("ok\n");
  return 0;
}
