"""Graph core: the immutable CSR graph and vertex partitions."""

from hpgraph.graph.csr import Graph, index_dtype
from hpgraph.graph.partition import Partition, hash_partition, range_partition

__all__ = ["Graph", "Partition", "index_dtype", "range_partition", "hash_partition"]
