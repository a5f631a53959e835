#!/usr/bin/env python3
"""gen_wrappers.py - generate the capture layer's PMPI wrappers.

usage: gen_wrappers.py MPI_TABLE SMPI_H OUT_C [OUT_RT_C]
       gen_wrappers.py --mpich MPI_TABLE MPI_H OUT_C

Reads the modelled functions from MPI_TABLE (mpi_table.txt) and every
MPI_CALL(type, MPI_Xyz, (args)) prototype from SMPI's smpi.h -- or, with
--mpich, every "type MPI_Xyz(args) ATTRIBUTES;" prototype of MPICH's mpi.h and
the headers it includes from its own directory (mpi_proto.h, mpio.h) that has
a PMPI_Xyz twin -- and writes one C file with
  * a recording wrapper for each function of the table (its body is built from
    the table's "kind": which capture helpers to call before and after PMPI_*),
  * a count-only wrapper for every other MPI function of smpi.h,
  * the table of all wrapped names (for "not modelled: MPI_Xyz x 12").
Each wrapper is a static function exported under the MPI name by a strong
alias: smpi.h declares MPI_* weak, and a definition after a weak declaration
would stay weak.

With OUT_RT_C (SMPI), a recording wrapper's body goes there instead, as
llamp_rt_MPI_Xyz for the shared runtime, and OUT_C keeps a stub that makes
its rank's state the current one and calls it.  SMPI copies the program once
per rank: bodies in the program were 64 copies of the same code taking turns
in the caches (bench/RESULTS.md, "What one captured call costs").  A body
makes its rank current again after PMPI_*, during which other ranks ran.
MPI_Init, MPI_Init_thread and MPI_Finalize stay whole in the program.

The table names arguments as smpi.h does.  MPICH's prototypes use the MPI
standard's names, which differ for a few (dst -> dest, src -> source,
comm_out -> newcomm, status -> array_of_statuses ...): MPICH_SYNONYMS maps
them, and is only consulted when a name is not in the prototype.  In MPICH
mode a NULL handle in a kind's snippet is written as a cast 0 (MPICH handles
are ints; 0 is no valid handle), and the MPI-4 / MPICH-only local functions
(MPI_T_*, sessions, ...) are counted like the other local ones.  The SMPI
output does not depend on any of this.

Any mismatch (an unknown kind, a function missing from smpi.h, an argument
name the prototype does not have, a wrong argument count) stops the build
with one line naming the table line.
"""
import re
import sys

