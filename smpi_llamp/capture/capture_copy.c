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

#include "capture_marker.h"
#include "capture_rank.h"
#include "llamp_capture.h"

/* Marker string: smpi_llamp-run checks that the program contains it. */
__attribute__((used)) const char llamp_capture_marker[] = LLAMP_CAPTURE_MARKER;

void *llamp_cap_mine;

/* The generated tables of this copy: the helpers count this rank's calls of
 * unmodelled functions in them. */
static const llamp_cap_tables_t tables = {&llamp_cap_num_unmodelled, llamp_cap_unmodelled_names,
                                          llamp_cap_unmodelled_local, llamp_cap_unmodelled_counts};

void *llamp_cap_first(void) { return llamp_cap_mine = llamp_cap_state_new(&tables); }

/* SMPI's functions that end its compute timer: this copy's rank made
 * current, then the shared runtime's hook (capture_rank.h). */
#define LLAMP_COPY_HOOK(ret, name, params, args)                                 \
  ret name params { return LLAMP_CAP_ENTERING(llamp_rt_hook_##name args); }
#define LLAMP_COPY_HOOK_VOID(name, params, args)                                 \
  void name params { LLAMP_CAP_ENTERING(llamp_rt_hook_##name args); }
LLAMP_CAP_HOOKS(LLAMP_CAP_HOOK_DECL, LLAMP_CAP_HOOK_DECL_VOID)
LLAMP_CAP_HOOKS(LLAMP_COPY_HOOK, LLAMP_COPY_HOOK_VOID)
