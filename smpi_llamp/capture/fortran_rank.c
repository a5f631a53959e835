/* fortran_rank.c - helpers of the generated Fortran bindings (see
 * fortran_rank.h).  Compiled into the program with the C wrappers.
 *
 * SMPI's Fortran handles are integers looked up in its F2C table; the C API
 * exposes the table as MPI_*_f2c / MPI_*_c2f, which the generated bindings
 * call directly (PMPI_*: the conversions are not the application's calls).
 * MPI_IN_PLACE, MPI_BOTTOM and MPI_STATUS(ES)_IGNORE are, in SMPI's mpif.h
 * and mpi.mod, EXTERNAL names whose addresses are libsimgrid's variables
 * mpi_in_place_ ...; a Fortran caller passes their address. */
#define _GNU_SOURCE
#include "fortran_rank.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture_rank.h"
#include "llamp_capture.h"

/* libsimgrid's Fortran special values (private.hpp of SimGrid 3.32) */
extern int mpi_in_place_, mpi_bottom_, mpi_status_ignore_, mpi_statuses_ignore_;

void *llamp_capf_buf(void *p) {
  if (p == (void *)&mpi_in_place_) return MPI_IN_PLACE;
  if (p == (void *)&mpi_bottom_) return MPI_BOTTOM;
  return p;
}

MPI_Status *llamp_capf_status(MPI_Fint *p) {
  if (p == &mpi_status_ignore_ || p == &mpi_statuses_ignore_) return MPI_STATUS_IGNORE;
  return (MPI_Status *)(void *)p;
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) llamp_capture_fatal("out of memory in a Fortran binding (%zu bytes)", n);
  return p;
}

char *llamp_capf_str_in(const char *s, size_t len) {
  while (len > 0 && s[len - 1] == ' ') len--;
  char *c = xmalloc(len + 1);
  memcpy(c, s, len);
  c[len] = '\0';
  return c;
}

/* C output strings are at most MPI_MAX_*_STRING (100 in SMPI 3.32) long,
 * whatever the Fortran buffer's length */
char *llamp_capf_str_buf(size_t len) {
  size_t n = (len > 1024 ? len : 1024) + 1;
  char *c = xmalloc(n);
  memset(c, 0, n);
  return c;
}

void llamp_capf_str_out(char *dst, size_t len, char *tmp) {
  size_t n = strlen(tmp);
  if (n > len) n = len;
  memcpy(dst, tmp, n);
  memset(dst + n, ' ', len - n);
  free(tmp);
}

MPI_Request *llamp_capf_reqs_in(int n, const MPI_Fint *f, MPI_Request *stack) {
  MPI_Request *h = n <= LLAMP_CAPF_NSTACK ? stack : xmalloc((size_t)n * sizeof *h);
  for (int i = 0; i < n; i++) h[i] = PMPI_Request_f2c(f[i]);
  return h;
}

void llamp_capf_reqs_out(int n, MPI_Fint *f, MPI_Request *h, MPI_Request *stack) {
  for (int i = 0; i < n; i++) f[i] = PMPI_Request_c2f(h[i]);
  if (h != stack) free(h);
}

MPI_Datatype *llamp_capf_types_in(int n, const MPI_Fint *f, MPI_Datatype *stack) {
  MPI_Datatype *h = n <= LLAMP_CAPF_NSTACK ? stack : xmalloc((size_t)n * sizeof *h);
  for (int i = 0; i < n; i++) h[i] = PMPI_Type_f2c(f[i]);
  return h;
}

int llamp_capf_comm_size(MPI_Fint comm) {
  int n = 0;
  if (PMPI_Comm_size(PMPI_Comm_f2c(comm), &n) != MPI_SUCCESS || n < 0) n = 0; /* MPI then reports the bad comm */
  return n;
}

void llamp_capf_types_done(MPI_Datatype *h, MPI_Datatype *stack) {
  if (h != stack) free(h);
}

void llamp_capf_count(const char *cname, int *slot) {
  if (*slot == 0) {
    for (unsigned i = 0; i < llamp_cap_num_unmodelled && !*slot; i++)
      if (strcmp(llamp_cap_unmodelled_names[i], cname) == 0) *slot = (int)i + 1;
    if (!*slot) llamp_capture_fatal("Fortran binding of %s: not among the count-only wrappers", cname);
  }
  unsigned i = (unsigned)(*slot - 1);
  if (llamp_cap_unmodelled_local[i])
    llamp_cap_unmodelled_counts[i]++;
  else
    llamp_cap_unmodelled(i);
}

void llamp_capf_count_done(int slot) {
  if (slot > 0 && !llamp_cap_unmodelled_local[slot - 1]) llamp_cap_unmodelled_done();
}

/* `sym` as libsimgrid sees it: in libsimgrid or its dependencies (the
 * program may define the same name, so a plain lookup could find ours). */
void *llamp_capf_next(const char *fsym) {
  void *f = llamp_capture_simgrid_sym(fsym);
  if (!f) llamp_capture_fatal("SMPI's Fortran binding %s was not found in libsimgrid", fsym);
  return f;
}

/* The command line of a Fortran program with a private libgfortran.
 * SMPI hands the command line to the libgfortran it loaded itself
 * (_gfortran_set_args in smpi_main); with smpi/privatize-libs each rank's
 * program binds to its own copy, which nobody told: GET_COMMAND_ARGUMENT
 * would see no arguments.  When the program's libgfortran is not
 * libsimgrid's, copy the arguments over before the program runs (this
 * constructor runs as SMPI loads the rank's copy of the program).  Weak: a
 * C program need not link libgfortran. */
extern void _gfortran_set_args(int argc, char **argv) __attribute__((weak));

__attribute__((constructor)) static void fortran_args(void) {
  if (!_gfortran_set_args) return;
  /* one libgfortran for all (the usual case, also in every C program, which
   * binds the weak name to libsimgrid's): SMPI set it up */
  if ((void *)(uintptr_t)_gfortran_set_args == llamp_capture_simgrid_sym("_gfortran_set_args")) return;
  int (*iargc)(void) = (int (*)(void))llamp_capture_simgrid_sym("_gfortran_iargc");
  void (*getarg)(int *, char *, size_t) =
      (void (*)(int *, char *, size_t))llamp_capture_simgrid_sym("_gfortran_getarg_i4");
  if (!iargc || !getarg) return;
  int n = iargc() + 1;
  char **argv = xmalloc((size_t)(n + 1) * sizeof *argv); /* kept: libgfortran keeps the pointer */
  char buf[4096];
  for (int i = 0; i < n; i++) {
    getarg(&i, buf, sizeof buf);
    argv[i] = llamp_capf_str_in(buf, sizeof buf);
  }
  argv[n] = NULL;
  _gfortran_set_args(n, argv);
}
