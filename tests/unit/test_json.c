/* The JSON reader: values, escapes and UTF-8, lookups, and one-line errors
 * naming line and column for broken documents. */
#include <string.h>

#include "llamp_json.h"
#include "llamp_test.h"

static llamp_json_t *parse(const char *s, char *err) { return llamp_json_parse(s, strlen(s), "t.json", err, 256); }

int main(void) {
  char err[256];
  const char *doc =
      "{\n  \"a\": 1.5e-6, \"b\": [true, false, null, -0, 12],\n"
      "  \"s\": \"x\\\"y\\\\z\\n\\u00e9\\ud83d\\ude00\",\n  \"o\": {\"k\": {}}, \"a\": 2}";
  llamp_json_t *r = parse(doc, err);
  CHECK(r != NULL);
  double x;
  CHECK(llamp_json_get_number(r, "a", &x) == 0 && x == 2); /* the last of a repeated key */
  const llamp_json_t *b = llamp_json_get(r, "b");
  CHECK(llamp_json_type(b) == LLAMP_JSON_ARRAY && llamp_json_size(b) == 5);
  int t = -1;
  CHECK(llamp_json_bool(llamp_json_at(b, 0), &t) == 0 && t == 1);
  CHECK(llamp_json_type(llamp_json_at(b, 2)) == LLAMP_JSON_NULL);
  CHECK(llamp_json_number(llamp_json_at(b, 4), &x) == 0 && x == 12);
  CHECK(llamp_json_at(b, 5) == NULL);
  CHECK(llamp_json_line(b) == 2);
  CHECK(strcmp(llamp_json_string(llamp_json_get(r, "s")), "x\"y\\z\n\xc3\xa9\xf0\x9f\x98\x80") == 0);
  CHECK(llamp_json_size(llamp_json_get(llamp_json_get(r, "o"), "k")) == 0);
  CHECK(strcmp(llamp_json_key_at(r, 2), "s") == 0);
  CHECK(llamp_json_get(r, "missing") == NULL);
  CHECK(llamp_json_get_number(r, "s", &x) == -1);
  llamp_json_free(r);

  static const struct {
    const char *text, *error;
  } bad[] = {
      {"", "t.json:1:1: unexpected end of input"},
      {"{\"a\" 1}", "t.json:1:6: expected ':' after the member name \"a\""},
      {"[1,\n 2,,]", "t.json:2:4: expected a value"},
      {"[1 2]", "t.json:1:4: expected ',' or ']' in an array"},
      {"{\"a\":1,}", "t.json:1:8: expected a member name"},
      {"\"abc", "t.json:1:5: unterminated string"},
      {"\"a\\q\"", "t.json:1:5: bad escape '\\q'"},
      {"\"\\ud800x\"", "t.json:1:8: lone UTF-16 surrogate"},
      {"01", "t.json:1:2: unexpected text after the document"},
      {"1.", "t.json:1:3: expected a digit after '.'"},
      {"-", "t.json:1:1: expected a value"},
      {"tru", "t.json:1:1: expected a value"},
      {"{} x", "t.json:1:4: unexpected text after the document"},
      {"\"a\nb\"", "t.json:1:3: control character in a string"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    r = parse(bad[i].text, err);
    CHECK(r == NULL);
    if (strncmp(err, bad[i].error, strlen(bad[i].error)) != 0) {
      fprintf(stderr, "case %zu: got '%s', expected '%s...'\n", i, err, bad[i].error);
      llamp_test_failures++;
    }
    llamp_json_free(r);
  }
  /* Deep nesting is refused, not a stack overflow. */
  char deep[2100];
  memset(deep, '[', 2000);
  deep[2000] = 0;
  r = parse(deep, err);
  CHECK(r == NULL && strstr(err, "nested more than 256 levels"));
  /* Files: a missing one names itself. */
  CHECK(llamp_json_read_file("/nonexistent/report.json", err, sizeof err) == NULL);
  CHECK(strstr(err, "/nonexistent/report.json: cannot open") == err);
  return llamp_test_failures ? 1 : 0;
}
