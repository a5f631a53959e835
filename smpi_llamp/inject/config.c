/* config.c - the injector's settings: environment variables over an
 * optional `key = value` file, resolved for one world size. */
#include "llamp_inject.h"

#include "llamp_units.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEYS 10
static const char *const keys[KEYS] = {"dl",    "ranks", "pairs",       "matrix",  "s",
                                       "rendezvous", "small", "coll", "collectives", "verbose"};

static void fail(char *err, size_t len, const char *fmt, ...)
{
  if (!err || !len) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
  /* one line, whatever a value quoted (an environment variable may hold newlines) */
  llamp_units_one_line(err);
}

static char *trim(char *s)
{
  while (isspace((unsigned char)*s)) s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
  return s;
}

/* "0,2,5-7" -> ranks[] flags */
static int parse_ranks(const char *where, const char *v, int size, unsigned char *out, char *err,
                       size_t len)
{
  const char *p = v;
  if (!*p) goto bad;
  while (*p) {
    char *e;
    errno = 0;
    long a = strtol(p, &e, 10), b = a;
    if (e == p || errno) goto bad;
    p = e;
    if (*p == '-') {
      p++;
      b = strtol(p, &e, 10);
      if (e == p || errno) goto bad;
      p = e;
    }
    if (a < 0 || b < a || b >= size) {
      fail(err, len, "%s: rank %ld%s outside 0..%d", where, a < 0 || b < a ? a : b, "", size - 1);
      return -1;
    }
    for (long r = a; r <= b; r++) out[r] = 1;
    if (*p == ',') p++;
    else if (*p) goto bad;
  }
  return 0;
bad:
  fail(err, len, "%s: '%s' (expected ranks like 0,2,4-7)", where, v);
  return -1;
}

/* "0-1,2-3" or "0:1 2:3" -> pairs */
static int parse_pairs(const char *where, const char *v, int size, llamp_inject_config_t *c,
                       char *err, size_t len)
{
  const char *p = v;
  int cap = 8;
  c->pairs = malloc(2 * sizeof(int) * (size_t)cap);
  c->npairs = 0;
  if (!c->pairs) goto nomem;
  while (*p) {
    while (*p == ',' || *p == ' ' || *p == ';') p++;
    if (!*p) break;
    char *e;
    errno = 0;
    long a = strtol(p, &e, 10);
    if (e == p || errno || (*e != '-' && *e != ':')) goto bad;
    p = e + 1;
    long b = strtol(p, &e, 10);
    if (e == p || errno) goto bad;
    p = e;
    if (a < 0 || b < 0 || a >= size || b >= size || a == b) {
      fail(err, len, "%s: pair %ld-%ld (expected two different ranks in 0..%d)", where, a, b,
           size - 1);
      return -1;
    }
    if (c->npairs == cap) {
      cap *= 2;
      int *n = realloc(c->pairs, 2 * sizeof(int) * (size_t)cap);
      if (!n) goto nomem;
      c->pairs = n;
    }
    c->pairs[2 * c->npairs] = (int)a;
    c->pairs[2 * c->npairs + 1] = (int)b;
    c->npairs++;
  }
  if (c->npairs == 0) goto bad;
  return 0;
bad:
  fail(err, len, "%s: '%s' (expected pairs like 0-1,2-3)", where, v);
  return -1;
nomem:
  fail(err, len, "%s: out of memory", where);
  return -1;
}

