/* fortran_rank.h - helpers of the generated Fortran bindings
 * (capture_fortran.c, from gen_fortran.py): Fortran arguments to C and back.
 * Internal, compiled into the program with the C wrappers, prefix
 * llamp_capf_.  A converting binding calls the C MPI_Xyz, i.e. the program's
 * own recording or count-only wrapper; helpers never fail the MPI call (out
 * of memory stops the run with one line on stderr). */
#ifndef LLAMP_CAPTURE_FORTRAN_RANK_H
#define LLAMP_CAPTURE_FORTRAN_RANK_H

#include <mpi.h>
#include <stddef.h>

/* handle arrays up to this size are converted on the caller's stack */
#define LLAMP_CAPF_NSTACK 32

/* A Fortran buffer: the addresses of SMPI's Fortran MPI_IN_PLACE and
 * MPI_BOTTOM become the C constants. */
void *llamp_capf_buf(void *p);
/* A Fortran status (INTEGER(MPI_STATUS_SIZE), the layout of MPI_Status) or
 * status array: MPI_STATUS(ES)_IGNORE become the C constant. */
MPI_Status *llamp_capf_status(MPI_Fint *p);

/* CHARACTER arguments: a NUL-terminated copy without trailing blanks (free
 * it); a buffer for a C output string; the output copied back blank-padded
 * (frees the buffer). */
char *llamp_capf_str_in(const char *s, size_t len);
char *llamp_capf_str_buf(size_t len);
void llamp_capf_str_out(char *dst, size_t len, char *tmp);

/* Arrays of handles: converted into `stack` when n <= LLAMP_CAPF_NSTACK,
 * else into allocated memory; *_out / *_done write back and release. */
MPI_Request *llamp_capf_reqs_in(int n, const MPI_Fint *f, MPI_Request *stack);
void llamp_capf_reqs_out(int n, MPI_Fint *f, MPI_Request *h, MPI_Request *stack);
MPI_Datatype *llamp_capf_types_in(int n, const MPI_Fint *f, MPI_Datatype *stack);
/* the size of Fortran communicator comm (MPI_Alltoallw's datatype arrays), 0 when invalid */
int llamp_capf_comm_size(MPI_Fint comm);
void llamp_capf_types_done(MPI_Datatype *h, MPI_Datatype *stack);

/* A forwarded binding: count the call as the C count-only wrapper of `cname`
 * would (`slot` caches its index), and SMPI's own Fortran binding `fsym`. */
void llamp_capf_count(const char *cname, int *slot);
/* After SMPI's binding returned (the compute clock restarts after a call
 * that may let other ranks run). */
void llamp_capf_count_done(int slot);
void *llamp_capf_next(const char *fsym);

#endif
