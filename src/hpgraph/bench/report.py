"""Printing and writing a :class:`~hpgraph.bench.harness.BenchReport` (rich table,
Markdown, CSV)."""

from __future__ import annotations

import csv
import math
import os
import tempfile

__all__ = ["print_report", "write_report", "to_markdown", "write_csv"]

COLUMNS = [
    ("kernel", "kernel"),
    ("graph", "graph"),
    ("V", "|V|"),
    ("E", "|E|"),
    ("system", "system"),
    ("threads", "threads"),
    ("median_s", "median s"),
    ("min_s", "min s"),
    ("spread", "spread"),
    ("ratio", "vs hpgraph"),
    ("evps", "EVPS"),
    ("teps", "TEPS"),
    ("peak_rss_mb", "peak RSS MB"),
    ("check", "check"),
    ("note", "note"),
]


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _si(x) -> str:
    if _nan(x):
        return "-"
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


def _cell(key, value, short=True) -> str:
    if key in ("V", "E"):
        return _si(value) if short else str(value)
    if key in ("median_s", "min_s"):
        return "-" if _nan(value) else f"{value:.4g}"
    if key == "spread":
        return "-" if _nan(value) else f"{100 * value:.0f}%"
    if key == "ratio":
        return "-" if _nan(value) else f"{value:.2f}x"
    if key in ("evps", "teps"):
        return _si(value)
    if key == "peak_rss_mb":
        return "-" if _nan(value) else f"{value:.0f}"
    if key == "threads":
        text = str(value if value is not None else "")
        return text.split(" (")[0] if short else text
    return "" if value is None else str(value)


def _ratio_table(report):
    """{(kernel, graph): {system: ratio}} and the competitors' names in order."""
    competitors, table = [], {}
    for r in report.rows:
        if r["system"] == "hpgraph":
            continue
        if r["system"] not in competitors:
            competitors.append(r["system"])
        table.setdefault((r["kernel"], r["graph"]), {})[r["system"]] = r.get("ratio")
    return table, competitors


def _gap_lines(report) -> list[str]:
    """ "kernel on graph: hpgraph / GAP = 1.84x" per GAP row that ran (> 1: GAP is
    faster; the issue's target is at most 2)."""
    out = []
    for r in report.rows:
        ratio = r.get("ratio")
        if r["system"] == "gap" and not _nan(ratio) and ratio > 0:
            out.append(f"{r['kernel']} on {r['graph']}: hpgraph / GAP = {1 / ratio:.2f}x")
    return out


def print_report(report, console) -> None:
    from rich.table import Table

    t = Table(title="hpgraph bench (times in seconds; vs hpgraph = system time / hpgraph time)")
    for key, title in COLUMNS:
        right = key not in ("kernel", "graph", "system", "check", "note", "threads")
        t.add_column(title, justify="right" if right else "left", overflow="fold")
    last = None
    for r in report.rows:
        group = (r["kernel"], r["graph"])
        if last is not None and group != last:
            t.add_section()
        last = group
        style = "bold" if r["system"] == "hpgraph" else None
        t.add_row(*[_cell(k, r.get(k)) for k, _ in COLUMNS], style=style)
    console.print(t)
    for info in report.graphs:
        conv = ", ".join(
            f"{p} {c['seconds']:.2f} s" + (f" +{c['rss_mb']:.0f} MB" if "rss_mb" in c else "")
            if isinstance(c, dict)
            else f"{p} {c}"
            for p, c in info["conversions"].items()
        )
        console.print(
            f"{info['graph']}: hpgraph graph {info['bytes_per_edge']:.1f} B/stored edge"
            + (
                f" ({info['bytes_per_edge_weighted']:.1f} weighted)"
                if info["bytes_per_edge_weighted"]
                else ""
            )
            + f"; competitor conversions (untimed): {conv or '-'}",
            highlight=False,
        )
    for line in _gap_lines(report):
        console.print(line, highlight=False)
    for name, why in report.skipped.items():
        console.print(f"skipped {name}: {why}", highlight=False)
    if report.env.get("hpgraph_kernels") != "available":
        console.print(f"hpgraph kernels: {report.env.get('hpgraph_kernels')}", highlight=False)
    for f in report.failures:
        console.print(f"[red]FAILED[/red] {f}", highlight=False)


def _md_table(header, rows) -> list[str]:
    def esc(x):
        return str(x).replace("|", "\\|").replace("\n", " ")

    out = ["| " + " | ".join(esc(h) for h in header) + " |"]
    out.append("|" + "|".join("---" for _ in header) + "|")
    out += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows]
    return out


