/* json.c - recursive-descent JSON reader into a node tree (llamp_json.h). */
#include "llamp_json.h"
#include "llamp_units.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 256

struct llamp_json {
  llamp_json_type_t type;
  int line;
  int boolean;
  double number;
  char *str;               /* STRING */
  size_t n, cap;           /* ARRAY / OBJECT */
  char **keys;             /* OBJECT */
  struct llamp_json *kids; /* ARRAY / OBJECT, by value */
};

typedef struct {
  const char *s, *end, *name;
  const char *line_start;
  int line;
  char *err;
  size_t errlen;
  int failed;
} parser_t;

static void fail(parser_t *p, const char *fmt, ...) {
  if (p->failed) return;
  p->failed = 1;
  if (!p->err || !p->errlen) return;
  int col = (int)(p->s - p->line_start) + 1;
  int k = snprintf(p->err, p->errlen, "%s:%d:%d: ", p->name ? p->name : "json", p->line, col);
  if (k < 0 || (size_t)k >= p->errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
  va_end(ap);
  /* one line, whatever the input quoted (a bad escape '\<newline>', a name) */
  llamp_units_one_line(p->err);
}

static void skip_ws(parser_t *p) {
  while (p->s < p->end) {
    char c = *p->s;
    if (c == '\n') {
      p->line++;
      p->line_start = p->s + 1;
    } else if (c != ' ' && c != '\t' && c != '\r')
      return;
    p->s++;
  }
}

static void node_free(llamp_json_t *v) {
  if (v->type == LLAMP_JSON_STRING) free(v->str);
  for (size_t i = 0; i < v->n; i++) {
    node_free(&v->kids[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->kids);
  free(v->keys);
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int read_hex4(parser_t *p, unsigned *out) {
  if (p->end - p->s < 4) return -1;
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hexval(p->s[i]);
    if (h < 0) return -1;
    v = v * 16 + (unsigned)h;
  }
  p->s += 4;
  *out = v;
  return 0;
}

static size_t put_utf8(char *o, unsigned cp) {
  if (cp < 0x80) {
    o[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (char)(0xC0 | (cp >> 6));
    o[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | (cp >> 18));
  o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* At the opening quote; returns a malloc'd NUL-terminated string. */
static char *parse_string(parser_t *p) {
  p->s++; /* opening quote */
  const char *start = p->s;
  /* The decoded string is never longer than the source. */
  size_t span = 0;
  while (start + span < p->end && start[span] != '"') span += start[span] == '\\' ? 2 : 1;
  char *out = malloc(span + 1);
  if (!out) {
    fail(p, "out of memory");
    return NULL;
  }
  size_t k = 0;
  while (p->s < p->end) {
    unsigned char c = (unsigned char)*p->s;
    if (c == '"') {
      p->s++;
      out[k] = 0;
      return out;
    }
    if (c < 0x20) {
      fail(p, "control character in a string (expected \\n, \\t, ... escapes)");
      break;
    }
    if (c != '\\') {
      out[k++] = (char)c;
      p->s++;
      continue;
    }
    p->s++;
    if (p->s >= p->end) break;
    char e = *p->s++;
    switch (e) {
    case '"': out[k++] = '"'; break;
    case '\\': out[k++] = '\\'; break;
    case '/': out[k++] = '/'; break;
    case 'b': out[k++] = '\b'; break;
    case 'f': out[k++] = '\f'; break;
    case 'n': out[k++] = '\n'; break;
    case 'r': out[k++] = '\r'; break;
    case 't': out[k++] = '\t'; break;
    case 'u': {
      unsigned cp;
      if (read_hex4(p, &cp)) {
        fail(p, "bad \\u escape (expected 4 hex digits)");
        free(out);
        return NULL;
      }
      if (cp >= 0xD800 && cp < 0xDC00) { /* high surrogate: a low one must follow */
        unsigned lo;
        if (p->end - p->s < 6 || p->s[0] != '\\' || p->s[1] != 'u') {
          fail(p, "lone UTF-16 surrogate (expected \\uDC00-\\uDFFF next)");
          free(out);
          return NULL;
        }
        p->s += 2;
        if (read_hex4(p, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
          fail(p, "bad UTF-16 surrogate pair");
          free(out);
          return NULL;
        }
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      } else if (cp >= 0xDC00 && cp < 0xE000) {
        fail(p, "lone UTF-16 low surrogate");
        free(out);
        return NULL;
      }
      /* 6 source bytes (\uXXXX) always cover up to 4 output bytes */
      k += put_utf8(out + k, cp);
      break;
    }
    default:
      fail(p, "bad escape '\\%c' in a string", e);
      free(out);
      return NULL;
    }
  }
  if (!p->failed) fail(p, "unterminated string (expected '\"')");
  free(out);
  return NULL;
}

static int parse_number(parser_t *p, llamp_json_t *v) {
  const char *s = p->s, *e = p->end;
  const char *q = s;
  if (q < e && *q == '-') q++;
  if (q < e && *q == '0') q++;
  else if (q < e && *q >= '1' && *q <= '9')
    while (q < e && *q >= '0' && *q <= '9') q++;
  else {
    fail(p, "expected a value (number, string, object, array, true, false or null)");
    return -1;
  }
  if (q < e && *q == '.') {
    q++;
    if (!(q < e && *q >= '0' && *q <= '9')) {
      p->s = q;
      fail(p, "expected a digit after '.'");
      return -1;
    }
    while (q < e && *q >= '0' && *q <= '9') q++;
  }
  if (q < e && (*q == 'e' || *q == 'E')) {
    q++;
    if (q < e && (*q == '+' || *q == '-')) q++;
    if (!(q < e && *q >= '0' && *q <= '9')) {
      p->s = q;
      fail(p, "expected a digit in the exponent");
      return -1;
    }
    while (q < e && *q >= '0' && *q <= '9') q++;
  }
  char buf[64];
  size_t n = (size_t)(q - s);
  if (n >= sizeof buf) {
    fail(p, "number too long (more than 63 characters)");
    return -1;
  }
  memcpy(buf, s, n);
  buf[n] = 0;
  v->type = LLAMP_JSON_NUMBER;
  v->number = strtod(buf, NULL); /* overflow gives +-HUGE_VAL: kept, callers check ranges */
  p->s = q;
  return 0;
}

static int grow(parser_t *p, llamp_json_t *v, int with_keys) {
  if (v->n < v->cap) return 0;
  size_t cap = v->cap ? 2 * v->cap : 4;
  llamp_json_t *k = realloc(v->kids, cap * sizeof *k);
  if (!k) goto oom;
  v->kids = k;
  if (with_keys) {
    char **ks = realloc(v->keys, cap * sizeof *ks);
    if (!ks) goto oom;
    v->keys = ks;
  }
  v->cap = cap;
  return 0;
oom:
  fail(p, "out of memory");
  return -1;
}

static int parse_value(parser_t *p, llamp_json_t *v, int depth);

static int literal(parser_t *p, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(p->end - p->s) >= n && memcmp(p->s, word, n) == 0) {
    p->s += n;
    return 1;
  }
  return 0;
}

static int parse_value(parser_t *p, llamp_json_t *v, int depth) {
  memset(v, 0, sizeof *v);
  skip_ws(p);
  v->line = p->line;
  if (p->s >= p->end) {
    fail(p, "unexpected end of input (expected a value)");
    return -1;
  }
  if (depth > MAX_DEPTH) {
    fail(p, "nested more than %d levels", MAX_DEPTH);
    return -1;
  }
  char c = *p->s;
  if (c == '{' || c == '[') {
    int obj = c == '{';
    v->type = obj ? LLAMP_JSON_OBJECT : LLAMP_JSON_ARRAY;
    p->s++;
    skip_ws(p);
    if (p->s < p->end && *p->s == (obj ? '}' : ']')) {
      p->s++;
      return 0;
    }
    for (;;) {
      if (grow(p, v, obj)) return -1;
      if (obj) {
        skip_ws(p);
        if (p->s >= p->end || *p->s != '"') {
          fail(p, "expected a member name in double quotes");
          return -1;
        }
        char *key = parse_string(p);
        if (!key) return -1;
        skip_ws(p);
        if (p->s >= p->end || *p->s != ':') {
          char q[48];
          fail(p, "expected ':' after the member name \"%s\"", llamp_units_shown(key, 40, q, sizeof q));
          free(key);
          return -1;
        }
        p->s++;
        v->keys[v->n] = key;
      }
      int rc = parse_value(p, &v->kids[v->n], depth + 1);
      v->n++; /* counted even on failure, so node_free releases what was built */
      if (rc) return -1;
      skip_ws(p);
      if (p->s < p->end && *p->s == ',') {
        p->s++;
        continue;
      }
      if (p->s < p->end && *p->s == (obj ? '}' : ']')) {
        p->s++;
        return 0;
      }
      fail(p, obj ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array");
      return -1;
    }
  }
  if (c == '"') {
    v->type = LLAMP_JSON_STRING;
    v->str = parse_string(p);
    return v->str ? 0 : -1;
  }
  if (literal(p, "true")) {
    v->type = LLAMP_JSON_BOOL;
    v->boolean = 1;
    return 0;
  }
  if (literal(p, "false")) {
    v->type = LLAMP_JSON_BOOL;
    return 0;
  }
  if (literal(p, "null")) {
    v->type = LLAMP_JSON_NULL;
    return 0;
  }
  return parse_number(p, v);
}

llamp_json_t *llamp_json_parse(const char *text, size_t len, const char *name, char *err,
                               size_t errlen) {
  if (err && errlen) err[0] = 0;
  parser_t p = {text, text + len, name, text, 1, err, errlen, 0};
  llamp_json_t *root = calloc(1, sizeof *root);
  if (!root) {
    fail(&p, "out of memory");
    return NULL;
  }
  int rc = parse_value(&p, root, 0);
  if (!rc) {
    skip_ws(&p);
    if (p.s != p.end) {
      fail(&p, "unexpected text after the document (expected end of input)");
      rc = -1;
    }
  }
  if (rc) {
    llamp_json_free(root);
    return NULL;
  }
  return root;
}

llamp_json_t *llamp_json_read_file(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) break;
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap) break;
    char *b = realloc(buf, cap * 2);
    if (!b) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = b;
    cap *= 2;
  }
  int bad = ferror(f);
  fclose(f);
  if (!buf || bad) {
    snprintf(err, errlen, "%s: %s", path, buf ? "read error" : "out of memory");
    free(buf);
    return NULL;
  }
  llamp_json_t *root = llamp_json_parse(buf, n, path, err, errlen);
  free(buf);
  return root;
}

void llamp_json_free(llamp_json_t *root) {
  if (!root) return;
  node_free(root);
  free(root);
}

llamp_json_type_t llamp_json_type(const llamp_json_t *v) { return v ? v->type : LLAMP_JSON_NULL; }
int llamp_json_line(const llamp_json_t *v) { return v ? v->line : 0; }

const llamp_json_t *llamp_json_get(const llamp_json_t *v, const char *key) {
  if (!v || v->type != LLAMP_JSON_OBJECT) return NULL;
  for (size_t i = v->n; i-- > 0;)
    if (strcmp(v->keys[i], key) == 0) return &v->kids[i];
  return NULL;
}

size_t llamp_json_size(const llamp_json_t *v) {
  return v && (v->type == LLAMP_JSON_ARRAY || v->type == LLAMP_JSON_OBJECT) ? v->n : 0;
}

const llamp_json_t *llamp_json_at(const llamp_json_t *v, size_t i) {
  return i < llamp_json_size(v) ? &v->kids[i] : NULL;
}

const char *llamp_json_key_at(const llamp_json_t *v, size_t i) {
  return v && v->type == LLAMP_JSON_OBJECT && i < v->n ? v->keys[i] : NULL;
}

int llamp_json_number(const llamp_json_t *v, double *out) {
  if (!v || v->type != LLAMP_JSON_NUMBER) return -1;
  *out = v->number;
  return 0;
}

int llamp_json_bool(const llamp_json_t *v, int *out) {
  if (!v || v->type != LLAMP_JSON_BOOL) return -1;
  *out = v->boolean;
  return 0;
}

const char *llamp_json_string(const llamp_json_t *v) {
  return v && v->type == LLAMP_JSON_STRING ? v->str : NULL;
}

int llamp_json_get_number(const llamp_json_t *obj, const char *key, double *out) {
  return llamp_json_number(llamp_json_get(obj, key), out);
}
