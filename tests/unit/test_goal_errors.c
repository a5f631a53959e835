/* GOAL reader errors: a golden table of inputs and the exact one-line message
 * ("t.goal:LINE: ..."), covering every error class of docs/goal.md.  Every
 * case must fail cleanly: NULL graph, one line, no crash (also under ASan). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llamp_goal.h"
#include "llamp_test.h"

typedef struct {
  const char *what;
  const char *input;
  const char *expect; /* exact message */
} golden_t;

#define H "num_ranks 2\nrank 0 {\n" /* lines 1-2 */

static const golden_t cases[] = {
    /* labels */
    {"unknown label", H "a: calc 1\na requires zz\n}\n",
     "t.goal:4: unknown label `zz` in rank 0"},
    {"unknown first label", H "x requires y\n}\n", "t.goal:3: unknown label `x` in rank 0"},
    {"label used before definition", H "a: calc 1\na requires b\nb: calc 2\n}\n",
     "t.goal:4: label `b` used before its definition (line 5)"},
    {"label of another rank", H "a: calc 1\n}\nrank 1 {\nb: calc 1\nb requires a\n}\n",
     "t.goal:7: unknown label `a` in rank 1"},
    {"duplicate label", H "a: calc 1\nb: calc 2\na: calc 3\n}\n",
     "t.goal:5: duplicate label `a` in rank 0 (first defined at line 3)"},
    {"first error wins over a later one", H "a: calc 1\na requires q\nsned 5\n}\n",
     "t.goal:4: unknown label `q` in rank 0"},
    {"first error wins at end of file", H "a: calc 1\na requires q\n",
     "t.goal:4: unknown label `q` in rank 0"},
    /* graph-level errors reported by the builder, with the line of the op */
    {"cycle", H "a: calc 1\nb: calc 2\na requires b\nb requires a\n}\n",
     "t.goal:3: dependency cycle (or deadlock) involving rank 0 operation 0"},
    {"self dependency", H "a: calc 1\na requires a\n}\n",
     "t.goal:4: operation depends on itself"},
    {"deadlock through messages",
     H "r: recv 1b from 1\ns: send 1b to 1\ns requires r\n}\nrank 1 {\n"
       "r: recv 1b from 0\ns: send 1b to 0\ns requires r\n}\n",
     "t.goal:3: dependency cycle (or deadlock) involving rank 0 operation 0"},
    {"unmatched send", H "calc 5\ns: send 8b to 1 tag 3\n}\n",
     "t.goal:4: unmatched send: rank 0 sends 8 bytes to rank 1 tag 3, but no receive matches it"},
    {"unmatched receive", H "}\nrank 1 {\ncalc 1\n\nr: recv 8b from -1 tag 4\n}\n",
     "t.goal:7: unmatched receive: rank 1 receives 8 bytes from any source tag 4, but no send "
     "is left to match it"},
    {"tag mismatch", H "s: send 8b to 1 tag 1\n}\nrank 1 {\nr: recv 8b from 0 tag 2\n}\n",
     "t.goal:6: unmatched receive: rank 1 receives 8 bytes from rank 0 tag 2, but no send is "
     "left to match it"},
    /* numbers */
    {"bad number", H "a: calc 12x\n}\n", "t.goal:3: malformed integer for the calc duration: `12x`"},
    {"missing number", H "a: send xb to 1\n}\n",
     "t.goal:3: expected an integer for the size, found `xb`"},
    {"overflow", H "a: calc 99999999999999999999\n}\n",
     "t.goal:3: calc duration `99999999999999999999` too large (at most 9223372036854775807)"},
    {"calc above 2^63", H "a: calc 9223372036854775808\n}\n",
     "t.goal:3: calc duration `9223372036854775808` too large (at most 9223372036854775807)"},
    {"size above 2^53", H "a: send 9007199254740993b to 1\n}\n",
     "t.goal:3: size `9007199254740993` too large (at most 9007199254740992)"},
    {"tag too large", H "a: send 1b to 1 tag 2147483648\n}\n",
     "t.goal:3: tag `2147483648` too large (at most 2147483647)"},
    {"negative size", H "a: send -5b to 1\n}\n",
     "t.goal:3: negative size `-5` (must be >= 0)"},
    {"negative calc", H "a: calc -1\n}\n", "t.goal:3: negative calc duration `-1` (must be >= 0)"},
    {"send to -1", H "a: send 5b to -1\n}\n",
     "t.goal:3: negative destination rank `-1` (must be >= 0)"},
    {"recv from -2", H "a: recv 5b from -2\n}\n",
     "t.goal:3: negative source rank `-2` (only -1 = any is allowed)"},
    {"send tag -1", H "a: send 5b to 1 tag -1\n}\n",
     "t.goal:3: negative tag `-1` (must be >= 0)"},
    {"lone minus", H "a: calc -\n}\n",
     "t.goal:3: expected an integer for the calc duration, found end of line"},
    /* ranks */
    {"missing num_ranks", "// no header\nrank 0 {\n}\n",
     "t.goal:2: missing `num_ranks`: expected `num_ranks N` before the first rank block"},
    {"empty input", "", "t.goal:1: missing `num_ranks`: the input has no `num_ranks N` line"},
    {"only comments", "// a\n/* b */\n", "t.goal:2: missing `num_ranks`: the input has no `num_ranks N` line"},
    {"num_ranks twice", "num_ranks 2\nnum_ranks 2\n", "t.goal:2: `num_ranks` given twice"},
    {"num_ranks 0", "num_ranks 0\n", "t.goal:1: num_ranks must be at least 1"},
    {"num_ranks too large", "num_ranks 2000000000\n",
     "t.goal:1: number of ranks `2000000000` too large (at most 1073741824)"},
    {"rank out of range", "num_ranks 2\n\nrank 2 {\n}\n", "t.goal:3: rank 2 out of range (num_ranks 2)"},
    {"destination out of range", H "a: send 5b to 2\n}\n",
     "t.goal:3: destination rank 2 out of range (num_ranks 2)"},
    {"source out of range", H "a: recv 5b from 7 tag 1\n}\n",
     "t.goal:3: source rank 7 out of range (num_ranks 2)"},
    {"duplicate rank block", H "}\nrank 1 {\n}\nrank 0 {\n}\n", "t.goal:6: duplicate block for rank 0"},
    {"missing brace", "num_ranks 1\nrank 0\na: calc 1\n}\n",
     "t.goal:3: expected `{` after `rank 0`, found `a`"},
    {"nested rank", H "a: calc 1\nrank 1 {\n}\n}\n",
     "t.goal:4: expected `}` to close rank 0 (opened at line 2), found `rank`"},
    /* comments and truncation */
    {"unterminated comment", H "a: calc 1\n\n/* not closed\n}\n", "t.goal:5: unterminated /* comment"},
    {"unterminated comment in statement", H "a: calc 1 /*\n}\n", "t.goal:3: unterminated /* comment"},
    {"truncated file", H "a: calc 1\n",
     "t.goal:3: unexpected end of file: expected `}` to close rank 0 (opened at line 2)"},
    {"truncated without newline", H "a: calc 1",
     "t.goal:3: unexpected end of file: expected `}` to close rank 0 (opened at line 2)"},
    {"truncated mid statement", H "a: send 5b to",
     "t.goal:3: expected an integer for the destination rank, found end of file"},
    /* keywords and syntax */
    {"unknown keyword", H "a: calc 1\nsned 10b to 1\n}\n",
     "t.goal:4: unknown keyword `sned`: expected `send`, `recv`, `calc`, `LABEL:` or `LABEL "
     "requires|irequires|cpurequires LABEL`"},
    {"unknown keyword at line end", H "bogus\n}\n",
     "t.goal:3: unknown keyword `bogus`: expected `send`, `recv`, `calc`, `LABEL:` or `LABEL "
     "requires|irequires|cpurequires LABEL`"},
    {"misspelled requires", H "a: calc 1\nb: calc 1\nb requirs a\n}\n",
     "t.goal:5: expected `:`, `requires`, `irequires` or `cpurequires` after label `b`, found `requirs`"},
    {"cpurequires into a calc", H "a: calc 1\nb: calc 1\nb cpurequires a\n}\n",
     "t.goal:5: a CPU dependency (cpurequires) of an operation that is not a receive"},
    {"unknown option", H "a: send 1b to 1 tga 5\n}\n",
     "t.goal:3: unknown keyword `tga`: expected `tag`, `cpu`, `nic`, `sync`, `isend`, `os` or end of line"},
    {"repeated option", H "a: send 1b to 1 tag 5 tag 6\n}\n",
     "t.goal:3: repeated or misplaced option `tag`: expected `tag`, `cpu`, `nic`, `sync`, `isend`, `os` or end of line"},
    {"repeated sync", H "a: send 1b to 1 tag 5 sync sync\n}\n",
     "t.goal:3: repeated or misplaced option `sync`: expected `tag`, `cpu`, `nic`, `sync`, `isend`, `os` or end of line"},
    {"repeated isend", H "a: send 1b to 1 isend tag 5 isend\n}\n",
     "t.goal:3: repeated or misplaced option `isend`: expected `tag`, `cpu`, `nic`, `sync`, `isend`, `os` or end of line"},
    {"repeated os", H "a: send 1b to 1 os tag 5 os\n}\n",
     "t.goal:3: repeated or misplaced option `os`: expected `tag`, `cpu`, `nic`, `sync`, `isend`, `os` or end of line"},
    {"isend on a receive", H "a: recv 1b from 1 tag 5 isend\n}\n",
     "t.goal:3: repeated or misplaced option `isend`: expected `tag`, `cpu`, `nic` or end of line"},
    {"sync on a receive", H "a: recv 1b from 1 tag 5 sync\n}\n",
     "t.goal:3: repeated or misplaced option `sync`: expected `tag`, `cpu`, `nic` or end of line"},
    {"tag on calc", H "a: calc 5 tag 1\n}\n",
     "t.goal:3: repeated or misplaced option `tag`: expected `cpu` or end of line"},
    {"stray character", H "a: calc 5 ;\n}\n",
     "t.goal:3: unexpected `;`: expected `cpu` or end of line"},
    {"missing b", H "a: send 5 to 1\n}\n", "t.goal:3: expected `b` after the size, found `to`"},
    {"bytes suffix", H "a: send 5bytes to 1\n}\n",
     "t.goal:3: expected `b` after the size, found `bytes`"},
    {"to for recv", H "a: recv 5b to 1\n}\n", "t.goal:3: expected `from` after the size, found `to`"},
    {"label without op", H "a:\n}\n",
     "t.goal:3: expected `send`, `recv` or `calc` after `a:`, found end of line"},
    {"label with dependency", H "a: b requires c\n}\n",
     "t.goal:3: expected `send`, `recv` or `calc` after `a:`, found `b`"},
    {"dependency without target", H "a: calc 1\na requires\n}\n",
     "t.goal:4: expected a label after `requires`, found end of line"},
    {"dependency with trailing text", H "a: calc 1\nb: calc 1\nb requires a a\n}\n",
     "t.goal:5: expected end of line after a dependency, found `a`"},
    {"statement outside rank", "num_ranks 1\ncalc 5\n",
     "t.goal:2: expected `num_ranks` or `rank` (statements belong in a rank block), found `calc`"},
    {"stray brace", "num_ranks 1\n}\n", "t.goal:2: expected `num_ranks` or `rank`, found `}`"},
    {"garbage byte", H "\x01\n}\n", "t.goal:3: expected a statement or `}`, found byte 0x01"},
    {"num_ranks trailing", "num_ranks 1 2\n",
     "t.goal:1: expected end of line after `num_ranks N`, found `2`"},
};

