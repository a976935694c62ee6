"""The object a vertex program sees: ``ctx`` in ``compute(ctx, v)``.

``VertexContext`` is a named tuple of arrays (numba passes it to compiled code as a
struct, and caches code that takes it); its methods are numba overloads, inlined into the
superstep loop. One context per part: ``part``, ``lo``, ``hi`` name the vertex range the
calling thread or rank owns. Everything else is shared by all parts.

Methods (``v`` is the vertex being computed, an internal id)::

    ctx.superstep, ctx.num_vertices       # scalars
    ctx.params[i]                         # the program's run-time parameters
    ctx.value[v]                          # the vertex's value (scalar or a row view)
    ctx.out_degree(v), ctx.out_edges(v), ctx.out_weights(v)
    ctx.has_message(v), ctx.message(v)    # combined message (programs with a combiner)
    ctx.messages(v)                       # all messages, as an array (0 or 1 when combined)
    ctx.send_to_all(v, m)                 # m to every out-neighbour, never copied per edge
    ctx.send_along_edges(v, m)            # edge_message(m, weight) to every out-neighbour
    ctx.send(target, m)                   # m to any vertex
    ctx.vote_to_halt(v)                   # sleep until a message arrives
    ctx.finish(v)                         # done for good: skipped, messages to v dropped
    ctx.aggregate(i, x), ctx.aggregated(i)
"""

from __future__ import annotations

import functools
from collections import namedtuple

import numpy as np
from numba import carray, njit, types
from numba.core.errors import TypingError
from numba.extending import intrinsic, overload_attribute, overload_method

from hpgraph.config import NUMBA_FLAGS_NOCACHE

__all__ = [
    "VertexContext",
    "ACTIVE",
    "HALTED",
    "FINISHED",
    "SEND_NONE",
    "SEND_ALL",
    "SEND_EDGES",
    "AGG_SUM",
    "AGG_MIN",
    "AGG_MAX",
    "COUNTERS",
    "LIST_BASE",
    "COMBINED_MODE",
    "LISTED_MODE",
    "describe",
]

# vertex states (the ``state`` array)
ACTIVE, HALTED, FINISHED = 0, 1, 2
# broadcast kinds (the ``sending`` array)
SEND_NONE, SEND_ALL, SEND_EDGES = 0, 1, 2
# aggregator operations
AGG_SUM, AGG_MIN, AGG_MAX = 0, 1, 2

#: Per-part counters: ``ctx.counters`` is the calling part's own row.
COUNTERS = (
    "computed",  # vertices that ran compute
    "awake",  # vertices still active (not halted) after compute
    "senders",  # vertices that broadcast
    "sender_edges",  # their out-edges
    "msgs_local",
    "msgs_remote",
    "direct",  # messages sent with ctx.send
    "candidates",  # length of the candidate list for the next superstep
)
#: The slot after the counters in ``ctx.counters``: where the calling part's sender list
#: starts in ``senders`` (its ``lo``; a dense superstep's chunk start, docs/engine.md).
LIST_BASE = len(COUNTERS)

#: Arrays of the context. Each is held as a borrowed-array descriptor ``(address, shape,
#: dtype zero)`` in the field ``<name>_d`` and read back as ``ctx.<name>``, an array view
#: without a reference count (see ``_borrow``).
ARRAYS = (
    "params",  # float64 run-time parameters, in the program's declared order
    # the graph (out-edges; weights is empty when unweighted)
    "indptr",
    "indices",
    "weights",
    "local_degree",  # out-edges of each vertex that stay inside its part (for stats)
    # vertex state
    "value",
    "state",
    # received messages: combined (inbox, has_msg) or listed (msg_ptr, msg_val)
    "inbox",
    "has_msg",
    "msg_ptr",
    "msg_val",
    # sent messages: one broadcast value per vertex
    "outbox",
    "sending",
    # aggregators: this part's partial values (a private cache line), last reductions
    "agg_ops",
    "agg_partial",
    "agg_value",
    # engine bookkeeping: sender and candidate lists (part p uses [lo_p, hi_p)),
    # this part's counters and its LIST_BASE (a private cache line)
    "senders",
    "candidates",
    "next_candidates",
    "counters",
)

