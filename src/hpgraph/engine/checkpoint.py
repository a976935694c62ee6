"""Superstep checkpoints of a vertex job: what to save to resume bit for bit, the
on-disk store, the fast tier with a background drain, and the hook the superstep loop
calls (Giraph's and Hama's checkpoints; the fast tier after the seed's tiered storage).

A checkpoint of superstep N (the state in which superstep N starts) is a folder
``superstep-NNNNNNNN/`` holding, per process (``rank-R/``), one ``.npy`` file per array
of that process's own vertices and its ``files.json`` (size and SHA-256 of each), and a
``manifest.json`` written last and atomically (temporary file, fsync, ``os.replace``)
by process 0 once every process has written its files. A folder without a manifest is
incomplete, one whose files do not match their checksums is corrupt: neither is used.

What a job saves is what its next superstep reads: the per-vertex value, state, inbox,
has_msg, outbox and sending arrays, the sender and candidate lists with the per-part
counters that size them, listed messages (msg_ptr/msg_val), the last broadcast of a
dense superstep (the next one pulls it), the aggregator values, and the dense and rescan
flags. Resuming on the same ranks and threads gives the same bits as running through.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import queue
import shutil
import threading
import warnings
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hpgraph.errors import HPGraphError, InvalidArgumentError

__all__ = [
    "Checkpoints",
    "CheckpointWarning",
    "Faults",
    "complete_checkpoints",
    "crc",
    "list_checkpoints",
    "save_job",
    "restore_job",
]

FORMAT = 1
MANIFEST = "manifest.json"
_PREFIX = "superstep-"
_PER_VERTEX = ("value", "state", "inbox", "has_msg", "outbox", "sending", "senders", "candidates")
#: what a dense superstep does not read: it pulls its messages into ``inbox`` (``has_msg``
#: for vertices with in-edges, the others' entries are never read), writes every sender's
#: ``outbox`` entry, and keeps no lists (the superstep after it rebuilds them from the
#: flags); so a checkpoint before a dense superstep leaves them out (PageRank: 45% less)
_NOT_DENSE = ("inbox", "outbox", "senders", "candidates")


class CheckpointWarning(UserWarning):
    """A checkpoint could not be written, or one found was corrupt and skipped."""


class Faults:
    """What the checkpoint hook calls so a fault injector can act (all no-ops here;
    :mod:`hpgraph.runtimes.faults` implements them): at the end of every superstep,
    before a checkpoint is written (may raise ``OSError``) and after it is complete."""

    def superstep(self, ss: int, rank: int) -> None:
        """Superstep ``ss`` is about to start (``ss`` supersteps are done)."""

    def writing(self, ss: int, rank: int, folder: Path) -> None:
        """This process is about to write its files of checkpoint ``ss``."""

    def written(self, ss: int, rank: int, folder: Path) -> None:
        """Checkpoint ``ss`` is complete (its manifest is written)."""


@dataclass
class Checkpoints:
    """Checkpointing options of a vertex job (``run(..., checkpoint=Checkpoints(...))``).

    ``dir``: the (fast) tier the checkpoints are written to, every ``every`` supersteps,
    the last ``keep`` kept; ``drain``: a durable folder a background thread copies each
    complete checkpoint to (a superstep waits only while more than ``keep`` are not yet
    copied); ``resume``: start from the newest complete checkpoint in ``dir`` or
    ``drain`` (a corrupt one is skipped with a warning; none at all: from the start);
    ``faults``: a :class:`Faults` the hook calls (a fault injector). ``dir`` may be None
    when only ``faults`` is wanted. ``resumed_from`` is set by the job that uses them:
    (superstep, folder) of the checkpoint it resumed from, None when it started from
    superstep 0."""

    dir: str | os.PathLike | None
    every: int = 5
    keep: int = 2
    drain: str | os.PathLike | None = None
    resume: bool = False
    faults: Faults | None = None
    resumed_from: tuple[int, str] | None = field(default=None, init=False, compare=False)

    def __post_init__(self):
        for what in ("every", "keep"):
            x = getattr(self, what)
            if int(x) != x or x < 1:
                raise InvalidArgumentError(f"checkpoint {what} must be an integer >= 1, got {x}")
        if self.dir is None and (self.drain is not None or self.resume):
            raise InvalidArgumentError("checkpoint drain and resume need a checkpoint dir")

    def open(self, job) -> _Session:
        """The hook of one job's superstep loop (checks the folders first)."""
        return _Session(self, job)


