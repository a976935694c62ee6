"""The 14 LUBM queries (the benchmark's published SPARQL text), keyed ``Q1`` ... ``Q14``,
and the answer counts published for LUBM(1) on the original generator's data."""

from __future__ import annotations

__all__ = ["PREFIXES", "QUERIES", "PUBLISHED_LUBM1"]

PREFIXES = (
    "PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n"
    "PREFIX ub: <http://swat.cse.lehigh.edu/onto/univ-bench.owl#>\n"
)
_D0 = "http://www.Department0.University0.edu"
_U0 = "http://www.University0.edu"

QUERIES = {
    name: PREFIXES + text
    for name, text in {
        "Q1": f"SELECT ?X WHERE {{ ?X rdf:type ub:GraduateStudent . "
        f"?X ub:takesCourse <{_D0}/GraduateCourse0> }}",
        "Q2": "SELECT ?X ?Y ?Z WHERE { ?X rdf:type ub:GraduateStudent . "
        "?Y rdf:type ub:University . ?Z rdf:type ub:Department . ?X ub:memberOf ?Z . "
        "?Z ub:subOrganizationOf ?Y . ?X ub:undergraduateDegreeFrom ?Y }",
        "Q3": f"SELECT ?X WHERE {{ ?X rdf:type ub:Publication . "
        f"?X ub:publicationAuthor <{_D0}/AssistantProfessor0> }}",
        "Q4": f"SELECT ?X ?Y1 ?Y2 ?Y3 WHERE {{ ?X rdf:type ub:Professor . "
        f"?X ub:worksFor <{_D0}> . ?X ub:name ?Y1 . ?X ub:emailAddress ?Y2 . "
        f"?X ub:telephone ?Y3 }}",
        "Q5": f"SELECT ?X WHERE {{ ?X rdf:type ub:Person . ?X ub:memberOf <{_D0}> }}",
        "Q6": "SELECT ?X WHERE { ?X rdf:type ub:Student }",
        "Q7": f"SELECT ?X ?Y WHERE {{ ?X rdf:type ub:Student . ?Y rdf:type ub:Course . "
        f"?X ub:takesCourse ?Y . <{_D0}/AssociateProfessor0> ub:teacherOf ?Y }}",
        "Q8": f"SELECT ?X ?Y ?Z WHERE {{ ?X rdf:type ub:Student . ?Y rdf:type ub:Department . "
        f"?X ub:memberOf ?Y . ?Y ub:subOrganizationOf <{_U0}> . ?X ub:emailAddress ?Z }}",
        "Q9": "SELECT ?X ?Y ?Z WHERE { ?X rdf:type ub:Student . ?Y rdf:type ub:Faculty . "
        "?Z rdf:type ub:Course . ?X ub:advisor ?Y . ?Y ub:teacherOf ?Z . "
        "?X ub:takesCourse ?Z }",
        "Q10": f"SELECT ?X WHERE {{ ?X rdf:type ub:Student . "
        f"?X ub:takesCourse <{_D0}/GraduateCourse0> }}",
        "Q11": f"SELECT ?X WHERE {{ ?X rdf:type ub:ResearchGroup . "
        f"?X ub:subOrganizationOf <{_U0}> }}",
        "Q12": f"SELECT ?X ?Y WHERE {{ ?X rdf:type ub:Chair . ?Y rdf:type ub:Department . "
        f"?X ub:worksFor ?Y . ?Y ub:subOrganizationOf <{_U0}> }}",
        "Q13": f"SELECT ?X WHERE {{ ?X rdf:type ub:Person . <{_U0}> ub:hasAlumnus ?X }}",
        "Q14": "SELECT ?X WHERE { ?X rdf:type ub:UndergraduateStudent }",
    }.items()
}

#: Row counts of Q1..Q14 on LUBM(1) from the original generator (UBA), for comparison only.
PUBLISHED_LUBM1 = dict(
    zip(
        QUERIES,
        (4, 0, 6, 34, 719, 7790, 67, 7790, 208, 4, 224, 15, 1, 5916),
        strict=True,
    )
)
