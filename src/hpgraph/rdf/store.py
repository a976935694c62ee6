"""Given RDF data (a file or a store directory), returns a dictionary-encoded RDF dataset:
term strings to dense int64 ids, and per graph (the default graph and the named graphs of
N-Quads) the triples sorted by (p, s, o) and (p, o, s).

A store directory holds ``terms.bin`` (UTF-8 terms back to back), ``offsets.npy``,
``pso.npy`` and ``pos.npy`` ((m, 3) int64 id arrays, every graph's rows back to back),
``graphs.npy`` ((k, 3) int64: graph id, start row, end row; the default graph's id is
``DEFAULT_GRAPH``, a named graph's the id of its name) and ``meta.json``. Version 1 stores
(no ``graphs.npy``: one default graph) still open. A store is written to a temporary
sibling directory and renamed, so a failed load leaves nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile

import numpy as np

from hpgraph.errors import GraphFormatError, InvalidArgumentError
from hpgraph.rdf.sparql import run_query, to_table
from hpgraph.rdf.sparql.prepared import quick_select
from hpgraph.rdf.triples import DEFAULT_GRAPH, NamedGraphs, Triples, sort_quads

__all__ = ["Store", "DEFAULT_GRAPH", "store_meta", "read_terms"]

_VERSION = 2
_READS = (1, 2)
#: How many merges of FROM graphs a store keeps (each a copy of its graphs' rows).
_MERGES_KEPT = 4


class Store:
    """An in-memory RDF dataset. Build with :meth:`load` (a file) or :meth:`open` (a store).

    ``default`` is the default graph and ``named`` maps a graph name's id to its graph
    (both :class:`~hpgraph.rdf.triples.Triples`); ``pso``, ``pos``, ``pred_range`` and
    ``nodes`` are the default graph's."""

    def __init__(self, terms, pso, pos, graphs=None):
        self.terms = terms  # list of canonical term strings, index = id
        if graphs is None:
            graphs = np.array([[DEFAULT_GRAPH, 0, len(pso)]] if len(pso) else [], np.int64)
        self.graph_ranges = np.asarray(graphs, np.int64).reshape(-1, 3)
        self._all = (pso, pos)
        ranges = self.graph_ranges
        has_default = len(ranges) > 0 and ranges[0, 0] == DEFAULT_GRAPH
        end = int(ranges[0, 2]) if has_default else 0
        self.default = Triples(pso[:end], pos[:end])
        self.named = NamedGraphs(ranges[1:] if has_default else ranges, pso, pos)
        self._ids = None
        self._union = None
        self._quads = None
        self._merges: dict[tuple, Triples] = {}
        self.plans: dict = {}  # the query executor's prepared BGPs (sparql.bgp)
        self._term_array = None
        self._term_objects = None
        #: the MPI ranks holding the triples (hpgraph.rdf.mpi), which answer the BGPs;
        #: None: this store holds them all
        self.cluster = None

    # ------------------------------------------------------------------ building
    @classmethod
    def load(cls, path, *, infer=None) -> Store:
        """Parse an N-Triples, N-Quads (each quad kept in its graph), Turtle or TriG
        (each triple kept in its graph) file (``.gz`` too); a store directory is opened.

        ``infer``: an ontology file (Turtle or N-Triples), or ``"univ-bench"`` for LUBM's
        built-in ontology, whose entailments are materialised into each graph of the store
        (see :mod:`hpgraph.rdf.infer`); the ontology's own triples are not stored."""
        from hpgraph.rdf.parse import iter_triples, rdf_format, read_nt_ids

        if os.path.isdir(path):
            if infer is not None:
                raise InvalidArgumentError(f"{path}: a store is already built; infer on load")
            return cls.open(path)
        if not os.path.exists(path):  # before the format: a missing store says so
            raise GraphFormatError("no such file", path)
        ids: dict[str, int] = {}
        graph = None
        if rdf_format(path) in ("nt", "nq"):
            spo = read_nt_ids(path, ids)
            if spo.shape[1] == 4:
                spo, graph = spo[:, :3], spo[:, 3]
        else:  # Turtle, TriG (each triple in its graph)
            put = ids.setdefault
            cols = []
            for s, p, o, g in iter_triples(path, quads=True):
                block = np.empty((len(s), 4), dtype=np.int64)
                block[:, 0] = [put(t, len(ids)) for t in s]
                block[:, 1] = [put(t, len(ids)) for t in p]
                block[:, 2] = [put(t, len(ids)) for t in o]
                block[:, 3] = [DEFAULT_GRAPH if t is None else put(t, len(ids)) for t in g]
                cols.append(block)
            spo = np.concatenate(cols) if cols else np.empty((0, 4), dtype=np.int64)
            if (spo[:, 3] != DEFAULT_GRAPH).any():
                graph = spo[:, 3]
            spo = spo[:, :3]
        if infer is not None:
            spo, graph = _infer(spo, graph, ids, infer)
        store = cls(list(ids), *sort_quads(spo, graph))
        store._ids = ids
        return store

    @classmethod
    def open(cls, path) -> Store:
        """Reopen a store directory written by :meth:`save` (this version or version 1)."""
        meta = store_meta(path)
        pso = np.load(os.path.join(path, "pso.npy"))
        pos = np.load(os.path.join(path, "pos.npy"))
        graphs = None
        if meta["version"] >= 2:
            graphs = np.load(os.path.join(path, "graphs.npy"))
        return cls(read_terms(path), pso, pos, graphs)

    def save(self, path) -> None:
        """Write the store directory ``path`` (must not exist) atomically."""
        path = os.path.abspath(os.fspath(path))
        if os.path.exists(path):
            raise InvalidArgumentError(f"{path}: exists already; remove it or pick another name")
        parent = os.path.dirname(path)
        tmp = tempfile.mkdtemp(prefix=".rdfstore-", dir=parent)
        try:
            encoded = [t.encode("utf-8") for t in self.terms]
            offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
            np.cumsum([len(b) for b in encoded], out=offsets[1:])
            with open(os.path.join(tmp, "terms.bin"), "wb") as fh:
                fh.write(b"".join(encoded))
            np.save(os.path.join(tmp, "offsets.npy"), offsets)
            np.save(os.path.join(tmp, "pso.npy"), self._all[0])
            np.save(os.path.join(tmp, "pos.npy"), self._all[1])
            np.save(os.path.join(tmp, "graphs.npy"), self.graph_ranges)
            meta = {
                "format": "hpgraph-rdf",
                "version": _VERSION,
                "triples": len(self),
                "named_graphs": len(self.named),
                "terms": len(self.terms),
            }
            with open(os.path.join(tmp, "meta.json"), "w") as fh:
                json.dump(meta, fh)
            os.rename(tmp, path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    # ------------------------------------------------------------------ access
    def __len__(self) -> int:
        """The number of triples in all graphs (a triple in two graphs counts twice)."""
        return int(len(self._all[0]))

    @property
    def pso(self) -> np.ndarray:
        return self.default.pso

    @property
    def pos(self) -> np.ndarray:
        return self.default.pos

    @property
    def pred_range(self) -> dict[int, tuple[int, int]]:
        return self.default.pred_range

    @property
    def nodes(self) -> np.ndarray:
        return self.default.nodes

    @property
    def ids(self) -> dict[str, int]:
        """Term string -> id (built on first use)."""
        if self._ids is None:
            self._ids = {t: i for i, t in enumerate(self.terms)}
        return self._ids

    def term_array(self):
        """The terms as one pyarrow string array, index = id (built on first use, a copy
        of the dictionary's strings: query results of many rows take their strings from
        it in C++)."""
        if self._term_array is None:
            import pyarrow as pa

            self._term_array = pa.array(self.terms, type=pa.string())
        return self._term_array

    def term_objects(self) -> np.ndarray:
        """The terms as a numpy object array, index = id (built on first use: 8 bytes a
        term, pointers to the dictionary's own strings): a small query result gathers its
        strings from it by one fancy index."""
        if self._term_objects is None:
            self._term_objects = np.array(self.terms, dtype=object)
        return self._term_objects

    def lookup(self, key: str) -> int:
        """The id of a canonical term string, -1 when absent."""
        return self.ids.get(key, -1)

    def predicate_count(self, pid: int) -> int:
        return self.default.predicate_count(pid)

    def graph(self, name=None) -> Triples:
        """The default graph (``name`` None), a named graph (an IRI, ``<iri>`` or
        ``_:label``; empty when absent), or ``"union"``: the merge of every graph
        (built on first use)."""
        if name is None:
            return self.default
        if name == "union":
            if self._union is None:
                whole = Triples(*self._all)
                self._union = Triples.merge([whole]) if self.named else self.default
            return self._union
        key = name if name.startswith(("<", "_:")) else "<" + name + ">"
        empty = Triples(self.default.pso[:0], self.default.pos[:0])
        return self.named.get(self.lookup(key), empty)

    def merged(self, ids) -> Triples:
        """The merge (a set) of the named graphs ``ids`` (graph ids; absent ones are
        empty), kept for the last few sets asked (the FROM clauses of queries)."""
        key = tuple(sorted(set(ids)))
        if key not in self._merges:
            if len(self._merges) >= _MERGES_KEPT:
                self._merges.pop(next(iter(self._merges)))
            self._merges[key] = Triples.merge([self.named[g] for g in key if g in self.named])
        return self._merges[key]

    def named_quads(self) -> Triples:
        """Every named graph's triples with the graph id as a fourth column (built on
        first use): ``GRAPH ?g { ... }`` over all named graphs at once."""
        if self._quads is None:
            self._quads = self.named.quads()
        return self._quads

    def query(self, text: str, *, as_pandas: bool = False, use_default_graph_as_union=False):
        """Run a SPARQL query. SELECT: a pyarrow Table (or a pandas frame) of terms (strings
        in N-Triples form; unbound is null); ASK: a bool; CONSTRUCT and DESCRIBE: a table
        of triples (columns subject, predicate, object). The default graph is the store's
        default graph only, or with ``use_default_graph_as_union`` the merge of all graphs
        (as pyoxigraph's option of that name); FROM / FROM NAMED choose it in the query."""
        out = None if use_default_graph_as_union else quick_select(self, text)
        if out is not None:
            return out.to_pandas() if as_pandas else out
        result = run_query(self, text, union=use_default_graph_as_union)
        if result.kind == "ask":
            return result.boolean
        out = to_table(self, result.variables, result.solutions)
        return out.to_pandas() if as_pandas else out

    def subgraph(self, predicates, *, directed: bool = True, graph=None):
        """The graph of the triples whose predicate is one of ``predicates`` (IRIs), IRIs
        and blank nodes as vertices; returns ``hpgraph.graph.Graph`` with ``ids`` the
        vertices' terms. ``graph``: which RDF graph, as :meth:`graph` takes it (default:
        the default graph)."""
        from hpgraph.rdf.bridge import subgraph

        return subgraph(self, predicates, directed=directed, graph=graph)


def store_meta(path) -> dict:
    """The ``meta.json`` of the store directory ``path``, or the one-line error saying
    that it is no store (of a version this code reads)."""
    meta_path = os.path.join(path, "meta.json")
    if not os.path.isfile(meta_path):
        raise GraphFormatError("not an hpgraph RDF store (no meta.json)", path)
    with open(meta_path) as fh:
        meta = json.load(fh)
    if meta.get("format") != "hpgraph-rdf" or meta.get("version") not in _READS:
        raise GraphFormatError(
            f"not an hpgraph RDF store of version {' or '.join(map(str, _READS))} "
            f"(found version {meta.get('version')}): load the data again",
            path,
        )
    return meta


def read_terms(path) -> list[str]:
    """The dictionary of the store directory ``path``: term strings, index = id."""
    with open(os.path.join(path, "terms.bin"), "rb") as fh:
        blob = fh.read()
    off = np.load(os.path.join(path, "offsets.npy")).tolist()
    text = blob.decode("utf-8")
    if len(text) == len(blob):  # ASCII: byte offsets are character offsets
        return [text[a:b] for a, b in zip(off[:-1], off[1:], strict=True)]
    return [blob[a:b].decode("utf-8") for a, b in zip(off[:-1], off[1:], strict=True)]


def _infer(spo, graph, ids, ontology):
    """``spo`` with what ``ontology`` entails, derived in each graph apart."""
    from hpgraph.rdf.infer import TYPE, materialise, read_ontology

    def intern(key):
        return ids.setdefault(key, len(ids))

    if ontology == "univ-bench" and not os.path.exists(ontology):
        from hpgraph.rdf.lubm.ontology import write_ontology

        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "univ-bench.ttl")
            write_ontology(path)
            onto = read_ontology(path, intern)
    else:
        onto = read_ontology(ontology, intern)
    type_id = intern(TYPE)
    is_literal = np.fromiter((t.startswith('"') for t in ids), bool, len(ids))
    if graph is None or len(spo) == 0:
        return materialise(spo, onto, type_id, is_literal), graph
    parts, names = [], []
    for g in np.unique(graph):
        part = materialise(spo[graph == g], onto, type_id, is_literal)
        parts.append(part)
        names.append(np.full(len(part), g, np.int64))
    return np.concatenate(parts), np.concatenate(names)
