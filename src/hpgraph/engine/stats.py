"""Per-superstep statistics of a BSP job: where the time goes (compute, communication,
barrier) and how much moves (messages and bytes, local vs remote)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

__all__ = ["SuperstepStats", "JobStats"]


@dataclass
class SuperstepStats:
    superstep: int
    active: int  #: vertices (or peers) that ran compute
    messages_local: int  #: logical messages whose target is in the sender's part
    messages_remote: int  #: logical messages to another part
    bytes_local: int
    bytes_remote: int
    #: "push" (sparse) or "pull" delivery, "dense" (pulled by the next superstep in its
    #: one pass, docs/engine.md), "-" for none
    mode: str
    compute_s: float  #: a part's compute time (mean over parts)
    communication_s: float  #: a part's message exchange and delivery time (mean)
    barrier_s: float  #: the rest of the superstep's wall time: waiting for the slowest
    #: part, synchronisation and engine bookkeeping (compute + communication + barrier =
    #: wall time)
    messages_exchanged: int = 0  #: values that crossed between processes after sender-side
    #: combining (MPI: between ranks, or between nodes with node aggregation; 0 on
    #: shared memory, where receivers read the senders' values in place)
    bytes_exchanged: int = 0  #: their bytes, receiver ids included

    @property
    def messages(self) -> int:
        return self.messages_local + self.messages_remote

    @property
    def total_s(self) -> float:
        return self.compute_s + self.communication_s + self.barrier_s


@dataclass
class JobStats:
    runtime: str
    parts: int
    supersteps: list[SuperstepStats] = field(default_factory=list)
    setup_s: float = 0.0  #: partitioning, kernel compile or cache load, buffer allocation
    total_s: float = 0.0

    def totals(self) -> dict[str, float]:
        keys = ("compute_s", "communication_s", "barrier_s")
        out = {k: sum(getattr(s, k) for s in self.supersteps) for k in keys}
        out["messages"] = sum(s.messages for s in self.supersteps)
        out["bytes"] = sum(s.bytes_local + s.bytes_remote for s in self.supersteps)
        return out

    def as_rows(self) -> list[dict]:
        return [asdict(s) for s in self.supersteps]
