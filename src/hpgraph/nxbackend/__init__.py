"""hpgraph as a NetworkX backend: ``nx.pagerank(G, backend="hpgraph")`` (or every call,
with ``nx.config.backend_priority = ["hpgraph"]``) runs hpgraph's compiled kernels on the
NetworkX graph, converted once and cached on it by NetworkX.

NetworkX finds the backend through two entry points in ``pyproject.toml``:
``networkx.backends`` names :class:`~hpgraph.nxbackend.interface.BackendInterface` and
``networkx.backend_info`` names :func:`~hpgraph.nxbackend._info.get_info`. The functions
it runs and their differences: ``docs/networkx.md``. Importing this package loads neither
NetworkX nor the kernels (NetworkX reads the backend's info while it imports).
"""

from __future__ import annotations

from hpgraph.nxbackend._info import FUNCTIONS, get_info

__all__ = ["FUNCTIONS", "get_info"]
