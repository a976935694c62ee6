"""Given a store and the text of a SELECT whose pattern is one basic graph pattern (no
modifiers, expressions, paths or dataset clause), returns its answer as a pyarrow Table
by a short path: the plan kept per store and query (the BGP's constants' ids, the
projected variables, the result's schema) and, per run, the BGP's joins and the result's
strings only: a result of at most ``TAKE_RESULT`` rows gathers its strings from the
store's terms as a numpy object array (one fancy index instead of a Python loop, and
pyarrow's conversion of an ndarray, which skips the per-call setup of its conversion of
a list), a larger one takes them from the term array in C++ as the general path does.

A selective query (LUBM Q1: 4 rows) costs ~30 us in all on the general path, half of it
outside the joins: walking the algebra (``Project`` over ``BGP``), the query context, the
dataset clause, the ``Result`` and the general result builder. This path gives the same
table (the same joins, in the same order, the same strings); any other query, or a
store spread over MPI ranks, is answered by the general path (None here)."""

from __future__ import annotations

import numpy as np

from hpgraph.rdf.sparql import results
from hpgraph.rdf.sparql.algebra import translate
from hpgraph.rdf.sparql.bgp import PLANS_KEPT, bgp_plan, join_patterns
from hpgraph.rdf.sparql.terms import Ctx

__all__ = ["quick_select"]


class _Plan:
    """What a run of a one-BGP SELECT reads: the BGP's pattern terms, the projected
    variables, the result's schema and pyarrow's builders (so that no import statement
    runs per query)."""

    def __init__(self, terms, variables):
        import pyarrow as pa

        self.terms = terms
        self.variables = variables
        self.schema = pa.schema([(v, pa.string()) for v in variables])
        self.string = pa.string()
        self.array = pa.array
        self.from_arrays = pa.Table.from_arrays


def _plan(store, algebra):
    """The :class:`_Plan` of ``algebra``, or None where the query is not a plain SELECT
    of variables the one BGP binds (a projected variable the BGP lacks is unbound)."""
    if algebra.name != "SelectQuery" or dict.get(algebra, "datasetClause"):
        return None
    project = algebra.p
    if project.name != "Project" or project.p.name != "BGP":
        return None
    variables = [str(v) for v in algebra.PV]
    if variables != [str(v) for v in project.PV]:
        return None
    paths, terms = bgp_plan(Ctx(store), project.p.triples)
    bound = {t for pattern in terms for t in pattern if isinstance(t, str)}
    if paths or not variables or not bound.issuperset(variables):
        return None
    return _Plan(terms, variables)


def quick_select(store, text: str):
    """The answer of ``text`` as :meth:`~hpgraph.rdf.store.Store.query` gives it (default
    graph alone), or None where the query is not a one-BGP SELECT (see :func:`_plan`)."""
    if store.cluster is not None:
        return None
    algebra = translate(text)[0]
    plans = store.plans
    key = ("select", id(algebra))  # the entry holds the algebra, so its id is not reused
    entry = plans.get(key)
    if entry is None or entry[0] is not algebra:
        if len(plans) >= PLANS_KEPT:
            plans.clear()
        entry = plans[key] = (algebra, _plan(store, algebra))
    entry = entry[1]
    if entry is None:
        return None
    table = join_patterns(store.default, None, entry.terms, None)
    cols = table.cols
    cols = [cols[v] for v in entry.variables]
    n = table.n
    if n > results.TAKE_RESULT:
        return results.to_table(store, entry.variables, (cols, n, Ctx(store)))
    terms = store.term_objects()
    if len(cols) == 1:
        arrays = [entry.array(terms[cols[0]], entry.string)]
    else:
        whole = entry.array(terms[np.concatenate(cols)], entry.string)
        arrays = [whole.slice(j * n, n) for j in range(len(cols))]
    return entry.from_arrays(arrays, schema=entry.schema)
