"""The compiled superstep: compute, then message delivery, for one part of the vertices.

This file is a template. :mod:`hpgraph.engine.codegen` copies it once per vertex program
into the kernel cache and binds the placeholders below to the program's functions before
the first call; numba freezes globals into the machine code, so the user's ``compute``,
combiner and edge function are inlined into these loops (no Python call per vertex) and
the result is cached on disk like any ``cache=True`` function.

Delivery never materialises one message per edge when the program has a combiner: a
broadcast is one value per sender (``outbox``) read along each edge as it is delivered.
It runs in one of two directions, chosen per superstep by the engine (Ligra, Gemini):

- **push** (sparse frontier): every part walks the senders' out-edges that land in its own
  range (adjacency lists are sorted, so that slice is two binary searches away);
- **pull** (dense frontier): every part walks the in-edges of its own vertices and reads
  the senders' values; with the "any" combiner it stops at the first one (bottom-up BFS).

Both write only to the part's own vertices, so parts run in parallel without atomics.
Without a combiner, messages are listed per receiver (CSR ``msg_ptr``/``msg_val``) in two
passes (count, fill).

A **dense** superstep (every vertex awake and every one broadcast a plain value, with a
sum/min/max combiner) is one pass instead (``dense_part``): each vertex pulls the
combination of its in-neighbours' last broadcasts and computes at once, with no flags
read and no lists kept: the SpMV loop of SciPy and GAP. Threads take its chunks in turn.
"""

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.atomics import compare_and_swap, fetch_add, prefetch
from hpgraph.engine.context import (
    ACTIVE,
    AGG_MIN,
    AGG_SUM,
    FINISHED,
    LIST_BASE,
    SEND_ALL,
    SEND_EDGES,
    SEND_NONE,
)

__all__ = [
    "compute_part",
    "compute_chunks",
    "compact_lists",
    "dense_part",
    "pull_segment",
    "relist_part",
    "merge_combined",
    "combine_runs",
    "emit_listed",
    "mark_listed",
    "deliver_combined",
    "pull_chunks",
    "mark_senders",
    "deliver_listed",
]

# ---- bound per program by codegen.bind() before the first call --------------------------
_compute = None  # compute(ctx, v)
_combine = None  # combine(a, b) -> message
_edge_message = None  # edge_message(m, weight) -> message
_sent_value = None  # sent_value(outbox, u) -> u's broadcast (its outbox value, or its id)
_EDGE_KINDS = False  # the program has an edge function: SEND_EDGES differs from SEND_ALL
_EARLY_EXIT = False  # the combiner keeps the first message: pull may stop at it
_HAS_IDENTITY = False  # a built-in combiner on scalars, whose neutral element is:
_IDENTITY = 0
_PREFETCH = 0  # dense pulls: prefetch the broadcast this many in-edges ahead (0: none)

_NO_BITS = np.zeros(0, dtype=np.uint64)  # pull without a sender bitmap: read the flags

# counters columns (see context.COUNTERS)
_COMPUTED, _AWAKE, _SENDERS, _SENDER_EDGES, _LOCAL, _REMOTE, _DIRECT, _CANDIDATES = range(8)


@njit(**NUMBA_FLAGS, inline="always")
def _slice_in_range(indices, a, b, lo, hi):
    """Positions [k0, k1) of the sorted row indices[a:b] whose targets lie in [lo, hi)."""
    row = indices[a:b]
    return a + np.searchsorted(row, lo), a + np.searchsorted(row, hi)


# push: a sender's row is at a random place (its offset too), and each part reads every
# sender's row for the slice in its range: two misses in a chain per sender, which the
# hardware cannot prefetch from the sender list. Asked for ahead: the offsets of the
# sender _ROW_AHEAD * 2 places on, the row (its first and last line) _ROW_AHEAD on.
# On uniform 1M/16M, a BFS push over 1.08M edges: 10.8 -> 4.5 ms per part.
_ROW_AHEAD = 8


@njit(**NUMBA_FLAGS, inline="always")
def _prefetch_row(indptr, indices, senders, i, i1):
    """Ask for the offsets and row of the senders ahead of ``senders[i]`` (list end i1)."""
    if i + 2 * _ROW_AHEAD < i1:
        prefetch(indptr, np.uintp(senders[i + 2 * _ROW_AHEAD]))
    if i + _ROW_AHEAD < i1:
        w = senders[i + _ROW_AHEAD]
        prefetch(indices, np.uintp(indptr[w]))
        prefetch(indices, np.uintp(indptr[w + 1] - 1))


