"""vertex_program(..., sender_ids=True): delivery takes the sender's id for a broadcast's
value (no outbox read). Results must equal the same program without the declaration
and a numpy reference, in push and pull (with and without the senders' bitmap), with
the "min" combiner and the early-exit "any" combiner."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import make_shape
from hpgraph.engine import run, vertex_program
from hpgraph.errors import InvalidArgumentError


def _first_hop(ctx, v):
    # senders (v % every == 0) broadcast their id; a receiver keeps the message
    if ctx.superstep == 0:
        if v % np.int64(ctx.params[0]) == 0:
            ctx.send_to_all(v, v)
    else:
        ctx.value[v] = ctx.message(v)
    ctx.vote_to_halt(v)


def _programs(combiner):
    kw = dict(value=np.int64, message=np.int64, combiner=combiner, params=("every",), initial=-1)
    return (
        vertex_program(_first_hop, name=f"hop-{combiner}", **kw),
        vertex_program(_first_hop, name=f"hop-{combiner}-ids", sender_ids=True, **kw),
    )


@pytest.mark.parametrize("every", [1, 3, 40], ids=["all-pull", "bits-pull", "push"])
@pytest.mark.parametrize("combiner", ["min", "any"])
@pytest.mark.parametrize("directed", [True, False])
def test_sender_ids_deliver_the_senders_id(every, combiner, directed, threads):
    g = make_shape("random", directed, False)
    plain, ids = _programs(combiner)
    got = run(ids, g, params={"every": every}, threads=threads)
    ref = run(plain, g, params={"every": every}, threads=threads)
    src, dst, _ = g.edges()
    keep = src % every == 0
    want = np.full(g.n, np.iinfo(np.int64).max)
    np.minimum.at(want, dst[keep], src[keep])
    reached = want < np.iinfo(np.int64).max
    want[~reached] = -1
    np.testing.assert_array_equal(got.values >= 0, reached)
    if combiner == "min":
        np.testing.assert_array_equal(got.values, want)
        np.testing.assert_array_equal(ref.values, want)
    else:  # any sender among the in-neighbours
        ok = np.zeros(g.n, dtype=bool)
        hit = keep & (got.values[dst] == src)
        ok[dst[hit]] = True
        assert ok[reached].all()
    # delivered the way the case names
    assert got.stats.supersteps[0].mode == ("push" if every == 40 else "pull")


def test_sender_ids_need_int64_scalar_messages():
    with pytest.raises(InvalidArgumentError, match="sender_ids"):
        vertex_program(_first_hop, message=np.float64, combiner="min", sender_ids=True)
    with pytest.raises(InvalidArgumentError, match="sender_ids"):
        vertex_program(_first_hop, message=(np.int64, 2), combiner="min", sender_ids=True)
