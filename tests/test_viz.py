"""Pictures of communities without a browser: the PNG (size, pixels lit against an
independent numpy binning, community colours, log density, leader labels, 3-D projection,
bad input) and the page's data (sample rule, round trip of the embedded arrays, no
network references, escaping). The page in a browser: tests/test_page_browser.py."""

from __future__ import annotations

import base64
import json
import math
import re

import numpy as np
import pytest
from PIL import Image

from conftest import SEED
from hpgraph.errors import InvalidArgumentError
from hpgraph.viz import render_png, write_page
from hpgraph.viz._data import palette
from hpgraph.viz.page import sample_users
from hpgraph.viz.raster import MARGIN

BARE = {"legend_top": 0, "label_top": 0, "mark_top": 0}  # raster only, no overlays


def _clusters(dim=2, sizes=(4000, 2000, 1000), seed=SEED):
    rng = np.random.default_rng(seed)
    centres = np.array([[0, 0, 0], [10, 0, 3], [0, 10, 6]], dtype=float)[: len(sizes), :dim]
    com = np.repeat(np.arange(len(sizes)), sizes)
    xy = centres[com] + rng.normal(scale=0.7, size=(com.size, dim))
    return xy, com


def _read(path):
    return np.asarray(Image.open(path).convert("RGB")).astype(int)


def _pixels_numpy(xy, w, h):
    """The pixel of each 2-D point, computed here from the documented fit (bounding box
    centred, aspect kept, MARGIN of the smaller side on each side)."""
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    m = MARGIN * min(w, h)
    s = min((w - 2 * m) / (hi[0] - lo[0]), (h - 2 * m) / (hi[1] - lo[1]))
    c = (lo + hi) / 2
    px = np.floor(w / 2 + (xy[:, 0] - c[0]) * s).astype(int)
    py = np.floor(h / 2 - (xy[:, 1] - c[1]) * s).astype(int)
    return px, py


def test_size_and_pixels_lit_match_numpy_binning(tmp_path):
    xy, com = _clusters()
    w, h = 640, 480
    st = render_png(tmp_path / "a.png", xy, com, width=w, height=h, spread=0, **BARE)
    img = _read(tmp_path / "a.png")
    assert img.shape == (h, w, 3)
    px, py = _pixels_numpy(xy, w, h)
    cells = np.unique(py * w + px)
    assert st["points"] == st["drawn"] == xy.shape[0]
    assert st["pixels_lit"] == cells.size
    lit = np.flatnonzero((img != 255).any(axis=2))
    assert np.array_equal(lit, cells)  # every point lands where numpy bins it, nothing else


def test_each_community_in_its_colour_biggest_first(tmp_path):
    xy, com = _clusters()
    st = render_png(tmp_path / "c.png", xy, com, width=400, height=400, **BARE)
    img = _read(tmp_path / "c.png")
    px, py = _pixels_numpy(xy, 400, 400)
    want = palette(3)  # sizes 4000 > 2000 > 1000: community c gets palette colour c
    for c in range(3):
        centre = np.round(np.median(np.column_stack([px, py])[com == c], axis=0)).astype(int)
        got = img[centre[1], centre[0]]
        # the colour over white at one opacity a >= min_alpha: got = 255 (1 - a) + want a
        ch = want[c] < 200
        a = (255 - got[ch]) / (255 - want[c][ch].astype(int))
        assert a.min() >= 0.35 and a.max() - a.min() < 0.03, (c, got, want[c])
    assert st["communities"] == 3
    # vertices in no community are grey
    st = render_png(tmp_path / "g.png", xy, np.full(com.size, -1), width=200, height=200, **BARE)
    img = _read(tmp_path / "g.png")
    rgb = img[(img != 255).any(axis=2)]
    assert np.all(rgb[:, 0] == rgb[:, 1]) and np.all(rgb[:, 1] == rgb[:, 2])


