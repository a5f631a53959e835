#!/usr/bin/env python3
"""gen_fortran.py - generate the capture layer's Fortran bindings.

usage: gen_fortran.py MPI_TABLE SMPI_H SIMGRID_FORTRAN_SYMBOLS OUT_C

SMPI's own Fortran bindings (mpi_send_ ... in libsimgrid) call libsimgrid's
internal MPI_Send, which the C wrappers linked into the program never see.
So the program gets its own mpi_xyz_ for every Fortran binding libsimgrid
exports (SIMGRID_FORTRAN_SYMBOLS: the output of `nm -D --defined-only
libsimgrid.so`, or one symbol per line), and the program's Fortran calls bind
to them (the program is linked with -Bsymbolic):

  * converting bindings: Fortran arguments -> C (handles through SMPI's
    MPI_*_f2c tables, MPI_IN_PLACE / MPI_BOTTOM / MPI_STATUS(ES)_IGNORE from
    their Fortran addresses, strings trimmed or blank-padded, 1-based
    indices), then the C MPI_Xyz -- which is the program's own wrapper, so
    a Fortran call is recorded (or counted) by exactly the code that records
    a C call; results are converted back (c2f);
  * forwarding bindings, for the few whose Fortran semantics differ from C
    in ways a generic rule cannot see (attribute values, MPI-1 INTEGER
    displacements, callbacks, baseptr ...): counted like the C count-only
    wrapper (by name, through the tables of capture_wrappers.c), then SMPI's
    own mpi_xyz_ does the work.

The conversion is derived from the C prototype of smpi.h, parameter by
parameter (FORTRAN_TYPE rules below, with the small per-function maps that
follow).  Every function of MPI_TABLE that SMPI binds for Fortran must be
converted (a modelled call must reach the recording wrapper); the build
stops with one line naming the table line otherwise.  gfortran's
conventions: all arguments by reference, INTEGER = int, INTEGER(KIND=
MPI_ADDRESS_KIND) = MPI_Aint, LOGICAL = int with .true. = 1 (what C
returns), one hidden size_t length per CHARACTER argument after the others.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_wrappers import die, parse_prototypes, parse_table  # noqa: E402

HANDLES = ('Datatype', 'Comm', 'File', 'Win', 'Info', 'Request', 'Group', 'Op', 'Errhandler',
           'Message')
NULL_HANDLE = {'Datatype': 'MPI_DATATYPE_NULL', 'Comm': 'MPI_COMM_NULL', 'File': 'MPI_FILE_NULL',
               'Win': 'MPI_WIN_NULL', 'Info': 'MPI_INFO_NULL', 'Request': 'MPI_REQUEST_NULL',
               'Group': 'MPI_GROUP_NULL', 'Op': 'MPI_OP_NULL', 'Errhandler': 'MPI_ERRHANDLER_NULL',
               'Message': 'MPI_MESSAGE_NULL'}
# C function -> f2c / c2f name of a handle type (MPI_Datatype uses MPI_Type_*)
F2C_NAME = {h: ('Type' if h == 'Datatype' else h) for h in HANDLES}

# Forwarded to SMPI's own binding: the Fortran argument is not what the C
# prototype says (attribute values are INTEGER(KIND=MPI_ADDRESS_KIND), not
# pointers; MPI-1 displacements are INTEGER; baseptr; arrays of handles out).
# (MPI_Win_allocate(_shared)'s baseptr is converted: the C `void *base` gets
# the address of the Fortran INTEGER(KIND=MPI_ADDRESS_KIND) or TYPE(C_PTR),
# which receives the address, as C's `void **` would.)
FORWARD = {
    'MPI_Attr_get', 'MPI_Attr_put', 'MPI_Comm_get_attr', 'MPI_Comm_set_attr', 'MPI_Type_get_attr',
    'MPI_Type_set_attr', 'MPI_Win_get_attr', 'MPI_Win_set_attr', 'MPI_Buffer_detach',
    'MPI_Alloc_mem', 'MPI_Free_mem', 'MPI_Win_shared_query', 'MPI_Type_get_contents', 'MPI_Type_struct', 'MPI_Type_hindexed',
    'MPI_Type_hvector', 'MPI_Address', 'MPI_Type_extent', 'MPI_Type_lb', 'MPI_Type_ub',
    'MPI_Info_get', 'MPI_Pcontrol', 'MPI_Comm_spawn', 'MPI_Comm_spawn_multiple',
    'MPI_Grequest_start', 'MPI_Register_datarep',
}
# Handle pointers that are read and written back (all others are outputs).
INOUT = {'MPI_Wait', 'MPI_Test', 'MPI_Start', 'MPI_Cancel', 'MPI_Request_free', 'MPI_Comm_free',
         'MPI_Comm_disconnect', 'MPI_Type_commit', 'MPI_Type_free', 'MPI_Op_free', 'MPI_Group_free',
         'MPI_Info_free', 'MPI_Win_free', 'MPI_Errhandler_free', 'MPI_File_close', 'MPI_Mrecv',
         'MPI_Imrecv'}
# Arrays of handles: parameter -> the parameter holding their number ('@comm':
# one per rank of the communicator parameter `comm`, MPI_Alltoallw's).
HANDLE_ARRAYS = {'requests': ('count', 'incount'), 'old_types': ('count',), 'sendtypes': ('@comm',),
                 'recvtypes': ('@comm',)}
# C returns 0-based indices; Fortran counts from 1.
INDEX_SCALAR = {'MPI_Waitany': 'index', 'MPI_Testany': 'index'}
INDEX_ARRAY = {'MPI_Waitsome': ('indices', 'outcount'), 'MPI_Testsome': ('indices', 'outcount')}


def ctype_of(decl, name):
    return ' '.join(re.sub(r'\b%s\b' % name, '', decl).split())


def convert(fname, params):
    """(Fortran parameter declarations, hidden lengths, pre code, C call
    arguments, post code) for a converting binding, or None with a reason."""
    fparams, hidden, pre, args, post = [], [], [], [], []
    names = [p[1] for p in params]
    for decl, n in params:
        t = ctype_of(decl, n)
        base = t.replace('const ', '').replace(' ', '')
        m = re.fullmatch(r'MPI_(\w+?)(\*|\[\])?', base)
        h = m.group(1) if m and m.group(1) in HANDLES else None
        ptr = bool(m and m.group(2))
        if base == 'int':
            fparams.append('MPI_Fint *%s' % n)
            args.append('*%s' % n)
        elif base in ('int*', 'int[]', 'int[][3]'):
            fparams.append('MPI_Fint *%s' % n)
            args.append('(void *)%s' % n if base == 'int[][3]' else n)
        elif base in ('MPI_Aint', 'MPI_Offset', 'MPI_Count'):
            fparams.append('%s *%s' % (base, n))
            args.append('*%s' % n)
        elif base in ('MPI_Aint*', 'MPI_Offset*', 'MPI_Count*'):
            fparams.append('%s *%s' % (base[:-1], n))
            args.append(n)
        elif base == 'void*':
            fparams.append('void *%s' % n)
            args.append('llamp_capf_buf(%s)' % n)
        elif base in ('MPI_Status*', 'MPI_Status[]'):
            fparams.append('MPI_Fint *%s' % n)
            args.append('llamp_capf_status(%s)' % n)
        elif base == 'char*':
            fparams.append('char *%s' % n)
            hidden.append('size_t %s_len' % n)
            if t.startswith('const'):
                pre.append('char *s_%s = llamp_capf_str_in(%s, %s_len);' % (n, n, n))
                post.append('free(s_%s);' % n)
            else:
                pre.append('char *s_%s = llamp_capf_str_buf(%s_len);' % (n, n))
                post.append('llamp_capf_str_out(%s, %s_len, s_%s);' % (n, n, n))
            args.append('s_%s' % n)
        elif h and not ptr:
            fparams.append('MPI_Fint *%s' % n)
            args.append('PMPI_%s_f2c(*%s)' % (F2C_NAME[h], n))
        elif h and n in HANDLE_ARRAYS:
            cnt = [c for c in HANDLE_ARRAYS[n] if c in names or (c == '@comm' and 'comm' in names)]
            if not cnt or h not in ('Request', 'Datatype') or (cnt[0] == '@comm' and h != 'Datatype'):
                return None, 'array %s without a count' % n
            fn = 'reqs' if h == 'Request' else 'types'
            fparams.append('MPI_Fint *%s' % n)
            if cnt[0] == '@comm':
                pre.append('int n_%s = llamp_capf_comm_size(*comm);' % n)
                num = 'n_%s' % n
            else:
                num = '*%s' % cnt[0]
            pre.append('MPI_%s hs_%s[LLAMP_CAPF_NSTACK];\n  MPI_%s *h_%s = llamp_capf_%s_in(%s, %s, hs_%s);'
                       % (h, n, h, n, fn, num, n, n))
            args.append('h_%s' % n)
            if h == 'Request':
                post.append('llamp_capf_reqs_out(%s, %s, h_%s, hs_%s);' % (num, n, n, n))
            else:
                post.append('llamp_capf_types_done(h_%s, hs_%s);' % (n, n))
        elif h and ptr and not t.startswith('const'):
            fparams.append('MPI_Fint *%s' % n)
            init = 'PMPI_%s_f2c(*%s)' % (F2C_NAME[h], n) if fname in INOUT else NULL_HANDLE[h]
            pre.append('MPI_%s h_%s = %s;' % (h, n, init))
            args.append('&h_%s' % n)
            post.append('*%s = PMPI_%s_c2f(h_%s);' % (n, F2C_NAME[h], n))
        else:
            return None, 'parameter "%s" of type %s' % (n, t)
    if fname in INDEX_SCALAR:
        n = INDEX_SCALAR[fname]
        post.append('if (*%s != MPI_UNDEFINED) *%s += 1;' % (n, n))
    if fname in INDEX_ARRAY:
        n, cnt = INDEX_ARRAY[fname]
        post.append('for (int i_ = 0; *%s != MPI_UNDEFINED && i_ < *%s; i_++) %s[i_] += 1;' % (cnt, cnt, n))
    return (fparams, hidden, pre, args, post), None


def read_symbols(path):
    syms = set()
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if len(f) >= 3 and f[-2] not in ('T', 'W', 'B', 'D', 'V', 'i'):
            continue
        syms.add(f[-1])
    return syms


def main():
    if len(sys.argv) != 5:
        die('usage: gen_fortran.py MPI_TABLE SMPI_H SIMGRID_FORTRAN_SYMBOLS OUT_C')
    table_path, header_path, syms_path, out_path = sys.argv[1:]
    protos = parse_prototypes(header_path)
    syms = read_symbols(syms_path)
    fortran = sorted(n for n in protos if n.lower() + '_' in syms)
    if len(fortran) < 200:
        die('%s: only %d Fortran bindings of smpi.h functions found (expected SMPI 3.3x libsimgrid)'
            % (syms_path, len(fortran)))
    table = {name: (lineno, kind) for lineno, name, op, kind, args in parse_table(table_path)}

    out = []
    w = out.append
    w('/* Generated by gen_fortran.py from %s, %s and libsimgrid\'s Fortran symbols:\n'
      ' * do not edit. */\n' % (os.path.basename(table_path), header_path))
    w('#include "fortran_rank.h"\n\n#include <stdlib.h>\n\n')
    w('/* every binding is called from Fortran only */\n')
    w('#pragma GCC diagnostic ignored "-Wmissing-prototypes"\n\n')
    nconv = nfwd = 0
    forwarded = []
    for name in fortran:
        rtype, params, varargs = protos[name]
        sym = name.lower() + '_'
        if name == 'MPI_Init':
            w('void %s(MPI_Fint *ierr) { *ierr = MPI_Init(NULL, NULL); }\n\n' % sym)
            nconv += 1
            continue
        if name == 'MPI_Init_thread':
            w('void %s(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) {\n'
              '  *ierr = MPI_Init_thread(NULL, NULL, *required, provided);\n}\n\n' % sym)
            nconv += 1
            continue
        if rtype == 'double' and not params:
            w('double %s(void) { return %s(); }\n\n' % (sym, name))
            nconv += 1
            continue
        if rtype != 'int':
            die('%s: %s returns %s: no rule for its Fortran binding %s' % (header_path, name, rtype, sym))
        conv, why = (None, 'listed in FORWARD') if name in FORWARD else convert(name, params)
        if conv is None:
            if name in table:
                die('%s:%d: %s is modelled but its Fortran binding cannot be converted (%s)'
                    % (table_path, table[name][0], name, why))
            forwarded.append((name, why))
            nparams = len(params) + (1 if varargs else 0)
            nchar = sum(1 for d, n in params if 'char' in d)
            # every Fortran argument is an address, then ierr, then one
            # hidden length per CHARACTER argument: forwarded as they came
            types = ['void *'] * nparams + ['MPI_Fint *'] + ['size_t'] * nchar
            cargs = ['a%d' % i for i in range(nparams)] + ['ierr'] + ['l%d' % i for i in range(nchar)]
            ftype = 'void (*)(%s)' % ', '.join(types)
            w('/* %s: forwarded (%s) */\n' % (name, why))
            w('void %s(%s) {\n' % (sym, ', '.join(t + ('' if t.endswith('*') else ' ') + a
                                                  for t, a in zip(types, cargs))))
            w('  static int slot;\n  static %s;\n' % ftype.replace('(*)', '(*next)'))
            w('  llamp_capf_count("%s", &slot);\n' % name)
            w('  if (!next) next = (%s)llamp_capf_next("%s");\n' % (ftype, sym))
            w('  next(%s);\n' % ', '.join(cargs))
            w('  llamp_capf_count_done(slot);\n}\n\n')
            nfwd += 1
            continue
        fparams, hidden, pre, args, post = conv
        w('void %s(%s) {\n' % (sym, ', '.join(fparams + ['MPI_Fint *ierr'] + hidden)))
        for p in pre:
            w('  %s\n' % p)
        w('  int ret = %s(%s);\n' % (name, ', '.join(args)))
        for p in post:
            w('  %s\n' % p)
        w('  *ierr = ret;\n}\n\n')
        nconv += 1
    w('/* %d converting bindings, %d forwarded to SMPI\'s own */\n' % (nconv, nfwd))
    w('const unsigned llamp_capf_num_bindings = %du;\n' % (nconv + nfwd))
    with open(out_path, 'w') as f:
        f.write(''.join(out))


if __name__ == '__main__':
    main()
