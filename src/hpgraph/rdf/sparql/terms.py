"""Term values for SPARQL evaluation: the kind and value of a dictionary term, the
query context (store plus terms made during a query) and the error for unsupported
features."""

from __future__ import annotations

from hpgraph.errors import InvalidArgumentError
from hpgraph.rdf.parse import _unescape

__all__ = ["XSD", "NUMERIC", "Unsupported", "Ctx", "split_literal", "term_value"]

XSD = "http://www.w3.org/2001/XMLSchema#"
NUMERIC = {
    XSD + t
    for t in (
        "integer decimal double float int long short byte nonNegativeInteger positiveInteger "
        "negativeInteger nonPositiveInteger unsignedInt unsignedLong unsignedShort unsignedByte"
    ).split()
}


class Unsupported(InvalidArgumentError):
    """A SPARQL feature this executor does not implement."""

    def __init__(self, feature):
        super().__init__(f"SPARQL feature not supported: {feature}")


class Ctx:
    def __init__(self, store):
        self.store = store
        self.extra: list[str] = []
        self.extra_ids: dict[str, int] = {}
        self._values: dict[int, tuple] = {}

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
        """(kind, value) of a term: kinds unbound, bnode, iri, num, str, lang, typed."""
        if i < 0:
            return ("unbound", None)
        v = self._values.get(i)
        if v is None:
            v = term_value(self.term(i))
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
        try:
            return ("num", float(lex))
        except ValueError:
            return ("typed", key)
    return ("typed", key)