def test_log_density_darker_where_points_stack(tmp_path):
    # 100 points on one spot, 1 point on another, corners fixing the frame
    xy = np.array([[0.25, 0.5]] * 100 + [[0.75, 0.5], [0, 0], [1, 1]])
    com = np.zeros(xy.shape[0], dtype=np.int64)
    render_png(tmp_path / "d.png", xy, com, width=100, height=100, spread=0, **BARE)
    img = _read(tmp_path / "d.png")
    px, py = _pixels_numpy(xy, 100, 100)
    heavy, light = img[py[0], px[0]], img[py[100], px[100]]
    blue = palette(1)[0]
    assert np.abs(heavy - blue).max() <= 1  # the densest pixel is fully opaque
    # one point: opacity min_alpha + (1 - min_alpha) * log(2) / log(101)
    a = 0.35 + 0.65 * math.log(2) / math.log(101)
    assert np.abs(light - (255 * (1 - a) + blue * a)).max() <= 1


def test_leaders_marked_and_biggest_labelled(tmp_path):
    xy, com = _clusters(sizes=(4000, 2000, 1000))
    names = ["#python", "#rust", "4242"]
    lead = {"community": [0, 0, 1, 2], "rank": [1, 0, 0, 0], "vertex": [10, 20, 4010, 6010],
            "betweenness": [0.5, 0.9, 0.7, 0.1]}  # fmt: skip
    kw = {"width": 800, "height": 800, "legend_top": 0}
    plain = render_png(tmp_path / "p.png", xy, com, names=names, **kw)
    st = render_png(tmp_path / "l.png", xy, com, names=names, leaders=lead, label_top=2, **kw)
    assert plain["labels"] == [] and plain["leaders_marked"] == 0
    assert st["leaders_marked"] == 4
    # the two biggest communities are labelled, each at its first-ranked leader
    assert [(d["name"], d["vertex"]) for d in st["labels"]] == [("#python", 20), ("#rust", 4010)]
    a, b = _read(tmp_path / "p.png"), _read(tmp_path / "l.png")
    for d in st["labels"]:
        x0, y0, x1, y1 = (int(round(v)) for v in d["box"])
        ra, rb = a[y0:y1, x0:x1], b[y0:y1, x0:x1]
        assert (np.abs(ra - rb).sum(axis=2) > 60).mean() > 0.2  # the label is drawn there
        assert (rb.sum(axis=2) < 200).sum() > 20  # with dark text
    # away from leaders and labels the two pictures agree
    diff = np.abs(a - b).sum(axis=2) > 0
    mask = np.ones_like(diff)
    px, py = _pixels_numpy(xy, 800, 800)
    for v in lead["vertex"]:
        mask[max(py[v] - 15, 0) : py[v] + 15, max(px[v] - 15, 0) : px[v] + 15] = False
    for d in st["labels"]:
        x0, y0, x1, y1 = (int(round(v)) for v in d["box"])
        mask[max(y0 - 5, 0) : y1 + 5, max(x0 - 5, 0) : x1 + 5] = False
    assert not diff[mask].any()


def test_legend_and_title_drawn(tmp_path):
    xy, com = _clusters()
    a = render_png(tmp_path / "a.png", xy, com, width=600, height=600, **BARE)
    b = render_png(tmp_path / "b.png", xy, com, width=600, height=600, title="Communities",
                   legend_top=3, label_top=0, mark_top=0)  # fmt: skip
    assert a["pixels_lit"] == b["pixels_lit"]
    ia, ib = _read(tmp_path / "a.png"), _read(tmp_path / "b.png")
    assert (ia[:40] != ib[:40]).any()  # title band at the top
    assert (ia[:150, :150] != ib[:150, :150]).any()  # legend box at the top left


