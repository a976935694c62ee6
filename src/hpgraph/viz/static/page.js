// hpgraph community explorer: a self-contained viewer for the data hpgraph.viz.write_page
// embeds in the page (no network, no libraries). Points are rasterised in JavaScript into
// an ImageData buffer (with a pick buffer mapping each pixel to the point drawn there, and
// a depth buffer in 3-D), then circles, leaders and labels are drawn with the 2-D canvas.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("hpgraph-data").textContent);

  function bytes(s) {
    const bin = atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }
  const dim = D.dim, K = D.kept, C = D.names.length, names = D.names;
  const q = new Uint16Array(bytes(D.pts));
  const pcom = new Int32Array(bytes(D.pcom));
  const ids = K ? D.ids.split("\n") : [];
  const mptr = new Uint32Array(bytes(D.mptr));
  const mcom = new Int32Array(bytes(D.mcom));
  const mcoef = new Uint16Array(bytes(D.mcoef));
  const csize = new Float64Array(bytes(D.csize));
  const cq = new Uint16Array(bytes(D.ccen));
  const chas = new Uint8Array(bytes(D.chas));
  const ccol = new Uint8Array(bytes(D.ccol));
  const lcom = new Int32Array(bytes(D.lcom));
  const lrank = new Int32Array(bytes(D.lrank));
  const lpt = new Int32Array(bytes(D.lpt));
  const lbtw = new Float32Array(bytes(D.lbtw));
  const L = lcom.length;

  // Coordinates normalised to a unit box centred on 0 (uint16 over the bounding box).
  const lo = D.lo, hi = D.hi;
  let ext = 1e-12;
  for (let d = 0; d < dim; d++) ext = Math.max(ext, hi[d] - lo[d]);
  function norm(arr, count) {
    const out = new Float32Array(count * dim);
    for (let i = 0; i < count; i++)
      for (let d = 0; d < dim; d++) {
        const v = lo[d] + (arr[i * dim + d] / 65535) * (hi[d] - lo[d]);
        out[i * dim + d] = (v - (lo[d] + hi[d]) / 2) / ext;
      }
    return out;
  }
  const X = norm(q, K);
  const CX = norm(cq, C);

  // Community colours as little-endian RGBA words, the biggest communities first.
  const NONE = 0xff969696, DIM = 0xffe4e4e4, BG = 0xffffffff;
  const cword = new Uint32Array(C);
  for (let c = 0; c < C; c++)
    cword[c] = (0xff << 24) | (ccol[3 * c + 2] << 16) | (ccol[3 * c + 1] << 8) | ccol[3 * c];
  const css = (c) => c < 0 ? "rgb(150,150,150)" :
    `rgb(${ccol[3 * c]},${ccol[3 * c + 1]},${ccol[3 * c + 2]})`;
  const bySize = Array.from({ length: C }, (_, c) => c).sort((a, b) => csize[b] - csize[a] || a - b);
  const maxSize = C ? Math.max(1, csize[bySize[0]]) : 1;

  // Leaders by community (rows sorted by community then rank in Python) and by point.
  const lptr = new Int32Array(C + 1);
  for (let r = 0; r < L; r++) lptr[lcom[r] + 1]++;
  for (let c = 0; c < C; c++) lptr[c + 1] += lptr[c];
  const leaderRows = new Map();
  for (let r = 0; r < L; r++) {
    if (!leaderRows.has(lpt[r])) leaderRows.set(lpt[r], []);
    leaderRows.get(lpt[r]).push(r);
  }
  const userIndex = new Map();
  for (let i = 0; i < K; i++) userIndex.set(ids[i], i);
  const nameIndex = new Map();
  for (let c = 0; c < C; c++) {
    const key = names[c].toLowerCase();
    if (!nameIndex.has(key)) nameIndex.set(key, c);
  }

  // ---- view state ---------------------------------------------------------------------
  const canvas = document.getElementById("canvas");
  const ctx = canvas.getContext("2d");
  const tooltip = document.getElementById("tooltip");
  const view = { zoom: 1, panX: 0, panY: 0, yaw: D.azimuth * Math.PI / 180,
    pitch: D.elevation * Math.PI / 180 };
  let W = 1, H = 1, image = null, pix = null, pick = null, depth = null;
  let selected = -1, selectedUser = -1, hover = -1, inSel = new Uint8Array(K);
  let autoRotate = dim === 3, frames = 0, dirty = true, lastT = 0;
  // per-frame projected positions (screen pixels) of points and community centroids
  const SX = new Float32Array(K), SY = new Float32Array(K);
  const CSX = new Float32Array(C), CSY = new Float32Array(C);

  function resize() {
    const r = canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    W = Math.max(1, Math.round(r.width * dpr));
    H = Math.max(1, Math.round(r.height * dpr));
    canvas.width = W; canvas.height = H;
    image = ctx.createImageData(W, H);
    pix = new Uint32Array(image.data.buffer);
    pick = new Int32Array(W * H);
    depth = dim === 3 ? new Float32Array(W * H) : null;
    dirty = true;
  }

  function project(src, count, outX, outY, outZ) {
    // the unit box fills 92% of the view; a turning cube needs room for its diagonal
    const fill = dim === 3 ? 0.92 / Math.sqrt(3) : 0.92;
    const S = view.zoom * fill * Math.min(W, H), cx = W / 2 + view.panX, cy = H / 2 + view.panY;
    if (dim === 2) {
      for (let i = 0; i < count; i++) {
        outX[i] = cx + S * src[2 * i];
        outY[i] = cy - S * src[2 * i + 1];
      }
      return;
    }
    const ca = Math.cos(view.yaw), sa = Math.sin(view.yaw);
    const ce = Math.cos(view.pitch), se = Math.sin(view.pitch);
    for (let i = 0; i < count; i++) {
      const x = src[3 * i], y = src[3 * i + 1], z = src[3 * i + 2];
      const xr = x * ca - y * sa, yr = x * sa + y * ca;
      outX[i] = cx + S * xr;
      outY[i] = cy - S * (z * ce + yr * se);
      if (outZ) outZ[i] = -yr * ce + z * se;
    }
  }
  const SZ = dim === 3 ? new Float32Array(K) : null;

  function pointSize() {
    const base = K < 5000 ? 3 : K < 50000 ? 2 : 1;
    return base + (view.zoom > 4 ? 1 : 0) + (view.zoom > 16 ? 1 : 0);
  }

  function splat(i, word, s) {
    const x0 = Math.floor(SX[i] - (s - 1) / 2), y0 = Math.floor(SY[i] - (s - 1) / 2);
    for (let dy = 0; dy < s; dy++) {
      const y = y0 + dy;
      if (y < 0 || y >= H) continue;
      for (let dx = 0; dx < s; dx++) {
        const x = x0 + dx;
        if (x < 0 || x >= W) continue;
        const p = y * W + x;
        if (depth) {
          if (SZ[i] < depth[p]) continue;
          depth[p] = SZ[i];
        }
        pix[p] = word;
        pick[p] = i;
      }
    }
  }

  let renderMs = 0;
  function render() {
    const t0 = performance.now();
    frames++;
    project(X, K, SX, SY, SZ);
    project(CX, C, CSX, CSY, null);
    pix.fill(BG);
    pick.fill(-1);
    if (depth) depth.fill(-Infinity);
    const s = pointSize();
    // communities with no sampled point: a dot at the centroid
    for (let c = 0; c < C; c++) {
      if (chas[c] !== 1) continue;
      const x = Math.round(CSX[c]), y = Math.round(CSY[c]);
      if (x >= 0 && x < W && y >= 0 && y < H) pix[y * W + x] = selected < 0 || selected === c ? cword[c] : DIM;
    }
    if (selected < 0) {
      for (let i = 0; i < K; i++) splat(i, pcom[i] < 0 ? NONE : cword[pcom[i]], s);
    } else {
      for (let i = 0; i < K; i++) if (!inSel[i]) splat(i, DIM, s);
      if (depth) depth.fill(-Infinity);
      for (let i = 0; i < K; i++) if (inSel[i]) splat(i, cword[selected], s + 1);
    }
    splatLeaders(selected >= 0 ? s + 1 : s);
    ctx.putImageData(image, 0, 0);
    drawCircles();
    drawLeaders();
    if (hover >= 0) ring(SX[hover], SY[hover], 7, "#000", 2);
    if (selectedUser >= 0) ring(SX[selectedUser], SY[selectedUser], 10, "#d00", 2.5);
    renderMs = performance.now() - t0;
  }

  function ring(x, y, r, colour, width) {
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    ctx.stroke();
  }

  // Level of detail: every community is a circle of area proportional to its size at its
  // centroid, faded out as the view zooms in; only the MAX_CIRCLES biggest are drawn.
  const MAX_CIRCLES = 1500;
  function drawCircles() {
    const fade = Math.max(0, 1 - (view.zoom - 1) / 6);
    const R = 0.07 * view.zoom * Math.min(W, H) * (dim === 3 ? 0.6 : 1);
    ctx.save();
    const n = Math.min(C, MAX_CIRCLES);
    for (let k = 0; k < n; k++) {
      const c = bySize[k];
      if (chas[c] === 0) continue;
      const r = Math.max(2, R * Math.sqrt(csize[c] / maxSize));
      const x = CSX[c], y = CSY[c];
      if (x + r < 0 || x - r > W || y + r < 0 || y - r > H) continue;
      const on = selected === c;
      if (!on && fade <= 0) continue;
      ctx.globalAlpha = on ? 0.9 : 0.35 * fade;
      ctx.beginPath();
      ctx.arc(x, y, r, 0, 2 * Math.PI);
      ctx.strokeStyle = css(c);
      ctx.lineWidth = on ? 3 : 1.2;
      ctx.stroke();
      if (!on && selected < 0) {
        ctx.globalAlpha = 0.07 * fade;
        ctx.fillStyle = css(c);
        ctx.fill();
      }
    }
    ctx.restore();
  }

  function label(text, x, y, colour) {
    ctx.font = "bold 13px system-ui, sans-serif";
    const w = ctx.measureText(text).width;
    ctx.fillStyle = "rgba(255,255,255,0.85)";
    ctx.fillRect(x + 8, y - 20, w + 8, 17);
    ctx.strokeStyle = colour;
    ctx.lineWidth = 1.5;
    ctx.strokeRect(x + 8, y - 20, w + 8, 17);
    ctx.fillStyle = "#111";
    ctx.fillText(text, x + 12, y - 7);
  }

  // Leaders are always in the page. In the raster the leaders of the RIMMED biggest
  // communities (all of the selected one's) are bigger dots with a dark rim;
  // the selected community's leaders get a ring and their rank and user id; otherwise the
  // first leader of the LABELLED biggest communities in view gets a ring and the name
  // (labels that would overlap one already drawn are left out).
  const LABELLED = 12, RIMMED = 200, RIM = 0xff333333;
  const sizeRank = new Int32Array(C);
  for (let k = 0; k < C; k++) sizeRank[bySize[k]] = k;
  function splatLeaders(s) {
    for (let r = 0; r < L; r++) {
      const i = lpt[r];
      if (selected >= 0 ? lcom[r] !== selected : sizeRank[lcom[r]] >= RIMMED) continue;
      splat(i, RIM, s + 2);
      splat(i, selected >= 0 ? cword[selected] : cword[lcom[r]], s);
    }
  }
  function drawLeaders() {
    const boxes = [];
    const place = (text, x, y, colour) => {
      ctx.font = "bold 13px system-ui, sans-serif";
      const w = ctx.measureText(text).width + 8;
      const box = [x + 8, y - 20, x + 8 + w, y - 3];
      for (const b of boxes)
        if (box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3]) return false;
      boxes.push(box);
      label(text, x, y, colour);
      return true;
    };
    if (selected >= 0) {
      for (let r = lptr[selected]; r < lptr[selected + 1]; r++) {
        const i = lpt[r];
        ring(SX[i], SY[i], 6, "#000", 2);
        place(`${lrank[r] + 1}. ${ids[i]}`, SX[i], SY[i], css(selected));
      }
      return;
    }
    let shown = 0;
    for (let k = 0; k < C && shown < LABELLED; k++) {
      const c = bySize[k];
      if (lptr[c + 1] === lptr[c]) continue;
      const i = lpt[lptr[c]];
      if (SX[i] < 0 || SX[i] >= W || SY[i] < 0 || SY[i] >= H) continue;
      ring(SX[i], SY[i], 5, "#000", 1.5);
      if (place(names[c], SX[i], SY[i], css(c))) shown++;
    }
  }

  // ---- interaction --------------------------------------------------------------------
  function toCanvas(ev) {
    const r = canvas.getBoundingClientRect();
    const dpr = W / Math.max(1, r.width);
    return [(ev.clientX - r.left) * dpr, (ev.clientY - r.top) * dpr];
  }
  function pickAt(x, y, radius) {
    let best = -1, bd = Infinity;
    const x0 = Math.round(x), y0 = Math.round(y);
    for (let dy = -radius; dy <= radius; dy++)
      for (let dx = -radius; dx <= radius; dx++) {
        const xx = x0 + dx, yy = y0 + dy;
        if (xx < 0 || yy < 0 || xx >= W || yy >= H) continue;
        const i = pick[yy * W + xx];
        if (i < 0) continue;
        const d = (SX[i] - x) ** 2 + (SY[i] - y) ** 2;
        if (d < bd) { bd = d; best = i; }
      }
    return best;
  }

  function memberships(i) {
    const out = [];
    for (let j = mptr[i]; j < mptr[i + 1]; j++) out.push([mcom[j], mcoef[j] / 65535]);
    out.sort((a, b) => b[1] - a[1]);
    return out;
  }

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function swatch(c) {
    const s = el("span", undefined, "sw");
    s.style.background = css(c);
    return s;
  }

  function showTooltip(i, x, y) {
    tooltip.replaceChildren();
    const head = el("div");
    head.append("user ", el("span", ids[i], "uid"));
    tooltip.append(head);
    const ms = memberships(i);
    if (!ms.length) tooltip.append(el("div", "in no community"));
    for (const [c, b] of ms) {
      const row = el("div");
      row.append(swatch(c), `${names[c]} (belonging ${b.toFixed(2)})`);
      tooltip.append(row);
    }
    for (const r of leaderRows.get(i) || [])
      tooltip.append(el("div", `leader #${lrank[r] + 1} of ${names[lcom[r]]} ` +
        `(betweenness ${formatNum(lbtw[r])})`));
    tooltip.dataset.index = String(i);
    tooltip.dataset.user = ids[i];
    const dpr = W / Math.max(1, canvas.getBoundingClientRect().width);
    tooltip.style.left = `${x / dpr + 14}px`;
    tooltip.style.top = `${y / dpr + 14}px`;
    tooltip.hidden = false;
  }
  function formatNum(v) {
    return Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(3) : v.toFixed(4);
  }

  function select(c) {
    selected = c;
    inSel = new Uint8Array(K);
    if (c >= 0)
      for (let i = 0; i < K; i++)
        for (let j = mptr[i]; j < mptr[i + 1]; j++) if (mcom[j] === c) { inSel[i] = 1; break; }
    showInfo();
    for (const li of document.querySelectorAll("#legend li"))
      li.classList.toggle("selected", Number(li.dataset.c) === c);
    dirty = true;
  }

  function showInfo() {
    const info = document.getElementById("info");
    info.replaceChildren();
    if (selected < 0 && selectedUser < 0) { info.hidden = true; return; }
    if (selectedUser >= 0) {
      const p = el("p");
      p.append("user ", el("b", ids[selectedUser]));
      info.append(p);
    }
    if (selected >= 0) {
      const c = selected;
      const h = el("h3");
      h.append(swatch(c), names[c]);
      info.append(h);
      let shown = 0;
      for (let i = 0; i < K; i++) shown += inSel[i];
      info.append(el("div", `${csize[c].toLocaleString("en")} members, ${shown.toLocaleString("en")} in the page`, "size"));
      info.append(el("div", "Leaders (betweenness within the community):"));
      const ol = el("ol");
      ol.id = "leaders";
      for (let r = lptr[c]; r < lptr[c + 1]; r++) {
        const li = el("li", `${ids[lpt[r]]} (${formatNum(lbtw[r])})`);
        li.dataset.user = ids[lpt[r]];
        li.addEventListener("click", () => focusUser(lpt[r]));
        ol.append(li);
      }
      if (lptr[c] === lptr[c + 1]) ol.append(el("li", "none given"));
      info.append(ol);
    }
    info.hidden = false;
  }

  function centreOn(x, y) {
    view.panX += W / 2 - x;
    view.panY += H / 2 - y;
    dirty = true;
  }
  function focusUser(i) {
    selectedUser = i;
    select(pcom[i] >= 0 ? pcom[i] : (mptr[i + 1] > mptr[i] ? mcom[mptr[i]] : -1));
    if (dim === 2) centreOn(SX[i], SY[i]);
    dirty = true;
  }
  function focusCommunity(c) {
    selectedUser = -1;
    select(c);
    if (dim === 2 && chas[c] !== 0) centreOn(CSX[c], CSY[c]);
  }

  function search(text) {
    const res = document.getElementById("results");
    res.replaceChildren();
    const qy = text.trim();
    if (!qy) return null;
    if (userIndex.has(qy)) { focusUser(userIndex.get(qy)); return { user: qy }; }
    const key = qy.toLowerCase();
    for (const k of [key, "#" + key]) {
      if (nameIndex.has(k)) { focusCommunity(nameIndex.get(k)); return { community: names[nameIndex.get(k)] }; }
    }
    const hits = [];
    for (let k = 0; k < C && hits.length < 20; k++)
      if (names[bySize[k]].toLowerCase().includes(key)) hits.push(["c", bySize[k]]);
    for (let i = 0; i < K && hits.length < 30; i++)
      if (ids[i].startsWith(qy)) hits.push(["u", i]);
    for (const [kind, v] of hits) {
      const d = el("div");
      if (kind === "c") { d.append(swatch(v), `${names[v]} `, el("span", `(${csize[v]})`, "size")); d.addEventListener("click", () => focusCommunity(v)); }
      else { d.append(`user ${ids[v]}`); d.addEventListener("click", () => focusUser(v)); }
      res.append(d);
    }
    if (!hits.length) res.append(el("div", `no match (the page holds ${K.toLocaleString("en")} of ${D.total.toLocaleString("en")} users)`));
    return { matches: hits.length };
  }

  let drag = null;
  canvas.addEventListener("mousedown", (ev) => {
    const [x, y] = toCanvas(ev);
    drag = { x, y, x0: x, y0: y, moved: false, rotate: dim === 3 && !ev.shiftKey };
    canvas.classList.add("dragging");
  });
  window.addEventListener("mouseup", (ev) => {
    if (!drag) return;
    canvas.classList.remove("dragging");
    const d = drag;
    drag = null;
    if (d.moved || ev.target !== canvas) return;
    const i = pickAt(d.x0, d.y0, 5);
    if (i >= 0) { selectedUser = i; select(pcom[i] >= 0 ? pcom[i] : -1); }
    else { selectedUser = -1; select(-1); }
  });
  canvas.addEventListener("mousemove", (ev) => {
    const [x, y] = toCanvas(ev);
    if (drag) {
      const dx = x - drag.x, dy = y - drag.y;
      if (Math.abs(x - drag.x0) + Math.abs(y - drag.y0) > 4) drag.moved = true;
      if (drag.moved) {
        if (drag.rotate) {
          view.yaw += dx * 0.01;
          view.pitch = Math.max(-1.55, Math.min(1.55, view.pitch + dy * 0.01));
        } else { view.panX += dx; view.panY += dy; }
        dirty = true;
      }
      drag.x = x; drag.y = y;
      tooltip.hidden = true;
      return;
    }
    const i = pickAt(x, y, 6);
    if (i !== hover) dirty = true;
    hover = i;
    if (i >= 0) showTooltip(i, x, y); else tooltip.hidden = true;
  });
  canvas.addEventListener("mouseleave", () => { hover = -1; tooltip.hidden = true; dirty = true; });
  canvas.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const [x, y] = toCanvas(ev);
    const f = Math.exp(-ev.deltaY * 0.0015);
    const z = Math.max(0.2, Math.min(4000, view.zoom * f));
    const g = z / view.zoom;
    view.panX = x - W / 2 - g * (x - W / 2 - view.panX);
    view.panY = y - H / 2 - g * (y - H / 2 - view.panY);
    view.zoom = z;
    dirty = true;
  }, { passive: false });
  document.getElementById("search").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") search(ev.target.value);
  });
  document.getElementById("reset").addEventListener("click", () => {
    view.zoom = 1; view.panX = 0; view.panY = 0; selectedUser = -1; select(-1);
  });
  const rot = document.getElementById("rotate");
  rot.addEventListener("change", () => { autoRotate = rot.checked; });
  window.addEventListener("resize", resize);

  // ---- panel --------------------------------------------------------------------------
  document.getElementById("title").textContent = D.title;
  document.title = D.title;
  document.getElementById("summary").textContent =
    `${D.total.toLocaleString("en")} users, ${C.toLocaleString("en")} communities; ` +
    `${K.toLocaleString("en")} users drawn (budget ${D.budget.toLocaleString("en")}: leaders, ` +
    `then members of the biggest communities, seed ${D.seed}), ${L.toLocaleString("en")} leaders. ` +
    (dim === 3 ? "Drag to rotate, shift-drag to pan, wheel to zoom." : "Drag to pan, wheel to zoom.") +
    " Click a point or a community to highlight it.";
  if (dim === 3) document.getElementById("rotate-label").hidden = false;
  const legend = document.getElementById("legend");
  for (let k = 0; k < Math.min(C, 60); k++) {
    const c = bySize[k];
    const li = el("li");
    li.dataset.c = String(c);
    li.append(swatch(c), `${names[c]} `, el("span", `(${csize[c].toLocaleString("en")})`, "size"));
    li.addEventListener("click", () => focusCommunity(c));
    legend.append(li);
  }

  // ---- loop and test hook -------------------------------------------------------------
  function tick(t) {
    const dt = lastT ? Math.min(100, t - lastT) : 0;
    lastT = t;
    if (autoRotate && !drag) { view.yaw += dt * 0.0004; dirty = true; }
    if (dirty) { dirty = false; render(); }
    requestAnimationFrame(tick);
  }
  resize();
  render();
  dirty = false;
  requestAnimationFrame(tick);

  function client(x, y) {
    const r = canvas.getBoundingClientRect();
    const dpr = W / Math.max(1, r.width);
    return { x: r.left + x / dpr, y: r.top + y / dpr };
  }
  window.hpgraph = {
    ready: true,
    dim, kept: K, total: D.total, communities: C, leaders: L,
    frames: () => frames,
    renderMs: () => renderMs,
    yaw: () => view.yaw,
    zoom: () => view.zoom,
    selected: () => selected,
    selectedUser: () => (selectedUser >= 0 ? ids[selectedUser] : null),
    indexOfUser: (id) => (userIndex.has(String(id)) ? userIndex.get(String(id)) : -1),
    community: (i) => pcom[i],
    // where point i was drawn in the last frame, in client (CSS) pixels
    pointToScreen: (i) => client(SX[i], SY[i]),
    // the point drawn nearest to client pixel (x, y) within 6 pixels, or -1
    screenToPoint: (x, y) => {
      const r = canvas.getBoundingClientRect();
      const dpr = W / Math.max(1, r.width);
      return pickAt((x - r.left) * dpr, (y - r.top) * dpr, 6);
    },
    centroidToScreen: (c) => client(CSX[c], CSY[c]),
    setAutoRotate: (on) => { autoRotate = !!on; rot.checked = autoRotate; },
    search,
  };
})();