VertexContext = namedtuple(
    "VertexContext",
    ["superstep", "num_vertices", "part", "lo", "hi", "mode"]
    + [f"{a}_d" for a in ARRAYS]
    # direct sends: this part's own typed lists (distinct objects per part, so threads
    # never touch each other's reference counts)
    + ["direct_dst", "direct_val"],
)


def describe(array: np.ndarray):
    """The descriptor of ``array`` for a context field. The caller keeps ``array`` alive
    for as long as compiled code may use the context."""
    array = np.asarray(array)
    if not array.flags.c_contiguous:
        raise ValueError("context arrays must be C-contiguous")
    return (array.ctypes.data, tuple(int(x) for x in array.shape), array.dtype.type(0))


@intrinsic
def _pointer(typingctx, address, zero):
    sig = types.CPointer(zero)(address, zero)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

    return sig, codegen


@njit(**NUMBA_FLAGS_NOCACHE, inline="always")
def _borrow(d):
    # An array over memory owned by the Python side, with no meminfo: reading a context
    # field then costs no reference counting. A namedtuple of plain arrays would incref
    # and decref (atomically) each array on every ``ctx.x`` in the user's loops.
    return carray(_pointer(d[0], d[2]), d[1])


def _is_ctx(ctx):
    return isinstance(ctx, types.BaseNamedTuple) and ctx.instance_class is VertexContext


_MODE = None  # set below, once the fields are known


def _combined(ctx) -> bool:
    """Whether the program combines messages, read from the context's *type* (the
    ``mode`` field is ``(1,)`` when combined, ``()`` when listed), so the choice costs
    nothing at run time."""
    return ctx.types[_MODE].count == 1


def _register_array(name):
    index = VertexContext._fields.index(f"{name}_d")

    def typer(ctx):
        if not _is_ctx(ctx):
            return None

        def impl(ctx):
            return _borrow(ctx[index])

        return impl

    overload_attribute(types.BaseNamedTuple, name)(typer)


for _name in ARRAYS:
    _register_array(_name)
_MODE = VertexContext._fields.index("mode")
COMBINED_MODE, LISTED_MODE = (1,), ()


def _method(name):
    """Register ``fn`` as ``VertexContext.name`` for compiled code."""

    def register(fn):
        @functools.wraps(fn)  # numba matches the implementation against this signature
        def typer(ctx, *args):
            if not _is_ctx(ctx):
                return None
            return fn(ctx, *args)

        overload_method(types.BaseNamedTuple, name)(typer)
        return fn

    return register


@_method("out_degree")
def _out_degree(ctx, v):
    def impl(ctx, v):
        return ctx.indptr[v + 1] - ctx.indptr[v]

    return impl


@_method("out_edges")
def _out_edges(ctx, v):
    def impl(ctx, v):
        return ctx.indices[ctx.indptr[v] : ctx.indptr[v + 1]]

    return impl


@_method("out_weights")
def _out_weights(ctx, v):
    def impl(ctx, v):
        if ctx.weights.shape[0] == 0:
            raise ValueError("out_weights: the graph is unweighted")
        return ctx.weights[ctx.indptr[v] : ctx.indptr[v + 1]]

    return impl


@_method("has_message")
def _has_message(ctx, v):
    def impl(ctx, v):
        return ctx.has_msg[v] != 0

    return impl


@_method("message")
def _message(ctx, v):
    if not _combined(ctx):
        raise TypingError("ctx.message(v): this program has no combiner; use ctx.messages(v)")

    def impl(ctx, v):
        return ctx.inbox[v]

    return impl


@_method("messages")
def _messages(ctx, v):
    def combined(ctx, v):  # the single combined message, if any
        return ctx.inbox[v : v + (1 if ctx.has_msg[v] != 0 else 0)]

    def listed(ctx, v):
        return ctx.msg_val[ctx.msg_ptr[v] : ctx.msg_ptr[v + 1]]

    return combined if _combined(ctx) else listed