# ---- kinds: argument roles, code before PMPI_*, code after it ------------------
# In the snippets, {role} is replaced by the prototype's argument name; `c` is
# the llamp_cap_call_t of the call, `ret` PMPI's return code.
KINDS = {
    'init': (['argc', 'argv'], None, None),  # special-cased below
    'init_thread': (['argc', 'argv', 'required', 'provided'], None, None),
    'finalize': ([], None, None),
    'send': (['count', 'type', 'peer', 'tag', 'comm'],
             'llamp_cap_p2p(&c, {comm}, {peer}, {tag}, {count}, {type});', ''),
    'recv': (['count', 'type', 'peer', 'tag', 'comm', 'status'],
             'MPI_Status st_;\n  if ({status} == MPI_STATUS_IGNORE) {status} = &st_;\n'
             '  llamp_cap_p2p(&c, {comm}, {peer}, {tag}, {count}, {type});',
             'llamp_cap_status(&c, ret, {comm}, {status});'),
    'isend': (['count', 'type', 'peer', 'tag', 'comm', 'request'],
              'llamp_cap_p2p(&c, {comm}, {peer}, {tag}, {count}, {type});',
              'llamp_cap_new_request(&c, ret, {request}, LLAMP_CAP_REQ_SEND, {comm});'),
    'irecv': (['count', 'type', 'peer', 'tag', 'comm', 'request'],
              'llamp_cap_p2p(&c, {comm}, {peer}, {tag}, {count}, {type});',
              'llamp_cap_new_request(&c, ret, {request}, LLAMP_CAP_REQ_RECV, {comm});'),
    'psend': (['count', 'type', 'peer', 'tag', 'comm', 'request'],
              'llamp_cap_p2p(&c, {comm}, {peer}, {tag}, {count}, {type});',
              'llamp_cap_new_request(&c, ret, {request}, LLAMP_CAP_REQ_SEND | LLAMP_CAP_REQ_PERSISTENT, {comm});'),
    'precv': (['count', 'type', 'peer', 'tag', 'comm', 'request'],
              'llamp_cap_p2p(&c, {comm}, {peer}, {tag}, {count}, {type});',
              'llamp_cap_new_request(&c, ret, {request}, LLAMP_CAP_REQ_RECV | LLAMP_CAP_REQ_PERSISTENT, {comm});'),
    'sendrecv': (['scount', 'stype', 'dest', 'stag', 'rcount', 'rtype', 'source', 'rtag', 'comm', 'status'],
                 'MPI_Status st_;\n  if ({status} == MPI_STATUS_IGNORE) {status} = &st_;\n'
                 '  llamp_cap_p2p(&c, {comm}, {dest}, {stag}, {scount}, {stype});\n'
                 '  llamp_cap_sendrecv_recv(&c, {comm}, {source}, {rtag}, {rcount}, {rtype});',
                 'llamp_cap_status(&c, ret, {comm}, {status});'),
    'probe': (['source', 'tag', 'comm', 'status'],
              'MPI_Status st_;\n  if ({status} == MPI_STATUS_IGNORE) {status} = &st_;\n'
              '  llamp_cap_p2p(&c, {comm}, {source}, {tag}, 0, NULL);',
              'llamp_cap_probe(&c, ret, {comm}, 1, {status});'),
    'iprobe': (['source', 'tag', 'comm', 'flag', 'status'],
               'MPI_Status st_;\n  if ({status} == MPI_STATUS_IGNORE) {status} = &st_;\n'
               '  llamp_cap_p2p(&c, {comm}, {source}, {tag}, 0, NULL);',
               'llamp_cap_probe(&c, ret, {comm}, *{flag}, {status});'),
    'start': (['request'], 'llamp_cap_start(&c, {request});', ''),
    'startall': (['count', 'requests'], 'llamp_cap_requests(&c, {count}, {requests});', ''),
    'wait': (['request', 'status'],
             'MPI_Request h_ = *{request};\n  {status} = llamp_cap_statuses(&c, 1, {status}, &st_);\n'
             '  llamp_cap_requests(&c, 1, {request});',
             'llamp_cap_complete(&c, ret, 1, &h_, {status}, LLAMP_CAP_DONE_ALL, 1, NULL);'),
    'waitall': (['count', 'requests', 'statuses'],
                'MPI_Request *h_ = llamp_cap_requests(&c, {count}, {requests});\n'
                '  {statuses} = llamp_cap_statuses(&c, {count}, {statuses}, &st_);',
                'llamp_cap_complete(&c, ret, {count}, h_, {statuses}, LLAMP_CAP_DONE_ALL, 1, NULL);'),
    'waitany': (['count', 'requests', 'index', 'status'],
                'MPI_Request *h_ = llamp_cap_requests(&c, {count}, {requests});\n'
                '  {status} = llamp_cap_statuses(&c, 1, {status}, &st_);',
                'llamp_cap_complete(&c, ret, {count}, h_, {status}, LLAMP_CAP_DONE_ONE, *{index}, NULL);'),
    'waitsome': (['count', 'requests', 'outcount', 'indices', 'statuses'],
                 'MPI_Request *h_ = llamp_cap_requests(&c, {count}, {requests});\n'
                 '  {statuses} = llamp_cap_statuses(&c, {count}, {statuses}, &st_);',
                 'llamp_cap_complete(&c, ret, {count}, h_, {statuses}, LLAMP_CAP_DONE_SOME, *{outcount}, {indices});'),
    'test': (['request', 'flag', 'status'],
             'MPI_Request h_ = *{request};\n  {status} = llamp_cap_statuses(&c, 1, {status}, &st_);\n'
             '  llamp_cap_requests(&c, 1, {request});',
             'llamp_cap_complete(&c, ret, 1, &h_, {status}, LLAMP_CAP_DONE_ALL, *{flag}, NULL);'),
    'testall': (['count', 'requests', 'flag', 'statuses'],
                'MPI_Request *h_ = llamp_cap_requests(&c, {count}, {requests});\n'
                '  {statuses} = llamp_cap_statuses(&c, {count}, {statuses}, &st_);',
                'llamp_cap_complete_testall(&c, ret, {count}, h_, {requests}, {statuses}, *{flag});'),
    'testany': (['count', 'requests', 'index', 'flag', 'status'],
                'MPI_Request *h_ = llamp_cap_requests(&c, {count}, {requests});\n'
                '  {status} = llamp_cap_statuses(&c, 1, {status}, &st_);',
                'llamp_cap_complete(&c, ret, {count}, h_, {status}, LLAMP_CAP_DONE_ONE, *{flag} ? *{index} : MPI_UNDEFINED, NULL);'),
    'request_free': (['request'],
                     'MPI_Request h_ = *{request};\n  llamp_cap_requests(&c, 1, {request});',
                     'llamp_cap_request_free(&c, ret, h_);'),
    'barrier': (['comm'], 'llamp_cap_coll(&c, {comm}, -1, 0, NULL);', ''),
    'bcast': (['count', 'type', 'root', 'comm'], 'llamp_cap_coll(&c, {comm}, {root}, {count}, {type});', ''),
    # reductions also note operations and datatypes that make SimGrid's
    # default reduce run another algorithm (llamp_cap_reduction)
    'reduce': (['count', 'type', 'root', 'comm', 'op'],
               'llamp_cap_coll(&c, {comm}, {root}, {count}, {type});\n  llamp_cap_reduction(&c, {op}, {type});', ''),
    'allreduce': (['count', 'type', 'comm', 'op'],
                  'llamp_cap_coll(&c, {comm}, -1, {count}, {type});\n  llamp_cap_reduction(&c, {op}, {type});', ''),
    'gather': (['sendbuf', 'scount', 'stype', 'rcount', 'rtype', 'root', 'comm'],
               'llamp_cap_coll(&c, {comm}, {root}, 0, NULL);\n'
               '  llamp_cap_coll_block(&c, {sendbuf} == MPI_IN_PLACE, {scount}, {stype}, {rcount}, {rtype});', ''),
    'gatherv': (['sendbuf', 'scount', 'stype', 'rcounts', 'rtype', 'root', 'comm'],
                'llamp_cap_coll(&c, {comm}, {root}, 0, NULL);\n'
                '  llamp_cap_coll_rootv(&c, {comm}, {root}, {sendbuf} == MPI_IN_PLACE, {scount}, {stype}, {rcounts}, {rtype});', ''),
    'scatter': (['recvbuf', 'rcount', 'rtype', 'scount', 'stype', 'root', 'comm'],
                'llamp_cap_coll(&c, {comm}, {root}, 0, NULL);\n'
                '  llamp_cap_coll_block(&c, {recvbuf} == MPI_IN_PLACE, {rcount}, {rtype}, {scount}, {stype});', ''),
    'scatterv': (['recvbuf', 'rcount', 'rtype', 'scounts', 'stype', 'root', 'comm'],
                 'llamp_cap_coll(&c, {comm}, {root}, 0, NULL);\n'
                 '  llamp_cap_coll_rootv(&c, {comm}, {root}, {recvbuf} == MPI_IN_PLACE, {rcount}, {rtype}, {scounts}, {stype});', ''),
    'allgather': (['sendbuf', 'scount', 'stype', 'rcount', 'rtype', 'comm'],
                  'llamp_cap_coll(&c, {comm}, -1, 0, NULL);\n'
                  '  llamp_cap_coll_block(&c, {sendbuf} == MPI_IN_PLACE, {scount}, {stype}, {rcount}, {rtype});', ''),
    'allgatherv': (['sendbuf', 'scount', 'stype', 'rcounts', 'rtype', 'comm'],
                   'llamp_cap_coll(&c, {comm}, -1, 0, NULL);\n'
                   '  llamp_cap_coll_allv(&c, {comm}, {sendbuf} == MPI_IN_PLACE, {scount}, {stype}, {rcounts}, {rtype});', ''),
    'alltoallv': (['sendbuf', 'scounts', 'stype', 'recvbuf', 'rcounts', 'rtype', 'comm'],
                  'llamp_cap_coll(&c, {comm}, -1, 0, NULL);\n'
                  '  llamp_cap_coll_alltoallv(&c, {comm}, {sendbuf} == MPI_IN_PLACE, {sendbuf} == {recvbuf}, {scounts}, '
                  '{stype}, {rcounts}, {rtype});', ''),
    # SMPI 3.32 runs MPI_Alltoallw as its ialltoallw (and a wait): recorded as
    # ALLTOALLV of per-peer bytes, flagged to expand as that linear exchange
    'alltoallw': (['sendbuf', 'scounts', 'stypes', 'rcounts', 'rtypes', 'comm'],
                  'llamp_cap_coll(&c, {comm}, -1, 0, NULL);\n'
                  '  llamp_cap_coll_alltoallw(&c, {comm}, {sendbuf} == MPI_IN_PLACE, {scounts}, {stypes}, {rcounts}, {rtypes});', ''),
    'reduce_scatter': (['rcounts', 'type', 'comm', 'op'],
                       'llamp_cap_coll(&c, {comm}, -1, 0, NULL);\n'
                       '  llamp_cap_coll_counts(&c, {comm}, {rcounts}, 0, {type});\n  llamp_cap_reduction(&c, {op}, {type});', ''),
    'reduce_scatter_block': (['rcount', 'type', 'comm', 'op'],
                             'llamp_cap_coll(&c, {comm}, -1, {rcount}, {type});\n  llamp_cap_reduction(&c, {op}, {type});', ''),
    # the nonblocking variant is recorded as IREDUCE_SCATTER: counts all equal
    'ireduce_scatter_block': (['rcount', 'type', 'comm', 'op', 'request'],
                              'llamp_cap_coll(&c, {comm}, -1, 0, NULL);\n'
                              '  llamp_cap_coll_counts(&c, {comm}, NULL, {rcount}, {type});\n  llamp_cap_reduction(&c, {op}, {type});',
                              'llamp_cap_new_request(&c, ret, {request}, LLAMP_CAP_REQ_COLL, NULL);'),
    # what SMPI communicates to make the communicator goes into the record's
    # flags (LLAMP_TRACE_F_COMM_*; none natively: capture_rank.c drops them)
    'comm_new': (['parent', 'newcomm'], 'llamp_cap_comm_parent(&c, {parent});',
                 'llamp_cap_comm_new(&c, ret, {parent}, *{newcomm}, NULL, 0);'),
    'comm_bcast': (['parent', 'newcomm'], 'llamp_cap_comm_parent(&c, {parent});',
                   'llamp_cap_comm_new(&c, ret, {parent}, *{newcomm}, NULL, LLAMP_TRACE_F_COMM_BCAST);'),
    'comm_group': (['parent', 'group', 'newcomm'], 'llamp_cap_comm_parent(&c, {parent});',
                   'llamp_cap_comm_new(&c, ret, {parent}, *{newcomm}, {group}, LLAMP_TRACE_F_COMM_BCAST);'),
    'comm_split': (['parent', 'color', 'key', 'newcomm'],
                   'llamp_cap_comm_parent(&c, {parent});\n'
                   '  int fl_ = llamp_cap_comm_split_pre(&c, {parent}, {color}, {key});',
                   'llamp_cap_comm_new(&c, ret, {parent}, *{newcomm}, NULL, fl_);'),
    'cart_sub': (['parent', 'remain', 'newcomm'],
                 'llamp_cap_comm_parent(&c, {parent});\n'
                 '  int fl_ = llamp_cap_cart_sub_pre(&c, {parent}, {remain});',
                 'llamp_cap_comm_new(&c, ret, {parent}, *{newcomm}, NULL, fl_);'),
    'comm_free': (['comm'], 'MPI_Comm h_ = *{comm};\n  llamp_cap_comm_parent(&c, h_);',
                  'llamp_cap_comm_free(&c, ret, h_);'),
    # one-sided communication (SMPI only, see SMPI_ONLY_KINDS)
    'win_create': (['comm', 'win'], 'llamp_cap_comm_parent(&c, {comm});',
                   'llamp_cap_win_new(&c, ret, {comm}, *{win}, 0);'),
    'win_shared': (['comm', 'win'], 'llamp_cap_comm_parent(&c, {comm});',
                   'llamp_cap_win_new(&c, ret, {comm}, *{win}, LLAMP_TRACE_F_WIN_SHARED);'),
    'win_free': (['win'], 'MPI_Win h_ = *{win};\n  llamp_cap_win(&c, h_);',
                 'llamp_cap_win_free(&c, ret, h_);'),
    'win_fence': (['assert', 'win'], 'llamp_cap_win(&c, {win});',
                  'llamp_cap_win_fence(&c, ret, {win}, {assert});'),
    'rma_put': (['count', 'type', 'target', 'win'], 'llamp_cap_rma(&c, {win}, {target}, {count}, {type});',
                'llamp_cap_rma_sent(&c, ret, {win}, c.rec.bytes);'),
    'rma_get': (['count', 'type', 'target', 'win'], 'llamp_cap_rma(&c, {win}, {target}, {count}, {type});', ''),
    'rma_rput': (['count', 'type', 'target', 'win', 'request'],
                 'llamp_cap_rma(&c, {win}, {target}, {count}, {type});',
                 'llamp_cap_rma_sent(&c, ret, {win}, c.rec.bytes);\n'
                 '  llamp_cap_new_request(&c, ret, {request}, LLAMP_CAP_REQ_SEND, NULL);'),
    'rma_rget': (['count', 'type', 'target', 'win', 'request'],
                 'llamp_cap_rma(&c, {win}, {target}, {count}, {type});',
                 'llamp_cap_new_request(&c, ret, {request}, LLAMP_CAP_REQ_SEND, NULL);'),
    'rma_getacc': (['ocount', 'otype', 'rcount', 'rtype', 'target', 'win', 'op'],
                   'llamp_cap_rma(&c, {win}, {target}, {rcount}, {rtype});\n'
                   '  uint64_t ab_ = llamp_cap_rma_getacc(&c, {ocount}, {otype}, {op});',
                   'llamp_cap_rma_sent(&c, ret, {win}, ab_);'),
    'rma_fop': (['origin', 'type', 'target', 'win', 'op'],
                'llamp_cap_rma(&c, {win}, {target}, 1, {type});\n'
                '  uint64_t ab_ = llamp_cap_rma_getacc(&c, {origin} ? 1 : 0, {type}, {op});',
                'llamp_cap_rma_sent(&c, ret, {win}, ab_);'),
    'rma_cas': (['compare', 'result', 'type', 'target', 'win'],
                'llamp_cap_rma(&c, {win}, {target}, 1, {type});',
                'llamp_cap_rma_cas(&c, ret, {win}, {compare}, {result});'),
    'win_target': (['target', 'win'], 'llamp_cap_rma(&c, {win}, {target}, 0, NULL);', ''),
    'win_sync': (['win'], 'llamp_cap_win(&c, {win});', ''),
    'win_group': (['group', 'win'], 'llamp_cap_win(&c, {win});\n  llamp_cap_win_group(&c, {group});', ''),
    'win_wait': (['win'], 'llamp_cap_win(&c, {win});', 'llamp_cap_win_incoming(&c, ret, {win}, UINT32_MAX);'),
}
KINDS['rma_acc'] = KINDS['rma_put']   # SMPI then flushes: sched knows from the op
KINDS['rma_racc'] = KINDS['rma_rput']
# Kinds that only an SMPI run can record (the target's messages come from the
# shared runtime, which spans all ranks only inside one simulation): the
# MPICH build gives their functions count-only wrappers.
SMPI_ONLY_KINDS = {k for k in KINDS if k.startswith(('win_', 'rma_'))}
# Kinds whose snippets use a local status array.
NEEDS_ST = {'wait', 'waitall', 'waitany', 'waitsome', 'test', 'testall', 'testany'}
# Collective kinds with a nonblocking variant ("i" + kind): one more argument,
# the request, completed later by a WAIT*/TEST* record.
COLL_KINDS = {'barrier', 'bcast', 'reduce', 'allreduce', 'gather', 'gatherv', 'scatter',
              'scatterv', 'allgather', 'allgatherv', 'alltoallv', 'alltoallw', 'reduce_scatter',
              'reduce_scatter_block'}

