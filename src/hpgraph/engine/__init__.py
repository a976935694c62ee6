"""The BSP engine: vertex programs (Pregel / Hama Graph) and peer-level BSP programs."""

from hpgraph.engine.bsp import BSPResult, Peer, run_bsp
from hpgraph.engine.job import JobResult, MasterContext, run
from hpgraph.engine.program import VertexProgram, vertex_program
from hpgraph.engine.stats import JobStats, SuperstepStats

__all__ = [
    "vertex_program",
    "VertexProgram",
    "run",
    "run_bsp",
    "Peer",
    "BSPResult",
    "JobResult",
    "MasterContext",
    "JobStats",
    "SuperstepStats",
]
