"""The interactive page in a real browser: Debian's headless Chromium driven over the
DevTools protocol (a small client over websocket-client), the page opened from file://
with host names unresolvable, every request checked to stay on file:// or data:. Checks:
no console errors or exceptions, a non-blank canvas, hover shows the right user and their
communities, a click highlights a community (pixels dim outside it) and lists its
leaders in rank order, the legend, the search box (user id, hashtag, substring), pan and
zoom, and a 3-D page that renders, turns by itself and rotates with a drag. Expected
values come from the Python inputs, not from the page."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
import websocket  # websocket-client, in the test extra

from conftest import SEED
from hpgraph.viz import write_page

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)"
)


class CDP:
    """A minimal DevTools-protocol client: one browser websocket, one flattened session."""

    def __init__(self, url):
        self.ws = websocket.create_connection(url, timeout=20, suppress_origin=True)
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        self.ws.send(json.dumps(msg))
        while True:
            got = json.loads(self.ws.recv())
            if got.get("id") == self.next_id:
                if "error" in got:
                    raise RuntimeError(f"{method}: {got['error']}")
                return got.get("result", {})
            self.events.append(got)

    def eval(self, expr):
        res = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                             "awaitPromise": True})  # fmt: skip
        if "exceptionDetails" in res:
            raise RuntimeError(f"{expr}: {res['exceptionDetails']}")
        return res["result"].get("value")

    def wait_for(self, expr, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.eval(expr):
                return
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {expr}")

    def mouse(self, kind, x, y, button="none", buttons=0, modifiers=0, **extra):
        params = {"type": kind, "x": x, "y": y, "button": button, "buttons": buttons,
                  "modifiers": modifiers} | extra  # fmt: skip
        self.send("Input.dispatchMouseEvent", params)

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, button="left", buttons=1, clickCount=1)
        self.mouse("mouseReleased", x, y, button="left", buttons=0, clickCount=1)

    def drag(self, x0, y0, x1, y1, steps=8):
        self.mouse("mouseMoved", x0, y0)
        self.mouse("mousePressed", x0, y0, button="left", buttons=1, clickCount=1)
        for k in range(1, steps + 1):
            t = k / steps
            self.mouse("mouseMoved", x0 + t * (x1 - x0), y0 + t * (y1 - y0), button="left",
                       buttons=1)  # fmt: skip
        self.mouse("mouseReleased", x1, y1, button="left", buttons=0, clickCount=1)

    def type_search(self, text):
        self.eval("(() => { const s = document.getElementById('search'); s.value = ''; "
                  "s.focus(); })()")  # fmt: skip
        self.send("Input.insertText", {"text": text})
        for kind in ("keyDown", "keyUp"):
            key = {"type": kind, "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13}
            self.send("Input.dispatchKeyEvent", key | {"text": "\r"})

    def problems(self):
        """Console errors, exceptions and requests that left file:// since the last call."""
        out = []
        for ev in self.events:
            m, p = ev.get("method"), ev.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append(f"exception: {p['exceptionDetails']}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(f"console.{p['type']}: {p.get('args')}")
            elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
                out.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif m == "Network.requestWillBeSent":
                url = p["request"]["url"]
                if not url.startswith(("file://", "data:")):
                    out.append(f"request left file://: {url}")
            elif m == "Network.loadingFailed" and not p.get("canceled"):
                out.append(f"load failed: {p.get('errorText')}")
        self.events.clear()
        return out


@pytest.fixture(scope="module")
def browser():
    profile = tempfile.mkdtemp(prefix="hpgraph-chromium-")
    args = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
            "--remote-debugging-port=0", f"--user-data-dir={profile}",
            '--host-resolver-rules=MAP * ~NOTFOUND', "--window-size=1200,800",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-features=Translate,MediaRouter,OptimizationHints", "--mute-audio",
            "about:blank"]  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    port_file = Path(profile) / "DevToolsActivePort"
    end = time.monotonic() + 20
    while not (port_file.exists() and len(port_file.read_text().splitlines()) >= 2):
        if proc.poll() is not None or time.monotonic() > end:
            proc.kill()
            raise AssertionError(f"chromium did not start: {proc.stderr.read()[-2000:]!r}")
        time.sleep(0.05)
    port, path = port_file.read_text().splitlines()[:2]
    cdp = CDP(f"ws://127.0.0.1:{port}{path}")
    target = cdp.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    cdp.session = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                           session=False)["sessionId"]  # fmt: skip
    for domain in ("Runtime", "Log", "Network", "Page"):
        cdp.send(f"{domain}.enable")
    cdp.send("Emulation.setDeviceMetricsOverride",
             {"width": 1200, "height": 800, "deviceScaleFactor": 1, "mobile": False})  # fmt: skip
    try:
        yield cdp
    finally:
        try:
            cdp.send("Browser.close", session=False)
        except Exception:  # the browser may already be gone; the kill below ends it
            pass
        cdp.ws.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stderr.close()
        shutil.rmtree(profile, ignore_errors=True)


