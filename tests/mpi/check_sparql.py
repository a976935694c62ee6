"""Run under ``mpiexec -n P STORE [FILE]``: for each size 1..P (the first ranks of the world,
one launch for every size), every query of :data:`QUERIES` (the 14 LUBM queries and
one per SPARQL feature) answered on the store spread over that many ranks
(:class:`~hpgraph.rdf.mpi.DistributedStore`) must equal one process's answer on the
whole store: the same rows as multisets, the same sequence where ORDER BY decides, the
same boolean for ASK and the same triples for CONSTRUCT. Rank 0 prints ``QUERIES
<count>``, then per size ``BYTES <size>: <triples bytes of each rank>`` and ``OK <size>
<name> <rows>`` per query, ``REFUSED <size> <name>: <error>`` per query the ranks do not
answer (:data:`REFUSED`) and ``AFTER <size> <rows>`` for a query after those errors;
with an RDF FILE, ``OK <P> file <name> <rows>`` for the LUBM queries on it (P ranks)."""

from __future__ import annotations

import sys

from mpi4py import MPI

from hpgraph.errors import InvalidArgumentError
from hpgraph.rdf import Store
from hpgraph.rdf.lubm.queries import PREFIXES
from hpgraph.rdf.lubm.queries import QUERIES as LUBM
from hpgraph.rdf.mpi import DistributedStore
from hpgraph.rdf.sparql import run_query, to_table

_D = "http://www.Department{}.University0.edu"
_D0, _D1 = _D.format(0), _D.format(1)
_U0 = "http://www.University0.edu"

FEATURES = {
    "OPTIONAL": "SELECT ?x ?c WHERE { ?x rdf:type ub:GraduateStudent "
    "OPTIONAL { ?x ub:teachingAssistantOf ?c } }",
    "OPTIONAL FILTER": "SELECT ?x ?n WHERE { ?x ub:worksFor ?d "
    'OPTIONAL { ?x ub:name ?n FILTER(STRENDS(?n, "1")) } }',
    "UNION": f"SELECT ?x ?d WHERE {{ {{ ?x rdf:type ub:Lecturer . ?x ub:worksFor ?d }} "
    f"UNION {{ ?x ub:headOf ?d }} UNION {{ ?x ub:memberOf <{_D0}> }} }}",
    "FILTER": "SELECT ?s ?d ?m WHERE { ?s ub:advisor ?a . ?a ub:worksFor ?d . "
    "?s ub:memberOf ?m FILTER(?d != ?m) }",
    "FILTER regex": "SELECT ?x ?n WHERE { ?x rdf:type ub:UndergraduateStudent . "
    '?x ub:name ?n FILTER(regex(?n, "student1[0-9]$", "i")) }',
    "ORDER BY LIMIT": "SELECT ?x ?n WHERE { ?x rdf:type ub:Professor . ?x ub:name ?n } "
    "ORDER BY DESC(?n) ?x LIMIT 25",
    "ORDER BY OFFSET": "SELECT ?d (COUNT(?x) AS ?c) WHERE { ?x ub:memberOf ?d } "
    "GROUP BY ?d ORDER BY DESC(?c) ?d LIMIT 7 OFFSET 3",
    "GROUP BY COUNT": "SELECT ?d (COUNT(?x) AS ?c) WHERE { ?x ub:memberOf ?d } GROUP BY ?d",
    "GROUP BY COUNT DISTINCT": "SELECT ?d (COUNT(DISTINCT ?c) AS ?n) WHERE { "
    "?x ub:memberOf ?d . ?x ub:takesCourse ?c } GROUP BY ?d",
    "SUM HAVING subselect": "SELECT ?u (SUM(?n) AS ?total) WHERE { "
    "{ SELECT ?d (COUNT(?x) AS ?n) WHERE { ?x ub:memberOf ?d } GROUP BY ?d } "
    "?d ub:subOrganizationOf ?u } GROUP BY ?u HAVING (SUM(?n) > 100)",
    "p+": "SELECT ?x ?u WHERE { ?x ub:subOrganizationOf+ ?u }",
    "p* bound": "SELECT ?x ?u WHERE { ?x rdf:type ub:ResearchGroup . ?x ub:subOrganizationOf* ?u }",
    "p* both free": "SELECT ?x ?u WHERE { ?x ub:headOf* ?u }",
    "p* to const": f"SELECT ?x WHERE {{ ?x ub:subOrganizationOf* <{_U0}> }}",
    "^p/q": "SELECT ?p ?d WHERE { ?p ^ub:advisor/ub:memberOf ?d }",
    "!p": f"SELECT ?o WHERE {{ <{_D0}/FullProfessor0> !(rdf:type|ub:name) ?o }}",
    "VALUES": f"SELECT ?x ?d WHERE {{ VALUES ?d {{ <{_D0}> <{_D1}> <http://nowhere> }} "
    "?x ub:memberOf ?d }",
    "VALUES UNDEF": f"SELECT ?x ?d WHERE {{ ?x ub:headOf ?d VALUES (?d ?x) "
    f"{{ (<{_D0}> UNDEF) (UNDEF <{_D1}/FullProfessor0>) }} }}",
    "EXISTS": "SELECT ?s ?p WHERE { ?s ub:advisor ?p "
    "FILTER EXISTS { ?s ub:takesCourse ?c . ?p ub:teacherOf ?c } }",
    "NOT EXISTS": "SELECT ?x WHERE { ?x rdf:type ub:GraduateStudent "
    "FILTER NOT EXISTS { ?x ub:teachingAssistantOf ?c } }",
    "MINUS": "SELECT ?x WHERE { ?x rdf:type ub:GraduateStudent "
    "MINUS { ?x ub:researchAssistant ?g } MINUS { ?x ub:teachingAssistantOf ?c } }",
    "BIND DISTINCT": "SELECT DISTINCT ?k WHERE { ?x ub:worksFor ?d BIND(STR(?d) AS ?k) }",
    "cross product": f"SELECT ?a ?b WHERE {{ ?a ub:headOf <{_D0}> . ?b ub:headOf ?d }}",
    "variable predicate": "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p",
    "subject constant": f"SELECT ?p ?o WHERE {{ <{_D0}/FullProfessor0> ?p ?o }}",
    "object joins": "SELECT ?a ?b ?c WHERE { ?a ub:takesCourse ?c . ?b ub:teacherOf ?c . "
    "?a ub:advisor ?b }",
    "empty": "SELECT ?x WHERE { ?x ub:advisor ?x }",
    "ASK": "ASK { ?x ub:headOf ?d . ?x ub:doctoralDegreeFrom ?u }",
    "ASK ground": f"ASK {{ <{_D0}> ub:subOrganizationOf <{_U0}> }}",
    "CONSTRUCT": "CONSTRUCT { ?p ub:advises ?s } WHERE { ?s ub:advisor ?p }",
}
QUERIES = {**LUBM, **{k: PREFIXES + v for k, v in FEATURES.items()}}


