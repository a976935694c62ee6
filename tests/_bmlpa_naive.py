"""A slow, obviously-correct BMLPA in plain Python (dicts and sets), for the tests.

It follows the paper's pseudo-code step by step on a NetworkX graph: rough cores, the
balanced update, the seed's update-rate stop rule or the paper's mc/Count/Id one, removal
of nested communities and the split into connected pieces. It returns the cover as a set
of (frozenset(members), frozenset((vertex, rounded coefficient))) so that community
numbering does not matter.
"""

from __future__ import annotations

import networkx as nx


def rough_cores(G: nx.Graph, key) -> list[list]:
    deg = dict(G.degree())
    free = {v: True for v in G}
    cores = []
    for i in sorted(G, key=lambda v: (-deg[v], key[v])):
        if deg[i] < 3 or not free[i]:
            continue
        fn = [u for u in G[i] if free[u]]
        if not fn:
            continue
        j = min(fn, key=lambda u: (-deg[u], key[u]))
        cand = sorted(set(G[i]) & set(G[j]), key=lambda u: (deg[u], key[u]))
        core = [i, j]
        while cand:
            h = cand.pop(0)
            core.append(h)
            cand = [x for x in cand if G.has_edge(h, x)]
        if len(core) >= 3:
            cores.append(core)
            for v in core:
                free[v] = False
    return cores


def update_one(G, source, x, b, cap=None):
    """x's new set from its neighbours' sets in ``source``."""
    if G.degree(x) == 0:
        return dict(source[x])
    score = {}
    for y in G[x]:
        for c, w in source[y].items():
            score[c] = score.get(c, 0.0) + w
    mx = max(score.values())
    kept = {c: s for c, s in score.items() if s >= b * mx}
    if cap is not None and len(kept) > cap:
        best = sorted(kept, key=lambda c: (-kept[c], c))[:cap]
        kept = {c: kept[c] for c in best}
    tot = sum(kept[c] for c in sorted(kept))
    return {c: kept[c] / tot for c in sorted(kept)}


def propagate(G, source, b, cap=None):
    """One synchronous superstep: every vertex from ``source``."""
    return {x: update_one(G, source, x, b, cap) for x in G}


def colour_classes(G):
    """Greedy first-fit colouring in order of descending degree, ties by vertex: the
    classes, colour 0 first."""
    colour = {}
    for x in sorted(G, key=lambda v: (-G.degree(v), v)):
        taken = {colour[y] for y in G[x] if y in colour}
        c = 0
        while c in taken:
            c += 1
        colour[x] = c
    k = max(colour.values(), default=-1) + 1
    return [[v for v in G if colour[v] == c] for c in range(k)]


def sweep(G, source, b, cap, classes):
    """One semi-synchronous sweep: each class from the state the classes before it left."""
    state = dict(source)
    for cls in classes:
        new = {x: update_one(G, state, x, b, cap) for x in cls}
        state.update(new)
    return state


def count(lab):
    out = {}
    for ls in lab.values():
        for c in ls:
            out[c] = out.get(c, 0) + 1
    return out


_DEFAULT = object()


def bmlpa_naive(
    G: nx.Graph, b, initial, max_iterations=100, cap=None, tolerance=_DEFAULT, update="semi-sync"
):
    """``initial``: {vertex: {label: coefficient}}. ``tolerance``: the seed's update-rate
    rule (stop, keeping ``dest``, once fewer than ``tolerance * n`` vertices hold labels
    that differ from their labels one sweep back, semi-synchronous, or two supersteps back,
    synchronous, or none does; default 0.05 and 0.01); ``None``: the paper's counts rule
    (synchronous: stop keeping ``source``; semi-synchronous: keeping the last sweep)."""
    if tolerance is _DEFAULT:
        tolerance = 0.05 if update == "semi-sync" else 0.01
    semi = update == "semi-sync"
    classes = colour_classes(G) if semi else None
    source = before = initial
    old_min = None
    n = G.number_of_nodes()
    for _ in range(max_iterations):
        dest = sweep(G, source, b, cap, classes) if semi else propagate(G, source, b, cap)
        if tolerance is not None:
            back = source if semi else before
            changed = sum(set(dest[v]) != set(back[v]) for v in G)
            before, source = source, dest
            if changed == 0 or changed < tolerance * n:
                break
            continue
        cs, cd = count(source), count(dest)
        if set(cs) == set(cd):
            mn = {c: min(cs[c], cd[c]) for c in cs}
        else:
            mn = cd
        if mn == old_min:
            if semi:
                source = dest
            break
        source, old_min = dest, mn
    comms = {}
    for v, ls in source.items():
        for c in ls:
            comms.setdefault(c, set()).add(v)
    # nested: merge into the smallest superset (ties: smaller label; equal sets: smaller label)
    target = {}
    for a, A in comms.items():
        sup = [c for c, B in comms.items() if c != a and A <= B and (len(B) > len(A) or c < a)]
        if sup:
            target[a] = min(sup, key=lambda c: (len(comms[c]), c))

    def root(c):
        while c in target:
            c = target[c]
        return c

    merged = {}
    for v, ls in source.items():
        d = {}
        for c, w in ls.items():
            r = root(c)
            d[r] = d.get(r, 0.0) + w
        merged[v] = d
    comms = {}
    for v, ls in merged.items():
        for c in ls:
            comms.setdefault(c, set()).add(v)
    pieces = []  # (smallest member, label, members, {vertex: coefficient})
    for c, members in comms.items():
        for piece in nx.connected_components(G.subgraph(members)):
            pieces.append((min(piece), c, set(piece), {v: merged[v][c] for v in piece}))
    pieces.sort(key=lambda p: (p[0], p[1]))
    # a piece equal to or inside another merges into the smallest one containing it
    # (equal: the earlier one); chains are followed
    target = {}
    for i, (_, _, a, _) in enumerate(pieces):
        sup = [
            j
            for j, (_, _, bb, _) in enumerate(pieces)
            if j != i and a <= bb and (len(bb) > len(a) or j < i)
        ]
        if sup:
            target[i] = min(sup, key=lambda j: (len(pieces[j][2]), j))
    for i in target:
        r = i
        while r in target:
            r = target[r]
        for v, w in pieces[i][3].items():
            pieces[r][3][v] += w
    cover = set()
    for i, (_, _, members, coef) in enumerate(pieces):
        if i not in target:
            cover.add((frozenset(members), frozenset((v, round(coef[v], 9)) for v in members)))
    return cover
