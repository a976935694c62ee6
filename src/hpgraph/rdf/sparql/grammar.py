"""Three fixes to rdflib's SPARQL parsing, so that the algebra says what the query says.

Negated inverses. rdflib 7 (checked up to 7.6) parses ``^iri`` inside a negated property
set (``!^p``, ``!(p|^q)``, grammar rule [96] PathOneInPropertySet) without keeping the
IRI: the IRI is not a named part of its ``InversePath`` node, so the translated path says
"inverse of nothing". The fix names the IRI and makes the node the grammar's ordinary
inverse path element (``PathEltOrInverse``), which rdflib's own translation turns into
``InvPath(iri)``. Nothing else of the grammar changes. Where rdflib's grammar no longer
has that shape (fixed upstream or rewritten) the fix does nothing, and the executor still
refuses an inverse without its IRI with a one-line error. Applied once, before the first
parse.

Constant false filters. rdflib's translation keeps a group's filters only when their
conjunction is true as a Python value, so ``FILTER(false)``, ``FILTER(0)`` or
``FILTER("")`` alone in a group is dropped (the group then keeps every row).
:func:`keep_false_filters` rewrites each filter whose expression is a constant, ``f``, in
the parse tree as ``f && true`` (the same value for every constant, error included), which
rdflib keeps.

``SELECT *``'s variables. rdflib collects them in a Python set (an order that changes
from process to process with string hashing), counts variables only a FILTER, MINUS or
EXISTS mentions, and misses a trailing VALUES block's. :func:`star_variables` gives the
query's in-scope variables (SPARQL 1.1, 18.2.1) in the order they first appear in the
query text, as Jena orders them (pyoxigraph 0.5 sorts them by name)."""

from __future__ import annotations

__all__ = ["fix_negated_inverse", "keep_false_filters", "star_variables"]

_done = False


def fix_negated_inverse() -> None:
    """Make rdflib's parser keep the IRI of ``^iri`` in a negated property set."""
    global _done
    if _done:
        return
    _done = True
    from pyparsing import And, Literal
    from rdflib.plugins.sparql import parser
    from rdflib.plugins.sparql.parserutils import Param

    rule = getattr(parser, "PathOneInPropertySet", None)
    for comp in getattr(rule, "exprs", []):
        expr = getattr(comp, "expr", None)
        if getattr(comp, "name", None) == "InversePath" and isinstance(expr, And):
            if len(expr.exprs) == 2 and not isinstance(expr.exprs[1], Param):
                comp.expr = Literal("^") + Param("part", expr.exprs[1])
                comp.set_name("PathEltOrInverse")


def keep_false_filters(node) -> None:
    """Rewrite, in rdflib's parse tree ``node``, each FILTER whose expression is a
    constant as ``constant && true``."""
    from rdflib import Literal
    from rdflib.plugins.sparql.operators import and_, simplify

    if getattr(node, "name", None) == "Filter":
        expr = simplify(node.get("expr"))  # the parser's one-operand wrappers removed
        if isinstance(expr, Literal) or getattr(expr, "name", None) == "literal":
            node["expr"] = and_(expr, Literal(True))
    if isinstance(node, dict):
        for value in list(dict.values(node)):
            keep_false_filters(value)
    elif isinstance(node, (list, tuple)) or type(node).__name__ == "ParseResults":
        for value in node:
            keep_false_filters(value)


#: Parse-tree nodes that bind no variable outside themselves (their variables are not in
#: scope of the group around them).
_OUT_OF_SCOPE = ("Filter", "MinusGraphPattern")


def star_variables(query) -> list:
    """The variables ``SELECT *`` projects for rdflib's parsed SELECT or sub-SELECT
    ``query``: those its WHERE clause (and trailing VALUES) binds, in text order."""
    found: dict = {}
    _in_scope(dict.get(query, "where"), found)
    _in_scope(dict.get(query, "valuesClause"), found)
    return list(found)


def _in_scope(node, found) -> None:
    from rdflib import Variable

    if isinstance(node, Variable):
        found.setdefault(node, None)
        return
    name = getattr(node, "name", None)
    if name in _OUT_OF_SCOPE:
        return
    if name == "Bind":  # BIND(expr AS ?v): only ?v
        found.setdefault(node["var"], None)
        return
    if name == "SubSelect":
        projection = dict.get(node, "projection")
        if not projection:
            for v in star_variables(node):
                found.setdefault(v, None)
        for item in projection or ():
            found.setdefault(dict.get(item, "var") or dict.get(item, "evar"), None)
        return
    if isinstance(node, dict):
        for value in dict.values(node):
            _in_scope(value, found)
    elif isinstance(node, (list, tuple)) or type(node).__name__ == "ParseResults":
        for value in node:
            _in_scope(value, found)
