"""Given RDF triples (a file or a store directory), returns a dictionary-encoded triple
store: term strings to dense int64 ids, triples sorted by (p, s, o) and (p, o, s).

A store directory holds ``terms.bin`` (UTF-8 terms back to back), ``offsets.npy``,
``pso.npy`` and ``pos.npy`` (``(m, 3)`` int64 id arrays) and ``meta.json``. It is written
to a temporary sibling directory and renamed, so a failed load leaves nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile

import numpy as np

from hpgraph.errors import GraphFormatError, InvalidArgumentError

__all__ = ["Store"]

_VERSION = 1


class Store:
    """An in-memory RDF store. Build with :meth:`load` (a file) or :meth:`open` (a store)."""

    def __init__(self, terms, pso, pos):
        self.terms = terms  # list of canonical term strings, index = id
        self.pso = pso  # (m, 3) int64 columns s, p, o sorted by p, s, o
        self.pos = pos  # (m, 3) int64 columns s, p, o sorted by p, o, s
        self._ids = None
        self._nodes = None
        preds, starts = np.unique(pso[:, 1], return_index=True) if len(pso) else ([], [])
        ends = list(starts[1:]) + [len(pso)] if len(pso) else []
        self.pred_range = {
            int(p): (int(a), int(b)) for p, a, b in zip(preds, starts, ends, strict=True)
        }

    # ------------------------------------------------------------------ building
    @classmethod
    def load(cls, path, *, infer=None) -> Store:
        """Parse an N-Triples, N-Quads (graph names dropped: all graphs merged) or Turtle
        file (``.gz`` too); a store directory is opened.

        ``infer``: an ontology file (Turtle or N-Triples), or ``"univ-bench"`` for LUBM's
        built-in ontology, whose entailments are materialised into the store (see
        :mod:`hpgraph.rdf.infer`); the ontology's own triples are not stored."""
        from hpgraph.rdf.parse import iter_triples, rdf_format, read_nt_ids

        if os.path.isdir(path):
            if infer is not None:
                raise InvalidArgumentError(f"{path}: a store is already built; infer on load")
            return cls.open(path)
        ids: dict[str, int] = {}
        if rdf_format(path) in ("nt", "nq"):
            spo = read_nt_ids(path, ids)
        else:
            put = ids.setdefault
            cols = []
            for s, p, o in iter_triples(path):
                block = np.empty((len(s), 3), dtype=np.int64)
                block[:, 0] = [put(t, len(ids)) for t in s]
                block[:, 1] = [put(t, len(ids)) for t in p]
                block[:, 2] = [put(t, len(ids)) for t in o]
                cols.append(block)
            spo = np.concatenate(cols) if cols else np.empty((0, 3), dtype=np.int64)
        if infer is not None:
            spo = _infer(spo, ids, infer)
        store = cls(list(ids), *_permutations(spo))
        store._ids = ids
        return store

    @classmethod
    def open(cls, path) -> Store:
        """Reopen a store directory written by :meth:`save`."""
        meta_path = os.path.join(path, "meta.json")
        if not os.path.isfile(meta_path):
            raise GraphFormatError("not an hpgraph RDF store (no meta.json)", path)
        with open(meta_path) as fh:
            meta = json.load(fh)
        if meta.get("format") != "hpgraph-rdf" or meta.get("version") != _VERSION:
            raise GraphFormatError("not an hpgraph RDF store of this version", path)
        with open(os.path.join(path, "terms.bin"), "rb") as fh:
            blob = fh.read()
        offsets = np.load(os.path.join(path, "offsets.npy"))
        text = blob.decode("utf-8")
        if len(text) == len(blob):  # ASCII: byte offsets are character offsets
            off = offsets.tolist()
            terms = [text[a:b] for a, b in zip(off[:-1], off[1:], strict=True)]
        else:
            off = offsets.tolist()
            terms = [blob[a:b].decode("utf-8") for a, b in zip(off[:-1], off[1:], strict=True)]
        pso = np.load(os.path.join(path, "pso.npy"))
        pos = np.load(os.path.join(path, "pos.npy"))
        return cls(terms, pso, pos)

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
            np.save(os.path.join(tmp, "pso.npy"), self.pso)
            np.save(os.path.join(tmp, "pos.npy"), self.pos)
            meta = {
                "format": "hpgraph-rdf",
                "version": _VERSION,
                "triples": int(len(self.pso)),
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
        return int(len(self.pso))

    @property
    def ids(self) -> dict[str, int]:
        """Term string -> id (built on first use)."""
        if self._ids is None:
            self._ids = {t: i for i, t in enumerate(self.terms)}
        return self._ids

    @property
    def nodes(self) -> np.ndarray:
        """The sorted ids of every subject and object (built on first use): the nodes a
        zero-length property path reaches from themselves."""
        if self._nodes is None:
            self._nodes = np.unique(np.concatenate([self.pso[:, 0], self.pso[:, 2]]))
        return self._nodes

    def lookup(self, key: str) -> int:
        """The id of a canonical term string, -1 when absent."""
        return self.ids.get(key, -1)

    def predicate_count(self, pid: int) -> int:
        a, b = self.pred_range.get(pid, (0, 0))
        return b - a

    def query(self, text: str, *, as_pandas: bool = False):
        """Run a SPARQL SELECT; returns a pyarrow Table (or a pandas frame) of terms
        (strings in N-Triples form; unbound is null)."""
        from hpgraph.rdf.sparql import run_query, to_table

        variables, table = run_query(self, text)
        out = to_table(self, variables, table)
        return out.to_pandas() if as_pandas else out

    def subgraph(self, predicates, *, directed: bool = True):
        """The graph of the triples whose predicate is one of ``predicates`` (IRIs), IRIs
        and blank nodes as vertices; returns ``hpgraph.graph.Graph`` with ``ids`` the
        vertices' terms."""
        from hpgraph.rdf.bridge import subgraph

        return subgraph(self, predicates, directed=directed)


def _infer(spo, ids, ontology):
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
    return materialise(spo, onto, type_id, is_literal)


def _permutations(spo):
    """PSO and POS orders of the distinct rows of ``spo`` (an RDF graph is a set)."""
    pso = spo[_order(spo, (1, 0, 2))]
    if len(pso) > 1:
        keep = np.ones(len(pso), bool)
        keep[1:] = np.any(pso[1:] != pso[:-1], axis=1)
        pso = pso[keep]
    pos = pso[_order(pso, (1, 2, 0))]
    return np.ascontiguousarray(pso), np.ascontiguousarray(pos)


def _order(spo, columns):
    """The row order sorting by ``columns`` (predicate first): one argsort of a folded
    int64 key, predicates ranked (they are few), when it fits; else a lexsort."""
    if len(spo) == 0:
        return np.arange(0)
    n = int(spo.max()) + 1
    preds, rank = np.unique(spo[:, 1], return_inverse=True)
    if n * n * len(preds) >= 1 << 62:
        return np.lexsort(tuple(spo[:, c] for c in reversed(columns)))
    _, b, c = columns
    return np.argsort((rank.reshape(-1) * n + spo[:, b]) * n + spo[:, c], kind="stable")
