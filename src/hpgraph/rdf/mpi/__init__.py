"""SPARQL on MPI ranks: the store's default graph spread over the ranks by subject hash,
BGPs joined across the ranks with grouped all-to-all exchanges, everything above the BGPs
on rank 0; the answers are one process's. Run under ``mpiexec -n P`` (or ``hpgraph
sparql DATA -e QUERY --ranks P``); see docs/rdf.md, "MPI".

- :mod:`~hpgraph.rdf.mpi.store`: each rank's share of a store directory or RDF file;
- :mod:`~hpgraph.rdf.mpi.exchange`: row owners, the grouped exchange, copies, gathers;
- :mod:`~hpgraph.rdf.mpi.bgp`: a BGP's joins across the ranks;
- :mod:`~hpgraph.rdf.mpi.cluster`: :class:`DistributedStore`, rank 0 driving the query.
"""

from hpgraph.rdf.mpi.cluster import DistributedStore

__all__ = ["DistributedStore"]
