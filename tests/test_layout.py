"""Fruchterman-Reingold layout: quality on graphs whose good drawings are known (grid,
cycle, tree, two cliques), approximations (grid, Barnes-Hut) against the exact sum,
NetworkX's spring_layout as the outside reference for the quality measures (its positions
differ by design), determinism across seeds, threads and MPI ranks, awkward inputs."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from scipy.spatial import cKDTree

from conftest import MPIEXEC, NO_MPI, SEED, make_shape, run_mpi
from hpgraph.algorithms.layout import BOX_HI, BOX_LO, layout, layout_quality
from hpgraph.errors import InvalidArgumentError, InvalidGraphError
from hpgraph.generators import complete_graph, cycle_graph, grid_2d
from hpgraph.graph import Graph
from hpgraph.viz.layout_plot import plot_layout

SHAPES = ["empty", "single", "single_loop", "path", "star_isolated", "multi_loops",
          "components", "random", "dense"]  # fmt: skip
METHODS = ["exact", "grid", "barnes-hut"]


def _xy(res):
    return np.column_stack([res[c] for c in ("x", "y", "z") if c in res.columns])


def binary_tree(n=127):
    v = np.arange(1, n)
    return Graph.from_edges((v - 1) // 2, v, n=n, directed=False, name="tree")


def two_cliques(size=10):
    s, d, _ = complete_graph(size).edges()
    src = np.concatenate([s, s + size, [0]])
    dst = np.concatenate([d, d + size, [size]])
    return Graph.from_edges(src, dst, n=2 * size, directed=False, name="cliques")


def geometric(n, degree, seed=SEED):
    """Random geometric graph in the unit square (mean degree about ``degree``)."""
    pts = np.random.default_rng(seed).random((n, 2))
    pairs = cKDTree(pts).query_pairs(math.sqrt(degree / (math.pi * n)), output_type="ndarray")
    return Graph.from_edges(pairs[:, 0], pairs[:, 1], n=n, directed=False, name="rgg")


def to_nx(g):
    G = nx.Graph()
    G.add_nodes_from(range(g.n))
    s, d, _ = g.edges()
    G.add_edges_from(zip(s.tolist(), d.tolist(), strict=True))
    return G


# --- awkward inputs: every shape, every method, 2-D and 3-D ----------------------------


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_gives_finite_positions_in_the_box(shape, directed, weighted):
    g = make_shape(shape, directed, weighted)
    for method in METHODS:
        for dim in (2, 3):
            res = layout(g, method=method, dim=dim, iterations=25, threads=2)
            x = _xy(res)
            assert x.shape == (g.n, dim) and x.dtype == np.float64
            assert list(res.columns) == ["x", "y", "z"][:dim]
            assert np.isfinite(x).all()
            assert (x >= BOX_LO).all() and (x <= BOX_HI).all()
            if g.n > 1:  # vertices end up at distinct places
                assert len(np.unique(x.round(12), axis=0)) == g.n, (shape, method, dim)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("shape", ["components", "multi_loops", "random"])
def test_threads_agree_bitwise(shape, method, dim):
    """A vertex's move is a fixed-order sum over structures every peer builds from the
    same positions, so 1, 2 and 3 threads give identical results."""
    g = make_shape(shape, False, shape == "multi_loops")
    ref = _xy(layout(g, method=method, dim=dim, iterations=40, threads=1))
    for t in (2, 3):
        np.testing.assert_array_equal(_xy(layout(g, method=method, dim=dim, iterations=40,
                                                 threads=t)), ref)  # fmt: skip


def test_seed_determines_the_layout():
    g = grid_2d(8, 8)
    a, b = _xy(layout(g, seed=3)), _xy(layout(g, seed=3))
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, _xy(layout(g, seed=4)))


def test_initial_positions_are_used_and_not_modified():
    g = cycle_graph(10)
    init = np.random.default_rng(SEED).random((10, 2))
    keep = init.copy()
    np.testing.assert_array_equal(_xy(layout(g, initial=init, iterations=0)), init)
    moved = _xy(layout(g, initial=init, iterations=5))
    np.testing.assert_array_equal(init, keep)
    assert not np.allclose(moved, init)
    # the default start is default_rng(seed).random((n, dim))
    np.testing.assert_array_equal(
        _xy(layout(g, iterations=0, seed=7, dim=3)), np.random.default_rng(7).random((10, 3))
    )


def test_auto_picks_exact_for_small_graphs():
    assert layout(grid_2d(4, 4), iterations=1).meta["method"] == "exact"


# --- quality on graphs with known good drawings ----------------------------------------


@pytest.mark.parametrize("method", ["exact", "barnes-hut", "grid"])
@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize(
    "graph, ratio_max, cv_max",
    [(grid_2d(10, 10), 0.4, 0.35), (cycle_graph(40), 0.4, 0.3), (binary_tree(), 0.4, 0.4)],
    ids=["grid10x10", "cycle40", "tree127"],
)
def test_neighbours_are_drawn_close_and_edges_even(graph, ratio_max, cv_max, method, dim):
    q = layout_quality(graph, layout(graph, method=method, dim=dim, threads=2))
    print(graph.name, method, dim, q)
    assert q["neighbour_ratio"] < ratio_max
    assert q["edge_length_cv"] < cv_max


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dim", [2, 3])
def test_two_cliques_are_drawn_apart(method, dim):
    g = two_cliques(10)
    x = _xy(layout(g, method=method, dim=dim))
    a, b = x[:10], x[10:]
    intra = np.mean([np.linalg.norm(a[:, None] - a[None], axis=2).sum() / 90,
                     np.linalg.norm(b[:, None] - b[None], axis=2).sum() / 90])  # fmt: skip
    inter = np.linalg.norm(a[:, None] - b[None], axis=2).mean()
    assert inter > 2.0 * intra, (inter, intra)
    # a line between the clique centres separates them: projections do not overlap
    axis = b.mean(0) - a.mean(0)
    assert (a @ axis).max() < (b @ axis).min()


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize(
    "graph", [grid_2d(20, 20), geometric(400, 8)], ids=["grid20x20", "geometric400"]
)
def test_approximations_are_close_to_exact(graph, dim):
    exact = layout_quality(graph, layout(graph, method="exact", dim=dim))
    for method, slack in (("barnes-hut", 1.15), ("grid", 1.6)):
        q = layout_quality(graph, layout(graph, method=method, dim=dim))
        print(method, dim, q, exact)
        assert q["neighbour_ratio"] < slack * exact["neighbour_ratio"]
        assert q["edge_length_cv"] < slack * exact["edge_length_cv"] + 0.05
        assert q["stress"] < slack * exact["stress"] + 0.05


@pytest.mark.parametrize("dim", [2, 3])
def test_barnes_hut_step_matches_the_exact_sum(dim):
    """One step from the same start: Barnes-Hut's move (many groups of up to GROUP
    vertices, split between peers by Morton order) follows the exact all-pairs move."""
    g = geometric(3000, 6)
    init = np.random.default_rng(SEED).random((g.n, dim))
    exact = _xy(layout(g, method="exact", dim=dim, iterations=1, initial=init))
    bh = _xy(layout(g, method="barnes-hut", dim=dim, iterations=1, initial=init, threads=3))
    # every first move is the temperature long (0.1): the error is one of direction,
    # largest where big forces nearly cancel (measured: median 0.2% / 0.4%, 99th
    # percentile 2.9% / 6.4% in 2-D / 3-D; a wrong sum is off by O(1))
    rel = np.linalg.norm(bh - exact, axis=1) / np.linalg.norm(exact - init, axis=1)
    print(dim, np.median(rel), np.quantile(rel, 0.99))
    assert np.median(rel) < 0.01 and np.quantile(rel, 0.99) < 0.1


@pytest.mark.parametrize(
    "graph",
    [grid_2d(10, 10), binary_tree(), two_cliques(10), make_shape("random", False, False)],
    ids=["grid10x10", "tree127", "cliques", "random400"],
)
def test_quality_is_close_to_networkx_spring_layout(graph):
    ours = layout_quality(graph, layout(graph))
    ref = layout_quality(graph, nx.spring_layout(to_nx(graph), seed=SEED % 2**32,
                                                 iterations=100))  # fmt: skip
    print(graph.name, ours, ref)
    assert ours["neighbour_ratio"] < 1.5 * ref["neighbour_ratio"]  # no gravity there: wider
    assert ours["stress"] < 1.5 * ref["stress"] + 0.05


# --- the quality measures themselves ---------------------------------------------------


def test_quality_measures_by_hand():
    # path a-b-c drawn on a line at 0, 1, 2: edge lengths 1, 1; pair distances 1, 1, 2
    g = Graph.from_edges([0, 1, 1], [1, 2, 2], n=3, directed=True)  # a multi-edge
    q = layout_quality(g, np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]]))
    assert q["edge_length_cv"] == 0.0
    assert q["neighbour_ratio"] == pytest.approx(1.0 / (4.0 / 3.0))
    assert q["stress"] == pytest.approx(0.0, abs=1e-15)
    # bent at b: pair a-c at sqrt(2), hop distance 2, best scale s minimises the stress
    q = layout_quality(g, np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]))
    dx, d = np.array([1.0, 1.0, math.sqrt(2)]), np.array([1.0, 1.0, 2.0])
    s = np.sum(dx / d) / np.sum(dx**2 / d**2)
    assert q["stress"] == pytest.approx(np.mean((s * dx - d) ** 2 / d**2))
    # a dict layout, as NetworkX returns, in the graph's own ids
    assert layout_quality(g, {0: (0, 0), 1: (1, 0), 2: (2, 0)}) == layout_quality(
        g, np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
    )


def test_sampled_neighbour_ratio_matches_all_pairs():
    g = geometric(600, 6)
    x = _xy(layout(g, iterations=30))
    full = layout_quality(g, x)["neighbour_ratio"]
    sampled = layout_quality(g, x, stress_max=100, pairs=400_000)
    assert sampled["stress"] is None
    assert sampled["neighbour_ratio"] == pytest.approx(full, rel=0.02)


# --- bad input --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [({"dim": 4}, "dim"), ({"dim": 1}, "dim"), ({"iterations": -1}, "iterations"),
     ({"iterations": 2.5}, "iterations"), ({"method": "fast"}, "method"),
     ({"k": 0.0}, "k must"), ({"k": float("nan")}, "k must"), ({"theta": 0}, "theta"),
     ({"gravity": -1.0}, "gravity"), ({"seed": -3}, "seed"),
     ({"initial": np.zeros((5, 2))}, "shape"),
     ({"initial": np.full((12, 2), 5.0)}, "initial positions must lie"),
     ({"threads": 0}, "threads")],
)  # fmt: skip
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(InvalidArgumentError, match=match):
        layout(cycle_graph(12), **kwargs)


def test_negative_weights_are_rejected():
    g = Graph.from_edges([0, 1], [1, 2], n=3, directed=False, weights=[1.0, -2.0])
    with pytest.raises(InvalidGraphError, match="-2.0"):
        layout(g)


# --- MPI and plotting ------------------------------------------------------------------


@pytest.mark.skipif(MPIEXEC is None, reason=NO_MPI)
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_mpi_matches_the_local_runtime(ranks):
    out = run_mpi(ranks, "check_layout.py")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "LAYOUT OK" in out.stdout


def test_plot_layout(tmp_path):
    res = layout(two_cliques(6), dim=2, iterations=20)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        with pytest.raises(InvalidArgumentError, match="matplotlib"):
            plot_layout(res, tmp_path / "g.png")
        return
    plot_layout(res, tmp_path / "g.png", communities=np.repeat([0, 1], 6))
    plot_layout(layout(two_cliques(6), dim=3, iterations=5), tmp_path / "g3.png")
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "g3.png").stat().st_size > 0
