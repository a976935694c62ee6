"""An interactive picture of the communities. Given a layout, each vertex's communities
and the leaders, returns ONE self-contained HTML file (no network at all: the viewer's
JavaScript and CSS are inlined from files packaged beside this module, the data is
embedded as base64 typed arrays) that a browser opens from disk.

What the page holds (level of detail, so 8M users stay a file of a few MB):

- every community: its label, size, colour and centroid (the mean position of its
  members; with ``memberships`` every community a vertex belongs to counts it), drawn as
  a circle of area proportional to its size that fades out as the view zooms in;
- every leader (always, whatever the budget);
- a sample of up to ``budget`` users besides the leaders, chosen so: users are grouped
  by their strongest community (users in none form one group); each group's quota is
  ``ceil(R * group size / n)``, R the budget left after the leaders; groups are taken
  from the biggest down while their quota still fits, so the smallest communities are
  the ones left as circles only; inside a group the users are a uniform random choice
  from ``numpy.random.default_rng(seed)``. With ``n <= budget`` every user is kept.

Encoding: coordinates quantised to uint16 over the bounding box (error below 1/65535 of
the layout's extent), belonging coefficients to uint16, user ids as text joined by
newlines. About 20-30 bytes per kept user plus ~20 bytes and the label per community.

The viewer (``static/page.js``) rasterises the points itself into the canvas's pixel
buffer, keeping a pick buffer (which point is drawn at each pixel) for hovering and a
depth buffer in 3-D. Pan and zoom with drag and wheel; hover shows the user id and all
their communities with the belonging coefficients; a click on a point or on a community
in the list highlights the community and lists its leaders; the search box takes a user
id (of the kept users) or a community label (with or without '#'; substrings list
matches); 3-D layouts turn slowly (toggle) and rotate with a drag (shift-drag pans).
``window.hpgraph`` exposes a small test hook (``pointToScreen``, ``screenToPoint``,
``indexOfUser``, ``selected``, ``search``...).
"""

from __future__ import annotations

import base64
import json
import os
import re
import time
from importlib import resources

import numpy as np

from hpgraph.errors import InvalidArgumentError
from hpgraph.viz._data import AZIMUTH_DEG, ELEVATION_DEG, check_inputs, colour_of_community

__all__ = ["write_page", "sample_users"]


def _b64(a, dtype):
    return base64.b64encode(
        np.ascontiguousarray(a, dtype=np.dtype(dtype).newbyteorder("<")).tobytes()
    ).decode("ascii")


def _static(name):
    return resources.files("hpgraph.viz").joinpath("static", name).read_text(encoding="utf-8")


def sample_users(community, budget, seed=0, always=None):
    """Indices (sorted, int64) of the users a page keeps: ``always`` (the leaders) plus up
    to ``budget`` others, by the rule in the module docstring."""
    com = np.asarray(community, dtype=np.int64)
    n = com.size
    keep = np.zeros(n, dtype=bool)
    if always is not None and np.size(always):
        keep[np.asarray(always, dtype=np.int64)] = True
    if n <= budget:
        keep[:] = True
        return np.flatnonzero(keep)
    left = max(int(budget) - int(keep.sum()), 0)
    if left:
        group = com + 1  # group 0: no community
        gsize = np.bincount(group)
        quota = np.minimum(gsize, np.ceil(left * gsize / n).astype(np.int64))
        take = np.zeros(gsize.size, dtype=np.int64)
        used = 0
        for g in np.lexsort((np.arange(gsize.size), -gsize)):  # biggest first
            if gsize[g] == 0:
                break
            if used + quota[g] <= left:
                take[g] = quota[g]
                used += quota[g]
        rng = np.random.default_rng(seed)
        order = np.argsort(group + rng.random(n), kind="stable")  # by group, random inside
        start = np.concatenate([[0], np.cumsum(gsize)[:-1]])
        pos = np.arange(n) - np.repeat(start, gsize)  # position inside its group
        chosen = order[pos < np.repeat(take, gsize)]
        keep[chosen] = True
    return np.flatnonzero(keep)