# Unmodelled functions that only touch local state: counted but not reported as
# a gap in the model.  Everything else that is not modelled is reported.
LOCAL_PREFIXES = ('MPI_Comm_rank', 'MPI_Comm_size', 'MPI_Comm_group', 'MPI_Comm_get_', 'MPI_Comm_set_',
                  'MPI_Comm_compare', 'MPI_Comm_test_inter', 'MPI_Comm_c2f', 'MPI_Comm_f2c',
                  'MPI_Comm_call_errhandler', 'MPI_Comm_create_keyval', 'MPI_Comm_free_keyval',
                  'MPI_Comm_delete_attr', 'MPI_Comm_create_errhandler', 'MPI_Comm_remote_size',
                  'MPI_Group_', 'MPI_Type_', 'MPI_Op_', 'MPI_Wtime', 'MPI_Wtick', 'MPI_Get_count',
                  'MPI_Get_elements', 'MPI_Get_processor_name', 'MPI_Get_version', 'MPI_Get_library_version',
                  'MPI_Get_address', 'MPI_Address', 'MPI_Aint_', 'MPI_Initialized', 'MPI_Finalized',
                  'MPI_Query_thread', 'MPI_Is_thread_main', 'MPI_Error_', 'MPI_Errhandler_', 'MPI_Info_',
                  'MPI_Attr_', 'MPI_Keyval_', 'MPI_Pack', 'MPI_Unpack', 'MPI_Buffer_', 'MPI_Alloc_mem',
                  'MPI_Free_mem', 'MPI_Status_', 'MPI_Request_get_status', 'MPI_Cart_coords', 'MPI_Cart_rank',
                  'MPI_Cart_get', 'MPI_Cart_shift', 'MPI_Cartdim_get', 'MPI_Dims_create', 'MPI_Cart_map',
                  'MPI_Graph_get', 'MPI_Graph_neighbors', 'MPI_Graphdims_get', 'MPI_Graph_map', 'MPI_Topo_test',
                  'MPI_Reduce_local', 'MPI_Pcontrol', 'MPI_Add_error_', 'MPI_Win_get_', 'MPI_Win_set_',
                  'MPI_Win_create_keyval', 'MPI_Win_free_keyval', 'MPI_Win_delete_attr', 'MPI_Win_c2f',
                  'MPI_Win_f2c', 'MPI_Request_c2f', 'MPI_Request_f2c', 'MPI_File_c2f', 'MPI_File_f2c',
                  'MPI_Message_', 'MPI_Register_datarep', 'MPI_Abort', 'MPI_Open_port', 'MPI_Close_port',
                  'MPI_Errhandler', 'MPI_File_get_', 'MPI_File_call_errhandler', 'MPI_File_create_errhandler',
                  'MPI_File_set_errhandler', 'MPI_File_seek', 'MPI_Dist_graph_neighbors', 'MPI_Comm_remote_group',
                  'MPI_Test_cancelled', 'MPI_Win_call_errhandler', 'MPI_Win_create_errhandler')

