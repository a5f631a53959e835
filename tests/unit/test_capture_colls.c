/* The capture's choice of collective algorithms (smpi_llamp/capture/
 * collsel.c) against made-up SimGrid settings: SimGrid's default selector,
 * explicit settings, -llamp-coll requests that SimGrid did or did not run,
 * per-call selectors, composites whose parts are not modelled, the warnings
 * and report.json's object. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"
#include "llamp_test.h"

/* the fake SimGrid configuration: "name=value" pairs */
static const char *const *settings;
static const char *get(const char *name) {
  size_t n = strlen(name);
  for (const char *const *s = settings; s && *s; s++)
    if (!strncmp(*s, name, n) && (*s)[n] == '=') return *s + n + 1;
  return strncmp(name, "smpi/", 5) == 0 ? "" : NULL; /* SimGrid knows them all, unset */
}

static char warnbuf[8192];
static int resolve(llamp_capture_colls_t *c, const char *requested, const char *added) {
  memset(warnbuf, 0, sizeof warnbuf); /* fmemopen writes no terminator when nothing is written */
  FILE *w = fmemopen(warnbuf, sizeof warnbuf, "w");
  char err[1024];
  int rc = llamp_capture_colls_resolve(c, get, requested, added, w, err, sizeof err);
  fclose(w);
  if (rc) snprintf(warnbuf, sizeof warnbuf, "%s", err);
  return rc;
}

static const char *name(const llamp_capture_colls_t *c, llamp_coll_kind_t k) {
  return c->kind[k].algo->name;
}