@njit(**NUMBA_FLAGS, inline="always")
def _along(m, kind, weights, k, weighted):
    """The message a sender of ``kind`` with value m puts on its edge k: m itself, or for
    ``SEND_EDGES`` the program's edge function of m and the edge's weight (1 unweighted)."""
    if kind == SEND_EDGES:
        return _edge_message(m, weights[k] if weighted else 1.0)
    return m


# inline="always": the user's compute and this loop body are merged at numba's IR level.
# Left to LLVM, a large compute is called, not inlined, and each call passes the whole
# context (some hundred scalars): 60 ns per vertex instead of 16 for PageRank.
@njit(**NUMBA_FLAGS, inline="always")
def _asleep(state, has_msg, v):
    """Whether v is skipped this superstep: finished, or halted with no mail."""
    s = state[v]
    return s == FINISHED or (s != ACTIVE and has_msg[v] == 0)


@njit(**NUMBA_FLAGS, inline="always")
def _store_counts(c, computed, awake, edges, local, ndirect, direct_local):
    """A compute phase's counters in its part's row ``c`` (``_SENDERS`` is kept by the
    broadcasts): the awake vertices are the next candidates so far; a message is local
    when its receiver lies in the sender's part."""
    c[_COMPUTED] = computed
    c[_AWAKE] = awake
    c[_SENDER_EDGES] = edges
    c[_LOCAL] = local + direct_local
    c[_REMOTE] = (edges - local) + (ndirect - direct_local)
    c[_DIRECT] = ndirect
    c[_CANDIDATES] = awake


@njit(**NUMBA_FLAGS, inline="always")
def _reset_partials(partial, ops):
    """Aggregator partials back to each operation's identity."""
    for j in range(partial.shape[0]):
        op = ops[j]
        partial[j] = 0.0 if op == AGG_SUM else (np.inf if op == AGG_MIN else -np.inf)


@njit(**NUMBA_FLAGS, inline="always")
def _count_senders(senders, k0, k1, indptr, local_degree, bits, lo, hi):
    """(out-edges, local out-edges) of the senders ``senders[k0:k1]``, which lie in
    [lo, hi); with ``bits`` not empty each is marked there too (``_set_bit``)."""
    edges = 0
    local = 0
    marking = bits.shape[0] > 0
    for k in range(k0, k1):
        u = senders[k]
        edges += indptr[u + 1] - indptr[u]
        local += local_degree[u]
        if marking:
            _set_bit(bits, u, lo, hi)
    return edges, local


@njit(**NUMBA_FLAGS, inline="always")
def _count_within(ids, j0, j1, lo, hi):
    """How many of ``ids[j0:j1]`` lie in [lo, hi) (direct sends to the sender's part)."""
    n = 0
    for j in range(j0, j1):
        if lo <= ids[j] < hi:
            n += 1
    return n


@njit(**NUMBA_FLAGS)
def compute_part(ctx, force_dense, bits):
    """Compute phase of one part; its results are left in ctx.counters (its own row).
    The vertices visited: all of the part (``force_dense``, or a candidate list longer
    than 1/16 of it) or the part's candidate list. (After a chunked pull that listed its
    receivers per chunk, ``compute_chunks`` runs instead.) With ``bits`` (not empty,
    zeroed by the caller) the part's senders are marked there as they are counted: the
    frontier of a pull that follows (``mark_senders`` in the same pass)."""
    lo, hi = ctx.lo, ctx.hi
    c = ctx.counters
    state, has_msg, sending = ctx.state, ctx.has_msg, ctx.sending
    senders, nxt = ctx.senders, ctx.next_candidates
    # Last superstep's broadcasts have been delivered by every part: forget ours.
    nsent = c[_SENDERS]
    if nsent > (hi - lo) // 8:
        sending[lo:hi] = SEND_NONE
    else:
        for i in range(lo, lo + nsent):
            sending[senders[i]] = SEND_NONE
    ctx.direct_dst.clear()
    ctx.direct_val.clear()
    ncand = c[_CANDIDATES]
    c[:] = 0
    c[LIST_BASE] = lo

    computed = 0
    awake = 0
    # compute is called here, not from a helper taking the context: numba copies a
    # context passed to an inlined function, which costs reference counting (its typed
    # lists) on every call.
    scan = force_dense or ncand > (hi - lo) // 16
    cand = ctx.candidates
    for i in range(hi - lo if scan else ncand):
        v = lo + i if scan else cand[lo + i]
        if _asleep(state, has_msg, v):
            continue
        state[v] = ACTIVE
        _compute(ctx, v)
        has_msg[v] = 0
        if state[v] == ACTIVE:
            nxt[lo + awake] = v
            awake += 1
        computed += 1

    # Message accounting, per sender: its edges into this part are local.
    edges, local = _count_senders(
        senders, lo, lo + c[_SENDERS], ctx.indptr, ctx.local_degree, bits, lo, hi
    )
    dsts = ctx.direct_dst
    direct_local = _count_within(dsts, 0, len(dsts), lo, hi)
    _store_counts(c, computed, awake, edges, local, len(dsts), direct_local)


