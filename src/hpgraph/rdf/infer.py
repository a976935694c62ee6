"""Given dictionary-encoded triples and an OWL/RDFS ontology, returns the triples together
with everything the ontology entails under the rules below (forward chaining to a fixpoint).

Rules (the ones LUBM's univ-bench ontology needs, applied on id arrays, one numpy pass per
rule and round): ``rdfs:subClassOf``, ``rdfs:subPropertyOf``, ``owl:equivalentClass`` /
``owl:equivalentProperty`` between named terms, ``rdfs:domain``, ``rdfs:range``,
``owl:inverseOf``, ``owl:SymmetricProperty``, ``owl:TransitiveProperty``, and class
definitions ``C owl:intersectionOf (A ... [owl:onProperty p; owl:someValuesFrom B] ...)``
(directly or through ``owl:equivalentClass``): an individual that is every named ``A`` and
has a ``p`` to some ``B`` is a ``C``, and every ``C`` is each named ``A``. An existential in
a superclass (``C rdfs:subClassOf [owl:someValuesFrom B]``) would need new blank nodes and
is not materialised, as in OWL RL. A class definition using another construct (unionOf,
allValuesFrom, hasValue, ...) raises ``InvalidArgumentError`` naming it. Axioms that entail
no new triples of these kinds (labels, disjointness, functional properties) are ignored.
"""

from __future__ import annotations

import numpy as np

from hpgraph.errors import InvalidArgumentError

__all__ = ["Ontology", "read_ontology", "materialise"]

_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_RDFS = "http://www.w3.org/2000/01/rdf-schema#"
_OWL = "http://www.w3.org/2002/07/owl#"
TYPE = f"<{_RDF}type>"
_UNSUPPORTED = ("unionOf", "complementOf", "allValuesFrom", "hasValue", "oneOf", "hasSelf")


class Ontology:
    """Axioms over term ids: strict closed (sub, super) class and property pairs, inverse
    pairs, transitive properties, domains, ranges and class definitions."""

    def __init__(self):
        self.subclass: list[tuple[int, int]] = []
        self.subprop: list[tuple[int, int]] = []
        self.inverse: list[tuple[int, int]] = []
        self.transitive: list[int] = []
        self.domain: list[tuple[int, int]] = []
        self.range: list[tuple[int, int]] = []
        #: (class, named classes, [(property, class or -1 for any)])
        self.definitions: list[tuple[int, list[int], list[tuple[int, int]]]] = []


def _closure(edges):
    """Strict transitive closure of a small relation given as (a, b) pairs."""
    succ: dict[str, set[str]] = {}
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
    out = set()
    for start in succ:
        seen, stack = set(), list(succ[start])
        while stack:
            x = stack.pop()
            if x not in seen:
                seen.add(x)
                stack.extend(succ.get(x, ()))
        out.update((start, x) for x in seen if x != start)
    return sorted(out)