def rows(store, result):
    """Comparable form of a result: a boolean, a sorted list of rows, or with
    ORDER BY the list of rows as given."""
    if result.kind == "ask":
        return result.boolean
    table = to_table(store, result.variables, result.solutions)
    out = list(zip(*(table.column(v).to_pylist() for v in table.column_names), strict=True))
    if not out and table.num_columns == 0:
        out = [()] * table.num_rows
    return out


def main():
    """Each size 1..P in turn: that many ranks (a sub-communicator) hold the store and
    answer every query; rank 0 compares with one process."""
    world = MPI.COMM_WORLD
    rank = world.Get_rank()
    path = sys.argv[1]
    whole = Store.open(path) if rank == 0 else None
    if rank == 0:
        print(f"QUERIES {len(QUERIES)}", flush=True)
    for size in range(1, world.Get_size() + 1):
        comm = world.Split(0 if rank < size else MPI.UNDEFINED, rank)
        if comm != MPI.COMM_NULL:
            dist = DistributedStore.open(path, comm=comm)
            held = comm.gather(dist.nbytes()["triples"], root=0)
            if rank == 0:
                print(f"BYTES {size}: " + " ".join(map(str, held)), flush=True)
            for name, text in QUERIES.items():
                got = dist.query(text)
                if rank == 0:
                    check(
                        f"{size} {name}",
                        rows(dist.store, got),
                        rows(whole, run_query(whole, text)),
                        "ORDER BY" in text,
                    )
            refused(comm, dist)
            if size == world.Get_size() and len(sys.argv) > 2:
                from_file(comm, sys.argv[2])
            comm.Free()
        world.Barrier()


def from_file(comm, path):
    """The LUBM queries on an RDF file (parsed by rank 0, its rows scattered) equal one
    process's on the same file."""
    whole = Store.load(path) if comm.Get_rank() == 0 else None
    dist = DistributedStore.open(path, comm=comm)
    for name, text in LUBM.items():
        got = dist.query(text)
        if comm.Get_rank() == 0:
            want = rows(whole, run_query(whole, text))
            check(f"{comm.Get_size()} file {name}", rows(dist.store, got), want, False)


#: What the ranks do not answer: each a one-line error, the same on every rank.
REFUSED = {
    "DESCRIBE": "DESCRIBE <http://x.org/a>",
    "GRAPH": "SELECT * WHERE { GRAPH ?g { ?s ?p ?o } }",
    "FROM": "SELECT * FROM <http://x.org/g> WHERE { ?s ?p ?o }",
    "syntax": "SELECT ?x WHERE { ?x",
}


def refused(comm, dist):
    """Each of :data:`REFUSED` raises the same one-line error on every rank, and the
    ranks answer the next query as before."""
    for name, text in REFUSED.items():
        try:
            dist.query(text)
            message = None
        except InvalidArgumentError as exc:
            message = str(exc)
        every = comm.gather(message, root=0)
        if comm.Get_rank() == 0:
            same = every[0] is not None and "\n" not in every[0] and len(set(every)) == 1
            print(f"{'REFUSED' if same else 'FAIL'} {comm.Get_size()} {name}: {every[0]}")
    if comm.Get_rank() == 0:
        try:
            dist.store.query(QUERIES["Q1"])  # rank 0 alone: refused, no hang
        except InvalidArgumentError as exc:
            print(f"REFUSED {comm.Get_size()} alone: {exc}")
    got = dist.query(QUERIES["Q1"])
    if comm.Get_rank() == 0:
        print(f"AFTER {comm.Get_size()} {len(rows(dist.store, got))}", flush=True)


def check(name, a, b, ordered):
    """Print OK or FAIL for ``a`` (the ranks' answer) against ``b`` (one process's)."""
    if not ordered and not isinstance(a, bool):
        a, b = sorted(a, key=repr), sorted(b, key=repr)
    size = len(a) if isinstance(a, list) else a
    if a == b:
        print(f"OK {name} {size}", flush=True)
    else:
        want = len(b) if isinstance(b, list) else b
        print(f"FAIL {name}: {size} rows, one process {want}", flush=True)


if __name__ == "__main__":
    main()