@njit(**NUMBA_FLAGS)
def compute_chunks(ctx, chunks, next_chunk, woken, bits, lists, chunk_aggs, offsets):
    """Compute phase after a chunked pull that listed its receivers per chunk (chunk i's
    are ``candidates[chunks[i]:chunks[i] + woken[i]]``), for the chunks this thread
    takes in turn (``fetch_add`` on ``next_chunk[0]``): the compute of the woken
    vertices is shared out as the pull was, not left to the part that owns them (on a
    graph numbered hubs first, one part holds most of the low-degree vertices a
    bottom-up step wakes). Chunks never straddle a part (``work_chunks``). Chunk i keeps
    its senders from ``senders[chunks[i]]`` on and its awake vertices from
    ``next_candidates[chunks[i]]`` on, their numbers in ``lists[i, 0]`` and
    ``lists[i, 1]``; ``compact_lists`` gathers them per part where a part's lists are
    read. Its direct sends are ``direct_dst[lists[i, 2]][lists[i, 3]:lists[i, 4]]``,
    delivered in chunk order (``direct_order``), so the results do not depend on which
    thread took which chunk; so are its aggregator partials (``chunk_aggs[i]``). The
    chunk's sending flags are cleared before it computes (a memset, n bytes in all):
    every vertex of last superstep's senders lies in one chunk. With ``bits`` (not
    empty, zeroed) the senders are marked there too, as in ``compute_part``."""
    c = ctx.counters
    state, has_msg, sending = ctx.state, ctx.has_msg, ctx.sending
    cand, nxt, senders = ctx.candidates, ctx.next_candidates, ctx.senders
    indptr, local_degree = ctx.indptr, ctx.local_degree
    partial, ops = ctx.agg_partial, ctx.agg_ops
    dsts = ctx.direct_dst
    dsts.clear()
    ctx.direct_val.clear()
    c[:] = 0
    computed = 0
    awake = 0
    nsent = 0
    edges = 0
    local = 0
    direct_local = 0
    while True:
        i = fetch_add(next_chunk, 0, 1)
        if i >= chunks.shape[0] - 1:
            break
        clo, chi = chunks[i], chunks[i + 1]
        sending[clo:chi] = SEND_NONE
        c[_SENDERS] = 0  # _broadcast lists this chunk's senders from its start
        c[LIST_BASE] = clo
        _reset_partials(partial, ops)
        d0 = len(dsts)
        a = 0
        for k in range(clo, clo + woken[i]):
            v = cand[k]
            if _asleep(state, has_msg, v):
                continue
            state[v] = ACTIVE
            _compute(ctx, v)
            has_msg[v] = 0
            if state[v] == ACTIVE:
                nxt[clo + a] = v
                a += 1
            computed += 1
        ns = c[_SENDERS]
        e, loc = _count_senders(senders, clo, clo + ns, indptr, local_degree, bits, clo, chi)
        edges += e
        local += loc
        if len(dsts) > d0:  # local: the receiver lies in the part holding the chunk
            q = np.searchsorted(offsets, clo, side="right") - 1
            direct_local += _count_within(dsts, d0, len(dsts), offsets[q], offsets[q + 1])
        lists[i, 0] = ns
        lists[i, 1] = a
        lists[i, 2] = ctx.part
        lists[i, 3] = d0
        lists[i, 4] = len(dsts)
        if chunk_aggs.shape[1] > 0:
            chunk_aggs[i, :] = partial
        nsent += ns
        awake += a
    c[LIST_BASE] = ctx.lo
    c[_SENDERS] = nsent
    _store_counts(c, computed, awake, edges, local, len(dsts), direct_local)


