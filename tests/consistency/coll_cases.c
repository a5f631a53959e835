/* coll_cases - the collective algorithms of the registry that SimGrid can be
 * told to run (tests/consistency/run.sh):
 *   coll_cases            one line per algorithm with an SMPI equivalent:
 *                         KIND NAME NOTE (the registry's smpi_note, "exact"
 *                         when it has none)
 *   coll_cases SPEC       the smpirun options llamp_coll_selection_smpi_cfg
 *                         writes for a selection ("allreduce=ring,..."); exit
 *                         1 when SimGrid cannot run it */
#include <stdio.h>
#include <string.h>

#include "llamp_coll.h"

int main(int argc, char **argv) {
  char buf[4096], missing[1024], err[1024];
  llamp_coll_selection_t sel;
  if (argc > 1) {
    if (llamp_coll_parse_selection(argv[1], &sel, err, sizeof err) != 0) {
      fprintf(stderr, "coll_cases: %s\n", err);
      return 1;
    }
    int n = llamp_coll_selection_smpi_cfg(&sel, buf, sizeof buf, missing, sizeof missing);
    if (n) {
      fprintf(stderr, "coll_cases: SMPI cannot run %s\n", missing);
      return 1;
    }
    printf("%s\n", buf);
    return 0;
  }
  size_t count;
  const llamp_coll_algo_t *algos = llamp_coll_algos(&count);
  for (size_t i = 0; i < count; i++) {
    const llamp_coll_algo_t *a = &algos[i];
    if (!a->smpi) continue;
    printf("%s %s %s\n", llamp_coll_kind_name(a->kind), a->name,
           a->smpi_note[0] ? a->smpi_note : "exact");
  }
  return 0;
}