/* Run one case; returns 1 if it behaved. */
static int run_case(const golden_t *c) {
  llamp_goal_options_t opt;
  llamp_goal_options_default(&opt);
  opt.source = "t.goal";
  char err[512];
  memset(err, 'X', sizeof err);
  err[sizeof err - 1] = '\0';
  llamp_graph_t *g = llamp_goal_read_buffer(c->input, strlen(c->input), &opt, err, sizeof err);
  int ok = g == NULL && strcmp(err, c->expect) == 0 && strchr(err, '\n') == NULL;
  if (!ok)
    fprintf(stderr, "case '%s':\n  got      %s\n  expected %s\n", c->what, g ? "(a graph)" : err,
            c->expect);
  llamp_graph_destroy(g);
  return ok;
}

/* Tiny or absent error buffers must not be overrun. */
static void test_small_buffers(void) {
  const char *bad = "num_ranks 1\nrank 0 {\nbogus\n}\n";
  char tiny[8];
  memset(tiny, 'X', sizeof tiny);
  CHECK(llamp_goal_read_buffer(bad, strlen(bad), NULL, tiny, 5) == NULL);
  CHECK(tiny[4] == '\0' && tiny[5] == 'X');
  CHECK(llamp_goal_read_buffer(bad, strlen(bad), NULL, NULL, 0) == NULL);
  CHECK(llamp_goal_read_buffer(NULL, 0, NULL, tiny, sizeof tiny) == NULL);
  /* a builder error (cycle) with a tiny buffer */
  const char *cyc = "num_ranks 1\nrank 0 {\na: calc 1\nb: calc 1\na requires b\nb requires a\n}\n";
  CHECK(llamp_goal_read_buffer(cyc, strlen(cyc), NULL, tiny, 3) == NULL);
  CHECK(strlen(tiny) == 2);
}

