"""Given a store spread over MPI ranks and a SPARQL query, returns the query's answer on
rank 0, the same as one process gives.

Rank 0 runs the one-process executor (:func:`hpgraph.rdf.sparql.run_query`) on a
:class:`~hpgraph.rdf.store.Store` holding the whole dictionary and only its own
triples, with :attr:`Store.cluster` set: every BGP the executor meets (in the query,
under OPTIONAL, UNION, MINUS, EXISTS, a sub-SELECT) comes here. Rank 0 sends the BGP's
plan (its patterns' term ids, the seed's columns) to the other ranks, which wait for
commands, and all ranks evaluate it together (:func:`~hpgraph.rdf.mpi.bgp.solve`); the
solutions are gathered on rank 0. A property path needs the triples of its predicates
(and, for ``*`` and ``?``, every node of the graph): they are gathered on rank 0 (and
kept for the next query) and the path is walked there. Everything above the BGPs
(FILTER, OPTIONAL, UNION, MINUS, BIND, aggregates, ORDER BY, the results) runs on rank
0 on the gathered solutions.

Not distributed, a one-line error: named graphs (GRAPH, FROM, FROM NAMED,
``--union-default-graph`` over a dataset with named graphs) and DESCRIBE (it reads the
store's triples outside BGPs). An error on rank 0 (a syntax error, an unsupported
feature) is sent to the other ranks, so every rank raises the same one-line error.
"""

from __future__ import annotations

import time

import numpy as np

from hpgraph.errors import InvalidArgumentError, agreed
from hpgraph.rdf.mpi.bgp import solve
from hpgraph.rdf.mpi.exchange import gather
from hpgraph.rdf.mpi.launch import mpi_module
from hpgraph.rdf.mpi.store import load_share, problem_text
from hpgraph.rdf.sparql.table import Table, join
from hpgraph.rdf.sparql.terms import Unsupported
from hpgraph.rdf.store import Store
from hpgraph.rdf.triples import Triples, sort_quads

__all__ = ["DistributedStore"]

#: Tag of rank 0's commands to the other ranks.
_TAG = 7716
#: Longest sleep (s) between polls of a rank waiting for rank 0's next command.
_POLL = 0.0002
#: How many paths' gathered triples rank 0 keeps.
PATHS_KEPT = 4


