"""A barrier in compiled code for the peers of one process (the local runtime's threads),
so that delta-stepping's rounds (:mod:`~hpgraph.algorithms.delta_stepping`) run in one
compiled loop per peer instead of returning to Python for two ``peer.sync()`` a round.

A counting barrier with a generation number, in three cells of a shared int64 array
(``state[at:at + 3]``: arrivals, generation, abort flag): the last peer to arrive resets
the count and moves the generation on; the others wait for that move, spinning on an
atomic load for a while, then yielding the core (``sched_yield``) between loads, so a
peer that waits for a slow one on a busy machine gives its core away. Arrivals are an
atomic add (a full fence on x86-64), the generation an acquire load and release store,
so what a peer wrote before the barrier is what the others read after it.

A peer that fails sets the abort flag (:func:`abort`); the others then leave
:func:`wait` with False instead of waiting for ever.
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.atomics import fetch_add

__all__ = ["CELLS", "wait", "abort"]

#: int64 cells a barrier takes: arrivals, generation, abort flag
CELLS = 3
#: atomic loads before a waiting peer starts yielding its core
_SPINS = 2000


@intrinsic
def _load(typingctx, array, index):
    """``array[index]`` by an atomic acquire load (re-read on every call: a loop over it
    is not hoisted)."""
    if not (isinstance(array, types.Array) and array.dtype == types.int64):
        return None

    def codegen(context, builder, signature, args):
        aryty, idxty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        idx = context.cast(builder, args[1], idxty, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [idx], wraparound=False)
        return builder.load_atomic(ptr, "acquire", 8)

    return types.int64(array, index), codegen


@intrinsic
def _store(typingctx, array, index, value):
    """``array[index] = value`` by an atomic release store."""
    if not (isinstance(array, types.Array) and array.dtype == types.int64):
        return None

    def codegen(context, builder, signature, args):
        aryty, idxty, valty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        idx = context.cast(builder, args[1], idxty, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [idx], wraparound=False)
        val = context.cast(builder, args[2], valty, types.int64)
        builder.store_atomic(val, ptr, "release", 8)
        return context.get_dummy_value()

    return types.none(array, index, value), codegen


@intrinsic
def _yield(typingctx):
    """Give the core to another thread (``sched_yield``)."""

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(32), []), "sched_yield"
        )
        builder.call(fn, [])
        return context.get_dummy_value()

    return types.none(), codegen


@njit(**NUMBA_FLAGS)
def wait(state, at, peers):
    """Wait until all ``peers`` have called it (the barrier in ``state[at:at + 3]``);
    False if a peer aborted instead."""
    gen = _load(state, at + 1)
    if fetch_add(state, at, 1) == peers - 1:
        state[at] = 0  # no peer adds before the generation moves
        _store(state, at + 1, gen + 1)
        return _load(state, at + 2) == 0
    spins = 0
    while _load(state, at + 1) == gen:
        if _load(state, at + 2) != 0:
            return False
        spins += 1
        if spins > _SPINS:
            _yield()
    return _load(state, at + 2) == 0


@njit(**NUMBA_FLAGS)
def abort(state, at):
    """Make every peer waiting at the barrier, or arriving later, leave :func:`wait`
    with False."""
    _store(state, at + 2, 1)
