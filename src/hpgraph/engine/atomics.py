"""Atomic operations on array elements, for compiled kernels that several threads of one
process run on the same arrays (the local runtime's peers, an MPI rank's threads).

numba has no atomics on the CPU; these are LLVM's ``cmpxchg`` emitted through an
intrinsic, so they compile to one ``lock cmpxchg`` on x86-64 (sequentially consistent, as
GCC's ``__sync_bool_compare_and_swap`` that the GAP reference uses). Plain loads and
stores of aligned 4- and 8-byte integers never tear, so kernels may read the same
elements without atomics and only publish with :func:`compare_and_swap`, or with the two
built on it: :func:`fetch_add` (a shared work counter: threads take chunks in turn) and
:func:`atomic_min`. Also :func:`prefetch`, a cache hint for the random reads of a pull.

    from hpgraph.engine.atomics import compare_and_swap

    @njit(nogil=True)
    def hook(parent, high, low):
        return compare_and_swap(parent, high, high, low) == high  # parent[high]: high -> low
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from hpgraph.config import NUMBA_FLAGS

__all__ = ["compare_and_swap", "fetch_add", "atomic_min", "prefetch"]

_INTEGERS = (types.int32, types.int64, types.uint32, types.uint64)


@intrinsic
def compare_and_swap(typingctx, array, index, expected, new):
    """``compare_and_swap(array, i, expected, new)``: atomically, if ``array[i] ==
    expected`` set it to ``new``; returns the value ``array[i]`` held before (so the swap
    happened exactly when the result equals ``expected``). ``array``: a C-contiguous 1-D
    array of 32- or 64-bit integers; ``i`` is not bounds-checked."""
    if not (
        isinstance(array, types.Array)
        and array.ndim == 1
        and array.dtype in _INTEGERS
        and isinstance(index, types.Integer)
        and isinstance(expected, types.Integer)
        and isinstance(new, types.Integer)
    ):
        return None
    dtype = array.dtype
    sig = dtype(array, index, expected, new)

    def codegen(context, builder, signature, args):
        aryty, idxty, expty, newty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        idx = context.cast(builder, args[1], idxty, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [idx], wraparound=False)
        exp = context.cast(builder, args[2], expty, dtype)
        val = context.cast(builder, args[3], newty, dtype)
        pair = builder.cmpxchg(ptr, exp, val, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 0)

    return sig, codegen


@njit(**NUMBA_FLAGS)
def fetch_add(array, i, k):
    """Atomically add ``k`` to ``array[i]``; returns the value before (a work counter:
    each caller gets its own range ``[old, old + k)``)."""
    while True:
        old = array[i]
        if compare_and_swap(array, i, old, old + k) == old:
            return old


@njit(**NUMBA_FLAGS)
def atomic_min(array, i, x):
    """Atomically lower ``array[i]`` to ``x`` if ``x`` is smaller."""
    while True:
        old = array[i]
        if x >= old or compare_and_swap(array, i, old, x) == old:
            return


@intrinsic
def prefetch(typingctx, array, index):
    """``prefetch(array, i)``: ask the CPU to bring ``array[i]``'s cache line in ahead of
    a read (LLVM's ``llvm.prefetch``, a read with high locality: ``prefetcht0`` on
    x86-64). A hint: it never faults, returns nothing, and ``i`` is not bounds-checked
    (an address outside the array is fetched for nothing). ``array``: a 1-D array."""
    if not (
        isinstance(array, types.Array) and array.ndim == 1 and isinstance(index, types.Integer)
    ):
        return None
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        aryty, idxty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        idx = context.cast(builder, args[1], idxty, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [idx], wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        # (address, 0: read, 3: keep in all cache levels, 1: data cache)
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen
