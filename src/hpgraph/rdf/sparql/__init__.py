"""Given a store and a SPARQL query (SELECT, ASK, CONSTRUCT, DESCRIBE), returns its answer:
solutions as columns of term ids, a boolean, or triples.

rdflib parses and translates the query to SPARQL algebra (its evaluator is not used); this
module executes the algebra on columns of int64 ids (``-1`` is unbound): each triple pattern
is a range scan of the PSO or POS permutation of the active graph, patterns are joined
smallest first (exact pattern counts as statistics, connected patterns preferred) by
sort-merge joins; a table joined with a BGP (VALUES, a sub-SELECT, EXISTS's outer
bindings) takes part in that order. Supported: BGP, property paths (``^p``, ``p/q``,
``p|q``, ``p+``, ``p*``, ``p?``, ``!p``, ``!(p|^q)``), Join, FILTER, OPTIONAL (with or
without an inner FILTER), UNION, MINUS, GRAPH, FROM / FROM NAMED, BIND and SELECT
expressions (comparisons, IN / NOT IN, logic, arithmetic, bound,
isIRI/isLiteral/isBlank/isNumeric, sameTerm, STR, LANG, DATATYPE, IF, COALESCE, EXISTS /
NOT EXISTS, the string functions, ABS/CEIL/FLOOR/ROUND), VALUES, sub-SELECT, DISTINCT,
REDUCED, ORDER BY, LIMIT/OFFSET, GROUP BY with COUNT (``*``, DISTINCT), SUM, AVG, MIN,
MAX, SAMPLE and GROUP_CONCAT of variables or expressions, and HAVING. Anything else
raises ``InvalidArgumentError`` naming the feature.
"""

from hpgraph.rdf.sparql.algebra import run_query
from hpgraph.rdf.sparql.forms import Result
from hpgraph.rdf.sparql.results import format_boolean, format_results, format_triples, to_table
from hpgraph.rdf.sparql.terms import Unsupported

__all__ = [
    "run_query",
    "Result",
    "to_table",
    "format_results",
    "format_boolean",
    "format_triples",
    "Unsupported",
]