@njit(**NUMBA_FLAGS)
def compact_lists(ctx, chunks, lists, awake_too):
    """This part's sender list (and with ``awake_too`` its awake list, the next
    candidates) as ``compute_part`` leaves them, gathered from the per-chunk lists of
    ``compute_chunks``: the chunks of [lo, hi) in order, each list moved down to follow
    the last. In place and in parallel with the other parts: a part's chunks lie in its
    own range, and an entry never moves up (chunk i's j-th entry is a vertex >=
    chunks[i] + j, so fewer than chunks[i] + j - lo entries come before it)."""
    lo, hi = ctx.lo, ctx.hi
    senders, nxt = ctx.senders, ctx.next_candidates
    c = ctx.counters
    ns = 0
    na = 0
    i = np.searchsorted(chunks, lo)
    while i < chunks.shape[0] - 1 and chunks[i] < hi:
        base = chunks[i]
        for j in range(lists[i, 0]):
            senders[lo + ns] = senders[base + j]
            ns += 1
        if awake_too:
            for j in range(lists[i, 1]):
                nxt[lo + na] = nxt[base + j]
                na += 1
        i += 1
    c[_SENDERS] = ns
    c[_CANDIDATES] = na
    c[LIST_BASE] = lo


@njit(**NUMBA_FLAGS, inline="always")
def _combine_row(values, in_indices, k0, k1):
    """The combination of ``values`` along in-row ``k0..k1-1`` (a built-in combiner with
    an identity): four running partials over the row's entries in turn, combined at the
    end, so the reads do not wait on one chain of dependent adds (LLVM may not reorder
    float sums itself): 1.25-1.38x less time per float64 pass on Kronecker 20 and uniform
    1M/16M, one thread. A row of under four entries is combined in order, exactly as one
    chain; a longer row's sum differs from the one chain in the last bits only, and is the
    same in every run and for any number of threads (ids are unsigned: no
    negative-index test). Each read first asks for the value ``_PREFETCH`` entries
    further on (``config.PULL_PREFETCH``), usually in a later row of the same pass: a
    software prefetch, which the hardware cannot do for addresses read from the row."""
    a0 = _IDENTITY
    a1 = _IDENTITY
    a2 = _IDENTITY
    a3 = _IDENTITY
    end = in_indices.shape[0] - 1 - _PREFETCH  # the last entry with one to prefetch
    k = k0
    while k + 3 < k1:
        if _PREFETCH > 0 and k + 3 <= end:
            for j in range(k + _PREFETCH, k + _PREFETCH + 4):
                prefetch(values, np.uintp(in_indices[j]))
        a0 = _combine(a0, values[np.uintp(in_indices[k])])
        a1 = _combine(a1, values[np.uintp(in_indices[k + 1])])
        a2 = _combine(a2, values[np.uintp(in_indices[k + 2])])
        a3 = _combine(a3, values[np.uintp(in_indices[k + 3])])
        k += 4
    while k < k1:
        if _PREFETCH > 0 and k <= end:
            prefetch(values, np.uintp(in_indices[k + _PREFETCH]))
        a0 = _combine(a0, values[np.uintp(in_indices[k])])
        k += 1
    return _combine(_combine(a0, a1), _combine(a2, a3))


@njit(**NUMBA_FLAGS)
def pull_segment(ctx, pulled, in_indptr, in_indices, starts, base, s, chunks, next_chunk):
    """One segment's pass of a segmented dense superstep (engine/segments.py), for the
    chunks this thread takes in turn: each vertex combines the slice of its in-row whose
    senders lie in segment ``s`` (< the last) into its inbox (segment 0 starts it)."""
    inbox = ctx.inbox
    while True:
        i = fetch_add(next_chunk, 0, 1)
        if i >= chunks.shape[0] - 1:
            break
        for v in range(chunks[i], chunks[i + 1]):
            k0 = in_indptr[v]
            k1 = k0 + starts[s, v - base]
            if s == 0:
                inbox[v] = _combine_row(pulled, in_indices, k0, k1)
            else:
                k0 += starts[s - 1, v - base]
                if k1 > k0:
                    inbox[v] = _combine(inbox[v], _combine_row(pulled, in_indices, k0, k1))


