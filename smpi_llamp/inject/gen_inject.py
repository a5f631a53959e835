#!/usr/bin/env python3
"""gen_inject.py - generate the latency injector's MPI wrappers.

usage: gen_inject.py MPI_TABLE MPI_H OUT_C

Reads the capture's table (capture/mpi_table.txt: which MPI functions the
model knows and how) and MPICH's prototypes (parsed by capture/gen_wrappers.py,
imported, not changed) and writes one C file with
  * a wrapper for each point-to-point, completion and blocking collective
    function of the table, calling the llamp_inject_* entry point of its
    record op (llamp_inject.h) with the prototype's arguments; a blocking
    collective moves its data with MPICH's nonblocking counterpart
    (MPI_Bcast -> PMPI_Ibcast, same parameters and a request) while the
    DAG's token schedule runs;
  * a counting wrapper for the table's other lines (nonblocking
    collectives, one-sided communication, windows: MPICH runs them
    undelayed) and every other communicating MPI function ("not injected: MPI_Xyz x N" at
    MPI_Finalize with LLAMP_INJECT_VERBOSE=1);
  * an aborting wrapper for the functions whose messages would carry the
    injector's header unseen (matched probes, large-count and combined
    nonblocking point-to-point).
Local functions (the capture's LOCAL_PREFIXES) and the communicator
functions of the table are not wrapped.  A point-to-point line whose
prototype does not have the entry point's arity, or a collective argument the
prototype lacks, stops the build with one line naming the table line.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'capture'))
import gen_wrappers as gw  # noqa: E402

# record op -> (entry point, number of prototype parameters, mode argument?)
P2P = {
    'SEND': ('llamp_inject_send', 6, True), 'SSEND': ('llamp_inject_send', 6, True),
    'BSEND': ('llamp_inject_send', 6, True), 'RSEND': ('llamp_inject_send', 6, True),
    'RECV': ('llamp_inject_recv', 7, False),
    'SENDRECV': ('llamp_inject_sendrecv', 12, False),
    'SENDRECV_REPLACE': ('llamp_inject_sendrecv_replace', 9, False),
    'PROBE': ('llamp_inject_probe', 4, False), 'IPROBE': ('llamp_inject_iprobe', 5, False),
    'ISEND': ('llamp_inject_isend', 7, True), 'ISSEND': ('llamp_inject_isend', 7, True),
    'IBSEND': ('llamp_inject_isend', 7, True), 'IRSEND': ('llamp_inject_isend', 7, True),
    'IRECV': ('llamp_inject_irecv', 7, False),
    'SEND_INIT': ('llamp_inject_send_init', 7, True),
    'RECV_INIT': ('llamp_inject_recv_init', 7, False),
    'START': ('llamp_inject_start', 1, False), 'STARTALL': ('llamp_inject_startall', 2, False),
    'WAIT': ('llamp_inject_wait', 2, False), 'WAITALL': ('llamp_inject_waitall', 3, False),
    'WAITANY': ('llamp_inject_waitany', 4, False), 'WAITSOME': ('llamp_inject_waitsome', 5, False),
    'TEST': ('llamp_inject_test', 3, False), 'TESTALL': ('llamp_inject_testall', 4, False),
    'TESTANY': ('llamp_inject_testany', 5, False), 'TESTSOME': ('llamp_inject_testsome', 5, False),
    'REQUEST_FREE': ('llamp_inject_request_free', 1, False),
}

# blocking collective kind -> arguments of llamp_inject_coll_begin after the kind:
# comm, root, count, type, counts, rcounts ({role} = the table's argument)
INPLACE_S = '{sendbuf} == MPI_IN_PLACE'
INPLACE_R = '{recvbuf} == MPI_IN_PLACE'
COLL = {
    'barrier': ('{comm}', '-1', '0', 'MPI_DATATYPE_NULL', 'NULL', 'NULL'),
    'bcast': ('{comm}', '{root}', '{count}', '{type}', 'NULL', 'NULL'),
    'reduce': ('{comm}', '{root}', '{count}', '{type}', 'NULL', 'NULL'),
    'allreduce': ('{comm}', '-1', '{count}', '{type}', 'NULL', 'NULL'),
    'gather': ('{comm}', '{root}', '%s ? {rcount} : {scount}' % INPLACE_S,
               '%s ? {rtype} : {stype}' % INPLACE_S, 'NULL', 'NULL'),
    'gatherv': ('{comm}', '{root}', '%s ? 0 : {scount}' % INPLACE_S,
                '%s ? {rtype} : {stype}' % INPLACE_S, '{rcounts}', 'NULL'),
    'scatter': ('{comm}', '{root}', '%s ? {scount} : {rcount}' % INPLACE_R,
                '%s ? {stype} : {rtype}' % INPLACE_R, 'NULL', 'NULL'),
    'scatterv': ('{comm}', '{root}', '%s ? 0 : {rcount}' % INPLACE_R,
                 '%s ? {stype} : {rtype}' % INPLACE_R, '{scounts}', 'NULL'),
    'allgather': ('{comm}', '-1', '%s ? {rcount} : {scount}' % INPLACE_S,
                  '%s ? {rtype} : {stype}' % INPLACE_S, 'NULL', 'NULL'),
    'allgatherv': ('{comm}', '-1', '0', '{rtype}', '{rcounts}', 'NULL'),
    'alltoallv': ('{comm}', '-1', '0', '{stype}', '{scounts}', '{rcounts}'),
    'reduce_scatter': ('{comm}', '-1', '0', '{type}', '{rcounts}', 'NULL'),
    'reduce_scatter_block': ('{comm}', '-1', '{rcount}', '{type}', 'NULL', 'NULL'),
}

# Not in the table and unsafe: their messages would meet (or be) messages
# with the injector's header.
UNSUPPORTED = ('MPI_Mprobe', 'MPI_Improbe', 'MPI_Mrecv', 'MPI_Imrecv', 'MPI_Isendrecv',
               'MPI_Isendrecv_replace')
P2P_C = ('MPI_Send_c', 'MPI_Recv_c', 'MPI_Isend_c', 'MPI_Irecv_c', 'MPI_Bsend_c', 'MPI_Ssend_c',
         'MPI_Rsend_c', 'MPI_Ibsend_c', 'MPI_Issend_c', 'MPI_Irsend_c', 'MPI_Send_init_c',
         'MPI_Recv_init_c', 'MPI_Bsend_init_c', 'MPI_Ssend_init_c', 'MPI_Rsend_init_c',
         'MPI_Sendrecv_c', 'MPI_Sendrecv_replace_c', 'MPI_Mrecv_c', 'MPI_Imrecv_c',
         'MPI_Isendrecv_c', 'MPI_Isendrecv_replace_c')


def mode_of(name):
    for key, mode in (('Ssend', 'SYNC'), ('Bsend', 'BUFFERED'), ('Rsend', 'READY')):
        if key in name:
            return 'LLAMP_INJECT_' + mode
    return 'LLAMP_INJECT_STD'


def main():
    if len(sys.argv) != 4:
        gw.die('usage: gen_inject.py MPI_TABLE MPI_H OUT_C')
    table_path, header_path, out_path = sys.argv[1:]
    protos = gw.parse_prototypes_mpich(header_path)
    local = gw.LOCAL_PREFIXES + gw.LOCAL_PREFIXES_MPICH
    out = []
    w = out.append
    w('/* Generated by gen_inject.py from %s and %s: do not edit. */\n'
      % (os.path.basename(table_path), header_path))
    w('#define LLAMP_INJECT_RUNTIME 1\n#include "llamp_inject.h"\n#include "llamp_coll.h"\n\n')
    handled = set()
    counted = []
    for lineno, name, op, kind, args in gw.parse_table(table_path):
        where = '%s:%d' % (table_path, lineno)
        if name not in protos:
            gw.die('%s: %s has no PMPI_/MPI_ prototype in %s' % (where, name, header_path))
        rtype, params, varargs = protos[name]
        names = [p[1] for p in params]
        call = 'P%s(%s)' % (name, ', '.join(names))
        handled.add(name)
        body = None
        if kind == 'init':
            body = 'return llamp_inject_init(%s, %s, -1, NULL);' % (names[0], names[1])
        elif kind == 'init_thread':
            body = 'return llamp_inject_init(%s);' % ', '.join(names)
        elif kind == 'finalize':
            body = 'return llamp_inject_finalize();'
        elif op in P2P:
            fn, nargs, mode = P2P[op]
            if len(names) != nargs:
                gw.die('%s: %s has %d parameters, %s takes %d' % (where, name, len(names), fn, nargs))
            body = 'return %s(%s%s);' % (fn, mode_of(name) + ', ' if mode else '', ', '.join(names))
        elif kind == 'comm_free':
            body = 'llamp_inject_comm_free(*%s);\n  return %s;' % (names[0], call)
        elif kind.startswith('comm_') or kind == 'cart_sub':
            continue  # communicator creation: MPICH's own, nothing to delay
        elif kind in COLL:
            roles = gw.KINDS[kind][0]
            if len(args) != len(roles):
                gw.die('%s: kind %s takes %d arguments' % (where, kind, len(roles)))
            resolved = []
            for a in args:
                for cand in [a] + gw.MPICH_SYNONYMS.get(a, []):
                    if cand in names:
                        resolved.append(cand)
                        break
                else:
                    gw.die('%s: %s has no parameter "%s"' % (where, name, a))
            mapping = dict(zip(roles, resolved))
            cargs = ', '.join(gw.subst(x, mapping) for x in COLL[kind])
            # the data: MPICH's nonblocking counterpart, started before the
            # tokens (a barrier has none: its tokens synchronise)
            if kind == 'barrier':
                data = 'MPI_SUCCESS'
            else:
                iname = 'MPI_I' + name[4].lower() + name[5:]
                if iname not in protos or [p[1] for p in protos[iname][1]][:-1] != names:
                    gw.die('%s: %s has no nonblocking counterpart %s(%s, request) in %s'
                           % (where, name, iname, ', '.join(names), header_path))
                data = 'P%s(%s, llamp_inject_coll_data())' % (iname, ', '.join(names))
            body = ('if (llamp_inject_coll_begin(LLAMP_COLL_%s, %s))\n'
                    '    return llamp_inject_coll_run(%s);\n  int r_ = %s;\n'
                    '  llamp_inject_coll_end();\n  return r_;' % (op, cargs, data, call))
        else:
            # nonblocking collectives, one-sided communication and windows
            # (and any kind added to the table later): MPICH's own, counted
            counted.append(name)
            body = 'llamp_inject_not_injected(%du);\n  return %s;' % (len(counted) - 1, call)
        w('/* %s (%s, %s) */\n' % (name, op, kind))
        w('static %s {\n  %s\n}\n' % (gw.signature(name, rtype, params, varargs, 'llamp_w_'), body))
        w(gw.alias(name, rtype, params, varargs))
        w('\n')
    w('/* ---- functions the injector does not delay ---- */\n\n')
    for name in sorted(protos):
        if name in handled or name.startswith(local) or name in gw.CLOCK_READS:
            continue
        rtype, params, varargs = protos[name]
        names = [p[1] for p in params]
        call = 'P%s(%s)' % (name, ', '.join(names))
        if name in UNSUPPORTED or name in P2P_C:
            body = 'llamp_inject_unsupported("%s");\n  return %s;' % (name, call)
        else:
            counted.append(name)
            body = 'llamp_inject_not_injected(%du);\n  return %s;' % (len(counted) - 1, call)
        w('static %s {\n  %s\n}\n' % (gw.signature(name, rtype, params, varargs, 'llamp_w_'), body))
        w(gw.alias(name, rtype, params, varargs))
    w('\nuint64_t llamp_inject_counts[%d];\n' % max(len(counted), 1))
    w('const unsigned llamp_inject_num_names = %du;\n' % len(counted))
    w('const char *const llamp_inject_names[] = {\n')
    for name in counted:
        w('  "%s",\n' % name)
    w('};\n')
    with open(out_path, 'w') as f:
        f.write(''.join(out))


if __name__ == '__main__':
    main()