def test_3d_fixed_projection(tmp_path):
    # points on the z axis project to one column (u = x cos a - y sin a = 0)
    z = np.linspace(0, 1, 50)
    pts = np.column_stack([np.zeros(50), np.zeros(50), z])
    frame = np.array([[-1, -1, 0], [1, 1, 1], [1, -1, 0], [-1, 1, 1]], dtype=float)
    xyz = np.vstack([pts, frame])
    com = np.zeros(xyz.shape[0], dtype=np.int64)
    com[50:] = 1
    st = render_png(tmp_path / "z.png", xyz, com, width=300, height=300, spread=0, **BARE)
    img = _read(tmp_path / "z.png")
    blue = np.all(np.abs(img - palette(2)[0]) <= 60, axis=2) & (img != 255).any(axis=2)
    cols = np.unique(np.nonzero(blue)[1])
    assert cols.size == 1 and st["drawn"] == 54
    # rows: the documented view (turn 35 degrees about z, tilt 25 degrees) as matrices
    a, e = np.radians(35.0), np.radians(25.0)
    rz = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    tilt = np.array([[1, 0, 0], [0, np.sin(e), np.cos(e)]])  # (x, y, z) -> (u, v)
    uv = xyz @ rz.T @ tilt.T
    px, py = _pixels_numpy(uv, 300, 300)
    assert np.array_equal(np.unique(np.nonzero(blue)[0]), np.unique(py[:50]))
    assert cols[0] == px[0]
    # a 3-D cloud renders like the 2-D one
    xyz, com = _clusters(dim=3)
    st = render_png(tmp_path / "c.png", xyz, com, width=300, height=300)
    assert st["drawn"] == xyz.shape[0] and st["pixels_lit"] > 1000


def test_empty_and_single_point(tmp_path):
    st = render_png(tmp_path / "e.png", np.zeros((0, 2)), np.zeros(0, dtype=np.int64),
                    width=64, height=64)  # fmt: skip
    assert st["drawn"] == 0 and (_read(tmp_path / "e.png") == 255).all()
    st = render_png(tmp_path / "s.png", np.zeros((1, 3)), [0], width=64, height=64, **BARE)
    assert st["drawn"] == 1 and st["pixels_lit"] >= 1


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"coords": np.zeros((5, 4))}, "shape"),
        ({"coords": np.zeros(5)}, "shape"),
        ({"community": np.zeros(4, dtype=int)}, "one entry per point"),
        ({"community": np.full(5, -2)}, ">= -1"),
        ({"community": np.full(5, 0.5)}, "integers"),
        ({"coords": np.full((5, 2), np.nan)}, "finite"),
        ({"names": []}, "names has 0"),
        ({"leaders": ([0], [0], [9], [1.0])}, "vertex must lie"),
        ({"leaders": ([3], [0], [1], [1.0])}, "community must lie"),
        ({"leaders": ([0, 0], [0], [1], [1.0])}, "one length"),
        ({"leaders": ([0], [0], [1])}, "four arrays"),
        ({"width": 5}, "width"),
    ],
)
def test_bad_input_raises(tmp_path, kwargs, match):
    args = {"coords": np.zeros((5, 2)), "community": np.zeros(5, dtype=int)} | kwargs
    with pytest.raises(InvalidArgumentError, match=match):
        render_png(tmp_path / "x.png", args.pop("coords"), args.pop("community"), **args)
    assert not (tmp_path / "x.png").exists()


# ---- the page's data, without a browser -------------------------------------------------


def _page_data(path):
    html = path.read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="hpgraph-data">(.*?)</script>', html, re.S)
    return html, json.loads(m.group(1))


def _arr(data, key, dtype):
    return np.frombuffer(base64.b64decode(data[key]), dtype=np.dtype(dtype).newbyteorder("<"))


def test_sample_rule():
    rng = np.random.default_rng(SEED)
    sizes = np.array([50_000, 30_000, 15_000, 4_000, 900, 90, 9, 1])
    com = rng.permutation(np.repeat(np.arange(sizes.size), sizes))
    com[:1000] = -1
    n = com.size
    leaders = np.array([5, 17, 99_999])
    kept = sample_users(com, 10_000, seed=3, always=leaders)
    assert np.isin(leaders, kept).all() and np.all(np.diff(kept) > 0)
    assert kept.size <= 10_000 + leaders.size
    per = np.bincount(com[kept] + 1, minlength=sizes.size + 1)
    gsize = np.bincount(com + 1)
    quota = np.ceil((10_000 - leaders.size) * gsize / n)
    lead_in = np.bincount(com[leaders] + 1, minlength=gsize.size)
    big = np.argsort(-gsize)[:4]  # the biggest groups get their proportional quota
    assert np.all(np.abs(per[big] - quota[big]) <= lead_in[big])
    assert np.array_equal(kept, sample_users(com, 10_000, seed=3, always=leaders))
    assert not np.array_equal(kept, sample_users(com, 10_000, seed=4, always=leaders))
    assert sample_users(com, n, seed=0).size == n  # under budget: everyone


