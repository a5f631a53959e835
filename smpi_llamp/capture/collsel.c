/* collsel.c - which algorithm the DAG expands for each collective: the one
 * SimGrid runs, read from SimGrid's settings at MPI_Init.
 *
 * SMPI picks a blocking collective's algorithm from smpi/<collective>, else
 * from smpi/coll-selector (default: its "default" selector, mostly naive
 * algorithms); gatherv, scatterv, scan, exscan and every nonblocking
 * collective have one fixed algorithm.  llamp_coll_smpi_find maps SMPI's
 * name to ours.  Whatever SMPI runs that we do not model (the per-call
 * choices of the ompi/mpich/mvapich2/impi selectors, exotic algorithms), and
 * every -llamp-coll request SimGrid did not run, is said in one line and in
 * report.json: the DAG never silently differs from the emulated run. */
#include <stdarg.h>
#include <string.h>

#include "capture_internal.h"

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (err && errlen) vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* Did smpi_llamp-run add key:algo, and why ("coll", "selector"); NULL if not. */
static const char *added_why(const char *added, const char *key, const char *algo, char *why,
                             size_t whylen) {
  if (!added) return NULL;
  size_t kl = strlen(key), al = strlen(algo);
  for (const char *s = added; *s;) {
    while (*s == ' ') s++;
    const char *e = s;
    while (*e && *e != ' ') e++;
    if ((size_t)(e - s) > kl + al + 2 && !strncmp(s, key, kl) && s[kl] == ':' &&
        !strncmp(s + kl + 1, algo, al) && s[kl + 1 + al] == ':') {
      snprintf(why, whylen, "%.*s", (int)(e - (s + kl + al + 2)), s + kl + al + 2);
      return why;
    }
    s = e;
  }
  return NULL;
}

int llamp_capture_colls_resolve(llamp_capture_colls_t *out, const char *(*get)(const char *name),
                                const char *requested, const char *added, FILE *warn, char *err,
                                size_t errlen) {
  memset(out, 0, sizeof *out);
  /* what -llamp-coll names: only those kinds (an empty selection layered) */
  llamp_coll_selection_t req;
  memset(&req, 0, sizeof req);
  char cerr[900];
  if (llamp_coll_update_selection(requested ? requested : "", &req, cerr, sizeof cerr)) {
    seterr(err, errlen, "collectives '%s': %s", requested, cerr);
    return -1;
  }
  const char *selv = get ? get("smpi/coll-selector") : NULL;
  snprintf(out->selector, sizeof out->selector, "%s", selv && *selv ? selv : "default");
  const int default_selector = !strcmp(out->selector, "default");
  llamp_coll_selection_t sel;
  llamp_coll_selection_default(&sel);
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++) {
    llamp_capture_coll_t *c = &out->kind[k];
    const llamp_coll_kind_t kind = (llamp_coll_kind_t)k;
    const char *key = llamp_coll_smpi_key(kind);
    const char *name = NULL;
    char setting[96];
    if (!key) {
      snprintf(c->simgrid, sizeof c->simgrid, "(built-in)");
      snprintf(c->source, sizeof c->source, "simgrid (no setting: always this algorithm)");
    } else {
      snprintf(setting, sizeof setting, "smpi/%s", key);
      const char *v = get ? get(setting) : NULL;
      char why[32];
      if (v && *v) {
        name = v;
        const char *w = added_why(added, key, v, why, sizeof why);
        if (w && !strcmp(w, "coll"))
          snprintf(c->source, sizeof c->source, "-llamp-coll (--cfg=smpi/%s:%s)", key, v);
        else if (w)
          snprintf(c->source, sizeof c->source,
                   "smpi_llamp-run (--cfg=smpi/%s:%s in place of smpi/coll-selector:%s)", key, v,
                   out->selector);
        else
          snprintf(c->source, sizeof c->source, "--cfg=smpi/%s:%s", key, v);
      } else {
        name = out->selector;
        if (default_selector)
          snprintf(c->source, sizeof c->source, "simgrid default selector");
        else
          snprintf(c->source, sizeof c->source, "smpi/coll-selector:%s", out->selector);
      }
      snprintf(c->simgrid, sizeof c->simgrid, "%s", name);
    }
    const char *note = "";
    const llamp_coll_algo_t *a = llamp_coll_smpi_find(kind, name, &note);
    c->note = note;
    c->modelled = a != NULL && !*note;
    if (!a) {
      /* not modelled: the DAG falls back to the request, else our default */
      a = req.algo[k] ? req.algo[k] : llamp_coll_find(kind, NULL);
      c->note = "SimGrid's algorithm is not modelled: the DAG expands another one";
    }
    c->algo = a;
    sel.algo[k] = a;
    if (req.algo[k]) snprintf(c->requested, sizeof c->requested, "%s", req.algo[k]->name);
  }
  /* composites expand the selected reduce and bcast: as good as those */
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++) {
    llamp_capture_coll_t *c = &out->kind[k];
    if (!c->modelled || llamp_coll_kind_blocking((llamp_coll_kind_t)k) != LLAMP_COLL_ALLREDUCE)
      continue;
    if ((strcmp(c->algo->name, "reduce_bcast") && strcmp(c->algo->name, "lr") &&
         strcmp(c->algo->name, "ompi")) ||
        (out->kind[LLAMP_COLL_REDUCE].modelled && out->kind[LLAMP_COLL_BCAST].modelled))
      continue;
    c->modelled = 0;
    c->note = "it runs SimGrid's reduce and bcast, and one of them is not modelled";
  }
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++) {
    llamp_capture_coll_t *c = &out->kind[k];
    if (!c->modelled) out->unmodelled++;
    if (c->requested[0] && strcmp(c->requested, c->algo->name) != 0) {
      out->conflicts++;
      if (warn)
        fprintf(warn,
                "smpi_llamp: warning: -llamp-coll %s=%s is not what SimGrid runs (%s, %s): the "
                "DAG follows SimGrid%s\n",
                llamp_coll_kind_name((llamp_coll_kind_t)k), c->requested, c->simgrid, c->source,
                llamp_coll_smpi_key((llamp_coll_kind_t)k)
                    ? "; let smpi_llamp-run pass the -llamp-coll option (no --cfg of your own for "
                      "this collective) to run it"
                    : " (SMPI has no setting for it); rebuild from the traces for a what-if: "
                      "llamp build DIR/trace --coll SPEC");
    }
  }
  llamp_coll_selection_format(&sel, out->spec, sizeof out->spec);
  return 0;
}

