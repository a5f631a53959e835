/* llamp_got.h - point one loaded library's calls of an imported function
 * elsewhere, by rewriting its global offset table (GOT).
 *
 * The capture uses it on libsimgrid: SMPI reads the thread CPU clock at both
 * ends of every MPI call, a system call each, for a timing the capture has
 * taken over (smpi_llamp/capture/compute.c).  Only that library's own calls
 * change; the program's and every other library's stay as they are. */
#ifndef LLAMP_GOT_H
#define LLAMP_GOT_H

/* Make every GOT slot of `symbol` (R_*_JUMP_SLOT and R_*_GLOB_DAT
 * relocations: calls and taken addresses) in the first loaded object whose
 * path contains `object` hold `fn`.  A slot under RELRO (read-only once
 * loaded) is made writable for the write and read-only again.  Calling it
 * again with the original function (the caller takes it by name, e.g.
 * &clock_gettime: a slot not yet bound lazily holds a resolver stub, not the
 * function) undoes it.
 * Returns the number of slots written: 0 when the object does not import the
 * symbol; -1 when no such object is loaded, its dynamic section cannot be
 * read, mprotect fails, or the platform is not ELF64 on x86-64 or AArch64. */
int llamp_got_redirect(const char *object, const char *symbol, void *fn);

#endif