class DistributedStore:
    """An RDF store whose default graph is spread over the ranks of ``comm`` by subject
    hash. Build with :meth:`open` (collective); :meth:`query` is collective too."""

    def __init__(self, comm, MPI, local: Triples, terms, named: int):
        self.comm, self.MPI = comm, MPI
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.local = local  #: this rank's triples
        self.named_graphs = named  #: named graphs of the data (not loaded)
        self.store = None  #: on rank 0, the executor's store: the dictionary + own triples
        if self.rank == 0:
            self.store = Store(terms, local.pso, local.pos)
            self.store.cluster = self
            self.local = self.store.default
        self._collective = False
        self._answering = False  # rank 0 inside query(): the other ranks serve its BGPs
        self._paths: dict[tuple, Triples] = {}  # rank 0: gathered triples of paths

    @classmethod
    def open(cls, path, comm=None) -> DistributedStore:
        """Each rank's share of the store directory or RDF file ``path``."""
        MPI = mpi_module()
        comm = MPI.COMM_WORLD if comm is None else comm
        return cls(comm, MPI, *load_share(comm, MPI, path))

    def nbytes(self) -> dict:
        """Bytes this rank holds: ``triples`` (its PSO and POS rows) and ``dictionary``
        (the term strings and the list holding them; rank 0 only)."""
        import sys

        terms = self.store.terms if self.store is not None else []
        words = sum(map(sys.getsizeof, terms)) + 8 * len(terms)
        return {"triples": self.local.pso.nbytes + self.local.pos.nbytes, "dictionary": words}

    # ------------------------------------------------------------------ queries
    def query(self, text: str, *, union: bool = False):
        """Answer ``text``: the :class:`~hpgraph.rdf.sparql.Result` on rank 0, None on
        the others (which serve rank 0's BGPs until it is done). Collective."""
        if self.rank != 0:
            self._serve()
            return None
        from hpgraph.rdf.sparql import run_query
        from hpgraph.rdf.sparql.algebra import translate

        self._answering = True
        try:
            algebra, _ = translate(text)
            _check(algebra, union and self.named_graphs > 0)
            result = run_query(self.store, text, union=union)
        except BaseException as exc:
            self._abort_if_collective(exc)
            self._send(("stop", problem_text(exc)))
            raise agreed(exc) from None
        finally:
            self._answering = False
        self._send(("stop", None))
        return result

    def bgp(self, ctx, triples, seed):
        """The executor's hook (rank 0): the solutions of a BGP joined with ``seed``."""
        from hpgraph.rdf.sparql.bgp import bgp_plan, pattern_terms
        from hpgraph.rdf.sparql.graphs import active_graph
        from hpgraph.rdf.sparql.paths import path_table, path_tree

        if not self._answering:  # the other ranks are not listening: they would hang
            raise InvalidArgumentError(
                "this store is spread over MPI ranks: query it with DistributedStore.query "
                "on every rank"
            )
        if ctx.graph is not self.store.default or ctx.graph_var is not None:
            raise Unsupported("named graphs under MPI (run one process)")
        paths, terms = bgp_plan(ctx, triples)
        if not terms:
            result = Table({}, 1) if seed is None else seed
        else:
            header = None if seed is None else (list(seed.cols), sorted(seed.maybe))
            result = self._run(("bgp", terms, header), seed)
        for s, path, o in paths:
            s, o = pattern_terms(ctx, (s, o), intern=True)
            with active_graph(ctx, self._path_graph(_predicates(path_tree(ctx, path)))):
                result = join(result, path_table(ctx, s, path, o, result))
        return result

    def _path_graph(self, key) -> Triples:
        """The triples a path reads, gathered on rank 0 (``key``: the predicates, None
        for all, and whether every node is needed), kept for the last few sets of
        predicates (the store does not change: a path query run again moves nothing);
        every triple (a negated set) is gathered each time, never kept."""
        graph = self._paths.get(key)
        if graph is None:
            graph = self._run(("edges", *key))
            if key[0] is None:
                return graph
            if len(self._paths) >= PATHS_KEPT:
                self._paths.pop(next(iter(self._paths)))
            self._paths[key] = graph
        return graph

    # ------------------------------------------------------------------ commands
    def _send(self, command):
        for q in range(1, self.size):
            self.comm.send(command, dest=q, tag=_TAG)

    def _run(self, command, seed=None):
        """Send ``command`` to the other ranks and take part in it (rank 0)."""
        self._send(command)
        self._collective = True
        out = self._do(command, seed)
        self._collective = False
        return out

    def _do(self, command, seed=None):
        """One command on this rank; its result on rank 0."""
        kind = command[0]
        if kind == "bgp":
            _, terms, header = command
            if header is not None and seed is None:  # the seed's rows are on rank 0
                names, maybe = header
                seed = Table({v: np.empty(0, np.int64) for v in names}, 0, maybe)
            return solve(self.comm, self.MPI, self.local, terms, seed)
        _, preds, with_nodes = command
        rows = self.local.pso
        if preds is not None:
            ranges = self.local.pred_range
            parts = [rows[slice(*ranges[p])] for p in preds if p in ranges]
            rows = np.concatenate(parts) if parts else rows[:0]
        spo = Table({"s": rows[:, 0], "p": rows[:, 1], "o": rows[:, 2]}, len(rows))
        got = gather(self.comm, self.MPI, spo)
        nodes = None
        if with_nodes:
            mine = self.local.nodes
            nodes = gather(self.comm, self.MPI, Table({"n": mine}, len(mine)))
        if got is None:
            return None
        spo = np.stack([got.cols["s"], got.cols["p"], got.cols["o"]], axis=1)
        pso, pos, _ = sort_quads(spo)
        return _Gathered(pso, pos, None if nodes is None else np.unique(nodes.cols["n"]))

    def _serve(self):
        """Ranks other than 0: do rank 0's commands until it says stop."""
        while True:
            command = self._receive()
            if command[0] == "stop":
                if command[1] is not None:
                    raise agreed(InvalidArgumentError(command[1]))
                return
            self._collective = True
            try:
                self._do(command)
            except BaseException as exc:
                self._abort_if_collective(exc)
                raise
            self._collective = False

    def _receive(self):
        """Rank 0's next command, polled with sleeps (a rank waiting here does not spin
        a core that rank 0 may need)."""
        status, nap = self.MPI.Status(), 1e-5
        while not self.comm.Iprobe(source=0, tag=_TAG, status=status):
            time.sleep(nap)
            nap = min(nap * 2, _POLL)
        return self.comm.recv(source=0, tag=_TAG)

    def _abort_if_collective(self, exc):
        """An error in the middle of a collective step would leave the other ranks
        waiting for ever: print it and end the whole job."""
        if self._collective:
            from hpgraph.runtimes.mpi.watchdog import abort_job

            abort_job(self.comm, f"hpgraph: error: rank {self.rank}: {problem_text(exc)}", 1)


class _Gathered(Triples):
    """The triples of some predicates gathered on rank 0, with every node of the whole
    graph (what a zero-length path reaches) when a path needs them."""

    def __init__(self, pso, pos, nodes):
        super().__init__(pso, pos)
        self.every_node = nodes

    @property
    def nodes(self) -> np.ndarray:
        return self.every_node


def _predicates(tree):
    """(sorted predicate ids a path tree reads as a tuple, or None for all of them (a
    negated set); whether it needs every node (``*``, ``?``))."""
    preds, nodes, every = set(), False, False
    stack = [tree]
    while stack:
        node = stack.pop()
        if node[0] == "edge":
            preds.add(node[1])
        elif node[0] == "neg":
            every = True
        elif node[0] in ("alt", "seq"):
            stack.extend(node[1])
        else:  # ("mul", inner, mod)
            nodes |= node[2] in ("*", "?")
            stack.append(node[1])
    return (None if every else tuple(sorted(preds))), nodes


def _check(algebra, union_of_named) -> None:
    """Refuse what the distributed executor does not answer (before any rank starts)."""
    if algebra.name == "DescribeQuery":
        raise Unsupported("DESCRIBE under MPI (run one process)")
    if algebra.get("datasetClause"):
        raise Unsupported("FROM / FROM NAMED under MPI (run one process)")
    if union_of_named:
        raise Unsupported("the union default graph of named graphs under MPI (run one process)")
    seen = _CHECKED.get(id(algebra))
    if seen is None or seen[0] is not algebra:
        if len(_CHECKED) >= 256:
            _CHECKED.clear()
        seen = _CHECKED[id(algebra)] = (algebra, _has_graph(algebra))
    if seen[1]:
        raise Unsupported("GRAPH under MPI (run one process)")


#: id of a translated algebra (kept per text by sparql.algebra.translate) -> (the
#: algebra, whether it holds a GRAPH pattern): walked once per text, not per run
_CHECKED: dict[int, tuple] = {}


def _has_graph(algebra) -> bool:
    """Whether a GRAPH pattern occurs anywhere in ``algebra`` (EXISTS included)."""
    stack, seen = [algebra], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            if getattr(node, "name", None) == "Graph":
                return True
            stack.extend(dict.values(node))
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return False