/* size lines of size delays (us when no unit), '#' comments */
static int load_matrix(const char *path, int size, llamp_inject_config_t *c, char *err, size_t len)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    fail(err, len, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  c->matrix = calloc((size_t)size * (size_t)size, sizeof(double));
  if (!c->matrix) {
    fclose(f);
    fail(err, len, "%s: out of memory", path);
    return -1;
  }
  char line[65536];
  int row = 0, lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *h = strchr(line, '#');
    if (h) *h = '\0';
    char *s = trim(line);
    if (!*s) continue;
    if (row == size) {
      fail(err, len, "%s:%d: more than %d rows (the world size)", path, lineno, size);
      goto out;
    }
    int col = 0;
    for (char *tok = strtok(s, " \t,"); tok; tok = strtok(NULL, " \t,")) {
      double v;
      char e2[128];
      if (col == size) {
        fail(err, len, "%s:%d: more than %d values (the world size)", path, lineno, size);
        goto out;
      }
      if (llamp_units_parse(tok, LLAMP_UNIT_TIME, "us", &v, e2, sizeof e2) || v < 0) {
        fail(err, len, "%s:%d: column %d: '%s' (expected a delay >= 0 like 10us)", path, lineno,
             col + 1, tok);
        goto out;
      }
      c->matrix[(size_t)row * (size_t)size + (size_t)col++] = v;
    }
    if (col != size) {
      fail(err, len, "%s:%d: %d values (expected %d, the world size)", path, lineno, col, size);
      goto out;
    }
    row++;
  }
  if (row != size) {
    fail(err, len, "%s: %d rows (expected %d, the world size)", path, row, size);
    goto out;
  }
  fclose(f);
  return 0;
out:
  fclose(f);
  return -1;
}

static int on_off(const char *where, const char *v, int *out, char *err, size_t len)
{
  if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "on") || !strcasecmp(v, "true"))
    *out = 1;
  else if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "off") ||
           !strcasecmp(v, "false"))
    *out = 0;
  else {
    fail(err, len, "%s: '%s' (expected 0 or 1)", where, v);
    return -1;
  }
  return 0;
}

static int apply(llamp_inject_config_t *c, int k, const char *where, const char *v, char *err,
                 size_t len)
{
  char e2[256];
  double d;
  switch (k) {
  case 0: /* dl */
    if (llamp_units_parse(v, LLAMP_UNIT_TIME, "us", &d, e2, sizeof e2) || d < 0) {
      fail(err, len, "%s: '%s' (expected a delay >= 0 like 10us; no unit = us)", where, v);
      return -1;
    }
    c->dl = d;
    return 0;
  case 1: /* ranks */
    free(c->ranks);
    c->ranks = calloc((size_t)c->size, 1);
    if (!c->ranks) return fail(err, len, "%s: out of memory", where), -1;
    return parse_ranks(where, v, c->size, c->ranks, err, len);
  case 2:
    free(c->pairs);
    c->pairs = NULL;
    return parse_pairs(where, v, c->size, c, err, len);
  case 3:
    free(c->matrix);
    c->matrix = NULL;
    return load_matrix(v, c->size, c, err, len);
  case 4: /* s */
    if (!strcasecmp(v, "none") || !strcasecmp(v, "inf")) {
      c->S = UINT64_MAX;
      return 0;
    }
    if (llamp_units_parse(v, LLAMP_UNIT_BYTES, "B", &d, e2, sizeof e2) || d < 0 || d >= 0x1p63) {
      fail(err, len, "%s: '%s' (expected a size like 8KiB below 2^63 B, or none)", where, v);
      return -1;
    }
    c->S = (uint64_t)d;
    return 0;
  case 5:
    if (!strcmp(v, "rdma")) c->rdv = LLAMP_INJECT_RDV_RDMA;
    else if (!strcmp(v, "direct")) c->rdv = LLAMP_INJECT_RDV_DIRECT;
    else return fail(err, len, "%s: '%s' (expected rdma or direct)", where, v), -1;
    return 0;
  case 6:
    if (llamp_units_parse(v, LLAMP_UNIT_BYTES, "B", &d, e2, sizeof e2) || d < 0 || d > 1e9) {
      fail(err, len, "%s: '%s' (expected a size like 16KiB)", where, v);
      return -1;
    }
    c->small = (uint64_t)d;
    return 0;
  case 7:
    if (strlen(v) >= sizeof c->coll_spec)
      return fail(err, len, "%s: longer than %zu characters", where, sizeof c->coll_spec - 1), -1;
    strcpy(c->coll_spec, v);
    return 0;
  case 8:
    return on_off(where, v, &c->coll, err, len);
  default:
    return on_off(where, v, &c->verbose, err, len);
  }
}