def write_page(
    path,
    coords,
    community,
    *,
    user_ids,
    memberships=None,
    names=None,
    sizes=None,
    leaders=None,
    budget=200_000,
    title=None,
    seed=0,
) -> dict:
    """Write a self-contained interactive HTML page of the communities to ``path``.

    ``coords`` (n, 2|3) floats; ``community`` (n,) strongest community per vertex (-1:
    none); ``user_ids`` one id per vertex (ints or strings, shown and searched as text);
    ``memberships`` optional CSR (ptr (n+1,), community_of, coefficient) of all of a
    vertex's communities (default: the strongest with belonging 1); ``names`` a label per
    community; ``sizes`` member counts per community (default counted from memberships,
    else from ``community``); ``leaders`` four aligned arrays (community, rank, vertex,
    betweenness) or a mapping/table with those columns; ``budget`` users kept besides the
    leaders; ``seed`` for the sample. Returns a dict: ``path``, ``bytes``, ``points``
    (n), ``kept`` (users in the page), ``leaders``, ``communities``, ``seconds``.
    """
    t0 = time.perf_counter()
    if int(budget) < 0:
        raise InvalidArgumentError(f"budget must be >= 0 users, got {budget}")
    inp = check_inputs(coords, community, names=names, sizes=sizes, leaders=leaders,
                       memberships=memberships)  # fmt: skip
    x, com, n = inp.coords, inp.community, inp.coords.shape[0]
    ncomm, dim = len(inp.names), x.shape[1]
    ids = np.asarray(user_ids) if not isinstance(user_ids, np.ndarray) else user_ids
    if ids.shape != (n,):
        raise InvalidArgumentError(
            f"user_ids must hold one id per point ({n}), got shape {ids.shape}"
        )
    lead = inp.leaders
    kept = sample_users(com, int(budget), seed, lead.vertex)
    k = kept.size
    # memberships of the kept users (default: strongest community, belonging 1)
    if inp.memberships is not None:
        mp, mc, mw = inp.memberships
        lens = np.diff(mp)[kept]
        sub = np.repeat(mp[kept] - np.concatenate([[0], np.cumsum(lens)[:-1]]), lens)
        idx = sub + np.arange(int(lens.sum()))
        kptr = np.concatenate([[0], np.cumsum(lens)])
        kcom, kcoef = mc[idx], mw[idx]
    else:
        has = com[kept] >= 0
        kptr = np.concatenate([[0], np.cumsum(has)])
        kcom, kcoef = com[kept][has], np.ones(int(has.sum()))
    if kptr[-1] >= 2**32:
        raise InvalidArgumentError("too many memberships for the page (over 2^32)")
    # community centroids: the mean position of the members whose strongest community it
    # is (where its colour is drawn); communities that are nobody's strongest use all their
    # members from the memberships
    inc = com >= 0
    cnt = np.bincount(com[inc], minlength=ncomm)
    cen = np.stack(
        [np.bincount(com[inc], weights=x[inc, d], minlength=ncomm) for d in range(dim)], 1
    )
    if inp.memberships is not None and np.any(cnt[:ncomm] == 0):
        mp, mc, _ = inp.memberships
        owner = np.repeat(np.arange(n), np.diff(mp))
        mcnt = np.bincount(mc, minlength=ncomm)
        mcen = np.stack(
            [np.bincount(mc, weights=x[owner, d], minlength=ncomm) for d in range(dim)], 1
        )
        use = cnt == 0
        cnt[use], cen[use] = mcnt[use], mcen[use]
        del owner
    cnt = cnt[:ncomm]
    cen = cen[:ncomm] / np.maximum(cnt, 1)[:, None]
    shown = np.bincount(kcom, minlength=ncomm)[:ncomm] > 0
    chas = np.where(cnt == 0, 0, np.where(shown, 2, 1)).astype(np.uint8)
    lo = x.min(axis=0) if n else np.zeros(dim)
    hi = x.max(axis=0) if n else np.ones(dim)
    span = np.where(hi > lo, hi - lo, 1.0)

    def quant(a):
        return np.clip(np.round((a - lo) / span * 65535.0), 0, 65535).astype(np.uint16)

    # leaders sorted by community then rank, pointing at kept users
    order = np.lexsort((lead.rank, lead.community))
    lpt = np.searchsorted(kept, lead.vertex[order])
    # user ids as text (a newline inside an id would break the page's split)
    id_text = [str(v) for v in ids[kept].tolist()]
    if any("\n" in s for s in id_text):
        raise InvalidArgumentError("user_ids must not contain newlines")
    names_out = list(inp.names)
    data = {
        "title": str(title) if title else "hpgraph communities",
        "dim": dim,
        "total": n,
        "kept": k,
        "budget": int(budget),
        "seed": int(seed),
        "azimuth": AZIMUTH_DEG,
        "elevation": ELEVATION_DEG,
        "lo": lo.tolist(),
        "hi": (lo + span).tolist(),
        "pts": _b64(quant(x[kept]), np.uint16),
        "pcom": _b64(com[kept], np.int32),
        "ids": "\n".join(id_text),
        "mptr": _b64(kptr, np.uint32),
        "mcom": _b64(kcom, np.int32),
        "mcoef": _b64(np.clip(np.round(kcoef * 65535.0), 0, 65535), np.uint16),
        "names": names_out,
        "csize": _b64(inp.sizes, np.float64),
        "ccen": _b64(quant(cen), np.uint16),
        "chas": _b64(chas, np.uint8),
        "ccol": _b64(colour_of_community(inp.sizes), np.uint8),
        "lcom": _b64(lead.community[order], np.int32),
        "lrank": _b64(lead.rank[order], np.int32),
        "lpt": _b64(lpt, np.int32),
        "lbtw": _b64(lead.betweenness[order], np.float32),
    }
    # JSON inside a <script> element: no "</script>" or "<!--" can appear in the text
    blob = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    blob = blob.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    html = _static("page.html")
    title_html = data["title"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    parts = {"CSS": _static("page.css"), "JS": _static("page.js"), "TITLE": title_html,
             "DATA": blob}  # fmt: skip
    html = re.sub(r"__(CSS|JS|TITLE|DATA)__", lambda m: parts[m.group(1)], html)
    raw = html.encode("utf-8")
    tmp = f"{os.fspath(path)}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(raw)
    os.replace(tmp, path)
    return {
        "path": os.fspath(path),
        "bytes": len(raw),
        "points": n,
        "kept": int(k),
        "leaders": int(lead.vertex.size),
        "communities": ncomm,
        "seconds": time.perf_counter() - t0,
        "bytes_per_kept_user": len(raw) / max(k, 1),
        "coordinate_step": (span / 65535.0).tolist(),
        "sample_rule": "leaders, then per strongest community ceil(budget * size / n) users, "
        "biggest communities first, uniform inside (numpy default_rng(seed))",
    }