/* Every prefix of a valid file either parses or fails with a message. */
static void test_prefixes(void) {
  const char *text = "num_ranks 2\nrank 0 {\na: calc 5000 cpu 0\nb: send 1024b to 1 tag 5 nic 0\n"
                     "b requires a /* c */\n}\nrank 1 {\nx: recv 1024b from -1 tag -1\n"
                     "z: calc 100\nz irequires x // c\n}\n";
  size_t n = strlen(text), parsed = 0;
  for (size_t len = 0; len <= n; len++) {
    char err[256] = "";
    llamp_graph_t *g = llamp_goal_read_buffer(text, len, NULL, err, sizeof err);
    if (g) {
      parsed++;
    } else if (strncmp(err, "<buffer>:", 9) != 0) {
      fprintf(stderr, "prefix %zu: bad message '%s'\n", len, err);
      CHECK(0);
    }
    llamp_graph_destroy(g);
  }
  CHECK(parsed >= 1); /* at least the full text */
}

int main(void) {
  size_t n = sizeof cases / sizeof *cases, good = 0;
  for (size_t i = 0; i < n; i++) good += (size_t)run_case(&cases[i]);
  if (good != n) fprintf(stderr, "%zu of %zu golden error cases failed\n", n - good, n);
  CHECK(good == n);
  test_small_buffers();
  test_prefixes();
  TEST_DONE();
}