# Reads of the clock, at which SMPI charges the compute so far (its MPI_Wtime
# ends the benchmark timer): the capture executes the burst there too, so the
# time the program reads includes its compute (llamp_cap_clock_read).
CLOCK_READS = ('MPI_Wtime',)

# SMPI hands a failed call's code to an error handler in its MPI_Xyz layer,
# above the PMPI_Xyz the wrappers call, so each wrapper does it as SMPI 3.32's
# MPI_Xyz does (llamp_cap_error_*): the handler of the call's communicator,
# window or file (MPI_Comm_free, MPI_Win_free, MPI_File_close: the one their
# argument points to), else MPI_COMM_WORLD's.  These are SMPI's exceptions:
# its MPI_Pack, MPI_Pack_size and MPI_Unpack use MPI_COMM_WORLD's handler
# although they take a communicator, and MPI_Error_string and MPI_Abort have
# none.  (MPICH's PMPI_Xyz call the handlers themselves.)
ERRHANDLER_WORLD = ('MPI_Pack', 'MPI_Pack_size', 'MPI_Unpack')
ERRHANDLER_NONE = ('MPI_Error_string', 'MPI_Abort')
ERRHANDLER_DEREF = {'MPI_Comm_free': 'comm', 'MPI_Comm_disconnect': 'comm', 'MPI_Win_free': 'win',
                    'MPI_File_close': 'file'}