def to_markdown(report) -> str:
    env = report.env
    lines = ["# hpgraph benchmark", ""]
    keys = ("date", "machine", "hpgraph", "hpgraph_kernels", "python", "numpy", "numba", "openmp")
    for k in keys:
        lines.append(f"- {k}: {env.get(k)}")
    lines.append(
        f"- threads {env.get('threads')}, trials {env.get('trials')} (after one untimed "
        f"warm-up), BFS/SSSP roots {env.get('roots')}, seed {env.get('seed')}, "
        f"PageRank {env.get('pagerank')}"
    )
    if env.get("order"):
        lines.append(f"- {env['order']}")
    for name, c in env.get("competitors", {}).items():
        lines.append(f"- {name} {c.get('version')}: {c.get('threads', '')}")
    if env.get("gap"):
        lines.append(f"- gap: the GAP Benchmark Suite's programs in {env['gap']}")
    for name, why in report.skipped.items():
        lines.append(f"- skipped {name}: {why}")
    lines += ["", "## Graphs", ""]
    rows = []
    for g in report.graphs:
        bpe = f"{g['bytes_per_edge']:.1f}"
        if g["bytes_per_edge_weighted"]:
            bpe += f" ({g['bytes_per_edge_weighted']:.1f} weighted)"
        rows.append(
            [
                g["graph"],
                g["V"],
                g["E"],
                g["stored_edges"],
                "directed" if g["directed"] else "undirected",
                f"{g['make_s']:.2f}",
                bpe,
                f"{g['peak_rss_after_make_mb']:.0f}",
                " ".join(map(str, g["roots"])),
            ]
        )
    lines += _md_table(
        [
            "graph",
            "|V|",
            "|E|",
            "stored edges",
            "kind",
            "made in s",
            "B/stored edge",
            "peak RSS MB after",
            "roots",
        ],
        rows,
    )
    conv_rows = [
        [g["graph"], p, f"{c['seconds']:.2f}", f"{c.get('rss_mb', float('nan')):.0f}"]
        if isinstance(c, dict)
        else [g["graph"], p, c, ""]
        for g in report.graphs
        for p, c in g["conversions"].items()
    ]
    if conv_rows:
        lines += ["", "Competitor conversions (untimed):", ""]
        lines += _md_table(["graph", "competitor", "seconds", "RSS growth MB"], conv_rows)
    lines += ["", "## Results", ""]
    lines += _md_table(
        [title for _, title in COLUMNS],
        [[_cell(k, r.get(k), short=False) for k, _ in COLUMNS] for r in report.rows],
    )
    table, competitors = _ratio_table(report)
    if competitors and any(r["system"] == "hpgraph" and r["runs"] for r in report.rows):
        lines += ["", "## Competitor time / hpgraph time (> 1: hpgraph is faster)", ""]
        ratios = [[_cell("ratio", v.get(c)) for c in competitors] for v in table.values()]
        lines += _md_table(
            ["kernel", "graph", *competitors],
            [[k, g, *row] for (k, g), row in zip(table, ratios, strict=True)],
        )
    gap = _gap_lines(report)
    if gap:
        lines += ["", "## hpgraph time / GAP time (> 1: GAP is faster)", ""]
        lines += [f"- {line}" for line in gap]
    if report.failures:
        lines += ["", "## Failures", ""] + [f"- {f}" for f in report.failures]
    lines += [
        "",
        "Spread: each root's median trial over its fastest, summed over roots (BFS, SSSP: "
        "roots differ in work). EVPS = (|V| + |E|) / median time. TEPS (BFS, SSSP) = edges "
        "of the traversed component / time, harmonic mean over roots. Peak RSS is the "
        "process's high-water mark after the row ran.",
        "",
    ]
    return "\n".join(lines)


def write_csv(report, path) -> None:
    keys = [k for k, _ in COLUMNS] + ["runs", "agree"]
    with _atomic(path) as f:
        w = csv.writer(f)
        w.writerow(keys)
        for r in report.rows:
            w.writerow(["" if _nan(r.get(k)) else r.get(k) for k in keys])


def write_report(report, path) -> None:
    """Markdown (``.md``) or CSV (``.csv``) by extension, written atomically."""
    path = os.fspath(path)
    if path.lower().endswith(".csv"):
        write_csv(report, path)
    else:
        with _atomic(path) as f:
            f.write(to_markdown(report))


class _atomic:
    """Write to a temporary file beside ``path`` and rename it over ``path`` on success."""

    def __init__(self, path):
        self.path = os.fspath(path)

    def __enter__(self):
        d = os.path.dirname(os.path.abspath(self.path))
        fd, self.tmp = tempfile.mkstemp(dir=d, prefix=".bench-", suffix=".tmp")
        self.f = os.fdopen(fd, "w", newline="")
        return self.f

    def __exit__(self, exc_type, exc, tb):
        self.f.close()
        if exc_type is None:
            os.replace(self.tmp, self.path)
        else:
            os.unlink(self.tmp)
        return False
