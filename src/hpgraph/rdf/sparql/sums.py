"""SUM and AVG per group, vectorised over the distinct terms: each distinct term is read
once (numeric tier integer < decimal < double, or an error), a group's type is its
highest tier, and integer groups are summed exactly in int64, double groups in float64;
only groups holding decimals are summed term by term. A group with a non-numeric or
unbound value has no SUM or AVG (SPARQL's error); an empty group sums to 0."""

from __future__ import annotations

import decimal
from decimal import Decimal

import numpy as np

from hpgraph.rdf.sparql.numeric import arith, number_key

__all__ = ["group_sum", "group_avg"]

_ERROR = 3


def _totals(ctx, col, inv, ng):
    """(tier per group, total per group (Python numbers; None where an error), counts)."""
    counts = np.bincount(inv, minlength=ng)
    uniq, uinv = np.unique(col, return_inverse=True)
    uinv = uinv.reshape(-1)
    tier = np.full(len(uniq), _ERROR, np.int64)
    as_float = np.zeros(len(uniq))
    as_int = np.zeros(len(uniq), np.int64)
    exact = {}
    for j, i in enumerate(uniq.tolist()):
        kind, v = ctx.value(i)
        if kind != "num":
            continue
        tier[j] = 2 if isinstance(v, float) else 1 if isinstance(v, Decimal) else 0
        as_float[j] = float(v)
        if tier[j] == 0 and abs(v) < 1 << 62:
            as_int[j] = v
        else:
            exact[j] = v
    gtier = np.zeros(ng, np.int64)
    np.maximum.at(gtier, inv, tier[uinv])
    totals = [None] * ng
    fsum = np.bincount(inv, weights=as_float[uinv], minlength=ng)
    isum = np.zeros(ng, np.int64)
    fits = True
    if len(uniq) and (tier == 0).any():
        big = int(np.abs(as_int).max()) * int(counts.max(initial=0))
        fits = big < 1 << 62 and not any(tier[j] == 0 for j in exact)
        if fits:
            np.add.at(isum, inv, np.where(tier[uinv] == 0, as_int[uinv], 0))
    slow = np.zeros(ng, bool)
    for g in range(ng):
        t = gtier[g]
        if t == 2:
            totals[g] = float(fsum[g])
        elif t == 0 and fits:
            totals[g] = int(isum[g])
        elif t != _ERROR:
            slow[g] = True
    if slow.any():
        rows = np.flatnonzero(slow[inv])
        acc = {}
        for g, j in zip(inv[rows].tolist(), uinv[rows].tolist(), strict=True):
            v = exact.get(j, int(as_int[j]))
            acc[g] = arith("+", acc.get(g, 0), v) if g in acc else v
        for g in np.flatnonzero(slow).tolist():
            totals[g] = acc.get(g, 0)
    return gtier, totals, counts


def _ids(ctx, values):
    return np.array([-1 if v is None else ctx.intern(number_key(v)) for v in values], np.int64)


def group_sum(ctx, col, inv, ng):
    """Term ids of SUM(col) per group (-1 where it is an error)."""
    _, totals, _ = _totals(ctx, col, inv, ng)
    return _ids(ctx, totals)


def group_avg(ctx, col, inv, ng):
    """Term ids of AVG(col) per group: a decimal unless a double is summed; 0 if empty."""
    tier, totals, counts = _totals(ctx, col, inv, ng)
    out = []
    for t, total, n in zip(tier.tolist(), totals, counts.tolist(), strict=True):
        if total is None or n == 0:
            out.append(None if total is None else 0)
        elif t == 2:
            out.append(total / n)
        else:
            with decimal.localcontext(decimal.Context(prec=40)):
                out.append(Decimal(total) / Decimal(n))
    return _ids(ctx, out)
