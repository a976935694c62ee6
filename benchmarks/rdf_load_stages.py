"""Peak RSS of each stage of an RDF load with univ-bench inference and its save, in one
process as ``Store.load(path, infer="univ-bench")`` and ``Store.save`` run them: parse +
dictionary (``read_nt_ids``), inference, the sort into PSO/POS, the term list and the
save. Each stage's peak is ``VmHWM`` of ``/proc/self/status`` after resetting it (writing
5 to ``/proc/self/clear_refs``, Linux), so the process's own maximum RSS at exit is only
the last stage's. Prints GiB and seconds per stage; the store is written to ``STORE``.

    hpgraph rdf lubm -u 40 -o lubm40.nt
    flock /tmp/hpgraph-big.lock nice -n 10 .venv/bin/python benchmarks/rdf_load_stages.py \\
        lubm40.nt lubm40.store
"""

from __future__ import annotations

import argparse
import shutil
import time


def _status():
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            key, value = line.split(":", 1)
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) * 1024
    return out


def stage(name, fn):
    """Run ``fn`` and print the RSS before, the peak during and the RSS after (GiB)."""
    before = _status()["VmRSS"]
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    now = _status()
    print(
        f"{name:20s} rss before {before / 2**30:6.2f} GiB  peak {now['VmHWM'] / 2**30:6.2f}  "
        f"after {now['VmRSS'] / 2**30:6.2f}  {dt:7.1f} s",
        flush=True,
    )
    return out


def main():
    from hpgraph.rdf.parse import read_nt_ids
    from hpgraph.rdf.store import Store, _infer
    from hpgraph.rdf.triples import sort_quads

    ap = argparse.ArgumentParser()
    ap.add_argument("data", help="an N-Triples file (LUBM)")
    ap.add_argument("store", help="the store directory to write (replaced)")
    args = ap.parse_args()
    ids = {}
    spo = stage("parse + dictionary", lambda: read_nt_ids(args.data, ids))
    print(f"  {len(spo):,} triples, {len(ids):,} terms")
    spo, graph = stage("inference", lambda: _infer(spo, None, ids, "univ-bench"))
    print(f"  {len(spo):,} triples after inference")
    pso, pos, ranges = stage("sort PSO/POS", lambda: sort_quads(spo, graph))
    spo = None  # as in Store.load, held until the sort is done
    terms = stage("terms list", lambda: list(ids))
    store = Store(terms, pso, pos, ranges)
    store._ids = ids
    shutil.rmtree(args.store, ignore_errors=True)
    stage("save", lambda: store.save(args.store))


if __name__ == "__main__":
    main()
