"""Checkpoints of peer-level BSP programs (``run_bsp(..., checkpoint=Checkpoints(...))``).

The engine cannot see a peer program's state: it lives in the program's local
variables between ``peer.sync()`` calls. So a program that wants checkpoints names it.
At a point of its loop where everything it needs to go on is a few values and the
messages it has just received, every peer calls ``peer.checkpoint(state, shared)``;
every ``every``-th such point is written. When the job resumes, the program starts from
its beginning with ``peer.resumed`` (its ``state``), ``peer.resumed_shared`` (its
process's ``shared``), ``peer.superstep`` and ``peer.messages()`` as they were at that
point, and it jumps to that point of its loop::

    def program(peer, graph):
        saved = peer.resumed
        x = saved["x"] if saved is not None else initial(graph)
        while True:
            peer.checkpoint({"x": x})   # a resume starts here
            ...compute from peer.messages(), send...
            peer.sync()

``state`` is per peer; ``shared`` is what the peers of one address space share (the local
runtime's threads, one MPI rank), written once per process by its first peer. Values
that are numpy arrays are written as ``.npy`` files; any other value, and the received
messages, are pickled (a checkpoint folder is as trusted as the program's own code).

A checkpoint of superstep N is ``superstep-NNNNNNNN/`` with ``peer-P/`` (one per peer)
and ``rank-R/`` (the shared values of process R) and the same manifest, checksums,
tiers, drain, resume and fingerprint rules as a vertex job's (engine/checkpoint.py). The
fingerprint is the program's name, the peers and processes, and what the caller adds
(``run_bsp(..., fingerprint={...})``: the graph and parameters). The fault injector's
superstep faults act when a peer's superstep is about to start (after ``sync()``).
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np

from hpgraph.engine.checkpoint import (
    Checkpoints,
    Faults,
    _Folders,
    _load,
    _write_arrays,
)
from hpgraph.errors import HPGraphError

__all__ = ["PeerCheckpoints"]

_OBJECTS = "objects.pkl"


def _split(values: dict | None) -> tuple[dict, dict]:
    """(arrays, other values) of a state dict."""
    arrays, other = {}, {}
    for k, v in (values or {}).items():
        if not isinstance(k, str) or not k.isidentifier():
            raise HPGraphError(f"checkpoint state keys must be identifiers, got {k!r}")
        (arrays if isinstance(v, np.ndarray) else other)[k] = v
    return arrays, other


def _write_unit(folder: Path, values: dict | None, extra: dict, threads: int) -> None:
    """``values`` into ``folder``: arrays as ``.npy`` (on ``threads`` threads), the rest
    and ``extra`` pickled."""
    arrays, other = _split(values)
    blob = pickle.dumps({"values": other, **extra}, protocol=pickle.HIGHEST_PROTOCOL)
    _write_arrays(folder, arrays, threads, blobs={_OBJECTS: blob})


def _read_unit(folder: Path, unit: str, files: dict) -> tuple[dict, dict]:
    """(values, extra) written by :func:`_write_unit` for ``unit``."""
    values, extra = {}, {}
    for rel, meta in files.items():
        head, _, name = rel.partition("/")
        if head != unit:
            continue
        data = _load(folder, rel, meta, raw=name == _OBJECTS)
        if name == _OBJECTS:
            extra = pickle.loads(data)  # noqa: S301 - our own checksummed file
            values.update(extra.pop("values"))
        else:
            values[name.removesuffix(".npy")] = data
    return values, extra


class PeerCheckpoints:
    """The checkpoints of one ``run_bsp`` job in one process, shared by its peers. Made
    before the peers start (collective over processes): it checks the folders and, when
    resuming, reads back this process's peers' part of the newest usable checkpoint.

    ``exchange`` is the runtime's transport (``peers``, ``local``: this process's peer
    ids, ``local_barrier()``); ``agree(flag)``: the largest flag over processes."""

    def __init__(self, opts: Checkpoints, exchange, agree, name: str, fingerprint=None):
        self.opts, self.x = opts, exchange
        local = list(exchange.local)
        self.local = local
        self.rank = local[0] // len(local)
        self.processes = exchange.peers // len(local)
        self.faults = opts.faults or Faults()
        self.start = 0  # the superstep resumed at: its checkpoint is not written again
        self.resumed: dict[int, tuple] = {}  # pid -> (values, inbox, points passed)
        self.resumed_shared = None
        self._slots: dict[int, tuple] = {}
        self.folders = None
        if opts.dir is None:
            return
        fp = {"program": name, "peers": exchange.peers, "processes": self.processes}
        fp.update({str(k): v if isinstance(v, int | str) else repr(v)
                   for k, v in (fingerprint or {}).items()})  # fmt: skip
        units = [f"peer-{p}" for p in range(exchange.peers)]
        units += [f"rank-{r}" for r in range(self.processes)]
        self.folders = _Folders(opts, fp, self.rank == 0, agree, units)
        if opts.resume:
            self._restore()

    def _restore(self) -> None:
        prefixes = [f"peer-{p}/" for p in self.local] + [f"rank-{self.rank}/"]
        found = self.folders.newest_usable(prefixes)
        if found is None:
            return
        folder, manifest = found
        files = manifest["files"]
        for p in self.local:
            values, extra = _read_unit(folder, f"peer-{p}", files)
            self.resumed[p] = (values, extra["inbox"], int(manifest["points"]))
        shared, extra = _read_unit(folder, f"rank-{self.rank}", files)
        self.resumed_shared = shared if extra.get("given") else None
        self.start = int(manifest["superstep"])

    # -- called by the peers (engine/bsp.py)
    def point(self, peer, points: int, state, shared) -> None:
        """Peer ``peer`` is at its checkpoint point number ``points`` (every peer at once):
        when due, the process's first peer writes every local peer's files (the others
        wait at a barrier on each side, so nobody changes what is being written)."""
        if (
            self.folders is None
            or points % self.opts.every
            or (self.resumed and peer.superstep == self.start)
        ):
            return
        first = peer.pid == self.local[0]
        self._slots[peer.pid] = (state, list(peer.messages()), shared if first else None)
        self.x.local_barrier()  # every local peer has handed its state over
        if first:
            self.folders.write(peer.superstep, self._save, self.faults, self.rank, points=points)
            self._slots.clear()
        self.x.local_barrier()  # written: the peers may change their state again

    def _save(self, folder: Path) -> None:
        """Every local peer's unit, then the process's shared one, each array on a
        thread of its own (up to one per local peer: they wait meanwhile)."""
        threads = len(self.local)
        for p, (st, inbox, _) in sorted(self._slots.items()):
            _write_unit(folder / f"peer-{p}", st, {"inbox": inbox}, threads)
        shared = self._slots[self.local[0]][2]
        _write_unit(folder / f"rank-{self.rank}", shared, {"given": shared is not None}, threads)

    def superstep(self, peer) -> None:
        """Superstep ``peer.superstep`` is about to start: the fault injector acts."""
        if peer.pid == self.local[0]:
            self.faults.superstep(peer.superstep, self.rank)

    def close(self) -> None:
        if self.folders is not None:
            self.folders.close()