int main(void) {
  static llamp_capture_colls_t c;
  uint64_t calls[LLAMP_COLL_NUM_KINDS] = {0};

  /* no collective setting: SimGrid's default selector and fixed algorithms */
  settings = NULL;
  CHECK(resolve(&c, "", NULL) == 0);
  CHECK(!strcmp(c.selector, "default") && c.unmodelled == 0 && c.conflicts == 0);
  CHECK(!strcmp(name(&c, LLAMP_COLL_ALLREDUCE), "linear_reduce_bcast"));
  CHECK(!strcmp(name(&c, LLAMP_COLL_BARRIER), "linear"));
  CHECK(!strcmp(name(&c, LLAMP_COLL_ALLTOALL), "ompi"));
  CHECK(!strcmp(name(&c, LLAMP_COLL_IBARRIER), "linear_nb"));
  CHECK(!strcmp(c.kind[LLAMP_COLL_ALLREDUCE].source, "simgrid default selector"));
  CHECK(!strcmp(c.kind[LLAMP_COLL_SCAN].simgrid, "(built-in)"));
  CHECK(strstr(c.spec, "allreduce=linear_reduce_bcast,") && strstr(c.spec, "iallreduce=linear_nb"));
  CHECK(warnbuf[0] == '\0');
  llamp_coll_selection_t sel;
  char err[512];
  CHECK(llamp_coll_parse_selection(c.spec, &sel, err, sizeof err) == 0);

  /* an explicit setting wins over a request: a warning, the DAG follows SimGrid */
  static const char *const rdb[] = {"smpi/allreduce=rdb", NULL};
  settings = rdb;
  CHECK(resolve(&c, "allreduce=lr", NULL) == 0);
  CHECK(!strcmp(name(&c, LLAMP_COLL_ALLREDUCE), "recursive_doubling"));
  CHECK(!strcmp(c.kind[LLAMP_COLL_ALLREDUCE].source, "--cfg=smpi/allreduce:rdb"));
  CHECK(!strcmp(c.kind[LLAMP_COLL_ALLREDUCE].requested, "lr") && c.conflicts == 1);
  CHECK(strstr(warnbuf, "-llamp-coll allreduce=lr is not what SimGrid runs (rdb") != NULL);

  /* the request smpi_llamp-run translated */
  static const char *const rab[] = {"smpi/allreduce=rab_rdb", NULL};
  settings = rab;
  CHECK(resolve(&c, "allreduce=rabenseifner", "bcast:flattree:coll allreduce:rab_rdb:coll") == 0);
  CHECK(!strcmp(name(&c, LLAMP_COLL_ALLREDUCE), "rabenseifner") && c.conflicts == 0);
  CHECK(!strcmp(c.kind[LLAMP_COLL_ALLREDUCE].source, "-llamp-coll (--cfg=smpi/allreduce:rab_rdb)"));
  CHECK(c.kind[LLAMP_COLL_ALLREDUCE].modelled);
  if (warnbuf[0]) fprintf(stderr, "unexpected: %s", warnbuf);
  CHECK(warnbuf[0] == 0);

  /* a request SMPI has no setting for */
  settings = NULL;
  CHECK(resolve(&c, "scan=linear", NULL) == 0);
  CHECK(!strcmp(name(&c, LLAMP_COLL_SCAN), "direct") && c.conflicts == 1);
  CHECK(strstr(warnbuf, "SMPI has no setting for it") != NULL);

  /* a per-call selector: only alltoall's and allreduce's ompi are modelled,
   * and the allreduce's redbcast runs the selector's reduce, which is not */
  static const char *const ompi[] = {"smpi/coll-selector=ompi", NULL};
  settings = ompi;
  CHECK(resolve(&c, "reduce=binomial", NULL) == 0);
  CHECK(c.kind[LLAMP_COLL_ALLTOALL].modelled && !c.kind[LLAMP_COLL_ALLREDUCE].modelled);
  CHECK(!strcmp(name(&c, LLAMP_COLL_ALLREDUCE), "ompi"));
  CHECK(strstr(c.kind[LLAMP_COLL_ALLREDUCE].note, "reduce and bcast") != NULL);
  CHECK(!c.kind[LLAMP_COLL_REDUCE].modelled);
  CHECK(!strcmp(name(&c, LLAMP_COLL_REDUCE), "binomial")); /* the request as fallback */
  CHECK(!strcmp(name(&c, LLAMP_COLL_BCAST), "binomial"));  /* else our default */
  CHECK(!strcmp(c.kind[LLAMP_COLL_BCAST].source, "smpi/coll-selector:ompi"));
  CHECK(c.unmodelled == 11); /* the 11 settings but alltoall, + reduce_scatter_block */
  calls[LLAMP_COLL_REDUCE] = 16;
  calls[LLAMP_COLL_ALLTOALL] = 16;
  memset(warnbuf, 0, sizeof warnbuf);
  FILE *w = fmemopen(warnbuf, sizeof warnbuf, "w");
  CHECK(llamp_capture_colls_warn(&c, calls, w) == 1);
  fclose(w);
  CHECK(strstr(warnbuf, "reduce: SimGrid runs ompi (smpi/coll-selector:ompi), which the DAG "
                        "does not reproduce") != NULL);
  char *json = NULL;
  size_t len = 0;
  w = open_memstream(&json, &len);
  llamp_capture_colls_json(w, &c, calls, "");
  fclose(w);
  CHECK(strstr(json, "\"selector\": \"ompi\", \"unmodelled_used\": 1") != NULL);
  CHECK(strstr(json, "\"reduce\": {\"algorithm\": \"binomial\", \"simgrid\": \"ompi\", "
                     "\"source\": \"smpi/coll-selector:ompi\", \"modelled\": false, \"calls\": 16") != NULL);
  CHECK(strstr(json, "\"alltoall\": {\"algorithm\": \"ompi\"") != NULL);
  CHECK(strstr(json, "\"bcast\"") == NULL); /* not used, not requested */
  free(json);

  /* smpi_llamp-run replaced the selector */
  static const char *const repl[] = {"smpi/coll-selector=mpich", "smpi/allreduce=rdb", NULL};
  settings = repl;
  CHECK(resolve(&c, "", "allreduce:rdb:selector") == 0);
  CHECK(c.kind[LLAMP_COLL_ALLREDUCE].modelled);
  CHECK(!strcmp(c.kind[LLAMP_COLL_ALLREDUCE].source,
                "smpi_llamp-run (--cfg=smpi/allreduce:rdb in place of smpi/coll-selector:mpich)"));

  /* redbcast runs SimGrid's reduce: not modelled -> neither is the allreduce */
  static const char *const red[] = {"smpi/allreduce=redbcast", "smpi/reduce=NTSL", NULL};
  settings = red;
  CHECK(resolve(&c, "", NULL) == 0);
  CHECK(!c.kind[LLAMP_COLL_REDUCE].modelled && !c.kind[LLAMP_COLL_ALLREDUCE].modelled);
  CHECK(strstr(c.kind[LLAMP_COLL_ALLREDUCE].note, "reduce and bcast") != NULL);
  static const char *const red2[] = {"smpi/allreduce=redbcast", "smpi/reduce=flat_tree", NULL};
  settings = red2;
  CHECK(resolve(&c, "", NULL) == 0);
  CHECK(c.kind[LLAMP_COLL_ALLREDUCE].modelled && !strcmp(name(&c, LLAMP_COLL_REDUCE), "linear"));

  /* an inexact map: modelled = false, with the registry's note */
  static const char *const rdbag[] = {"smpi/allgather=rdb", NULL};
  settings = rdbag;
  CHECK(resolve(&c, "", NULL) == 0);
  CHECK(!c.kind[LLAMP_COLL_ALLGATHER].modelled &&
        !strcmp(name(&c, LLAMP_COLL_ALLGATHER), "recursive_doubling"));
  CHECK(strstr(c.kind[LLAMP_COLL_ALLGATHER].note, "rdb does not fold") != NULL);

  /* a bad request */
  settings = NULL;
  CHECK(resolve(&c, "allreduce=nonsense", NULL) == -1);
  CHECK(strstr(warnbuf, "unknown allreduce algorithm 'nonsense'") != NULL);
  TEST_DONE();
}
