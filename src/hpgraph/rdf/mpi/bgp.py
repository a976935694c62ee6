"""Given the triple patterns of a BGP (term ids and variable names) and each rank's share
of the triples (subjects hashed to ranks), returns the BGP's solutions on rank 0.
Collective: every rank runs the same steps on its own rows.

Each pattern is matched on every rank against its own triples (the one-process
executor's pattern, :class:`~hpgraph.rdf.sparql.bgp.Pattern`), so a pattern's rows are
spread by the hash of its subject. The patterns are joined in the one-process order
(smallest first by the global row counts, one ``Allreduce``; connected patterns first).
The joined part is spread by the hash of some variables (``part``) or not at all, and
each join chooses the cheapest correct move:

* the pattern's subject is a shared variable: the joined part is sent to the ranks
  owning its values, unless it is spread by that variable already, and each rank joins
  locally (looking the pattern up where the part is small, as one process does); the
  pattern's rows never move;
* else, the joined part is much smaller than the pattern (1/``LOOKUP_RATIO``): it is
  copied to every rank (``Allgatherv``) and joined with each rank's rows;
* else both sides are hashed on the shared variables (those bound on every row) and
  exchanged in one grouped ``Alltoallv`` (:func:`~hpgraph.rdf.mpi.exchange.exchange`);
* no variable bound on both sides (a cross product, or variables a seed may leave
  unbound): the smaller side is copied to every rank.

A seed (the table a VALUES block, a sub-SELECT or EXISTS joins with the BGP) lives on
rank 0 and joins like a pattern spread by nothing. The result is gathered on rank 0.
"""

from __future__ import annotations

import numpy as np

from hpgraph.rdf.mpi.exchange import exchange, gather, owner, replicate
from hpgraph.rdf.sparql.bgp import LOOKUP_RATIO, Pattern, Seed, join_pattern, pattern_over
from hpgraph.rdf.sparql.table import Table, join

__all__ = ["solve"]


def _part(rel):
    """The variable a relation's rows are spread by: a pattern's subject variable."""
    if isinstance(rel, Pattern) and isinstance(rel.terms[0], str):
        return (rel.terms[0],)
    return None


def solve(comm, MPI, graph, terms, seed):
    """The solutions of the patterns ``terms`` over this rank's ``graph`` joined with
    ``seed`` (a table, empty on ranks other than 0, or None): a Table on rank 0, None
    elsewhere. Collective."""
    rels = [pattern_over(graph, t, None) for t in terms]
    if seed is not None:
        rels.append(Seed(seed))
    sizes = np.array([r.n for r in rels], np.int64)
    comm.Allreduce(MPI.IN_PLACE, sizes)
    order = sorted(range(len(rels)), key=lambda i: sizes[i])
    pending = [(rels[i], int(sizes[i])) for i in order]
    first = pending.pop(0)[0]
    result, part = first.table(), _part(first)
    while pending:
        bound = set(result.cols)
        connected = [i for i, (r, _) in enumerate(pending) if bound & r.vars]
        rel, n_rel = pending.pop(connected[0] if connected else 0)
        result, part = _join(comm, MPI, result, part, rel, n_rel)
    return gather(comm, MPI, result)


def _join(comm, MPI, result: Table, part, rel, n_rel):
    """``result`` (spread by ``part``) joined with ``rel`` (``n_rel`` rows on all ranks),
    and how the joined rows are spread."""
    size = comm.Get_size()
    rel_maybe = rel.seed.maybe if isinstance(rel, Seed) else set()
    sure = (set(result.cols) & rel.vars) - result.maybe - rel_maybe
    rel_part = _part(rel)
    if rel_part is not None and rel_part[0] in sure:
        if part != rel_part:
            dest = owner([result.cols[rel_part[0]]], size)
            result = exchange(comm, MPI, [(result, dest)])[0]
        return join_pattern(result, rel), rel_part
    n_result = comm.allreduce(result.n)
    if not sure:  # nothing to hash on: the smaller side to every rank
        if n_result <= n_rel:
            return join_pattern(replicate(comm, MPI, result), rel), rel_part
        return join(result, replicate(comm, MPI, rel.table())), part
    if isinstance(rel, Pattern) and n_result * LOOKUP_RATIO < n_rel:
        return join_pattern(replicate(comm, MPI, result), rel), rel_part
    key = part if part is not None and set(part) <= sure else tuple(sorted(sure))
    other = rel.table()
    sides = [(other, owner([other.cols[v] for v in key], size))]
    if part != key:
        sides.insert(0, (result, owner([result.cols[v] for v in key], size)))
    moved = exchange(comm, MPI, sides)
    if part != key:
        result = moved.pop(0)
    return join(result, moved[0]), key