# ---------------------------------------------------------------- files and manifests
def _folder(root: Path, ss: int) -> Path:
    return root / f"{_PREFIX}{ss:08d}"


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _write_npy(path: Path, arr: np.ndarray) -> dict:
    """``arr`` as a ``.npy`` file, written and hashed from its own memory (no copy)."""
    arr = np.ascontiguousarray(arr)
    head = io.BytesIO()
    fmt = np.lib.format
    fmt.write_array_header_1_0(head, fmt.header_data_from_array_1_0(arr))
    h = hashlib.sha256()
    size = 0
    with open(path, "wb") as f:
        for chunk in (head.getvalue(), memoryview(arr.reshape(-1).view(np.uint8))):
            h.update(chunk)
            f.write(chunk)
            size += len(chunk)
    return {"bytes": size, "sha256": h.hexdigest()}


def hash_bytes(data: bytes) -> str:
    """The SHA-256 of ``data`` as a checkpoint's file lists record it."""
    return hashlib.sha256(data).hexdigest()


def _write_arrays(folder: Path, arrays: dict, threads: int = 1, blobs=None) -> dict:
    """Each array to ``folder/<name>.npy``, on ``threads`` threads (hashing and copying
    release the GIL; the job's own threads are idle between supersteps), and each of
    ``blobs`` (``{file: bytes}``) as it is; ``{file: {"bytes", "sha256"}}``, also
    written to ``folder/files.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    if threads <= 1:
        files = {f"{n}.npy": _write_npy(folder / f"{n}.npy", a) for n, a in arrays.items()}
    else:
        with ThreadPoolExecutor(threads) as pool:
            done = {n: pool.submit(_write_npy, folder / f"{n}.npy", a) for n, a in arrays.items()}
            files = {f"{n}.npy": f.result() for n, f in done.items()}
    for name, data in (blobs or {}).items():
        _write_atomic(folder / name, data)
        files[name] = {"bytes": len(data), "sha256": hash_bytes(data)}
    _write_atomic(folder / "files.json", json.dumps(files).encode())
    return files


def _read_manifest(folder: Path) -> dict | None:
    try:
        m = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(m, dict) or m.get("format") != FORMAT or "superstep" not in m:
        return None
    return m


def complete_checkpoints(root) -> list[tuple[int, Path, dict]]:
    """``(superstep, folder, manifest)`` of every checkpoint in ``root`` with a readable
    manifest, oldest first (checksums are not read here)."""
    root = Path(root)
    out = []
    with contextlib.suppress(OSError):
        for p in root.iterdir():
            if p.name.startswith(_PREFIX) and p.is_dir():
                m = _read_manifest(p)
                if m is not None:
                    out.append((int(m["superstep"]), p, m))
    return sorted(out, key=lambda t: t[0])


def list_checkpoints(root) -> list[str]:
    """One line per complete checkpoint in ``root``, oldest first, each starting
    ``superstep N`` (``hpgraph checkpoint list``); InvalidArgumentError if ``root`` is
    not a readable folder."""
    root = Path(root)
    if not root.is_dir():
        raise InvalidArgumentError(f"{root}: no such checkpoint folder")
    lines = []
    for ss, folder, m in complete_checkpoints(root):
        size = sum(f["bytes"] for f in m["files"].values())
        fp = m["fingerprint"]
        if "parts" in fp:  # a vertex job
            who = (
                f"n={fp['n']:,}  {fp['processes']} process(es) x "
                f"{fp['parts'] // fp['processes']} part(s)"
            )
        else:  # a peer-level program
            who = f"{fp['peers']} peer(s) in {fp['processes']} process(es)"
        lines.append(
            f"superstep {ss}  {folder.name}  {fp['program']}  {who}  "
            f"{len(m['files'])} files  {size / 2**20:.1f} MiB"
        )
    return lines


def _verify(folder: Path, files: dict, prefix: str) -> str | None:
    """The first of ``files`` under ``prefix`` missing or not matching its checksum."""
    for rel, meta in files.items():
        if not rel.startswith(prefix):
            continue
        try:
            data = (folder / rel).read_bytes()
        except OSError:
            return f"{rel} missing"
        if len(data) != meta["bytes"] or hash_bytes(data) != meta["sha256"]:
            return f"{rel} does not match its checksum"
    return None


# ---------------------------------------------------------------- what a job saves
def crc(*arrays) -> int:
    """A cheap hash of (samples of) arrays: whole when small, else 2^20 evenly spaced
    (a fingerprint's graph and inputs)."""
    crc = 0
    for a in arrays:
        a = np.asarray(a)
        if a.shape[0] > 1 << 20:
            a = a[:: a.shape[0] >> 20]
        crc = zlib.crc32(np.ascontiguousarray(a).tobytes(), crc)
    return crc


def _fingerprint(job) -> dict:
    """What must match for a checkpoint to belong to this job: the same on every
    process (each hashes the rows it owns; one allreduce sums them). Collective."""
    g, rt = job.graph, job.rt
    lo, hi = job.own_range()
    a, b = int(g.indptr[lo]), int(g.indptr[hi])
    rows = [g.indptr[lo : hi + 1], g.indices[a:b]]
    if g.weights is not None:
        rows.append(g.weights[a:b])
    mine = np.array([crc(r) for r in rows] + [b - a], dtype=np.float64)
    tot = rt.allreduce(mine)
    parts = job.partition.parts
    return {
        "program": job.program.name,
        "params": [float(x).hex() for x in job.a["params"]],
        "n": int(g.n),
        "edges": int(tot[-1]),
        "graph": "-".join(f"{int(x):x}" for x in tot[:-1]),
        "processes": parts // len(list(rt.local_parts)),
        "parts": parts,
        "offsets": f"{crc(job.offsets):08x}",
    }


def _rank(job) -> int:
    local = list(job.rt.local_parts)
    return local[0] // len(local)


def _job_arrays(job, dense: bool) -> dict:
    """This process's part of everything the next superstep reads."""
    lo, hi = job.own_range()
    local = list(job.rt.local_parts)
    out = {name: job.own(name) for name in _PER_VERTEX if not (dense and name in _NOT_DENSE)}
    out["counter_rows"] = job.counter_rows[local[0] : local[-1] + 1]
    out["agg_value"] = job.a["agg_value"]
    # receivers listed per chunk (job.woken) are found again by a scan
    rescan = job.rescan or job.woken.shape[0] > 0
    out["flags"] = np.array([dense, rescan], dtype=np.uint8)
    if not job.program.combined:
        ptr = job.a["msg_ptr"]
        out["msg_ptr"] = ptr[lo : hi + 1]
        out["msg_val"] = job.a["msg_val"][ptr[lo] : ptr[hi]]
    if dense:
        out["outbox_spare"] = job.own("outbox_spare")
    return out


def save_job(job, ss: int, folder: Path, dense: bool) -> dict:
    """Write this process's part of ``job`` at the start of superstep ``ss`` into
    ``folder/rank-R/``; its ``{relative file: {"bytes", "sha256"}}``."""
    rank = _rank(job)
    threads = len(list(job.rt.local_parts))  # the job's threads, idle meanwhile
    files = _write_arrays(folder / f"rank-{rank}", _job_arrays(job, dense), threads)
    return {f"rank-{rank}/{k}": v for k, v in files.items()}


def _load(folder: Path, rel: str, meta: dict, raw: bool = False):
    """The array in ``folder/rel`` (its bytes with ``raw``), checked against ``meta``."""
    data = (folder / rel).read_bytes()
    if len(data) != meta["bytes"] or hash_bytes(data) != meta["sha256"]:
        raise HPGraphError(f"{folder / rel}: does not match its checksum")
    return data if raw else np.load(io.BytesIO(data), allow_pickle=False)


def restore_job(job, folder: Path, manifest: dict) -> tuple[int, bool]:
    """Put this process's part of checkpoint ``folder`` back into ``job``; returns the
    superstep to start and whether it is dense. Collective (a dense superstep's
    broadcasts are mirrored to every process)."""
    rank = _rank(job)
    files = manifest["files"]

    def get(name):
        rel = f"rank-{rank}/{name}.npy"
        return _load(folder, rel, files[rel])

    dense, rescan = (bool(x) for x in get("flags"))
    for name in _PER_VERTEX:
        if not (dense and name in _NOT_DENSE):
            job.own(name)[...] = get(name)
    local = list(job.rt.local_parts)
    job.counter_rows[local[0] : local[-1] + 1] = get("counter_rows")
    job.a["agg_value"][:] = get("agg_value")
    job.rescan = rescan
    if not job.program.combined:
        lo, hi = job.own_range()
        job.a["msg_ptr"][lo : hi + 1] = get("msg_ptr")
        job.set_array("msg_val", np.ascontiguousarray(get("msg_val")))
    if dense:
        box = job.a["outbox"]
        job.a["outbox_spare"] = job.vertex_array(box.shape[1:], box.dtype, fill=None)
        job.own("outbox_spare")[...] = get("outbox_spare")
        job.pulled = job.rt.mirror(job.a["outbox_spare"], job.offsets)
    return int(manifest["superstep"]), dense


# ---------------------------------------------------------------- the folders
class _Folders:
    """The checkpoint folders of one job, for any kind of job: the fingerprint check, the
    choice of the newest usable checkpoint, the manifest, pruning to ``keep`` and the
    drain. ``lead`` (process 0) makes the folders, writes manifests, prunes and drains;
    ``agree(flag)`` is the largest ``flag`` over every writer (collective); ``units``:
    the subfolders one checkpoint has (one per writer), listed in its manifest."""

    def __init__(self, opts: Checkpoints, fingerprint: dict, lead: bool, agree, units):
        self.opts, self.fingerprint, self.lead, self.agree = opts, fingerprint, lead, agree
        self.units = list(units)
        opts.resumed_from = None  # this job's, set when it resumes
        self.root = Path(opts.dir)
        self.drain_root = Path(opts.drain) if opts.drain is not None else None
        self.drainer = None
        if (
            opts.resume
            and not self.root.is_dir()
            and not (self.drain_root is not None and self.drain_root.is_dir())
        ):
            raise InvalidArgumentError(f"{self.root}: no such checkpoint folder to resume from")
        for root in (self.root, self.drain_root):
            if root is None:
                continue
            found = complete_checkpoints(root)
            if found:  # never overwrite another job's checkpoints
                self.check_ours(found[-1][1], found[-1][2])
        if lead:
            for root in (self.root, self.drain_root):
                if root is not None:
                    root.mkdir(parents=True, exist_ok=True)
            if self.drain_root is not None:
                self.drainer = _Drainer(self.drain_root, opts.keep)
        self.agree(0.0)  # the folders exist before anyone writes

    def check_ours(self, folder: Path, manifest: dict) -> None:
        theirs = manifest.get("fingerprint", {})
        for key, mine in self.fingerprint.items():
            if theirs.get(key) != mine:
                raise InvalidArgumentError(
                    f"{folder}: a checkpoint of another job ({key}: {theirs.get(key)!r} "
                    f"there, {mine!r} here); use another checkpoint folder"
                )

    def warn(self, text: str) -> None:
        if self.lead:
            warnings.warn(text, CheckpointWarning, stacklevel=3)

    def newest_usable(self, prefixes) -> tuple[Path, dict] | None:
        """The newest complete checkpoint in the tier or the drain whose files under
        ``prefixes`` (this writer's) and every other writer's match their checksums, a
        corrupt one skipped with a warning; None if there is none. Collective."""
        found = complete_checkpoints(self.root)
        if self.drain_root is not None:
            have = {ss for ss, _, _ in found}
            found += [c for c in complete_checkpoints(self.drain_root) if c[0] not in have]
        for ss, folder, manifest in sorted(found, key=lambda t: t[0], reverse=True):
            self.check_ours(folder, manifest)
            bad = next((b for p in prefixes if (b := _verify(folder, manifest["files"], p))), None)
            if self.agree(1.0 if bad else 0.0):
                self.warn(f"{folder}: corrupt ({bad or 'on another rank'}); trying an older one")
                continue
            self.opts.resumed_from = (int(ss), str(folder))
            return folder, manifest
        if found:
            self.warn(f"{self.root}: no usable checkpoint; starting from superstep 0")
        return None

    def write(self, ss: int, save, faults: Faults, rank: int, **extra) -> None:
        """Checkpoint ``ss``: ``save(folder)`` writes this writer's files (every writer
        calls this at once); once every writer has, the lead writes the manifest (with
        ``extra``), prunes and queues the drain. A failed write on any writer leaves no
        checkpoint and a warning: the job goes on."""
        folder = _folder(self.root, ss)
        if self.drainer is not None:
            self.drainer.wait_below(self.opts.keep)
        error = None
        try:
            if self.lead:
                with contextlib.suppress(FileNotFoundError):
                    (folder / MANIFEST).unlink()  # being rewritten: incomplete
            faults.writing(ss, rank, folder)
            save(folder)
        except OSError as exc:
            error = exc
        if self.agree(1.0 if error else 0.0):  # every writer wrote its part, or not
            self.warn(
                f"checkpoint of superstep {ss} not written ({error or 'failed on another rank'})"
                "; the job goes on"
            )
            if self.lead:
                shutil.rmtree(folder, ignore_errors=True)
            return
        if self.lead:
            try:
                self._manifest(ss, folder, extra)
            except OSError as exc:
                self.warn(f"checkpoint of superstep {ss} not written ({exc}); the job goes on")
                shutil.rmtree(folder, ignore_errors=True)
                return
            self._prune()
            if self.drainer is not None:
                self.drainer.put(ss, folder)
        faults.written(ss, rank, folder)

    def _manifest(self, ss, folder, extra):
        files = {}
        for unit in self.units:
            part = json.loads((folder / unit / "files.json").read_text())
            files.update({f"{unit}/{k}": v for k, v in part.items()})
        m = {"format": FORMAT, "superstep": ss, **extra}
        m.update(fingerprint=self.fingerprint, files=files)
        _write_atomic(folder / MANIFEST, json.dumps(m, indent=1).encode())

    def _prune(self):
        found = complete_checkpoints(self.root)
        drained = self.drainer.done if self.drainer is not None else None
        for ss, folder, _ in found[: max(len(found) - self.opts.keep, 0)]:
            if drained is None or ss in drained:
                shutil.rmtree(folder, ignore_errors=True)

    def close(self) -> None:
        """Wait for the drain to finish (the durable copy is complete at the end)."""
        if self.drainer is not None:
            self.drainer.close()
            self._prune()


# ---------------------------------------------------------------- the loop's hook
class _Session:
    """One vertex job's checkpoints: restore before the loop, save at the end of a
    superstep, drain in the background, prune to ``keep``."""

    def __init__(self, opts: Checkpoints, job):
        self.opts, self.job = opts, job
        self.rank = _rank(job)
        self.faults = opts.faults or Faults()
        self.folders = None
        if opts.dir is None:
            return
        fp = _fingerprint(job)

        def agree(flag):
            return float(job.rt.allreduce(np.array([flag], dtype=np.float64), "max")[0])

        units = [f"rank-{r}" for r in range(fp["processes"])]
        self.folders = _Folders(opts, fp, self.rank == 0, agree, units)

    def restore(self) -> tuple[int, bool]:
        """(superstep to start at, dense): from the newest usable checkpoint when
        resuming, else (0, False)."""
        if self.folders is None or not self.opts.resume:
            return 0, False
        found = self.folders.newest_usable([f"rank-{self.rank}/"])
        if found is None:
            return 0, False
        return restore_job(self.job, *found)

    def superstep_done(self, ss: int, dense: bool) -> None:
        """Superstep ``ss`` is about to start: checkpoint it when due, then let the
        fault injector act."""
        if self.folders is not None and ss % self.opts.every == 0:
            self.folders.write(
                ss,
                lambda folder: save_job(self.job, ss, folder, dense),
                self.faults,
                self.rank,
                dense=dense,
            )
        self.faults.superstep(ss, self.rank)

    def close(self) -> None:
        if self.folders is not None:
            self.folders.close()


class _Drainer:
    """A thread that copies complete checkpoints to the durable folder (the files,
    then the manifest, atomically, last) and keeps its newest ``keep``."""

    def __init__(self, root: Path, keep: int):
        self.root, self.keep = root, keep
        self.q: queue.Queue = queue.Queue()
        self.pending = 0
        self.done: set[int] = set()
        self.error: BaseException | None = None
        self.cv = threading.Condition()
        self.thread = threading.Thread(target=self._run, name="checkpoint-drain", daemon=True)
        self.thread.start()

    def put(self, ss, folder):
        with self.cv:
            self.pending += 1
        self.q.put((ss, folder))

    def wait_below(self, limit):
        """Block while ``limit`` or more checkpoints wait to be copied (the fast tier
        would hold more than ``keep`` undrained ones)."""
        with self.cv:
            self.cv.wait_for(lambda: self.pending < limit)

    def _run(self):
        while True:
            item = self.q.get()
            if item is None:
                return
            ss, folder = item
            try:
                self._copy(ss, folder)
            except OSError as exc:
                warnings.warn(
                    f"checkpoint of superstep {ss} not drained to {self.root} ({exc})",
                    CheckpointWarning,
                    stacklevel=1,
                )
            with self.cv:
                self.pending -= 1
                self.done.add(ss)
                self.cv.notify_all()

    def _copy(self, ss, folder):
        dst = _folder(self.root, ss)
        with contextlib.suppress(FileNotFoundError):
            (dst / MANIFEST).unlink()
        for src in sorted(folder.rglob("*")):
            if src.is_file() and src.name != MANIFEST:
                target = dst / src.relative_to(folder)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, target)
        _write_atomic(dst / MANIFEST, (folder / MANIFEST).read_bytes())
        found = complete_checkpoints(self.root)
        for _, old, _ in found[: max(len(found) - self.keep, 0)]:
            shutil.rmtree(old, ignore_errors=True)

    def close(self):
        self.q.put(None)
        self.thread.join()
