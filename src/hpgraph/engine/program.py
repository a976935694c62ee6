"""Declaring a vertex program: the user's ``compute`` plus the types and operators the
engine needs to compile and run it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hpgraph.errors import InvalidArgumentError

__all__ = ["VertexProgram", "vertex_program", "COMBINERS", "AGGREGATORS"]

COMBINERS = ("sum", "min", "max", "any")
AGGREGATORS = ("sum", "min", "max")


def _type_spec(spec, what):
    """``np.float64`` -> (float64, ()); ``(np.int64, 2)`` -> (int64, (2,))."""
    if isinstance(spec, tuple):
        if len(spec) != 2 or not isinstance(spec[1], int) or spec[1] < 1:
            raise InvalidArgumentError(f"{what} must be a dtype or (dtype, length), got {spec!r}")
        dtype, shape = np.dtype(spec[0]), (spec[1],)
    else:
        dtype, shape = np.dtype(spec), ()
    if dtype.kind not in "biuf":
        raise InvalidArgumentError(f"{what} must be a numeric or boolean dtype, got {dtype}")
    return dtype, shape


@dataclass(frozen=True, eq=False)
class VertexProgram:
    """A compiled-on-first-use vertex program. Create with :func:`vertex_program`."""

    compute: Callable
    name: str
    value_dtype: np.dtype
    value_shape: tuple
    message_dtype: np.dtype
    message_shape: tuple
    combiner: str | Callable | None
    edge_message: Callable | None
    aggregators: tuple[str, ...]
    params: tuple[str, ...]
    initial: Any
    dense: bool = True
    sender_ids: bool = False

    @property
    def combined(self) -> bool:
        return self.combiner is not None

    def param_array(self, given: dict | None) -> np.ndarray:
        given = dict(given or {})
        unknown = sorted(set(given) - set(self.params))
        if unknown:
            raise InvalidArgumentError(
                f"{self.name}: unknown parameter(s) {unknown}; it declares {list(self.params)}"
            )
        missing = [p for p in self.params if p not in given]
        if missing:
            raise InvalidArgumentError(f"{self.name}: missing parameter(s) {missing}")
        return np.array([float(given[p]) for p in self.params], dtype=np.float64)


def vertex_program(
    compute: Callable | None = None,
    *,
    value=np.float64,
    message=np.float64,
    combiner: str | Callable | None = None,
    edge_message: Callable | None = None,
    aggregators=(),
    params=(),
    initial=0,
    name: str | None = None,
    dense: bool = True,
    sender_ids: bool = False,
):
    """Declare a vertex program (Pregel / Hama Graph ``compute``).

    ``compute(ctx, v)`` runs once per active vertex per superstep, compiled with numba and
    inlined into the engine's loop; see :mod:`hpgraph.engine.context` for what ``ctx``
    offers. ``value``/``message`` are a numeric dtype or ``(dtype, length)`` for small
    fixed-size vectors. ``combiner`` is ``"sum"``, ``"min"``, ``"max"``, ``"any"`` (keep
    one message, for when all are alike) or a function ``combine(a, b) -> message``; with
    none, every message is kept and ``ctx.messages(v)`` lists them. ``edge_message(m, w)``
    turns a ``ctx.send_along_edges`` value into the value along an edge of weight ``w``
    (1.0 on unweighted graphs). ``aggregators`` names one global float64 reduction per
    slot (``"sum"``, ``"min"``, ``"max"``): ``ctx.aggregate(i, x)`` in superstep s,
    ``ctx.aggregated(i)`` in s + 1. ``params`` names float64 run-time parameters, read as
    ``ctx.params[i]`` (so one compiled kernel serves every value). ``initial`` is every
    vertex's first value. ``dense`` (default on) lets the engine run a superstep whose
    every vertex is awake and broadcast a plain value as one pull pass (a "dense
    superstep", docs/engine.md) when the combiner is ``"sum"``, ``"min"`` or ``"max"`` on
    scalars; ``False`` keeps the general delivery (the same results, up to the order of
    a sum's terms). ``sender_ids`` declares that every broadcast carries its sender's
    own id (``ctx.send_to_all(v, v)``: a BFS parent, a label that is a vertex id), with
    ``message=np.int64``: delivery then takes the sender's id for its value instead of
    reading the sender's outbox slot, so a bottom-up pull reads only the senders'
    bitmap per in-edge (docs/engine.md). A broadcast of anything else is delivered as
    the sender's id all the same.

    Usable as ``@vertex_program(...)`` or ``vertex_program(fn, ...)``.
    """

    def make(fn):
        if not callable(fn):
            raise InvalidArgumentError(f"compute must be a function, got {type(fn).__name__}")
        if combiner is not None and not callable(combiner) and combiner not in COMBINERS:
            raise InvalidArgumentError(
                f"unknown combiner {combiner!r}; use one of {COMBINERS} or a function"
            )
        for a in aggregators:
            if a not in AGGREGATORS:
                raise InvalidArgumentError(f"unknown aggregator {a!r}; use {AGGREGATORS}")
        vd, vs = _type_spec(value, "value")
        md, ms = _type_spec(message, "message")
        if sender_ids and (md != np.int64 or ms):
            raise InvalidArgumentError(
                f"sender_ids=True needs message=np.int64 (vertex ids), got {md}{list(ms) or ''}"
            )
        py = getattr(fn, "py_func", fn)
        return VertexProgram(
            compute=fn,
            name=name or getattr(py, "__qualname__", "compute"),
            value_dtype=vd,
            value_shape=vs,
            message_dtype=md,
            message_shape=ms,
            combiner=combiner,
            edge_message=edge_message,
            aggregators=tuple(aggregators),
            params=tuple(params),
            initial=initial,
            dense=bool(dense),
            sender_ids=bool(sender_ids),
        )

    return make if compute is None else make(compute)