def errhandler_call(name, rtype, params):
    """The C expression that hands ret_ to the error handler SMPI would use
    for `name`, or None when SMPI hands it to none."""
    if rtype != 'int' or name in ERRHANDLER_NONE:
        return None
    fn = '"%s"' % name
    # a null communicator stands for MPI_COMM_WORLD, except the one freed
    comm_tail = lambda kind, null_world: ', %d' % null_world if kind == 'comm' else ''
    if name in ERRHANDLER_DEREF:
        kind = ERRHANDLER_DEREF[name]
        return 'llamp_cap_error_%s(ret_, %s, *%s%s)' % (kind, fn, params[0][1], comm_tail(kind, 0))
    types = [(decl[:decl.rfind(pname)].replace(' ', ''), pname) for decl, pname in params]
    if name not in ERRHANDLER_WORLD:
        for handle, kind in (('MPI_Comm', 'comm'), ('MPI_Win', 'win'), ('MPI_File', 'file')):
            for t, pname in types:
                if t == handle:
                    return 'llamp_cap_error_%s(ret_, %s, %s%s)' % (kind, fn, pname, comm_tail(kind, 1))
    return 'llamp_cap_error_comm(ret_, %s, MPI_COMM_WORLD, 1)' % fn


def checked_stub(w, name, rtype, params, varargs, check, body):
    """The program's llamp_w_ stub: `body` (its statements, returning the
    call's code) and, when `check`, the failed code to the error handler."""
    if not check or varargs:  # (SMPI's only variadic one, MPI_Pcontrol, is a stub)
        w('static %s {\n%s}\n' % (signature(name, rtype, params, varargs, 'llamp_w_'), body))
        return
    w('static inline __attribute__((always_inline)) %s {\n%s}\n'
      % (signature(name, rtype, params, varargs, 'llamp_b_'), body))
    w('static %s {\n' % signature(name, rtype, params, varargs, 'llamp_w_'))
    w('  int ret_ = llamp_b_%s(%s);\n' % (name, ', '.join(p[1] for p in params)))
    w('  return ret_ == MPI_SUCCESS ? ret_ : %s;\n}\n' % check)