def read_ontology(path, intern) -> Ontology:
    """Compile the axioms of the ontology file ``path`` (Turtle or N-Triples); ``intern``
    maps a canonical term string to its id (adding it when new)."""
    from hpgraph.rdf.parse import iter_triples

    by_subject: dict[str, dict[str, list[str]]] = {}
    for s_block, p_block, o_block in iter_triples(path):
        for s, p, o in zip(s_block, p_block, o_block, strict=True):
            by_subject.setdefault(s, {}).setdefault(p, []).append(o)

    def get(node, prop):
        return by_subject.get(node, {}).get(prop, [])

    def items(head):
        out = []
        while head != f"<{_RDF}nil>":
            out += get(head, f"<{_RDF}first>")
            rest = get(head, f"<{_RDF}rest>")
            if not rest:
                break
            head = rest[0]
        return out

    def construct(node, where):
        for name in _UNSUPPORTED:
            if get(node, f"<{_OWL}{name}>"):
                raise InvalidArgumentError(
                    f"{path}: owl:{name} in {where} is not supported for inference"
                )

    def definition(cls, expr):
        """(named, restrictions) of a class expression node, or None if it is not one."""
        construct(expr, f"the definition of {cls}")
        parts = (
            items(get(expr, f"<{_OWL}intersectionOf>")[0])
            if get(expr, f"<{_OWL}intersectionOf>")
            else [expr]
        )
        named, some = [], []
        for part in parts:
            if part.startswith("<"):
                named.append(part)
                continue
            construct(part, f"the definition of {cls}")
            prop, filler = get(part, f"<{_OWL}onProperty>"), get(part, f"<{_OWL}someValuesFrom>")
            if not prop or not filler or not filler[0].startswith("<"):
                raise InvalidArgumentError(
                    f"{path}: a class expression in the definition of {cls} is not supported "
                    "for inference (only named classes and someValuesFrom a named class)"
                )
            some.append((prop[0], None if filler[0] == f"<{_OWL}Thing>" else filler[0]))
        return named, some

    sub_c, sub_p, inverse, transitive, domain, rng, defs = [], [], [], [], [], [], []
    for s, props in by_subject.items():
        if not s.startswith("<"):
            continue
        for o in props.get(f"<{_RDFS}subClassOf>", []):
            if o.startswith("<"):
                sub_c.append((s, o))
            elif get(o, f"<{_OWL}intersectionOf>"):
                sub_c += [(s, a) for a in definition(s, o)[0]]
        for o in props.get(f"<{_OWL}equivalentClass>", []):
            if o.startswith("<"):
                sub_c += [(s, o), (o, s)]
            else:
                defs.append((s, *definition(s, o)))
        if props.get(f"<{_OWL}intersectionOf>"):
            defs.append((s, *definition(s, s)))
        sub_p += [(s, o) for o in props.get(f"<{_RDFS}subPropertyOf>", []) if o.startswith("<")]
        for o in props.get(f"<{_OWL}equivalentProperty>", []):
            sub_p += [(s, o), (o, s)]
        for o in props.get(f"<{_OWL}inverseOf>", []):
            inverse += [(s, o), (o, s)]
        types = props.get(TYPE, [])
        if f"<{_OWL}TransitiveProperty>" in types:
            transitive.append(s)
        if f"<{_OWL}SymmetricProperty>" in types:
            inverse.append((s, s))
        domain += [(s, o) for o in props.get(f"<{_RDFS}domain>", []) if o.startswith("<")]
        rng += [(s, o) for o in props.get(f"<{_RDFS}range>", []) if o.startswith("<")]
    for cls, named, _ in defs:
        sub_c += [(cls, a) for a in named]

    onto = Ontology()
    onto.subclass = [(intern(a), intern(b)) for a, b in _closure(sub_c)]
    onto.subprop = [(intern(a), intern(b)) for a, b in _closure(sub_p)]
    onto.inverse = sorted({(intern(a), intern(b)) for a, b in inverse})
    onto.transitive = [intern(p) for p in transitive]
    onto.domain = [(intern(p), intern(c)) for p, c in domain]
    onto.range = [(intern(p), intern(c)) for p, c in rng]
    onto.definitions = [
        (
            intern(c),
            [intern(a) for a in named],
            [(intern(p), -1 if b is None else intern(b)) for p, b in some],
        )
        for c, named, some in defs
    ]
    return onto


class _ByPredicate:
    """Rows of a triple array grouped by predicate, and rdf:type rows grouped by class."""

    def __init__(self, spo, type_id):
        self.rows = spo[np.argsort(spo[:, 1], kind="stable")]
        col = self.rows[:, 1]  # sorted: a predicate's rows start where the column changes
        starts = np.flatnonzero(col[1:] != col[:-1]) + 1
        starts = np.concatenate([[0], starts]) if len(col) else starts
        preds, ends = col[starts], np.append(starts[1:], len(col))
        self.range = {int(p): (int(a), int(b)) for p, a, b in zip(preds, starts, ends, strict=True)}
        typ = self.of(type_id)
        self.typ = typ[np.argsort(typ[:, 2], kind="stable")]

    def of(self, p):
        a, b = self.range.get(p, (0, 0))
        return self.rows[a:b]

    def members(self, c):
        lo, hi = np.searchsorted(self.typ[:, 2], [c, c + 1])
        return np.unique(self.typ[lo:hi, 0])


def _typed(subjects, type_id, cls):
    out = np.empty((len(subjects), 3), np.int64)
    out[:, 0], out[:, 1], out[:, 2] = subjects, type_id, cls
    return out


