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
from numba import njit, types
from numba.extending import overload_method

from hpgraph.config import NUMBA_FLAGS

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
]

# vertex states (the ``state`` array)
ACTIVE, HALTED, FINISHED = 0, 1, 2
# broadcast kinds (the ``sending`` array)
SEND_NONE, SEND_ALL, SEND_EDGES = 0, 1, 2
# aggregator operations
AGG_SUM, AGG_MIN, AGG_MAX = 0, 1, 2

#: Per-part counters, one row per part in ``ctx.counters``.
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

VertexContext = namedtuple(
    "VertexContext",
    [
        "superstep",
        "num_vertices",
        "params",  # float64 run-time parameters, in the program's declared order
        "part",
        "lo",
        "hi",
        # the graph (out-edges; weights is empty when unweighted)
        "indptr",
        "indices",
        "weights",
        # vertex state
        "value",
        "state",
        # received messages: combined (inbox, has_msg) or listed (msg_ptr, msg_val)
        "inbox",
        "has_msg",
        "msg_ptr",
        "msg_val",
        # sent messages: one broadcast value per vertex, direct sends per part
        "outbox",
        "sending",
        "direct_dst",
        "direct_val",
        # aggregators: partial per part, reduced values from the last superstep
        "agg_ops",
        "agg_partial",
        "agg_value",
        # bookkeeping for the engine
        "senders",
        "candidates",
        "next_candidates",
        "counters",
    ],
)


def _is_ctx(ctx):
    return isinstance(ctx, types.BaseNamedTuple) and ctx.instance_class is VertexContext


def _method(name):
    """Register ``fn`` as ``VertexContext.name`` for compiled code."""

    def register(fn):
        @functools.wraps(fn)  # numba matches the implementation against this signature
        def typer(ctx, *args):
            if not _is_ctx(ctx):
                return None
            return fn(ctx, *args)

        overload_method(types.BaseNamedTuple, name, prefer_literal=False)(typer)
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
    def impl(ctx, v):
        if ctx.msg_ptr.shape[0] != 0:
            raise ValueError("message(v): this program has no combiner; use messages(v)")
        return ctx.inbox[v]

    return impl


@_method("messages")
def _messages(ctx, v):
    def impl(ctx, v):
        if ctx.msg_ptr.shape[0] == 0:  # combined: the single combined message, if any
            return ctx.inbox[v : v + (1 if ctx.has_msg[v] != 0 else 0)]
        return ctx.msg_val[ctx.msg_ptr[v] : ctx.msg_ptr[v + 1]]

    return impl


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


@njit(inline="always")
def _broadcast(ctx, v, m, kind):
    # One value per sender, whatever its degree: delivery reads it along each edge.
    # A second broadcast by the same vertex in one superstep replaces the first.
    if ctx.sending[v] == SEND_NONE:
        # part p keeps its senders in senders[lo_p : lo_p + count]
        ctx.senders[ctx.lo + ctx.counters[ctx.part, 2]] = v
        ctx.counters[ctx.part, 2] += 1
    ctx.outbox[v] = m
    ctx.sending[v] = kind


@_method("send")
def _send(ctx, target, m):
    def impl(ctx, target, m):
        if target < 0 or target >= ctx.num_vertices:
            raise IndexError("send: target vertex out of range")
        ctx.direct_dst[ctx.part].append(target)
        ctx.direct_val[ctx.part].append(m)

    def impl_vector(ctx, target, m):
        if target < 0 or target >= ctx.num_vertices:
            raise IndexError("send: target vertex out of range")
        ctx.direct_dst[ctx.part].append(target)
        ctx.direct_val[ctx.part].append(m.copy())  # m may be a view of live state

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
        cur = ctx.agg_partial[ctx.part, i]
        if op == AGG_SUM:
            ctx.agg_partial[ctx.part, i] = cur + x
        elif op == AGG_MIN:
            ctx.agg_partial[ctx.part, i] = min(cur, x)
        else:
            ctx.agg_partial[ctx.part, i] = max(cur, x)

    return impl


@_method("aggregated")
def _aggregated(ctx, i):
    def impl(ctx, i):
        return ctx.agg_value[i]

    return impl


# ---------------------------------------------------------------- built-in combiners
# Each works on scalars and, elementwise, on fixed-size vector messages.


@njit(**NUMBA_FLAGS)
def combine_sum(a, b):
    return a + b


@njit(**NUMBA_FLAGS)
def combine_min(a, b):
    return np.minimum(a, b)


@njit(**NUMBA_FLAGS)
def combine_max(a, b):
    return np.maximum(a, b)


@njit(**NUMBA_FLAGS)
def combine_any(a, b):
    # Keep the first message: valid when every message means the same to the receiver
    # (BFS: "a neighbour reached me"); lets pull-style delivery stop at the first one.
    return a


@njit(**NUMBA_FLAGS)
def edge_message_identity(m, w):
    return m
