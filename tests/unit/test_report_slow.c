/* llamp_report_slow_range: silent under 2 s; above, one line with the
 * count, the range, where half the critical latencies lie, and the lever. */
#define _GNU_SOURCE
#include <string.h>

#include "llamp_report.h"
#include "llamp_test.h"

int main(void) {
  llamp_breakpoint_t bp[5];
  for (int i = 0; i < 5; i++) bp[i] = (llamp_breakpoint_t){(i + 1) * 1e-9, i, i + 1, 1e-3};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CHECK(f != NULL);
  if (!f) return 1;
  llamp_report_slow_range(f, "llamp", "L", bp, 5, 0, 20e-6, 1.9, "--range narrows it");
  fflush(f);
  CHECK(len == 0); /* under 2 s: nothing */
  llamp_report_slow_range(f, "llamp", "L", bp, 5, 0, 20e-6, 3.25, "--range narrows it");
  fclose(f);
  printf("%s", buf);
  CHECK(strcmp(buf, "llamp: the search for critical latencies took 3.2 s: T bends at 5 of them in [0 s, 20 us], "
                    "half below 3 ns; --range narrows it\n") == 0);
  free(buf);
  /* another parameter (--wrt l_wire) is named */
  f = open_memstream(&buf, &len);
  CHECK(f != NULL);
  if (!f) return 1;
  llamp_report_slow_range(f, "smpi_llamp", "l_wire", bp, 5, 0, 20e-6, 2, "-llamp-range");
  fclose(f);
  printf("%s", buf);
  CHECK(strstr(buf, "smpi_llamp: the search for critical l_wire values took 2.0 s: T bends at 5 of them") == buf);
  free(buf);
  TEST_DONE();
}
