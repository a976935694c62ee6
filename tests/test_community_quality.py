"""Overlapping NMI and modularity against hand-computed values, a brute-force
implementation of the published formulas, and NetworkX's modularity."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from conftest import SEED
from hpgraph.algorithms.community_quality import as_cover, overlapping_modularity, overlapping_nmi
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph import Graph


def h(p):
    return -p * math.log2(p) if p > 0 else 0.0


def brute_nmi(X, Y, n, variant):
    """LFK appendix B / McDaid et al., every pair evaluated, straight from the formulas."""

    def cond(A, B):
        i = len(A & B)
        p11, p10, p01 = i / n, (len(A) - i) / n, (len(B) - i) / n
        p00 = 1 - p11 - p10 - p01
        ok = h(p11) + h(p00) >= h(p01) + h(p10)
        hb = h(len(B) / n) + h(1 - len(B) / n)
        return ok, h(p11) + h(p10) + h(p01) + h(p00) - hb

    def side(X, Y):
        hs, cs = [], []
        for A in X:
            ha = h(len(A) / n) + h(1 - len(A) / n)
            vals = [c for ok, c in (cond(A, B) for B in Y) if ok]
            hs.append(ha)
            cs.append(min(vals) if vals else ha)
        return np.array(hs), np.array(cs)

    hx, cx = side(X, Y)
    hy, cy = side(Y, X)
    if variant == "lfk":
        if not (hx > 0).any() and not (hy > 0).any():
            return 1.0
        a = np.mean(cx[hx > 0] / hx[hx > 0]) if (hx > 0).any() else 1.0
        b = np.mean(cy[hy > 0] / hy[hy > 0]) if (hy > 0).any() else 1.0
        return 1 - (a + b) / 2
    if max(hx.sum(), hy.sum()) == 0:  # every community holds all n vertices
        return 1.0
    mi = 0.5 * (hx.sum() - cx.sum() + hy.sum() - cy.sum())
    return mi / max(hx.sum(), hy.sum())


def random_cover(rng, n, k, overlap):
    comms = [set() for _ in range(k)]
    for v in range(n):
        comms[rng.integers(k)].add(v)
        if rng.random() < overlap:
            comms[rng.integers(k)].add(v)
    return [c for c in comms if c]


def test_identical_covers_score_one():
    X = [{0, 1, 2}, {2, 3, 4}, {5, 6}]
    assert overlapping_nmi(X, X, 7) == pytest.approx(1.0)
    assert overlapping_nmi(X, X, 7, variant="max") == pytest.approx(1.0)


def test_hand_computed_lfk_value():
    # X = {0,1,2}, Y = {0,1}, n = 4: P11 = 1/2, P10 = 1/4, P01 = 0, P00 = 1/4 (counted)
    hxy = 0.5 + 0.5 + 0.5  # H(X, Y)
    hx = h(0.75) + h(0.25)
    want = 1 - ((hxy - 1.0) / hx + (hxy - hx) / 1.0) / 2
    assert overlapping_nmi([{0, 1, 2}], [{0, 1}], 4) == pytest.approx(want, abs=1e-12)
    assert want == pytest.approx(0.347483, abs=1e-6)


def test_a_single_all_vertex_community_scores_zero():
    planted = [set(range(0, 5)), set(range(5, 10))]
    assert overlapping_nmi([set(range(10))], planted, 10) == pytest.approx(0.0)
    assert overlapping_nmi([set(range(10))], planted, 10, variant="max") == pytest.approx(0.0)
    assert overlapping_nmi([set(range(10))], [set(range(10))], 10) == 1.0


def test_complementary_community_scores_zero_in_lfk():
    # the pair is not counted (h(P11) + h(P00) = 0 < 1), so H(X|Y) = H(X): a known quirk
    assert overlapping_nmi([{0, 1}], [{2, 3}], 4) == pytest.approx(0.0)


@pytest.mark.parametrize("variant", ["lfk", "max"])
@pytest.mark.parametrize("case", range(6))
def test_nmi_matches_the_brute_force_formula(variant, case):
    rng = np.random.default_rng(SEED + case)
    n = int(rng.integers(5, 80))
    X = random_cover(rng, n, int(rng.integers(1, 8)), 0.3)
    Y = random_cover(rng, n, int(rng.integers(1, 8)), 0.3)
    if case == 0:  # a huge community and a tiny disjoint one: a counted disjoint pair
        n = 100
        X, Y = [set(range(89))], [{95}]
    want = brute_nmi(X, Y, n, variant)
    assert overlapping_nmi(X, Y, n, variant=variant) == pytest.approx(want, abs=1e-12)


def test_nmi_accepts_partitions_and_pairs():
    part = np.array([0, 0, 1, 1, -1])
    pairs = (np.array([0, 1, 2, 3]), np.array([7, 7, 9, 9]))
    assert overlapping_nmi(part, pairs, 5) == pytest.approx(1.0)
    v, c, coef, n = as_cover([[3, 1], [1]], None)
    assert n == 4 and v.tolist() == [1, 1, 3] and c.tolist() == [0, 1, 0] and coef is None
    with pytest.raises(InvalidArgumentError, match="variant"):
        overlapping_nmi(part, part, variant="x")
    with pytest.raises(InvalidArgumentError, match="0..2"):
        as_cover([[0, 5]], 3)


def _graph(G):
    src, dst = (
        (np.array(list(G.edges()), dtype=np.int64).reshape(-1, 2).T)
        if G.number_of_edges()
        else ([], [])
    )
    return Graph.from_edges(
        np.asarray(src, np.int64), np.asarray(dst, np.int64), n=G.number_of_nodes(), directed=False
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: nx.karate_club_graph(),
        lambda: nx.les_miserables_graph(),
        lambda: nx.gnm_random_graph(60, 150, seed=SEED),
        lambda: nx.barbell_graph(6, 2),
    ],
)
def test_shen_equals_networkx_modularity_for_partitions(make):
    G = nx.convert_node_labels_to_integers(make())
    g = _graph(G)
    for parts in (nx.community.greedy_modularity_communities(G), [set(G)]):
        want = nx.community.modularity(G, parts, weight=None)
        got = overlapping_modularity(g, [sorted(p) for p in parts], definition="shen")
        assert got == pytest.approx(want, abs=1e-12)


def brute_nicosia(G, members, n, p=30.0):
    """Nicosia et al. 2009, Q_ov summed over all vertex pairs and communities."""

    def g(x):
        return 1.0 / (1.0 + math.exp(-(2 * p * x - p)))

    A = nx.to_numpy_array(G, nodelist=range(n))
    k = A.sum(1)
    M = k.sum()
    q = 0.0
    for alpha in members:  # alpha: length-n belonging coefficients of one community
        gi = np.array([g(a) for a in alpha])
        beta = gi * gi.sum() / n
        q += (np.outer(gi, gi) * A).sum() - (np.outer(beta, beta) * np.outer(k, k)).sum() / M
    return q / M


@pytest.mark.parametrize("case", range(4))
def test_nicosia_matches_the_brute_force_sum(case):
    rng = np.random.default_rng(SEED + 10 + case)
    n = int(rng.integers(4, 40))
    G = nx.gnm_random_graph(n, int(rng.integers(1, 3 * n)), seed=int(rng.integers(1 << 30)))
    g = _graph(G)
    cover = random_cover(rng, n, int(rng.integers(1, 5)), 0.4)
    # random coefficients summing to 1 per vertex
    vs, cs, ws = [], [], []
    for v in range(n):
        mine = [c for c, C in enumerate(cover) if v in C]
        w = rng.random(len(mine)) + 0.1
        w /= w.sum()
        vs += [v] * len(mine)
        cs += mine
        ws += w.tolist()
    members = np.zeros((len(cover), n))
    members[cs, vs] = ws
    want = brute_nicosia(G, members, n)
    got = overlapping_modularity(g, (np.array(vs), np.array(cs), np.array(ws)))
    assert got == pytest.approx(want, abs=1e-10)


def test_nicosia_on_a_partition_has_the_size_factor():
    G = nx.karate_club_graph()
    g = _graph(G)
    parts = [sorted(p) for p in nx.community.greedy_modularity_communities(G)]
    n, M = 34, 2.0 * G.number_of_edges()
    want = 0.0
    for P in parts:
        e = 2.0 * G.subgraph(P).number_of_edges()
        a = sum(d for _, d in G.degree(P))
        want += e / M - (len(P) / n) ** 2 * (a / M) ** 2
    assert overlapping_modularity(g, parts) == pytest.approx(want, abs=1e-9)
    with pytest.raises(InvalidArgumentError, match="definition"):
        overlapping_modularity(g, parts, definition="newman")