static int load_file(llamp_inject_config_t *c, const char *path, char *err, size_t len)
{
  FILE *f = fopen(path, "r");
  if (!f) return fail(err, len, "%s: cannot open: %s", path, strerror(errno)), -1;
  char line[4096];
  int lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *h = strchr(line, '#');
    if (h) *h = '\0';
    char *s = trim(line);
    if (!*s) continue;
    char *eq = strchr(s, '=');
    char where[600];
    if (!eq) {
      snprintf(where, sizeof where, "%s:%d", path, lineno);
      fail(err, len, "%s: expected 'key = value'", where);
      fclose(f);
      return -1;
    }
    *eq = '\0';
    char *key = trim(s), *val = trim(eq + 1);
    for (char *q = key; *q; q++) *q = (char)tolower((unsigned char)*q);
    int k = 0;
    while (k < KEYS && strcmp(key, keys[k])) k++;
    snprintf(where, sizeof where, "%s:%d: %s", path, lineno, key);
    if (k == KEYS) {
      fail(err, len, "%s:%d: unknown key '%s' (valid: dl ranks pairs matrix s rendezvous small coll "
                     "collectives verbose)",
           path, lineno, key);
      fclose(f);
      return -1;
    }
    if (apply(c, k, where, val, err, len)) {
      fclose(f);
      return -1;
    }
  }
  fclose(f);
  return 0;
}

int llamp_inject_config_load(llamp_inject_config_t *c, int size, const char *(*get)(const char *),
                             char *err, size_t errlen)
{
  memset(c, 0, sizeof *c);
  c->size = size;
  c->S = UINT64_MAX;
  c->rdv = LLAMP_INJECT_RDV_RDMA;
  c->small = 16384;
  c->coll = 1;
  if (size < 1) return fail(err, errlen, "world size %d", size), -1;
  const char *file = get("LLAMP_INJECT_CONFIG");
  if (file && *file && load_file(c, file, err, errlen)) goto bad;
  for (int k = 0; k < KEYS; k++) {
    char var[64];
    snprintf(var, sizeof var, "LLAMP_INJECT_%s", keys[k]);
    for (char *q = var; *q; q++) *q = (char)toupper((unsigned char)*q);
    const char *v = get(var);
    if (!v) continue;
    if (apply(c, k, var, v, err, errlen)) goto bad;
  }
  return 0;
bad:
  llamp_inject_config_free(c);
  return -1;
}

double llamp_inject_config_delay(const llamp_inject_config_t *c, int src, int dst)
{
  if (src < 0 || dst < 0 || src >= c->size || dst >= c->size || src == dst) return 0;
  if (c->matrix) return c->matrix[(size_t)src * (size_t)c->size + (size_t)dst];
  if (c->ranks && !c->ranks[src] && !c->ranks[dst]) return 0;
  if (c->pairs) {
    for (int i = 0; i < c->npairs; i++) {
      int a = c->pairs[2 * i], b = c->pairs[2 * i + 1];
      if ((a == src && b == dst) || (a == dst && b == src)) return c->dl;
    }
    return 0;
  }
  return c->dl;
}

int llamp_inject_config_zero(const llamp_inject_config_t *c)
{
  if (!c->matrix) return c->dl == 0;
  for (size_t i = 0; i < (size_t)c->size * (size_t)c->size; i++)
    if (c->matrix[i] > 0) return 0;
  return 1;
}

void llamp_inject_config_free(llamp_inject_config_t *c)
{
  free(c->ranks);
  free(c->pairs);
  free(c->matrix);
  c->ranks = NULL;
  c->pairs = NULL;
  c->matrix = NULL;
}