def _data(dim):
    """Four separated clusters, overlapping memberships, 3 leaders each, an isolated user at
    the centre, Twitter-sized ids (above 2^53)."""
    rng = np.random.default_rng(SEED)
    per, k = 300, 4
    centres = np.array([[-5, -5, 0], [5, -5, 1], [-5, 5, 2], [5, 5, 3]], dtype=float)[:, :dim]
    com = np.repeat(np.arange(k), per)
    xy = centres[com] + rng.normal(scale=0.8, size=(k * per, dim))
    xy = np.vstack([xy, np.zeros((1, dim))])  # the lone user, community 2 by label
    com = np.append(com, 2)
    n = com.size
    names = ["#python", "#rust", "123456789", "#go"]
    # memberships: everyone in their community; every 10th also in the next one
    ptr, cof, coef = [0], [], []
    for v in range(n):
        if v % 10 == 0:
            cof += [com[v], (com[v] + 1) % k]
            coef += [0.6, 0.4]
        else:
            cof.append(com[v])
            coef.append(1.0)
        ptr.append(len(cof))
    lc = np.repeat(np.arange(k), 3)
    lr = np.tile(np.arange(3), k)
    lv = np.array([c * per + 7 * (r + 1) for c, r in zip(lc, lr, strict=True)])
    lead = (lc, lr, lv, 1.0 / (lr + 1))
    ids = np.array([10**18 + 7919 * v for v in range(n)], dtype=np.int64)
    mem = (np.array(ptr), np.array(cof), np.array(coef))
    return xy, com, names, mem, lead, ids


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    d = tmp_path_factory.mktemp("pages")
    out = {}
    for dim in (2, 3):
        xy, com, names, mem, lead, ids = _data(dim)
        p = d / f"page{dim}d.html"
        st = write_page(p, xy, com, user_ids=ids, memberships=mem, names=names, leaders=lead,
                        title=f"test {dim}-D")  # fmt: skip
        assert st["kept"] == xy.shape[0]  # under the budget: every user is in the page
        out[dim] = (p, xy, com, names, mem, lead, ids)
    return out


def _open(cdp, path):
    cdp.problems()
    cdp.send("Page.navigate", {"url": Path(path).resolve().as_uri()})
    cdp.wait_for("document.readyState === 'complete' && !!window.hpgraph && window.hpgraph.ready")
    cdp.wait_for("window.hpgraph.frames() >= 1")


NONWHITE = """(() => { const c = document.getElementById('canvas');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let k = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i] < 250 || d[i+1] < 250 || d[i+2] < 250) k++;
  return k; })()"""