@njit(**NUMBA_FLAGS)
def dense_part(ctx, pulled, in_indptr, in_indices, starts, base, chunks, next_chunk, chunk_aggs):
    """A dense superstep, for the chunks [chunks[i], chunks[i+1]) this thread takes
    (``fetch_add`` on ``next_chunk[0]``) until none is left: each vertex gets the
    combination of its in-neighbours' values in ``pulled`` (the last superstep's
    broadcasts, read along its whole in-row) as its message, then computes. Valid when
    every vertex is awake and broadcast a plain value (so no flag is read, no list kept)
    and the combiner has an identity. Aggregator partials are kept per chunk
    (``chunk_aggs[i]``), so results do not depend on which thread took which chunk.
    Segmented (``starts`` has rows; engine/segments.py): ``pull_segment`` combined the
    row's earlier segments into the inbox, and this pass adds the last one's slice,
    which begins at ``starts[-1, v - base]``."""
    c = ctx.counters
    state, has_msg, inbox, sending = ctx.state, ctx.has_msg, ctx.inbox, ctx.sending
    indptr, local_degree = ctx.indptr, ctx.local_degree
    partial, ops = ctx.agg_partial, ctx.agg_ops
    last = starts.shape[0] - 1  # the last segment's starts, or -1: one segment
    ctx.direct_dst.clear()
    ctx.direct_val.clear()
    c[:] = 0
    computed = 0
    awake = 0
    senders = 0
    edges = 0
    local = 0
    while True:
        i = fetch_add(next_chunk, 0, 1)
        if i >= chunks.shape[0] - 1:
            break
        clo, chi = chunks[i], chunks[i + 1]
        c[_SENDERS] = 0  # _broadcast lists this chunk's senders from its start
        c[LIST_BASE] = clo
        _reset_partials(partial, ops)
        for v in range(clo, chi):
            k0 = in_indptr[v]
            k1 = in_indptr[v + 1]
            if k1 > k0:
                if last < 0:
                    inbox[v] = _combine_row(pulled, in_indices, k0, k1)
                else:
                    k = k0 + starts[last, v - base]
                    if k1 > k:
                        inbox[v] = _combine(inbox[v], _combine_row(pulled, in_indices, k, k1))
                has_msg[v] = 1
            sending[v] = SEND_NONE
            _compute(ctx, v)
            has_msg[v] = 0
            if state[v] == ACTIVE:
                awake += 1
            if sending[v] != SEND_NONE:
                edges += indptr[v + 1] - indptr[v]
                local += local_degree[v]
        computed += chi - clo
        senders += c[_SENDERS]
        chunk_aggs[i, :] = partial
    c[LIST_BASE] = ctx.lo
    c[_SENDERS] = senders
    _store_counts(c, computed, awake, edges, local, len(ctx.direct_dst), 0)


@njit(**NUMBA_FLAGS)
def relist_part(ctx):
    """This part's sender list and awake list (the next candidates), rebuilt from the
    flags after a dense superstep, which keeps neither, as ``compute_part`` leaves them."""
    lo, hi = ctx.lo, ctx.hi
    state, sending = ctx.state, ctx.sending
    senders, nxt = ctx.senders, ctx.next_candidates
    nsent = 0
    awake = 0
    for v in range(lo, hi):
        if sending[v] != SEND_NONE:
            senders[lo + nsent] = v
            nsent += 1
        if state[v] == ACTIVE:
            nxt[lo + awake] = v
            awake += 1
    ctx.counters[_SENDERS] = nsent
    ctx.counters[_CANDIDATES] = awake


@njit(**NUMBA_FLAGS, inline="always")
def _receive(inbox, has_msg, state, nxt, lo, d, m, ncand):
    """Combine m into d's inbox; a halted receiver joins the next candidates."""
    if has_msg[d] != 0:
        if not _EARLY_EXIT:
            inbox[d] = _combine(inbox[d], m)
        return ncand
    inbox[d] = m
    has_msg[d] = 1
    if state[d] != ACTIVE:
        nxt[lo + ncand] = d
        ncand += 1
    return ncand


@njit(**NUMBA_FLAGS, inline="always")
def _set_bit(bits, u, lo, hi):
    """Set vertex u's bit in ``bits``; atomically when its word also holds vertices
    outside [lo, hi), the range this thread alone marks."""
    w = u >> 6
    bit = np.uint64(1) << np.uint64(u & 63)
    if w * 64 >= lo and w * 64 + 64 <= hi:
        bits[w] |= bit
    else:
        while True:
            old = bits[w]
            if compare_and_swap(bits, w, old, old | bit) == old:
                break


@njit(**NUMBA_FLAGS, inline="always")
def _sent(bits, u):
    """Whether vertex u's bit is set in ``bits`` (one bit per vertex, 64 to a word)."""
    return (bits[u >> np.uint64(6)] >> (u & np.uint64(63))) & np.uint64(1) != 0


@njit(**NUMBA_FLAGS)
def mark_senders(ctx, bits):
    """Set the bits of this part's senders in ``bits`` (zeroed by the caller), the
    frontier that a pull tests for every in-edge: n / 8 bytes, which stay in cache where
    the ``sending`` flags (a byte per vertex) would not (GAP's bitmap frontier). A word
    that holds vertices of another part is set atomically."""
    lo, hi = ctx.lo, ctx.hi
    senders = ctx.senders
    for i in range(lo, lo + ctx.counters[_SENDERS]):
        _set_bit(bits, senders[i], lo, hi)