def _transitive(edges):
    """Pairs (s, o) of the transitive closure of ``edges`` that are not in it already."""
    known = set(map(tuple, edges.tolist()))
    frontier = edges
    out = []
    while len(frontier):
        order = np.argsort(edges[:, 0], kind="stable")
        heads = edges[order]
        lo = np.searchsorted(heads[:, 0], frontier[:, 1], "left")
        hi = np.searchsorted(heads[:, 0], frontier[:, 1], "right")
        cnt = hi - lo
        src = np.repeat(frontier[:, 0], cnt)
        pos = np.repeat(lo - np.cumsum(cnt) + cnt, cnt) + np.arange(cnt.sum())
        pairs = np.stack([src, heads[pos, 1]], axis=1) if len(src) else np.empty((0, 2), np.int64)
        fresh = [t for t in set(map(tuple, pairs.tolist())) if t not in known]
        known.update(fresh)
        frontier = np.array(fresh, np.int64).reshape(-1, 2)
        edges = np.concatenate([edges, frontier])
        out.append(frontier)
    return np.concatenate(out) if out else np.empty((0, 2), np.int64)


def _derive(delta: _ByPredicate, g: _ByPredicate, onto: Ontology, type_id, is_literal):
    """Every triple one application of each rule gives (duplicates included): rules with
    one premise on the triples new in the last round (``delta``), the others on all (``g``)."""
    out = []
    for p, q in onto.subprop:
        rows = delta.of(p).copy()
        rows[:, 1] = q
        out.append(rows)
    for p, q in onto.inverse:
        rows = delta.of(p)
        rows = rows[~is_literal[rows[:, 2]]]
        out.append(np.stack([rows[:, 2], np.full(len(rows), q), rows[:, 0]], axis=1))
    for p in onto.transitive:
        pairs = _transitive(g.of(p)[:, [0, 2]])
        out.append(np.stack([pairs[:, 0], np.full(len(pairs), p), pairs[:, 1]], axis=1))
    for p, c in onto.domain:
        out.append(_typed(np.unique(delta.of(p)[:, 0]), type_id, c))
    for p, c in onto.range:
        objs = np.unique(delta.of(p)[:, 2])
        out.append(_typed(objs[~is_literal[objs]], type_id, c))
    for c, d in onto.subclass:
        out.append(_typed(delta.members(c), type_id, d))
    for c, named, some in onto.definitions:
        found = None
        for a in named:
            m = g.members(a)
            found = m if found is None else np.intersect1d(found, m, assume_unique=True)
        for p, b in some:
            rows = g.of(p)
            if b >= 0:
                rows = rows[np.isin(rows[:, 2], g.members(b))]
            m = np.unique(rows[:, 0])
            found = m if found is None else np.intersect1d(found, m, assume_unique=True)
        if found is not None:
            out.append(_typed(found, type_id, c))
    return np.concatenate(out) if out else np.empty((0, 3), np.int64)


def materialise(spo, onto: Ontology, type_id: int, is_literal) -> np.ndarray:
    """``spo`` ((m, 3) id rows) with every triple the rules derive that it lacks."""
    n = len(is_literal)
    if len(spo) == 0:
        return spo
    preds = np.unique(
        np.concatenate(
            [
                spo[:, 1],
                [type_id],
                np.array(
                    [x for pair in onto.subprop + onto.inverse for x in pair] + onto.transitive,
                    np.int64,
                ),
            ]
        )
    )
    if n * n * len(preds) >= 1 << 62:
        raise InvalidArgumentError(f"inference over {n:,} terms is too large for one key")

    def keys(rows):
        return (rows[:, 0] * len(preds) + np.searchsorted(preds, rows[:, 1])) * n + rows[:, 2]

    known = np.sort(keys(spo))
    g = delta = _ByPredicate(spo, type_id)
    while True:  # semi-naive: one-premise rules see only the last round's new triples
        derived = _derive(delta, g, onto, type_id, is_literal)
        k, first = np.unique(keys(derived), return_index=True)
        pos = np.searchsorted(known, k)
        fresh = (pos == len(known)) | (known[np.minimum(pos, len(known) - 1)] != k)
        if not fresh.any():
            return spo
        new, k = derived[first[fresh]], k[fresh]
        derived = first = pos = fresh = g = delta = None  # the peak: free what is done
        spo = np.concatenate([spo, new])
        known = np.sort(np.concatenate([known, k]))
        g, delta = _ByPredicate(spo, type_id), _ByPredicate(new, type_id)