def _pixel(cdp, x, y):
    return cdp.eval(f"""(() => {{ const c = document.getElementById('canvas');
      const r = c.getBoundingClientRect();
      return Array.from(c.getContext('2d').getImageData(Math.floor({x} - r.left),
        Math.floor({y} - r.top), 1, 1).data); }})()""")


def _expected_screen(cdp, xy, i):
    """Where point i must appear, from the Python coordinates and the canvas box alone."""
    box = "document.getElementById('canvas').getBoundingClientRect()"
    r = cdp.eval(f"(() => {{ const r = {box}; return [r.left, r.top, r.width, r.height]; }})()")
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    ext = float((hi - lo).max())
    u = (xy[i] - (lo + hi) / 2) / ext
    s = 0.92 * min(r[2], r[3])
    return r[0] + r[2] / 2 + s * u[0], r[1] + r[3] / 2 - s * u[1]


def test_loads_offline_without_errors_and_draws(browser, pages):
    path = pages[2][0]
    _open(browser, path)
    assert browser.eval("location.protocol") == "file:"
    assert browser.eval("document.title") == "test 2-D"
    assert browser.eval(NONWHITE) > 2000  # 1201 points of 3x3 pixels, circles, labels
    assert browser.eval("document.querySelectorAll('#legend li').length") == 4
    sizes = np.bincount(pages[2][4][1])  # member counts from the memberships
    first = f"{pages[2][3][int(np.argmax(sizes))]} ({sizes.max()})"
    assert browser.eval("document.querySelector('#legend li').textContent") == first
    assert browser.problems() == []  # loading made no request beyond file:// and no error
    # the check catches a page that reaches out, and the page could not reach anything
    got = browser.eval("fetch('https://example.com/x').then(() => 'fetched', () => 'blocked')")
    assert got == "blocked"
    time.sleep(0.2)
    caught = browser.problems()  # the page's own policy refused it (logged as an error)
    assert caught and all("example.com" in p for p in caught), caught


def test_network_blocked_and_requests_seen(browser):
    """Outside the page's policy the browser still resolves no host, and the request check
    sees a request that leaves file://."""
    browser.send("Page.navigate", {"url": "about:blank"})
    browser.wait_for("document.readyState === 'complete'")
    browser.problems()
    got = browser.eval("fetch('http://example.com/x').then(() => 'fetched', () => 'failed')")
    assert got == "failed"
    time.sleep(0.2)
    caught = browser.problems()
    assert "request left file://: http://example.com/x" in caught
    assert any("ERR_NAME_NOT_RESOLVED" in p for p in caught), caught


def test_hover_shows_user_and_communities(browser, pages):
    path, xy, com, names, mem, lead, ids = pages[2]
    _open(browser, path)
    lone = xy.shape[0] - 1  # the isolated user at the centre
    x, y = _expected_screen(browser, xy, lone)
    hook = browser.eval(f"window.hpgraph.pointToScreen({lone})")
    assert abs(hook["x"] - x) < 1.5 and abs(hook["y"] - y) < 1.5
    browser.mouse("mouseMoved", x + 2, y - 1)
    browser.wait_for("!document.getElementById('tooltip').hidden")
    tip = browser.eval("document.getElementById('tooltip').innerText")
    assert str(ids[lone]) in tip  # exact id, beyond float precision
    assert "123456789 (belonging 0.60)\n#go (belonging 0.40)" in tip  # 1200 % 10 == 0
    # a user in two communities: both names with their belonging, strongest first
    v = 10  # v % 10 == 0 -> community 0 at 0.6 and 1 at 0.4
    pos = browser.eval(f"window.hpgraph.pointToScreen({v})")
    assert browser.eval(f"window.hpgraph.screenToPoint({pos['x']}, {pos['y']})") in range(1201)
    browser.eval("window.hpgraph.setAutoRotate(false)")
    browser.mouse("mouseMoved", pos["x"], pos["y"])
    browser.wait_for(f"document.getElementById('tooltip').dataset.index === "
                     f"String(window.hpgraph.screenToPoint({pos['x']}, {pos['y']}))")  # fmt: skip
    shown = int(browser.eval("document.getElementById('tooltip').dataset.index"))
    tip = browser.eval("document.getElementById('tooltip').innerText")
    assert str(ids[shown]) in tip
    row = range(mem[0][shown], mem[0][shown + 1])
    for j in row:
        assert f"{names[mem[1][j]]} (belonging {mem[2][j]:.2f})" in tip
    browser.mouse("mouseMoved", 3, 3)  # empty corner: the tooltip goes away
    browser.wait_for("document.getElementById('tooltip').hidden")
    assert browser.problems() == []