@_method("send_to_all")
def _send_to_all(ctx, v, m):
    def impl(ctx, v, m):
        _broadcast(ctx, v, m, SEND_ALL)

    return impl


@_method("send_along_edges")
def _send_along_edges(ctx, v, m):
    def impl(ctx, v, m):
        _broadcast(ctx, v, m, SEND_EDGES)

    return impl


@njit(**NUMBA_FLAGS_NOCACHE, inline="always")
def _broadcast(ctx, v, m, kind):
    # One value per sender, whatever its degree: delivery reads it along each edge.
    # A second broadcast by the same vertex in one superstep replaces the first.
    sending = ctx.sending
    if sending[v] == SEND_NONE:
        # part p keeps its senders in senders[base : base + count] (base: its lo)
        c = ctx.counters
        ctx.senders[c[LIST_BASE] + c[2]] = v
        c[2] += 1
    ctx.outbox[v] = m
    sending[v] = kind


@_method("send")
def _send(ctx, target, m):
    def impl(ctx, target, m):
        if target < 0 or target >= ctx.num_vertices:
            raise IndexError("send: target vertex out of range")
        ctx.direct_dst.append(target)
        ctx.direct_val.append(m)

    def impl_vector(ctx, target, m):
        if target < 0 or target >= ctx.num_vertices:
            raise IndexError("send: target vertex out of range")
        ctx.direct_dst.append(target)
        ctx.direct_val.append(m.copy())  # m may be a view of live state

    return impl_vector if isinstance(m, types.Array) else impl


@_method("vote_to_halt")
def _vote_to_halt(ctx, v):
    def impl(ctx, v):
        if ctx.state[v] == ACTIVE:
            ctx.state[v] = HALTED

    return impl


@_method("finish")
def _finish(ctx, v):
    def impl(ctx, v):
        ctx.state[v] = FINISHED

    return impl


@_method("aggregate")
def _aggregate(ctx, i, x):
    def impl(ctx, i, x):
        op = ctx.agg_ops[i]
        partial = ctx.agg_partial  # this part's own row
        if op == AGG_SUM:
            partial[i] += x
        elif op == AGG_MIN:
            partial[i] = min(partial[i], x)
        else:
            partial[i] = max(partial[i], x)

    return impl


@_method("aggregated")
def _aggregated(ctx, i):
    def impl(ctx, i):
        return ctx.agg_value[i]

    return impl


# ---------------------------------------------------------------- built-in combiners
# Each works on scalars and, elementwise, on fixed-size vector messages. Inlined at the
# IR level and not cached on their own: a callee loaded from numba's cache is object
# code, which LLVM cannot inline into the delivery loop (a call per edge).


@njit(**NUMBA_FLAGS_NOCACHE, inline="always")
def combine_sum(a, b):
    return a + b


@njit(**NUMBA_FLAGS_NOCACHE, inline="always")
def combine_min(a, b):
    return np.minimum(a, b)


@njit(**NUMBA_FLAGS_NOCACHE, inline="always")
def combine_max(a, b):
    return np.maximum(a, b)


@njit(**NUMBA_FLAGS_NOCACHE, inline="always")
def combine_any(a, b):
    # Keep the first message: valid when every message means the same to the receiver
    # (BFS: "a neighbour reached me"); lets pull-style delivery stop at the first one.
    return a


@njit(**NUMBA_FLAGS_NOCACHE, inline="always")
def edge_message_identity(m, w):
    return m


# What delivery reads as sender u's broadcast (bound per program like the combiner).


@njit(**NUMBA_FLAGS_NOCACHE, inline="always")
def outbox_value(outbox, u):
    return outbox[u]


@njit(**NUMBA_FLAGS_NOCACHE, inline="always")
def sender_id_value(outbox, u):
    # a program declared with sender_ids=True broadcasts its own id: no outbox read
    return np.int64(u)