# MPICH mode only: local functions smpi.h does not declare (tool interface,
# sessions, generalized requests, partitioned-arrival tests, callbacks).
LOCAL_PREFIXES_MPICH = ('MPI_T_', 'MPI_Session_get_', 'MPI_Session_call_errhandler',
                        'MPI_Session_create_errhandler', 'MPI_Session_set_errhandler',
                        'MPI_Grequest_', 'MPI_Parrived', 'MPI_DUP_FN', 'MPI_NULL_COPY_FN',
                        'MPI_NULL_DELETE_FN', 'MPI_COMM_', 'MPI_TYPE_', 'MPI_WIN_',
                        'MPI_CONVERSION_FN_NULL', 'MPI_Get_hw_resource_info')

# MPICH mode: table argument name (smpi.h) -> MPI standard names to try, in
# order, when the MPICH prototype has no parameter of the table's name.
MPICH_SYNONYMS = {
    'dst': ['dest'],
    'src': ['source'],
    'comm_out': ['newcomm'],
    'comm_new': ['newcomm'],
    'comm_cart': ['comm_cart', 'newcomm'],
    'comm_graph': ['comm_graph', 'newcomm'],
    'status': ['array_of_statuses'],
    'statuses': ['array_of_statuses'],
    'requests': ['array_of_requests'],
    'indices': ['array_of_indices'],
    'index': ['indx'],
    'sendcnts': ['sendcounts'],
    'recvcnts': ['recvcounts'],
}

# MPICH mode: request handles go through native/native_reqs.h (MPICH gives
# every request that completed inside its creating call the same builtin
# handle; the capture gets a key per request instead).
MPICH_REQ_SUBST = [
    ('llamp_cap_new_request(&c, ret, {request},',
     'llamp_cap_new_request(&c, ret, llamp_native_req_new(ret, {request}),'),
    ('MPI_Request h_ = *{request};', 'MPI_Request h_ = *llamp_native_req_keys(1, {request});'),
    ('llamp_cap_requests(&c, 1, {request})', 'llamp_cap_requests(&c, 1, &h_)'),
    ('llamp_cap_requests(&c, {count}, {requests})',
     'llamp_cap_requests(&c, {count}, llamp_native_req_keys({count}, {requests}))'),
]
MPICH_REQ_AFTER = [('llamp_native_req_keys(1, {request})', 'llamp_native_req_after(1, {request});'),
                   ('llamp_native_req_keys({count}, {requests})',
                    'llamp_native_req_after({count}, {requests});')]

# MPICH mode: NULL handles in the kinds' snippets, as cast zeros.
MPICH_NULL_HANDLES = [('0, NULL)', '0, (MPI_Datatype)0)'),
                      ('LLAMP_CAP_REQ_COLL, NULL)', 'LLAMP_CAP_REQ_COLL, (MPI_Comm)0)'),
                      ('*{newcomm}, NULL,', '*{newcomm}, (MPI_Group)0,')]


def die(msg):
    sys.stderr.write('gen_wrappers: %s\n' % msg)
    sys.exit(1)


def parse_prototypes(path):
    """name -> (return type, [(declaration, argument name)], varargs)"""
    text = open(path).read()
    text = re.sub(r'//[^\n]*', '', text)
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    protos = {}
    for m in re.finditer(r'MPI_CALL\(\s*XBT_PUBLIC\s+([^,]+?)\s*,\s*(MPI_\w+)\s*,\s*\((.*?)\)\s*\)\s*;',
                         text, re.S):
        rtype, name, args = m.group(1).strip(), m.group(2), ' '.join(m.group(3).split())
        params, varargs = [], False
        if args not in ('', 'void'):
            for a in args.split(','):
                a = a.strip()
                if a == '...':
                    varargs = True
                    continue
                core = re.sub(r'(\s*\[[^\]]*\])+$', '', a)
                mm = re.search(r'(\w+)\s*$', core)
                if not mm:
                    die('%s: cannot find the name of parameter "%s" in %s' % (path, a, name))
                params.append((a, mm.group(1)))
        protos[name] = (rtype, params, varargs)
    if len(protos) < 300:
        die('%s: only %d MPI_CALL prototypes found (expected SMPI 3.3x smpi.h)' % (path, len(protos)))
    return protos


def mpich_sources(path):
    """mpi.h and the headers it includes from its own directory (C only)."""
    import os
    base = os.path.dirname(path)
    seen, order = set(), []

    def visit(p):
        if p in seen:
            return
        seen.add(p)
        try:
            text = open(p).read()
        except OSError as e:
            die('%s: cannot read: %s' % (p, e.strerror))
        order.append((p, text))
        for m in re.finditer(r'^\s*#\s*include\s*[<"]([\w.]+)[>"]', text, re.M):
            inc = os.path.join(base, m.group(1))
            if 'cxx' not in m.group(1) and os.path.isfile(inc):
                visit(inc)
    visit(path)
    return order


