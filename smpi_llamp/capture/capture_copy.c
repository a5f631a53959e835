/* capture_copy.c - what the capture needs in every rank's copy of the
 * program (see capture_rank.h): the pointer to this rank's state, the SMPI
 * hooks and the marker.  Compiled into the program (libsmpi_llamp_capture.a,
 * linked with --whole-archive), so SMPI's privatization makes one of each
 * per rank; the helpers themselves run from the shared runtime. */
#define _GNU_SOURCE
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <smpi/smpi_helpers_internal.h>

#include "capture_rank.h"
#include "llamp_capture.h"

/* Marker string: smpi_llamp-run checks that the program contains it. */
__attribute__((used)) const char llamp_capture_marker[] = "smpi_llamp-capture-linked";

void *llamp_cap_mine;

/* The generated tables of this copy: the helpers count this rank's calls of
 * unmodelled functions in them. */
static const llamp_cap_tables_t tables = {&llamp_cap_num_unmodelled, llamp_cap_unmodelled_names,
                                          llamp_cap_unmodelled_local, llamp_cap_unmodelled_counts};

void *llamp_cap_first(void) { return llamp_cap_mine = llamp_cap_state_new(&tables); }

/* SimGrid's own function `name` (this file defines some of them, below). */
static void *simgrid_fn(const char *name, void **slot) {
  if (!*slot && !(*slot = llamp_capture_simgrid_sym(name)))
    llamp_capture_fatal("cannot find SimGrid's %s", name);
  return *slot;
}

/* SMPI functions the program calls outside MPI that end SMPI's compute timer
 * (kernel models, sleeps, the clock) and may let other ranks run: the
 * capture executes the compute so far before them and restarts its clock
 * after (llamp_cap_hook_enter/leave).  The program binds to these
 * (smpi_llamp-cc links with -Bsymbolic); each calls SimGrid's own. */
#define LLAMP_SMPI_HOOK(ret, name, params, args)                                 \
  ret name params {                                                              \
    static void *fn;                                                             \
    int synced = llamp_cap_hook_enter();                                         \
    ret r = ((ret(*) params)simgrid_fn(#name, &fn)) args;                        \
    llamp_cap_hook_leave(synced);                                                \
    return r;                                                                    \
  }
#define LLAMP_SMPI_HOOK_VOID(name, params, args)                                 \
  void name params {                                                             \
    static void *fn;                                                             \
    int synced = llamp_cap_hook_enter();                                         \
    ((void(*) params)simgrid_fn(#name, &fn)) args;                               \
    llamp_cap_hook_leave(synced);                                                \
  }
LLAMP_SMPI_HOOK_VOID(smpi_execute_benched, (double d), (d))
LLAMP_SMPI_HOOK_VOID(smpi_execute_flops_benched, (double f), (f))
LLAMP_SMPI_HOOK_VOID(smpi_execute, (double d), (d))
LLAMP_SMPI_HOOK_VOID(smpi_execute_flops, (double f), (f))
LLAMP_SMPI_HOOK(unsigned int, smpi_sleep, (unsigned int s), (s))
LLAMP_SMPI_HOOK(int, smpi_usleep, (useconds_t u), (u))
LLAMP_SMPI_HOOK(int, smpi_nanosleep, (const struct timespec *tp, struct timespec *t), (tp, t))
LLAMP_SMPI_HOOK(int, smpi_gettimeofday, (struct timeval *tv, struct timezone *tz), (tv, tz))
LLAMP_SMPI_HOOK(int, smpi_clock_gettime, (clockid_t id, struct timespec *tp), (id, tp))
