"""BMLPA's post-processing on a partitioned graph: each MPI rank holds its own vertices'
label sets and rows of the simple view, and no rank gathers the cover.

Given a rank's part of the simple undirected view and its own vertices' label sets,
:func:`postprocess_part` returns the own vertices' rows of the post-processed cover and
the table of the communities the rank numbered, equal (numbers, coefficients bit for
bit, sizes, labels, nested count) to :func:`.postprocess._postprocess` on the whole
graph. One peer per rank (``run_bsp``), three steps:

1. **Nested labels.** Labels are *owned* by ranks, by a Fibonacci hash of the id
   (``(id * 0x9E3779B97F4A7C15 mod 2^64) >> 32``, mod P), so hashtags and vertex labels
   spread evenly. Each rank sends the owners its per-label member counts; they answer
   the sizes. For each label A it holds, a rank intersects its own members' rows (from
   the member with the fewest labels), keeps the labels B that A may merge into (larger,
   or as large with a smaller id: :func:`.postprocess._nested_range`'s rule) and sends
   them, as keys ``size * bound + B``, to A's owner; A is inside B iff B is in every
   rank's list, and the owner takes the smallest common key. Chains A -> B -> C end by
   pointer jumping among the owners (each round the owners ask the owners of their
   targets for those targets' targets). Each rank then asks for its labels' ends and
   relabels its rows with :func:`.postprocess._relabel_range` (coefficients add in the
   reference's order; a target is in every row its label is in, so a rank-local
   dictionary of labels serves).
2. **Split.** Union-find over the rank's own entries and its ghosts' entries (the
   relabelled rows of the remote neighbours, fetched from their owners), linked by
   :func:`.postprocess._link_range`. Every entry has a global number (rank offsets
   of the own entries, so in vertex-then-label order, as the reference's). Rounds of
   min-propagation: each local root holds the least global number it knows of its piece;
   a rank sends the ranks that hold its vertices as ghosts the values of those entries
   that changed, and lowers its roots by what arrives, until no rank sends anything.
   Each piece's value is then its smallest entry, whose rank numbers it: an exchange of
   counts gives every rank its first number ``c0``; ranks ask the owners of the roots
   for the numbers and send them the entry counts (the sizes).
3. **Pieces inside others** merge as in step 1, with the pieces owned by the ranks that
   numbered them (ranges of numbers); survivors keep their order (an exchange of the
   survivors' counts gives the new first numbers).

Supersteps: 11 for step 1 plus 3 per pointer-jumping round, 4 + one per
min-propagation round (2-8 on the 3,000-user mention graph at 2-3 ranks), 10 +
3 per round for step 3. Bytes per rank (e own entries, g ghost entries, o own vertices,
l distinct labels among the own entries, a labels (or pieces) the rank owns, s entries
of own vertices held as ghosts by other ranks, counted once per such rank): the input
and output rows, 8 o + 12 e each; ghost slots (``ghost_slots``) 8 per own entry;
labels 8 e (local label numbers) + 16 l (dictionary, sizes); member lists 8 e + 16 l and
the candidate keys, 8 per label of the member with the fewest labels of each own label
(e in practice, at most the sum of squared row lengths); at the owners 32 a + 16 per
candidate key received; the split 8 (e + g) union-find, 8 (e + g) roots' values, 12 g
ghost rows, 16 s subscriptions and last values sent. Moved: labels and counts 16 per
(rank, own label) there and sizes 8 back, 8 per candidate key + 16 per list, 16 per
target per pointer-jumping round, 12 per ghost entry once, 16 per changed subscribed
entry per round, 16 per distinct root per rank and 8 back; step 3 the same over pieces.
Nothing of size n or ``num_labels``."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from hpgraph.algorithms._owners import every_rank, ghost_slots
from hpgraph.algorithms.bmlpa.postprocess import _link_range, _relabel_range, _sort_rows
from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.views import rows_in_order

__all__ = ["PartCover", "postprocess_part"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_NONE = np.iinfo(np.int64).max


class PartCover(NamedTuple):
    """One rank's share of the post-processed cover.

    ``ptr`` (int64 from 0), ``comm`` (int64 community numbers, each row ascending) and
    ``coef`` (float64): the own vertices' rows. ``c0``: the first number of the
    communities this rank numbered (those whose smallest member it owns), ``sizes`` and
    ``origin`` (int64: the label each came from) theirs, communities ``c0``, ``c0 + 1``,
    ...; ``communities``: how many the whole graph has; ``nested``: how many were merged
    into others (both passes, whole graph); ``rounds``: the split's min-propagation
    rounds."""

    ptr: np.ndarray
    comm: np.ndarray
    coef: np.ndarray
    c0: int
    sizes: np.ndarray
    origin: np.ndarray
    communities: int
    nested: int
    rounds: int


# ------------------------------------------------------------------ kernels
@njit(**NUMBA_FLAGS)
def _candidates(ptr, lix, size, ulab, bound):
    """Per local label A (``lix``: local label numbers, ascending in each row; ``size``:
    the whole graph's sizes), the labels B that every own member of A holds and that A
    may merge into, as keys ``size[B] * bound + ulab[B]``: ``(lens, keys)``."""
    n = ptr.shape[0] - 1
    nl = size.shape[0]
    mptr = np.zeros(nl + 1, dtype=np.int64)
    for q in range(ptr[n]):
        mptr[lix[q] + 1] += 1
    for a in range(nl):
        mptr[a + 1] += mptr[a]
    mem = np.empty(ptr[n], dtype=np.int64)
    fill = mptr[:-1].copy()
    for v in range(n):
        for q in range(ptr[v], ptr[v + 1]):
            mem[fill[lix[q]]] = v
            fill[lix[q]] += 1
    first = np.empty(nl, dtype=np.int64)  # the member with the fewest labels
    total = 0
    for a in range(nl):
        x = mem[mptr[a]]
        for t in range(mptr[a] + 1, mptr[a + 1]):
            y = mem[t]
            if ptr[y + 1] - ptr[y] < ptr[x + 1] - ptr[x]:
                x = y
        first[a] = x
        total += ptr[x + 1] - ptr[x]
    keys = np.empty(total, dtype=np.int64)
    lens = np.zeros(nl, dtype=np.int64)
    k = 0
    for a in range(nl):
        x = first[a]
        start = k
        for q in range(ptr[x], ptr[x + 1]):
            c = lix[q]
            if c == a or size[c] < size[a] or (size[c] == size[a] and c > a):
                continue
            keys[k] = c
            k += 1
        for t in range(mptr[a], mptr[a + 1]):
            y = mem[t]
            if k == start:
                break
            if y == x:
                continue
            i, j, w = start, ptr[y], start
            while i < k and j < ptr[y + 1]:
                if keys[i] < lix[j]:
                    i += 1
                elif keys[i] > lix[j]:
                    j += 1
                else:
                    keys[w] = keys[i]
                    w += 1
                    i += 1
                    j += 1
            k = w
        lens[a] = k - start
        for i in range(start, k):
            keys[i] = size[keys[i]] * bound + ulab[keys[i]]
    return lens, keys[:k]


@njit(**NUMBA_FLAGS)
def _smallest_common(aix, lens, keys, owned):
    """Per owned label, the smallest key in every list sent for it (list i: label
    ``aix[i]``, ``lens[i]`` distinct keys of ``keys``, in turn), or -1."""
    lists = np.zeros(owned, dtype=np.int64)
    kptr = np.zeros(owned + 1, dtype=np.int64)
    for i in range(aix.shape[0]):
        lists[aix[i]] += 1
        kptr[aix[i] + 1] += lens[i]
    for a in range(owned):
        kptr[a + 1] += kptr[a]
    grouped = np.empty(kptr[owned], dtype=np.int64)
    fill = kptr[:-1].copy()
    s = 0
    for i in range(aix.shape[0]):
        a = aix[i]
        grouped[fill[a] : fill[a] + lens[i]] = keys[s : s + lens[i]]
        fill[a] += lens[i]
        s += lens[i]
    best = np.full(owned, -1, dtype=np.int64)
    for a in range(owned):
        seg = np.sort(grouped[kptr[a] : kptr[a + 1]])
        run = 0
        for t in range(seg.shape[0]):
            run = run + 1 if t > 0 and seg[t] == seg[t - 1] else 1
            if run == lists[a]:
                best[a] = seg[t]
                break
    return best


@njit(**NUMBA_FLAGS)
def _roots(parent, own_entries, e0):
    """Flatten the union-find (every parent precedes its node) and give each own root its
    global entry number, other nodes none: the roots' values."""
    low = np.full(parent.shape[0], _NONE, dtype=np.int64)
    for q in range(parent.shape[0]):
        parent[q] = parent[parent[q]]
        if q < own_entries and parent[q] == q:
            low[q] = e0 + q
    return low


@njit(**NUMBA_FLAGS)
def _changed(sub, parent, low, last):
    """(positions, values) of the subscribed entries ``sub`` whose piece value differs
    from ``last`` (updated)."""
    pos = np.empty(sub.shape[0], dtype=np.int64)
    val = np.empty(sub.shape[0], dtype=np.int64)
    k = 0
    for p in range(sub.shape[0]):
        x = low[parent[sub[p]]]
        if x != last[p]:
            last[p] = x
            pos[k] = p
            val[k] = x
            k += 1
    return pos[:k], val[:k]


@njit(**NUMBA_FLAGS)
def _lower(base, pos, val, parent, low):
    """Lower the roots of ghost entries ``base + pos`` to the values that arrived."""
    for i in range(pos.shape[0]):
        r = parent[base + pos[i]]
        if val[i] < low[r]:
            low[r] = val[i]


# ------------------------------------------------------------------ exchanges
def _exchange(peer, out):
    """Send ``out[q]`` (a list of arrays, as many for every q) to every other rank q;
    returns ``got[q]``, the arrays rank q sent here (``out`` of this rank for itself)."""
    me = peer.pid
    for q in range(peer.num_peers):
        if q != me:
            for a in out[q]:
                peer.send(q, a)
    peer.sync()
    got = [[] for _ in range(peer.num_peers)]
    got[me] = list(out[me])
    for q, a in peer.messages():
        got[q].append(a)
    return got


def _blocks(dest, parts):
    """(order, at): positions sorted by owner, owner q's ``order[at[q]:at[q + 1]]``."""
    order = np.argsort(dest, kind="stable")
    return order, np.searchsorted(dest[order], np.arange(parts + 1))


def _ask(peer, keys, dest, answer, *along):
    """Send each key (and its values in ``along``) to its owner ``dest``; the owners
    reply ``answer(got)`` (``got[q] = [keys, *along]`` from rank q; per q a list of
    arrays aligned with those keys). Returns the replies aligned with ``keys``."""
    parts = peer.num_peers
    order, at = _blocks(dest, parts)
    out = [[a[order[at[q] : at[q + 1]]] for a in (keys, *along)] for q in range(parts)]
    back = _exchange(peer, answer(_exchange(peer, out)))
    replies = []
    for f in range(len(back[peer.pid])):
        got = np.concatenate([back[q][f] for q in range(parts)])
        reply = np.empty_like(got)
        reply[order] = got
        replies.append(reply)
    return replies


def _hashed(parts):
    def owner(labels):
        h = (labels.astype(np.uint64) * _GOLDEN) >> np.uint64(32)
        return (h % np.uint64(parts)).astype(np.int64)

    return owner


def _ranged(starts):
    def owner(labels):
        return np.searchsorted(starts, labels, side="right") - 1

    return owner


# ------------------------------------------------------------------ the three steps
def _nested(peer, ptr, lix, ulab, bound, owner):
    """Step 1 (or 3) up to the chains' ends: (owners of ``ulab``, the owned labels,
    their sizes and targets (-1: none), the whole graph's count of merged labels)."""
    dest = owner(ulab)
    table = {}

    def sizes(got):
        olab = np.unique(np.concatenate([g[0] for g in got]))
        osize = np.zeros(olab.shape[0], dtype=np.int64)
        for labels, counts in got:
            osize[np.searchsorted(olab, labels)] += counts
        table.update(olab=olab, osize=osize)
        return [[osize[np.searchsorted(olab, g[0])]] for g in got]

    counts = np.bincount(lix, minlength=ulab.shape[0]).astype(np.int64)
    (size,) = _ask(peer, ulab, dest, sizes, counts)
    lens, keys = _candidates(ptr, lix, size, ulab, bound)
    kptr = np.concatenate([np.zeros(1, np.int64), np.cumsum(lens)])
    order, at = _blocks(dest, peer.num_peers)
    out = []
    for q in range(peer.num_peers):
        sel = order[at[q] : at[q + 1]]
        qptr, qkeys = rows_in_order(kptr[:-1], kptr[1:], keys, sel)
        out.append([ulab[sel], np.diff(qptr), qkeys])
    del keys, kptr
    got = _exchange(peer, out)
    olab, osize = table["olab"], table["osize"]
    aix = np.searchsorted(olab, np.concatenate([g[0] for g in got]))
    best = _smallest_common(
        aix, np.concatenate([g[1] for g in got]), np.concatenate([g[2] for g in got]), olab.size
    )
    del got, aix
    otarget, nested = _chains(peer, olab, np.where(best >= 0, best % bound, -1), owner)
    return dest, olab, osize, otarget, nested


def _chains(peer, olab, otarget, owner):
    """Pointer jumping: each owned label's target replaced by the target's target until
    none changes anywhere. Each round's message carries the sender's count of changes
    in the round before (the first: of targets, so their total is the nested count)."""
    head, nested = int((otarget >= 0).sum()), None
    while True:
        ts = np.unique(otarget[otarget >= 0])
        order, at = _blocks(owner(ts), peer.num_peers)
        h = np.array([head], dtype=np.int64)
        got = _exchange(peer, [[h, ts[order[at[q] : at[q + 1]]]] for q in range(peer.num_peers)])
        total = sum(int(g[0][0]) for g in got)
        nested = total if nested is None else nested
        if total == 0:
            return otarget, nested
        back = _exchange(peer, [[otarget[np.searchsorted(olab, g[1])]] for g in got])
        nt = np.empty(ts.shape[0], dtype=np.int64)
        nt[order] = np.concatenate([b[0] for b in back])
        has = otarget >= 0
        nxt = np.full(otarget.shape[0], -1, dtype=np.int64)
        nxt[has] = nt[np.searchsorted(ts, otarget[has])]
        jump = nxt >= 0
        head = int(jump.sum())
        otarget = np.where(jump, nxt, otarget)


def _relabelled(ptr, lix, coef, ulab, target):
    """The rows with each local label replaced by its target's (global ``target``, -1:
    none; targets are in the same rows, so among ``ulab``): (ptr, local labels, coef)."""
    local = np.where(target >= 0, np.searchsorted(ulab, target), -1).astype(np.int64)
    cnt, nlab, ncoef = _relabel_range(ptr, lix.astype(np.int32), coef, local, 0, ptr.shape[0] - 1)
    nptr = np.zeros(ptr.shape[0], dtype=np.int64)
    np.cumsum(cnt, out=nptr[1:])
    return nptr, nlab, ncoef


def _split(peer, sp, ptr, lab, coef):
    """Step 2: (community per own entry, rows sorted by it with their coefficients, c0,
    this rank's pieces' sizes and labels, the whole graph's piece starts per rank and
    count, rounds)."""
    own, ip, slots, _, at, asked = ghost_slots(peer, sp)
    me, parts = peer.pid, peer.num_peers
    entries = int(ptr[-1])
    out = []
    for q in range(parts):
        rp, rl = rows_in_order(ptr[:-1], ptr[1:], lab, asked.get(q, np.zeros(0, np.int64)))
        out.append([np.array([entries], dtype=np.int64), np.diff(rp), rl])
    got = _exchange(peer, out)
    eoff = np.concatenate([np.zeros(1, np.int64), np.cumsum([int(g[0][0]) for g in got])])
    e0 = int(eoff[me])
    cptr = np.concatenate([ptr, entries + np.cumsum(np.concatenate([g[1] for g in got]))])
    clab = np.concatenate([lab, *(g[2] for g in got)])
    del got
    parent = np.arange(clab.shape[0], dtype=np.int32 if clab.shape[0] < 2**31 else np.int64)
    _link_range(ip, slots, cptr, clab, parent, 0, own)
    low = _roots(parent, entries, e0)
    ids = np.arange(entries, dtype=np.int64)
    sub = {q: rows_in_order(ptr[:-1], ptr[1:], ids, w)[1] for q, w in asked.items()}
    last = {q: np.full(s.shape[0], -1, dtype=np.int64) for q, s in sub.items()}
    none = np.zeros(0, np.int64)
    rounds = 0
    while True:
        rounds += 1
        changed = {q: _changed(s, parent, low, last[q]) for q, s in sub.items()}
        sent = np.array([sum(c[0].shape[0] for c in changed.values())], dtype=np.int64)
        got = _exchange(peer, [[sent, *changed.get(q, (none, none))] for q in range(parts)])
        if sum(int(g[0][0]) for g in got) == 0:
            break
        for q in range(parts):
            if q != me:
                _lower(cptr[own + at[q]], got[q][1], got[q][2], parent, low)
    del sub, last, changed, got
    root = low[parent[:entries]]
    del parent, low, cptr, clab
    mine = np.flatnonzero(root == e0 + ids)  # own entries that are their pieces' smallest
    starts = np.cumsum(every_rank(peer, mine.shape[0]))
    total = int(starts[-1])
    starts = np.concatenate([np.zeros(1, np.int64), starts[:-1]])
    c0 = int(starts[me])
    sizes = np.zeros(mine.shape[0], dtype=np.int64)

    def numbers(got):
        replies = []
        for r, counts in got:
            at_r = np.searchsorted(mine, r - e0)
            sizes[at_r] += counts
            replies.append([c0 + at_r])
        return replies

    uroot, inverse = np.unique(root, return_inverse=True)
    dest = np.searchsorted(eoff, uroot, side="right") - 1
    (number,) = _ask(peer, uroot, dest, numbers, np.bincount(inverse).astype(np.int64))
    comm = number[inverse.reshape(-1)]
    pcoef = coef.copy()
    _sort_rows(ptr, comm, pcoef, 0, own)
    return comm, pcoef, c0, sizes, lab[mine].astype(np.int64), starts, total, rounds


def _program(peer, sp, ptr, lab, coef, num_labels, kept):
    """One rank's peer (module docstring); leaves its :class:`PartCover` in ``kept``."""
    own = sp.hi - sp.lo
    if ptr.shape[0] != own + 1 or lab.shape[0] != ptr[-1] or coef.shape[0] != ptr[-1]:
        raise InvalidArgumentError(
            f"rank {peer.pid}: the cover's rows must be the own vertices' ({own} rows, "
            f"ptr from 0 to len(lab) == len(coef)); got {ptr.shape[0] - 1} rows, "
            f"{lab.shape[0]} labels, {coef.shape[0]} coefficients"
        )
    if lab.shape[0] and (int(lab.min()) < 0 or int(lab.max()) >= num_labels):
        raise InvalidArgumentError(f"rank {peer.pid}: labels must be in [0, {num_labels})")
    parts = peer.num_peers
    ptr = np.asarray(ptr, dtype=np.int64)
    ulab, lix = np.unique(lab, return_inverse=True)
    lix = lix.reshape(-1)
    dest, olab, _, otarget, nested = _nested(peer, ptr, lix, ulab, num_labels, _hashed(parts))
    (target,) = _ask(
        peer, ulab, dest, lambda got: [[otarget[np.searchsorted(olab, g[0])]] for g in got]
    )
    ptr, nl, coef = _relabelled(ptr, lix, coef, ulab, target)
    lab = ulab[nl]
    del lix, target, nl, otarget, olab
    comm, coef, c0, sizes, origin, starts, total, rounds = _split(peer, sp, ptr, lab, coef)
    del lab
    # step 3: pieces inside others, owned by the ranks that numbered them
    ucomm, lix = np.unique(comm, return_inverse=True)
    lix = lix.reshape(-1)
    dest, olab, _, otarget, inside = _nested(peer, ptr, lix, ucomm, max(total, 1), _ranged(starts))
    keep = otarget[np.searchsorted(olab, np.arange(c0, c0 + sizes.shape[0]))] < 0
    kept_starts = np.cumsum(every_rank(peer, int(keep.sum())))
    first = int(kept_starts[peer.pid] - keep.sum())
    renumber = np.where(keep, first + np.cumsum(keep) - 1, -1)

    def ends(got):
        return [[otarget[np.searchsorted(olab, g[0])], renumber[g[0] - c0]] for g in got]

    target, new = _ask(peer, ucomm, dest, ends)
    ptr, nl, coef = _relabelled(ptr, lix, coef, ucomm, target)
    kept["cover"] = PartCover(
        ptr, new[nl], coef, first, sizes[keep], origin[keep], int(kept_starts[-1]),
        nested + inside, rounds,
    )  # fmt: skip
    return nested + inside


def postprocess_part(sp, ptr, lab, coef, num_labels, runtime) -> PartCover:
    """BMLPA's post-processing (:func:`.postprocess._postprocess`) of a cover held by
    the ranks of the MPI runtime ``runtime``, collective over them.

    ``sp``: this rank's part of the simple view (:func:`~hpgraph.graph.views.
    simple_part` with ``both_directions=False``); ``ptr`` (from 0), ``lab`` (int32 ids in
    ``[0, num_labels)``, ascending in each row) and ``coef``: the label sets of its own
    vertices ``sp.lo .. sp.hi - 1``. Returns this rank's :class:`PartCover`: the
    numbers, coefficients, sizes, labels and nested count the whole graph's
    post-processing gives, without any rank holding more than its own rows, its ghosts'
    rows and the labels and communities it owns (module docstring)."""
    from hpgraph.engine.bsp import run_bsp

    if not getattr(runtime, "holds_parts", False) or runtime.size != sp.rank_offsets.shape[0] - 1:
        raise InvalidArgumentError(
            "postprocess_part runs on the MPI runtime the part was split for"
        )
    if (sp.n + 1) * max(int(num_labels), 1) >= 2**63:
        raise InvalidArgumentError(f"num_labels {num_labels} too large for {sp.n} vertices")
    kept = {}
    run_bsp(_program, args=(sp, ptr, lab, coef, int(num_labels), kept), runtime=runtime)
    return kept["cover"]