@njit(**NUMBA_FLAGS, inline="always")
def _pull(ctx, lo, hi, everyone, src_lo, src_hi, in_indptr, in_indices, in_weights, ncand, bits):
    """Pull delivery for the receivers [lo, hi): each walks its in-row (only the slice
    from senders in [src_lo, src_hi)) and combines the senders' values; receivers that
    were not awake are listed from nxt[lo] on. Returns the list's new length. Senders
    are told by ``bits`` (``mark_senders``) when it is not empty, else by their flags."""
    state, sending, outbox = ctx.state, ctx.sending, ctx.outbox
    inbox, has_msg, nxt = ctx.inbox, ctx.has_msg, ctx.next_candidates
    weighted = in_weights.shape[0] > 0
    sliced = src_lo > 0 or src_hi < ctx.num_vertices
    use_bits = bits.shape[0] > 0
    for d in range(lo, hi):
        if state[d] == FINISHED:
            continue
        k0 = in_indptr[d]
        k1 = in_indptr[d + 1]
        if sliced:
            k0, k1 = _slice_in_range(in_indices, k0, k1, src_lo, src_hi)
        if everyone and _HAS_IDENTITY:  # the SpMV case (PageRank): a tight loop
            if k1 > k0:
                acc0 = _combine_row(outbox, in_indices, k0, k1)
                ncand = _receive(inbox, has_msg, state, nxt, lo, d, acc0, ncand)
            continue
        if _EARLY_EXIT and not everyone:  # (bottom-up BFS) the first sender, no more
            for k in range(k0, k1):
                u = np.uintp(in_indices[k])
                if use_bits:
                    if not _sent(bits, u):
                        continue
                    # a set bit is a sender: its flag is read only for its kind
                    kind = sending[u] if _EDGE_KINDS else SEND_ALL
                else:
                    kind = sending[u]
                    if kind == SEND_NONE:
                        continue
                m = _along(_sent_value(outbox, u), kind, in_weights, k, weighted)
                ncand = _receive(inbox, has_msg, state, nxt, lo, d, m, ncand)
                break
            continue
        got = False
        acc = inbox[d]
        for k in range(k0, k1):
            u = np.uintp(in_indices[k])
            if everyone:  # (when every vertex broadcast, skip the sender test)
                m = _sent_value(outbox, u)
            else:
                if use_bits and not _sent(bits, u):
                    continue
                kind = sending[u]
                if kind == SEND_NONE:
                    continue
                m = _along(_sent_value(outbox, u), kind, in_weights, k, weighted)
            if got:
                acc = _combine(acc, m)
            else:
                acc = m
                got = True
                if _EARLY_EXIT:
                    break
        if got:
            ncand = _receive(inbox, has_msg, state, nxt, lo, d, acc, ncand)
    return ncand


@njit(**NUMBA_FLAGS, inline="always")
def _receive_pairs(inbox, has_msg, state, nxt, lo, hi, ids, vals, j0, j1, ncand):
    """``_receive`` every (ids[j], vals[j]), j0 <= j < j1, whose receiver lies in
    [lo, hi) and has not finished; returns the candidate list's new length."""
    for j in range(j0, j1):
        d = ids[j]
        if lo <= d < hi and state[d] != FINISHED:
            ncand = _receive(inbox, has_msg, state, nxt, lo, d, vals[j], ncand)
    return ncand


