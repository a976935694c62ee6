"""Term values for SPARQL evaluation: the kind and value of a dictionary term, the
query context (store plus terms made during a query) and the error for unsupported
features."""

from __future__ import annotations

from hpgraph.errors import InvalidArgumentError
from hpgraph.rdf.parse import _unescape
from hpgraph.rdf.sparql.numeric import NUMERIC, XSD, parse_number

__all__ = ["XSD", "NUMERIC", "Unsupported", "Ctx", "Value", "split_literal", "term_value"]


class Value(tuple):
    """A (kind, value) pair that came from a term of the query's solutions: ``id`` is the
    term, so an expression passing it on (IF, COALESCE) keeps the very term."""


class Unsupported(InvalidArgumentError):
    """A SPARQL feature this executor does not implement."""

    def __init__(self, feature):
        super().__init__(f"SPARQL feature not supported: {feature}")


class Ctx:
    """One query's evaluation state: the store (its dictionary), the terms the query made,
    and the dataset: ``graph`` the active graph the patterns read (the default graph, or
    a named graph inside GRAPH) and ``named`` the named graphs (id -> Triples);
    ``graph_var`` names the graph column while ``graph`` is the quads of all named graphs
    (``GRAPH ?g { BGP }``)."""

    def __init__(self, store):
        self.store = store
        self.graph = store.default
        self.named = store.named
        self.graph_var = None
        self.extra: list[str] = []
        self.extra_ids: dict[str, int] = {}
        self._values: dict[int, tuple] = {}
        self.constants: dict[int, tuple] = {}  # id() of a query constant -> its value
        self.base: str | None = None  # the query's BASE IRI
        self.now = None  # NOW(): one xsd:dateTime per query

    def term(self, i: int) -> str:
        n = len(self.store.terms)
        return self.store.terms[i] if i < n else self.extra[i - n]

    def intern(self, key: str) -> int:
        i = self.store.lookup(key)
        if i >= 0:
            return i
        if key not in self.extra_ids:
            self.extra_ids[key] = len(self.store.terms) + len(self.extra)
            self.extra.append(key)
        return self.extra_ids[key]

    def value(self, i: int) -> tuple:
        """(kind, value) of a term: kinds unbound, bnode, iri, num, bool, str, lang, typed."""
        if i < 0:
            return ("unbound", None)
        v = self._values.get(i)
        if v is None:
            v = Value(term_value(self.term(i)))
            v.id = i
            self._values[i] = v
        return v


def split_literal(key: str):
    end = key.rfind('"')
    lex = _unescape(key[1:end]) if "\\" in key else key[1:end]
    rest = key[end + 1 :]
    if rest.startswith("@"):
        return lex, rest[1:], None
    if rest.startswith("^^"):
        return lex, None, rest[3:-1]
    return lex, None, None


def term_value(key: str) -> tuple:
    if key.startswith("<"):
        return ("iri", key[1:-1])
    if key.startswith("_:"):
        return ("bnode", key[2:])
    lex, lang, dt = split_literal(key)
    if lang:
        return ("lang", (lex, lang))
    if dt is None:
        return ("str", lex)
    if dt in NUMERIC:
        v = parse_number(lex, dt)
        return ("typed", key) if v is None else ("num", v)
    if dt == XSD + "boolean" and lex in ("true", "false", "1", "0"):
        return ("bool", lex in ("true", "1"))
    return ("typed", key)
