/* native_reqs.h - request keys for the capture under MPICH (docs/native.md).
 *
 * capture_rank.c identifies a request by its handle.  MPICH hands out ONE
 * shared builtin handle (0x6c000001 for sends) for every request that
 * completed inside the call that created it (an eager MPI_Isend, a send to
 * MPI_PROC_NULL, a trivial nonblocking collective): three such Isends in a
 * row give three equal handles.  In MPICH mode the generated wrappers
 * (gen_wrappers.py --mpich) therefore pass capture_rank.c a KEY instead of
 * the handle: the handle itself for ordinary requests, and for a builtin one
 * a key of its own, remembered with the address of the variable the program
 * received it in.  A completion call finds the key of each array slot by
 * that address (or, when the program copied the handle elsewhere, takes the
 * oldest outstanding key of the same handle).  Keys are never valid MPICH
 * handles (handle kind bits 0, not MPI_REQUEST_NULL). */
#ifndef LLAMP_NATIVE_REQS_H
#define LLAMP_NATIVE_REQS_H

#include <mpi.h>

/* After a call that created *slot (ret = its return code): the key to
 * record for it (a pointer valid until the next call of this function). */
MPI_Request *llamp_native_req_new(int ret, MPI_Request *slot);
/* Before a completion or free call on reqs[0..n): the keys of the slots
 * (valid until the next call of this function). */
MPI_Request *llamp_native_req_keys(int n, MPI_Request *reqs);
/* After that call: forget the keys of the builtin requests it released. */
void llamp_native_req_after(int n, const MPI_Request *reqs);

#endif