def split_params(args):
    """Split a parameter list at top-level commas."""
    out, depth, cur = [], 0, ''
    for ch in args:
        if ch in '([':
            depth += 1
        elif ch in ')]':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_prototypes_mpich(path):
    """name -> (return type, [(declaration, argument name)], varargs) for every
    MPI_Xyz of MPICH's headers that has a PMPI_Xyz prototype as well."""
    protos, pnames = {}, set()
    for fname, text in mpich_sources(path):
        text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
        text = re.sub(r'//[^\n]*', '', text)
        text = re.sub(r'^\s*#(?:[^\n]*\\\n)*[^\n]*', '', text, flags=re.M)
        text = text.replace('extern "C"', ' ')
        for stmt in text.split(';'):
            stmt = re.split(r'[{}]', stmt)[-1]
            stmt = ' '.join(stmt.split())
            m = re.match(r'^((?:[A-Za-z_]\w*[\s*]+)+?)\s*\b(P?MPI_\w+)\s*\(', stmt)
            if not m or 'typedef' in m.group(1).split():
                continue
            rtype, name = m.group(1).strip(), m.group(2)
            i, depth = m.end(), 1
            while i < len(stmt) and depth:
                depth += {'(': 1, ')': -1}.get(stmt[i], 0)
                i += 1
            if depth:
                continue
            args, rest = stmt[m.end():i - 1].strip(), stmt[i:].strip()
            # only attribute macros may follow: NAME or NAME(...)
            if not re.fullmatch(r'(?:[A-Z_][A-Z0-9_]*(?:\s*\([^()]*\))?\s*)*', rest):
                continue
            if name.startswith('PMPI_'):
                pnames.add(name[1:])
                continue
            if name in protos:
                continue
            params, varargs = [], False
            if args not in ('', 'void'):
                for a in split_params(args):
                    if a == '...':
                        varargs = True
                        continue
                    core = re.sub(r'(\s*\[[^\]]*\])+$', '', a)
                    mm = re.search(r'(\w+)\s*$', core)
                    if not mm or '(' in a:
                        die('%s: cannot find the name of parameter "%s" in %s' % (fname, a, name))
                    params.append((a, mm.group(1)))
            protos[name] = (rtype, params, varargs)
    protos = {n: p for n, p in protos.items() if n in pnames}
    if len(protos) < 300:
        die('%s: only %d MPI_Xyz prototypes with a PMPI_Xyz twin found (expected MPICH 4 mpi.h)'
            % (path, len(protos)))
    return protos


def parse_table(path):
    rows = []
    for lineno, line in enumerate(open(path), 1):
        line = line.split('#', 1)[0].split()
        if not line:
            continue
        if len(line) < 4:
            die('%s:%d: expected "function op kind arguments..."' % (path, lineno))
        name, op, kind, args = line[0], line[1], line[2], line[3:]
        if args == ['-']:
            args = []
        rows.append((lineno, name, op, kind, args))
    return rows


def kind_spec(kind):
    if kind in KINDS:
        return KINDS[kind], False
    if kind.startswith('i') and kind[1:] in COLL_KINDS:
        roles, pre, post = KINDS[kind[1:]]
        return (roles + ['request'], pre,
                'llamp_cap_new_request(&c, ret, {request}, LLAMP_CAP_REQ_COLL, NULL);'), True
    return None, False


def subst(snippet, mapping):
    return re.sub(r'\{(\w+)\}', lambda m: mapping[m.group(1)], snippet)


def signature(name, rtype, params, varargs, prefix):
    decl = ', '.join(p[0] for p in params)
    if varargs:
        decl += ', ...'
    return '%s %s%s(%s)' % (rtype, prefix, name, decl or 'void')


def alias(name, rtype, params, varargs):
    return ('extern %s __asm__("%s") __attribute__((alias("llamp_w_%s")));\n'
            % (signature(name, rtype, params, varargs, 'llamp_alias_'), name, name))


def recording_body(w, op, kind, call, pre, post, mapping, shared):
    """A recording wrapper's body after its opening brace (the kind's
    helpers around PMPI_*).  shared: it runs from the runtime, entered by the
    program's stub, and makes its rank current again after PMPI_*."""
    if shared:
        w('  void *me_ = llamp_cap_self;\n')
    w('  llamp_cap_call_t c;\n')
    w('  if (!llamp_cap_begin(&c, LLAMP_OP_%s)) return %s;\n' % (op, call))
    if kind in NEEDS_ST:
        w('  MPI_Status st_;\n')
    if pre:
        w('  %s\n' % subst(pre, mapping))
    w('  llamp_cap_pmpi(&c);\n')
    w('  int ret = %s;\n' % call)
    if shared:
        w('  llamp_cap_self = me_; /* other ranks ran during it */\n')
    w('  llamp_cap_pmpi_done(&c);\n')
    if post:
        w('  %s\n' % subst(post, mapping))
    w('  llamp_cap_end(&c);\n  return ret;\n}\n')