void llamp_capture_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

int llamp_capture_colls_warn(const llamp_capture_colls_t *c, const uint64_t *calls, FILE *warn) {
  int n = 0;
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++) {
    const llamp_capture_coll_t *e = &c->kind[k];
    if (e->modelled || (calls && !calls[k])) continue;
    n++;
    if (warn)
      fprintf(warn,
              "smpi_llamp: warning: %s: SimGrid runs %s (%s), which the DAG does not reproduce "
              "(%s); the DAG expands %s: the report is approximate\n",
              llamp_coll_kind_name((llamp_coll_kind_t)k), e->simgrid, e->source, e->note,
              e->algo->name);
  }
  return n;
}

void llamp_capture_colls_json(FILE *f, const llamp_capture_colls_t *c, const uint64_t *calls,
                              const char *indent) {
  fprintf(f, "{\n%s  \"selector\": ", indent);
  llamp_capture_json_str(f, c->selector);
  fprintf(f, ", \"unmodelled_used\": %d, \"conflicts\": %d,\n%s  \"spec\": ",
          llamp_capture_colls_warn(c, calls, NULL), c->conflicts, indent);
  llamp_capture_json_str(f, c->spec);
  for (int k = 0; k < LLAMP_COLL_NUM_KINDS; k++) {
    const llamp_capture_coll_t *e = &c->kind[k];
    if (calls && !calls[k] && !e->requested[0]) continue;
    fprintf(f, ",\n%s  ", indent);
    llamp_capture_json_str(f, llamp_coll_kind_name((llamp_coll_kind_t)k));
    fprintf(f, ": {\"algorithm\": ");
    llamp_capture_json_str(f, e->algo->name);
    fprintf(f, ", \"simgrid\": ");
    llamp_capture_json_str(f, e->simgrid);
    fprintf(f, ", \"source\": ");
    llamp_capture_json_str(f, e->source);
    fprintf(f, ", \"modelled\": %s, \"calls\": %llu", e->modelled ? "true" : "false",
            (unsigned long long)(calls ? calls[k] : 0));
    if (*e->note) {
      fprintf(f, ", \"note\": ");
      llamp_capture_json_str(f, e->note);
    }
    if (e->requested[0]) {
      fprintf(f, ", \"requested\": ");
      llamp_capture_json_str(f, e->requested);
    }
    fputc('}', f);
  }
  fprintf(f, "\n%s}", indent);
}