def test_click_highlights_community_and_lists_leaders(browser, pages):
    path, xy, com, names, mem, lead, ids = pages[2]
    _open(browser, path)
    c = 1
    member = int(np.flatnonzero(com == c)[5])
    other = int(np.flatnonzero(com == 3)[5])
    if (mem[1][mem[0][other] : mem[0][other + 1]] == c).any():
        other += 1  # a user outside community 1 altogether
    op = browser.eval(f"window.hpgraph.pointToScreen({other})")
    before = _pixel(browser, op["x"], op["y"])
    mp = browser.eval(f"window.hpgraph.pointToScreen({member})")
    f0 = browser.eval("window.hpgraph.frames()")
    browser.click(mp["x"], mp["y"])
    browser.wait_for(f"window.hpgraph.selected() === {c}")
    info = browser.eval("document.getElementById('info').innerText")
    assert names[c] in info
    got = browser.eval("Array.from(document.querySelectorAll('#leaders li'))"
                       ".map(li => li.dataset.user)")  # fmt: skip
    want = [str(ids[v]) for cc, r, v in sorted(zip(lead[0], lead[1], lead[2], strict=True))
            if cc == c]  # fmt: skip
    assert got == want
    browser.wait_for(f"window.hpgraph.frames() > {f0}")
    # a frame drawn before the click may be the one counted: wait for the redraw
    deadline = time.monotonic() + 10
    after = _pixel(browser, op["x"], op["y"])
    while after[:3] != [0xE4, 0xE4, 0xE4] and time.monotonic() < deadline:
        time.sleep(0.05)
        after = _pixel(browser, op["x"], op["y"])
    assert before[:3] != after[:3] and after[:3] == [0xE4, 0xE4, 0xE4]  # dimmed outsider
    # the legend selects too, and the empty background clears the selection
    browser.eval("Array.from(document.querySelectorAll('#legend li'))"
                 ".find(li => li.textContent.startsWith('#go ')).click()")  # fmt: skip
    assert browser.eval("window.hpgraph.selected()") == 3
    browser.click(3, 3)
    browser.wait_for("window.hpgraph.selected() === -1")
    assert browser.problems() == []


def test_search_user_and_hashtag(browser, pages):
    path, xy, com, names, mem, lead, ids = pages[2]
    _open(browser, path)
    v = 123
    browser.type_search(str(ids[v]))
    browser.wait_for(f"window.hpgraph.selectedUser() === '{ids[v]}'")
    assert browser.eval("window.hpgraph.selected()") == com[v]
    assert str(ids[v]) in browser.eval("document.getElementById('info').innerText")
    browser.type_search("RUST")  # a hashtag without '#', any case
    browser.wait_for("window.hpgraph.selected() === 1")
    browser.type_search("#go")
    browser.wait_for("window.hpgraph.selected() === 3")
    browser.type_search("123456789")  # a community named by a vertex id
    browser.wait_for("window.hpgraph.selected() === 2")
    browser.type_search("yth")  # substring: a list of matches
    want = f"#python ({np.sum(mem[1] == 0)})"
    assert browser.eval("document.getElementById('results').innerText").strip() == want
    browser.type_search("no-such-thing")
    assert "no match" in browser.eval("document.getElementById('results').innerText")
    assert browser.problems() == []


