/* smpi_llamp-run-prep - what smpi_llamp-run does before the simulation that
 * needs more than the shell's builtins, in one process: the program's
 * markers, the output directory's lock, the removal of an earlier run's
 * outputs and the run's temporary directory.  As four commands (grep, flock,
 * rm, mktemp) that took 25-35 ms a run on a VM, ~1 % of bench_capture64.
 *
 *   smpi_llamp-run-prep PROG OUT TMPBASE PID   (fd 9 open on OUT/.llamp-lock)
 *
 * Prints "linked 0|1|2|-1", "fortran 0|1" (PROG holds the capture library's
 * marker, libgfortran's soname; 2: the marker of another version of the
 * capture, capture_marker.h; -1: not a file) and "tmp DIR"; each line is printed only once
 * the step before it succeeded.  A failure prints one line on stderr,
 * prefixed "smpi_llamp-run: ", and exits 1: the lock is held by another run,
 * an output cannot be removed, the directory cannot be made.  Internal to
 * smpi_llamp-run: installed beside the capture runtime, not on the PATH. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture_marker.h"

static const char prog[] = "smpi_llamp-run";
enum { LOCK_FD = 9 };

/* whether the file holds each string; *linked = -1 when PROGRAM is not a
 * regular file (SMPI loads the program from its path, never from PATH) */
static void markers(const char *path, int *linked, int *fortran) {
  *linked = -1, *fortran = 0;
  struct stat st;
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) *linked = 0; /* there, not readable */
    return;
  }
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    *linked = 0;
    void *p = st.st_size > 0 ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    if (p != MAP_FAILED) {
      /* the marker with this runtime's interface (NUL included), else an
       * older or newer one: 2 = linked, but with another version */
      static const char mark[] = LLAMP_CAPTURE_MARKER, base[] = LLAMP_CAPTURE_MARKER_BASE, gf[] = "libgfortran";
      *linked = memmem(p, (size_t)st.st_size, mark, sizeof mark) != NULL ? 1
                : memmem(p, (size_t)st.st_size, base, sizeof base - 1) != NULL ? 2 : 0;
      *fortran = memmem(p, (size_t)st.st_size, gf, sizeof gf - 1) != NULL;
      munmap(p, (size_t)st.st_size);
    }
  }
  close(fd);
}

static int remove_file(const char *path) {
  if (unlink(path) == 0 || errno == ENOENT) return 0;
  fprintf(stderr, "%s: cannot remove '%s' of an earlier run: %s\n", prog, path, strerror(errno));
  return -1;
}

/* an earlier run's outputs, which must not pass for this run's */
static int remove_stale(const char *out) {
  static const char *const names[] = {"graph.llg", "graph.goal", "report.json", "sweep.csv", "routes.txt"};
  char path[4096];
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    snprintf(path, sizeof path, "%s/%s", out, names[i]);
    if (remove_file(path)) return -1;
  }
  snprintf(path, sizeof path, "%s/trace", out);
  DIR *d = opendir(path);
  if (!d) return 0;
  int rc = 0;
  for (struct dirent *e; rc == 0 && (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (strncmp(e->d_name, "rank-", 5) || n < 9 || strcmp(e->d_name + n - 4, ".llt")) continue;
    char f[4400];
    snprintf(f, sizeof f, "%s/%s", path, e->d_name);
    rc = remove_file(f);
  }
  closedir(d);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: smpi_llamp-run-prep PROGRAM OUT TMPBASE PID (internal to %s)\n", prog);
    return 2;
  }
  const char *program = argv[1], *out = argv[2], *tmp_base = argv[3], *pid = argv[4];
  int linked, fortran;
  markers(program, &linked, &fortran);
  printf("linked %d\nfortran %d\n", linked, fortran);
  fflush(stdout);
  if (linked != 1) return 0; /* the wrapper says why and stops */
  /* one run per output directory: the lock on the wrapper's fd 9 (shared
   * with it, so held after this process ends, until the simulation's) */
  if (flock(LOCK_FD, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      char holder[64] = "?", path[4096];
      snprintf(path, sizeof path, "%s/.llamp-lock", out);
      FILE *f = fopen(path, "r");
      if (f) {
        if (!fgets(holder, sizeof holder, f)) strcpy(holder, "?");
        holder[strcspn(holder, "\n")] = 0;
        fclose(f);
      }
      fprintf(stderr,
              "%s: '%s' is in use by another run (pid %s): wait for it to end, or choose another -llamp-out DIR\n",
              prog, out, holder);
    } else {
      fprintf(stderr, "%s: cannot lock '%s/.llamp-lock': %s\n", prog, out, strerror(errno));
    }
    return 1;
  }
  if (ftruncate(LOCK_FD, 0) == 0 && lseek(LOCK_FD, 0, SEEK_SET) == 0) {
    size_t n = strlen(pid);
    if (write(LOCK_FD, pid, n) != (ssize_t)n || write(LOCK_FD, "\n", 1) != 1) {
      /* the pid is only for the message above */
    }
  }
  if (remove_stale(out)) return 1;
  /* SMPI copies the program (and privatized libraries) under fixed names
   * into its tmpdir: each run its own */
  char dir[4096];
  if ((size_t)snprintf(dir, sizeof dir, "%s/smpi_llamp-run.XXXXXX", tmp_base) >= sizeof dir || !mkdtemp(dir)) {
    fprintf(stderr, "%s: cannot create a temporary directory in '%s' (choose one with -tmpdir DIR)\n", prog,
            tmp_base);
    return 1;
  }
  printf("tmp %s\n", dir);
  return 0;
}
