/* llamp_json.h - a small JSON reader (RFC 8259) for the files the tools read
 * back: report.json of a capture or of `llamp analyze --format json`, and the
 * study files.  The whole document becomes a tree of nodes; lookups are by
 * key or index.  Errors: NULL, with "NAME:LINE:COLUMN: what was expected" in
 * the caller's buffer; the library never prints.  Nesting deeper than 256
 * levels is refused (no stack overflow on hostile input). */
#ifndef LLAMP_JSON_H
#define LLAMP_JSON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  LLAMP_JSON_NULL,
  LLAMP_JSON_BOOL,
  LLAMP_JSON_NUMBER,
  LLAMP_JSON_STRING,
  LLAMP_JSON_ARRAY,
  LLAMP_JSON_OBJECT
} llamp_json_type_t;

typedef struct llamp_json llamp_json_t;

/* Parse `len` bytes; `name` (a file name) prefixes error messages. */
llamp_json_t *llamp_json_parse(const char *text, size_t len, const char *name, char *err,
                               size_t errlen);
/* Read and parse a file. */
llamp_json_t *llamp_json_read_file(const char *path, char *err, size_t errlen);
void llamp_json_free(llamp_json_t *root);

llamp_json_type_t llamp_json_type(const llamp_json_t *v);
int llamp_json_line(const llamp_json_t *v); /* where the value starts, 1-based */
/* Object member by key (the last one if repeated), NULL if absent or v is
 * not an object. */
const llamp_json_t *llamp_json_get(const llamp_json_t *v, const char *key);
/* Elements of an array or members of an object (0 for other types). */
size_t llamp_json_size(const llamp_json_t *v);
const llamp_json_t *llamp_json_at(const llamp_json_t *v, size_t i); /* NULL past the end */
const char *llamp_json_key_at(const llamp_json_t *v, size_t i);     /* objects only */
/* Scalars: 0 on success, -1 when v is NULL or of another type. */
int llamp_json_number(const llamp_json_t *v, double *out);
int llamp_json_bool(const llamp_json_t *v, int *out);
const char *llamp_json_string(const llamp_json_t *v); /* NULL unless a string */
/* Shorthand: the number at key, -1 when absent or not a number. */
int llamp_json_get_number(const llamp_json_t *obj, const char *key, double *out);

#ifdef __cplusplus
}
#endif
#endif