def test_page_data_round_trip_and_offline(tmp_path):
    xy, com = _clusters(dim=3)
    n = com.size
    ids = np.array([f"user{v}" for v in range(n)])
    names = ["#a</script><script>alert(1)</script>", "#b & <c>", "#ünï"]
    lead = ([0, 1, 2], [0, 0, 0], [3, 4001, 6002], [1.0, 2.0, 3.0])
    st = write_page(tmp_path / "p.html", xy, com, user_ids=ids, names=names, leaders=lead,
                    budget=2000, title="T <b>")  # fmt: skip
    html, data = _page_data(tmp_path / "p.html")
    assert st["bytes"] == len(html.encode("utf-8")) and st["kept"] == data["kept"]
    assert st["kept"] <= 2003 and data["total"] == n and data["names"] == names
    # nothing to fetch: no external scripts, styles, images or URLs
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", html)
    assert "http://" not in html and "https://" not in html
    assert html.count("</script>") == 2 and "<title>T &lt;b&gt;</title>" in html
    # the embedded arrays decode to the kept users
    kept = sample_users(com, 2000, 0, np.array(lead[2]))
    assert data["ids"].split("\n") == [f"user{v}" for v in kept]
    assert np.array_equal(_arr(data, "pcom", np.int32), com[kept])
    q = _arr(data, "pts", np.uint16).reshape(-1, 3)
    lo, hi = np.array(data["lo"]), np.array(data["hi"])
    back = lo + q / 65535.0 * (hi - lo)
    assert np.abs(back - xy[kept]).max() <= (hi - lo).max() / 65535.0
    assert np.array_equal(kept[_arr(data, "lpt", np.int32)], lead[2])
    assert np.array_equal(_arr(data, "csize", np.float64), np.bincount(com))


def test_page_memberships_and_bad_input(tmp_path):
    xy, com = _clusters(sizes=(30, 20))
    n = com.size
    ptr = np.arange(n + 1) * 2
    cof = np.column_stack([com, 1 - com]).ravel()
    coef = np.tile([0.75, 0.25], n)
    write_page(tmp_path / "m.html", xy, com, user_ids=np.arange(n), memberships=(ptr, cof, coef))
    _, data = _page_data(tmp_path / "m.html")
    assert np.array_equal(_arr(data, "mptr", np.uint32), ptr)
    assert np.array_equal(_arr(data, "mcom", np.int32), cof)
    assert np.allclose(_arr(data, "mcoef", np.uint16) / 65535, coef, atol=1e-4)
    assert np.array_equal(_arr(data, "csize", np.float64), [n, n])  # counted from memberships
    with pytest.raises(InvalidArgumentError, match="user_ids"):
        write_page(tmp_path / "x.html", xy, com, user_ids=np.arange(n - 1))
    with pytest.raises(InvalidArgumentError, match="ptr"):
        write_page(tmp_path / "x.html", xy, com, user_ids=np.arange(n),
                   memberships=(ptr[:-1], cof, coef))  # fmt: skip
    with pytest.raises(InvalidArgumentError, match="sizes"):
        write_page(tmp_path / "x.html", xy, com, user_ids=np.arange(n), sizes=[1])
    assert not (tmp_path / "x.html").exists()


def test_import_is_light():
    """Importing hpgraph.viz loads neither matplotlib nor PIL (render_png does, when called)."""
    import subprocess
    import sys

    code = "import sys, hpgraph.viz; print('matplotlib' in sys.modules, 'PIL' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