@njit(**NUMBA_FLAGS)
def deliver_combined(
    ctx,
    pull,
    everyone,
    src_lo,
    src_hi,
    in_indptr,
    in_indices,
    in_weights,
    offsets,
    sender_counts,
    all_dst,
    all_val,
    direct_order,
):
    """Deliver the messages addressed to this part's range [lo, hi), combining per
    receiver. Senders lie in [src_lo, src_hi) (everything on shared memory; a rank's own
    range under MPI, where pull then reads only that slice of each in-row). ``everyone``:
    every vertex of [src_lo, src_hi) broadcast a plain value (no edge function). Direct
    sends are read list by list, or by the (list, start, stop) rows of ``direct_order``
    when it has any (``compute_chunks``)."""
    lo, hi = ctx.lo, ctx.hi
    state, sending, outbox = ctx.state, ctx.sending, ctx.outbox
    inbox, has_msg, nxt = ctx.inbox, ctx.has_msg, ctx.next_candidates
    ncand = ctx.counters[_CANDIDATES]
    if pull:
        ncand = _pull(
            ctx,
            lo,
            hi,
            everyone,
            src_lo,
            src_hi,
            in_indptr,
            in_indices,
            in_weights,
            ncand,
            _NO_BITS,
        )
    else:
        indptr, indices, weights, senders = ctx.indptr, ctx.indices, ctx.weights, ctx.senders
        weighted = weights.shape[0] > 0
        whole = lo == 0 and hi == ctx.num_vertices
        for p in range(offsets.shape[0] - 1):
            i1 = offsets[p] + sender_counts[p]
            for i in range(offsets[p], i1):
                _prefetch_row(indptr, indices, senders, i, i1)
                u = senders[i]
                kind = sending[u]
                mu = _sent_value(outbox, u)
                a = indptr[u]
                b = indptr[u + 1]
                if whole:
                    k0, k1 = a, b
                else:
                    k0, k1 = _slice_in_range(indices, a, b, lo, hi)
                for k in range(k0, k1):
                    d = indices[k]
                    if state[d] == FINISHED:
                        continue
                    m = _along(mu, kind, weights, k, weighted)
                    ncand = _receive(inbox, has_msg, state, nxt, lo, d, m, ncand)
    if direct_order.shape[0] == 0:  # each part's direct sends, in part order
        for p in range(len(all_dst)):
            dst, val = all_dst[p], all_val[p]
            ncand = _receive_pairs(inbox, has_msg, state, nxt, lo, hi, dst, val, 0, len(dst), ncand)
    else:  # after compute_chunks: chunk by chunk, whichever thread listed them
        for s in range(direct_order.shape[0]):
            p, j0, j1 = direct_order[s, 0], direct_order[s, 1], direct_order[s, 2]
            dst, val = all_dst[p], all_val[p]
            ncand = _receive_pairs(inbox, has_msg, state, nxt, lo, hi, dst, val, j0, j1, ncand)
    ctx.counters[_CANDIDATES] = ncand


@njit(**NUMBA_FLAGS)
def pull_chunks(ctx, everyone, in_indptr, in_indices, in_weights, chunks, next_chunk, bits,
                woken):  # fmt: skip
    """Pull delivery on shared memory for the chunks [chunks[i], chunks[i+1]) this
    thread takes (``fetch_add`` on ``next_chunk[0]``) until none is left, senders told
    by ``bits`` (``mark_senders``; empty when every vertex sent). Chunk i lists the
    receivers it wakes from ``next_candidates[chunks[i]]`` on and leaves their number in
    ``woken[i]``, which the next compute reads instead of scanning every vertex (when no
    vertex was left awake, whose lists this overwrites); direct sends go the static way."""
    n = ctx.num_vertices
    while True:
        i = fetch_add(next_chunk, 0, 1)
        if i >= chunks.shape[0] - 1:
            break
        lo, hi = chunks[i], chunks[i + 1]
        woken[i] = _pull(ctx, lo, hi, everyone, 0, n, in_indptr, in_indices, in_weights, 0, bits)


# ---------------------------------------------------------------- listed messages
# Pass 1 counts each receiver's messages into msg_ptr[d]; the engine turns the counts
# into offsets (prefix sums across parts); pass 2 walks the same edges in the same order
# and writes the values.


@njit(**NUMBA_FLAGS, inline="always")
def _list_edge(ctx, fill, cursor, d, u, kind, weights, k, weighted):
    """Pass 1: count the message u sends d along edge k; pass 2: write it at d's cursor."""
    if fill:
        i = cursor[d - ctx.lo]
        ctx.msg_val[i] = _along(ctx.outbox[u], kind, weights, k, weighted)
        cursor[d - ctx.lo] = i + 1
    else:
        ctx.msg_ptr[d] += 1