def test_pan_and_zoom(browser, pages):
    path, xy, com, names, mem, lead, ids = pages[2]
    _open(browser, path)
    i = 0
    p0 = browser.eval(f"window.hpgraph.pointToScreen({i})")
    browser.drag(600, 400, 700, 350)
    browser.wait_for(f"Math.abs(window.hpgraph.pointToScreen({i}).x - {p0['x'] + 100}) < 1")
    p1 = browser.eval(f"window.hpgraph.pointToScreen({i})")
    assert abs(p1["y"] - (p0["y"] - 50)) < 1
    # wheel zoom in about the cursor: the point under it stays put, the others spread
    browser.mouse("mouseWheel", p1["x"], p1["y"], deltaX=0, deltaY=-400)
    browser.wait_for("window.hpgraph.zoom() > 1.5")
    p2 = browser.eval(f"window.hpgraph.pointToScreen({i})")
    assert abs(p2["x"] - p1["x"]) < 1 and abs(p2["y"] - p1["y"]) < 1
    assert browser.eval(NONWHITE) > 1000
    assert browser.problems() == []


def test_3d_renders_and_rotates(browser, pages):
    path = pages[3][0]
    _open(browser, path)
    assert browser.eval("window.hpgraph.dim") == 3
    assert browser.eval(NONWHITE) > 2000
    yaw0, f0 = browser.eval("[window.hpgraph.yaw(), window.hpgraph.frames()]")
    snap = "Array.from(window.hpgraph.pointToScreen(0) ? [window.hpgraph.pointToScreen(0).x] : [])"
    x0 = browser.eval(snap)[0]
    time.sleep(0.6)
    yaw1, f1 = browser.eval("[window.hpgraph.yaw(), window.hpgraph.frames()]")
    assert yaw1 > yaw0 + 0.05 and f1 > f0 + 3  # turning by itself, frame after frame
    assert browser.eval(snap)[0] != x0
    browser.eval("window.hpgraph.setAutoRotate(false)")
    yaw2 = browser.eval("window.hpgraph.yaw()")
    browser.drag(500, 400, 600, 400)
    yaw3 = browser.eval("window.hpgraph.yaw()")
    assert abs(yaw3 - yaw2 - 1.0) < 0.05  # 100 pixels of drag = 1 radian
    assert browser.eval(NONWHITE) > 2000
    assert browser.problems() == []


if os.environ.get("HPGRAPH_SCREENSHOT"):  # a manual look: HPGRAPH_SCREENSHOT=dir pytest ...

    def test_screenshots(browser, pages):
        import base64

        for dim in (2, 3):
            _open(browser, pages[dim][0])
            shot = browser.send("Page.captureScreenshot", {"format": "png"})["data"]
            out = Path(os.environ["HPGRAPH_SCREENSHOT"]) / f"page{dim}d.png"
            out.write_bytes(base64.b64decode(shot))


@pytest.mark.parametrize("n, dim", [(0, 2), (1, 2), (1, 3), (5, 3)])
def test_tiny_pages_load_cleanly(browser, tmp_path, n, dim):
    xy = np.arange(n * dim, dtype=float).reshape(n, dim)
    com = np.zeros(n, dtype=np.int64)
    com[::2] = -1  # some users in no community
    write_page(tmp_path / "t.html", xy, com, user_ids=[f"u{v}" for v in range(n)])
    _open(browser, tmp_path / "t.html")
    assert browser.eval("window.hpgraph.kept") == n
    if n:
        p = browser.eval("window.hpgraph.pointToScreen(0)")
        browser.mouse("mouseMoved", p["x"], p["y"])
        browser.wait_for("!document.getElementById('tooltip').hidden")
        assert "in no community" in browser.eval("document.getElementById('tooltip').innerText")
    browser.type_search("u0")
    time.sleep(0.1)
    assert browser.problems() == []
