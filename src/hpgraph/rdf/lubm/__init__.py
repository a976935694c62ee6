"""LUBM, the Lehigh University Benchmark: a data generator written from its published data
profile, its univ-bench ontology (Turtle) and its 14 queries."""

from hpgraph.rdf.lubm.generate import UB, generate_lubm, iter_lubm
from hpgraph.rdf.lubm.ontology import UNIV_BENCH, write_ontology

__all__ = ["UB", "generate_lubm", "iter_lubm", "UNIV_BENCH", "write_ontology"]
