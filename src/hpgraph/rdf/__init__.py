"""Given RDF data (N-Triples, Turtle), returns a dictionary-encoded triple store that
answers SPARQL SELECT queries on a columnar executor and hands predicate subgraphs to the
graph kernels. See docs/rdf.md."""

from hpgraph.rdf.store import Store

__all__ = ["Store"]