def main():
    argv = sys.argv[1:]
    mpich = bool(argv) and argv[0] == '--mpich'
    if mpich:
        argv = argv[1:]
    if len(argv) not in (3, 4) or (mpich and len(argv) == 4):
        die('usage: gen_wrappers.py MPI_TABLE SMPI_H OUT_C [OUT_RT_C] | --mpich MPI_TABLE MPI_H OUT_C')
    table_path, header_path, out_path = argv[:3]
    rt_path = argv[3] if len(argv) == 4 else None
    rt = []
    if rt_path:
        rt.append('/* Generated by gen_wrappers.py from %s and %s: do not edit.\n'
                  ' * The recording wrappers\' bodies, run from the shared runtime. */\n'
                  % (table_path.split('/')[-1], header_path))
        rt.append('#include "capture_rank.h"\n\n')
    protos = parse_prototypes_mpich(header_path) if mpich else parse_prototypes(header_path)
    local_prefixes = LOCAL_PREFIXES + (LOCAL_PREFIXES_MPICH if mpich else ())
    rows = parse_table(table_path)
    modelled = {}
    out = []
    w = out.append
    w('/* Generated by gen_wrappers.py from %s and %s: do not edit. */\n'
      % (table_path.split('/')[-1], header_path))
    w('#include "capture_rank.h"\n')
    if mpich:
        w('#include "native_reqs.h"\n')
    w('\n')
    for lineno, name, op, kind, args in rows:
        where = '%s:%d' % (table_path, lineno)
        if mpich and kind in SMPI_ONLY_KINDS:
            continue
        if name in modelled:
            die('%s: %s listed twice' % (where, name))
        if name not in protos:
            die('%s: %s has no %s prototype in %s'
                % (where, name, 'PMPI_/MPI_' if mpich else 'MPI_CALL', header_path))
        rtype, params, varargs = protos[name]
        spec, _ = kind_spec(kind)
        if spec is None:
            die('%s: unknown kind "%s"' % (where, kind))
        roles, pre, post = spec
        if len(args) != len(roles):
            die('%s: kind %s takes %d arguments (%s), got %d'
                % (where, kind, len(roles), ' '.join(roles), len(args)))
        names = [p[1] for p in params]
        if mpich:
            resolved = []
            for a in args:
                for cand in [a] + MPICH_SYNONYMS.get(a, []):
                    if cand in names:
                        resolved.append(cand)
                        break
                else:
                    resolved.append(a)
            args = resolved
            for old, new in MPICH_NULL_HANDLES + MPICH_REQ_SUBST:
                pre = pre.replace(old, new) if pre else pre
                post = post.replace(old, new) if post else post
            for used, after in MPICH_REQ_AFTER:
                if pre and used in pre:
                    post = (post + '\n  ' if post else '') + after
        for a in args:
            if a not in names:
                die('%s: %s has no parameter "%s" (it has: %s)' % (where, name, a, ' '.join(names)))
        mapping = dict(zip(roles, args))
        modelled[name] = op
        call = 'P%s(%s)' % (name, ', '.join(names))
        w('/* %s -> LLAMP_OP_%s (%s) */\n' % (name, op, kind))
        check = None if mpich else errhandler_call(name, rtype, params)
        shared = rt_path and kind not in ('init', 'init_thread', 'finalize') and not varargs
        if shared:
            body = signature(name, rtype, params, varargs, 'llamp_rt_')
            w('%s;\n' % body)
            checked_stub(w, name, rtype, params, varargs, check,
                         '  llamp_cap_enter();\n  return llamp_rt_%s(%s);\n' % (name, ', '.join(names)))
            w(alias(name, rtype, params, varargs))
            w('\n')
            rt.append('/* %s -> LLAMP_OP_%s (%s) */\n%s {\n' % (name, op, kind, body))
            recording_body(rt.append, op, kind, call, pre, post, mapping, shared=True)
            rt.append('\n')
            continue
        if kind == 'init':
            body = '  return llamp_cap_init(%s, %s, -1, NULL);\n' % (mapping['argc'], mapping['argv'])
        elif kind == 'init_thread':
            body = ('  return llamp_cap_init(%s, %s, %s, %s);\n'
                    % (mapping['argc'], mapping['argv'], mapping['required'], mapping['provided']))
        elif kind == 'finalize':
            body = '  return llamp_cap_finalize();\n'
        else:
            lines = []
            recording_body(lines.append, op, kind, call, pre, post, mapping, shared=False)
            body = ''.join(lines)[:-2]  # without the closing brace: checked_stub writes it
        checked_stub(w, name, rtype, params, varargs, check, body)
        w(alias(name, rtype, params, varargs))
        w('\n')

    # count-only wrappers
    others = sorted(n for n in protos if n not in modelled)
    w('/* ---- count-only wrappers: every other MPI function of smpi.h ---- */\n\n')
    w('uint64_t llamp_cap_unmodelled_counts[%d];\n\n' % max(len(others), 1))
    for i, name in enumerate(others):
        rtype, params, varargs = protos[name]
        names = [p[1] for p in params]
        call = 'P%s(%s)' % (name, ', '.join(names))
        if name in CLOCK_READS:
            body = ('  llamp_cap_unmodelled_counts[%d]++;\n  llamp_cap_clock_read();\n  return %s;\n'
                    % (i, call))
        elif name.startswith(local_prefixes):
            body = '  llamp_cap_unmodelled_counts[%d]++;\n  return %s;\n' % (i, call)
        else:
            # the call may block and let other ranks run: the compute clock
            # stops on entry and restarts when it returns
            body = ('  llamp_cap_unmodelled(%du);\n  %s r_ = %s;\n  llamp_cap_unmodelled_done();\n'
                    '  return r_;\n' % (i, rtype, call))
        checked_stub(w, name, rtype, params, varargs, None if mpich else errhandler_call(name, rtype, params),
                     body)
        w(alias(name, rtype, params, varargs))
    w('\nconst unsigned llamp_cap_num_unmodelled = %du;\n' % len(others))
    w('const char *const llamp_cap_unmodelled_names[] = {\n')
    for name in others:
        w('  "%s",\n' % name)
    w('};\n')
    w('/* 1: the function only touches local state (not a gap in the model) */\n')
    w('const unsigned char llamp_cap_unmodelled_local[] = {\n')
    for name in others:
        w('  %d, /* %s */\n' % (1 if name.startswith(local_prefixes) else 0, name))
    w('};\n')
    w('const unsigned llamp_cap_num_modelled = %du;\n' % len(modelled))
    with open(out_path, 'w') as f:
        f.write(''.join(out))
    if rt_path:
        with open(rt_path, 'w') as f:
            f.write(''.join(rt))


if __name__ == '__main__':
    main()