@njit(**NUMBA_FLAGS)
def deliver_listed(
    ctx, base, pull, in_indptr, in_indices, in_weights, offsets, sender_counts, all_dst, all_val
):
    """One pass of listed delivery to this part's range [lo, hi); returns the number of
    its messages. Pass 1 (``base`` < 0): msg_ptr[d] = messages for d, receivers flagged.
    Pass 2 (``base`` >= 0): the counts become offsets starting at ``base`` and the
    messages are written. (The engine sets msg_ptr[n]; each part writes only
    msg_ptr[lo:hi], so parts never race.)"""
    lo, hi = ctx.lo, ctx.hi
    state, sending, msg_ptr, msg_val = ctx.state, ctx.sending, ctx.msg_ptr, ctx.msg_val
    fill = base >= 0
    cursor = np.empty(hi - lo if fill else 0, dtype=np.int64)
    pos = base
    if fill:
        for d in range(lo, hi):
            cnt = msg_ptr[d]
            msg_ptr[d] = pos
            cursor[d - lo] = pos
            pos += cnt
    else:
        msg_ptr[lo:hi] = 0
    if pull:
        weighted = in_weights.shape[0] > 0
        for d in range(lo, hi):
            if state[d] == FINISHED:
                continue
            for k in range(in_indptr[d], in_indptr[d + 1]):
                u = in_indices[k]
                kind = sending[u]
                if kind != SEND_NONE:
                    _list_edge(ctx, fill, cursor, d, u, kind, in_weights, k, weighted)
    else:
        indptr, indices, weights, senders = ctx.indptr, ctx.indices, ctx.weights, ctx.senders
        weighted = weights.shape[0] > 0
        for p in range(offsets.shape[0] - 1):
            i1 = offsets[p] + sender_counts[p]
            for i in range(offsets[p], i1):
                _prefetch_row(indptr, indices, senders, i, i1)
                u = senders[i]
                kind = sending[u]
                k0, k1 = _slice_in_range(indices, indptr[u], indptr[u + 1], lo, hi)
                for k in range(k0, k1):
                    d = indices[k]
                    if state[d] != FINISHED:
                        _list_edge(ctx, fill, cursor, d, u, kind, weights, k, weighted)
    for p in range(len(all_dst)):
        dsts = all_dst[p]
        vals = all_val[p]
        for j in range(len(dsts)):
            d = dsts[j]
            if lo <= d < hi and state[d] != FINISHED:
                if fill:
                    msg_val[cursor[d - lo]] = vals[j]
                    cursor[d - lo] += 1
                else:
                    msg_ptr[d] += 1
    if fill:
        return pos - base
    return mark_listed(ctx, msg_ptr[lo:hi])


# ---------------------------------------------------------------- delivery across processes
# A runtime whose parts live in other processes (MPI) cannot read the senders' values in
# place: each process runs deliver_combined over the other processes' ranges with its
# own senders only (combining per receiver), ships one (receiver, value) pair per
# receiver, and the owner merges what arrives. Without a combiner it ships every message.


@njit(**NUMBA_FLAGS)
def merge_combined(ctx, ids, vals):
    """Combine the received (receiver, value) pairs whose receiver lies in this part's
    range into its inbox (a rank with several parts passes every part all pairs)."""
    lo, hi = ctx.lo, ctx.hi
    state, inbox, has_msg, nxt = ctx.state, ctx.inbox, ctx.has_msg, ctx.next_candidates
    ncand = ctx.counters[_CANDIDATES]
    ncand = _receive_pairs(inbox, has_msg, state, nxt, lo, hi, ids, vals, 0, len(ids), ncand)
    ctx.counters[_CANDIDATES] = ncand


@njit(**NUMBA_FLAGS)
def combine_runs(ids, vals):
    """Combine runs of equal receivers in ``ids`` (sorted) in place; returns the number
    of distinct receivers, left in ids[:k], vals[:k] (a node leader's second combining)."""
    k = 0
    for j in range(ids.shape[0]):
        if k > 0 and ids[j] == ids[k - 1]:
            if not _EARLY_EXIT:
                vals[k - 1] = _combine(vals[k - 1], vals[j])
        else:
            ids[k] = ids[j]
            vals[k] = vals[j]
            k += 1
    return k


@njit(**NUMBA_FLAGS)
def emit_listed(ctx, fill, out_dst, out_val):
    """This part's messages as (receiver, value) pairs, in sender order; with ``fill``
    false, only their number."""
    lo = ctx.lo
    indptr, indices, weights = ctx.indptr, ctx.indices, ctx.weights
    sending, outbox, senders = ctx.sending, ctx.outbox, ctx.senders
    weighted = weights.shape[0] > 0
    pos = 0
    for i in range(lo, lo + ctx.counters[_SENDERS]):
        u = senders[i]
        kind = sending[u]
        for k in range(indptr[u], indptr[u + 1]):
            if fill:
                out_dst[pos] = indices[k]
                out_val[pos] = _along(outbox[u], kind, weights, k, weighted)
            pos += 1
    dsts = ctx.direct_dst
    vals = ctx.direct_val
    for j in range(len(dsts)):
        if fill:
            out_dst[pos] = dsts[j]
            out_val[pos] = vals[j]
        pos += 1
    return pos


@njit(**NUMBA_FLAGS)
def mark_listed(ctx, counts):
    """Flag this part's receivers of listed messages (counts per vertex of [lo, hi));
    returns the number of messages."""
    lo, hi = ctx.lo, ctx.hi
    state, has_msg, nxt = ctx.state, ctx.has_msg, ctx.next_candidates
    ncand = ctx.counters[_CANDIDATES]
    total = 0
    for d in range(lo, hi):
        cnt = counts[d - lo]
        total += cnt
        if cnt > 0:
            has_msg[d] = 1
            if state[d] != ACTIVE:
                nxt[lo + ncand] = d
                ncand += 1
    ctx.counters[_CANDIDATES] = ncand
    return total
