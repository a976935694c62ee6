"""Two fixes to rdflib's SPARQL parsing, so that the algebra says what the query says.

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
rdflib keeps."""

from __future__ import annotations

__all__ = ["fix_negated_inverse", "keep_false_filters"]

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
