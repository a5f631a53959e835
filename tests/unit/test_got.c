/* llamp_got_redirect on a library of our own (got_probe/, full RELRO):
 * its calls of getpid go to a stand-in and back, the slot's page is
 * read-only again after each write, other imports and the test's own calls
 * of getpid are untouched, and what it cannot do is an error. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "llamp_got.h"
#include "llamp_test.h"

int got_probe_pid(void);
int got_probe_ppid(void);
int got_probe_uid(void);

static pid_t fake_pid(void) { return 4242; }
static uid_t fake_uid(void) { return 77; }

/* How many of the probe's mappings are writable: a write into its GOT must
 * leave as many as before (RELRO pages read-only again). */
static int count_writable_probe_maps(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return -1;
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, f))
    if (strstr(line, "libllamp_got_probe") && strstr(line, " rw")) n++;
  fclose(f);
  return n;
}

int main(void) {
  pid_t pid = getpid();
  CHECK(got_probe_pid() == (int)pid);
  int writable = count_writable_probe_maps();
  CHECK(writable >= 0);

  /* getpid: one PLT slot in the probe */
  CHECK(llamp_got_redirect("libllamp_got_probe", "getpid", (void *)fake_pid) == 1);
  CHECK(got_probe_pid() == 4242);
  CHECK(getpid() == pid);                         /* the test's own calls: untouched */
  CHECK(got_probe_ppid() == (int)getppid());      /* another import: untouched */
  CHECK(count_writable_probe_maps() == writable); /* RELRO read-only again */
  CHECK(llamp_got_redirect("libllamp_got_probe", "getpid", (void *)getpid) == 1);
  CHECK(got_probe_pid() == (int)pid);
  CHECK(count_writable_probe_maps() == writable);

  /* an address taken in code (a GLOB_DAT slot) */
  CHECK(llamp_got_redirect("libllamp_got_probe", "getuid", (void *)fake_uid) == 1);
  CHECK(got_probe_uid() == 77);
  CHECK(count_writable_probe_maps() == writable);
  CHECK(llamp_got_redirect("libllamp_got_probe", "getuid", (void *)getuid) == 1);
  CHECK(got_probe_uid() == (int)getuid());

  /* what it cannot do */
  CHECK(llamp_got_redirect("libllamp_got_probe", "no_such_import", (void *)fake_pid) == 0);
  CHECK(llamp_got_redirect("libno_such_library_loaded", "getpid", (void *)fake_pid) == -1);
  CHECK(llamp_got_redirect(NULL, "getpid", (void *)fake_pid) == -1);
  CHECK(llamp_got_redirect("libllamp_got_probe", "getpid", NULL) == -1);
  CHECK(got_probe_pid() == (int)pid);
  return llamp_test_failures ? 1 : 0;
}
