"""Given a number of universities and a seed, writes LUBM-shaped data as N-Triples.

Written from the LUBM data profile (Guo, Pan, Heflin, "LUBM: A benchmark for OWL knowledge
base systems", J. Web Semantics 3(2), 2005), not from its UBA generator: per university
15-25 departments; per department 7-10 full, 10-14 associate and 8-11 assistant
professors and 5-7 lecturers (one full professor heads the department), 8-14
undergraduate and 3-4 graduate students per faculty member, 10-20 research groups; each
faculty member teaches 1-2 courses and 1-2 graduate courses and holds three degrees;
publications per author 15-20 (full), 10-18 (associate), 5-10 (assistant), 0-5
(lecturer); undergraduates take 2-4 courses and one in five has a professor as advisor;
graduate students take 1-3 graduate courses, all have an advisor, co-author 0-5
publications, one in four to five is a teaching assistant and one in three to four a
research assistant. IRIs follow the benchmark's naming so the 14 standard queries apply
unchanged (``http://www.Department0.University0.edu/GraduateCourse0``).

Every university draws from its own generator seeded by ``(seed, university)``, so the
output is deterministic for ``(universities, seed)`` and universities can be produced in
any order. Random draws are numpy arrays per department; only the text is per triple.
"""

from __future__ import annotations

import gzip
import os

import numpy as np

__all__ = ["UB", "generate_lubm", "iter_lubm"]

UB = "http://swat.cse.lehigh.edu/onto/univ-bench.owl#"
_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
#: Universities that degrees are drawn from (at least this many, as in the benchmark).
DEGREE_POOL = 1000
_FACULTY = (  # kind, count range (inclusive), publications range (inclusive)
    ("FullProfessor", (7, 10), (15, 20)),
    ("AssociateProfessor", (10, 14), (10, 18)),
    ("AssistantProfessor", (8, 11), (5, 10)),
    ("Lecturer", (5, 7), (0, 5)),
)


def _p(name):
    return f"<{UB}{name}>"


def _lit(values):
    return [f'"{v}"' for v in values]


class _Lines:
    """Collects N-Triples lines for columns of subjects and objects (already in N-Triples)."""

    def __init__(self):
        self.parts: list[str] = []

    def add(self, subjects, predicate, objects):
        self.parts.extend(
            f"{s} {predicate} {o} .\n" for s, o in zip(subjects, objects, strict=True)
        )

    def text(self):
        return "".join(self.parts)


def _pick_distinct(rng, counts, pool):
    """For each row a set of ``counts[i]`` distinct values in ``range(pool)``: (row, value)."""
    if pool == 0 or len(counts) == 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    counts = np.minimum(counts, pool)
    order = np.argsort(rng.random((len(counts), pool)), axis=1)[:, : int(counts.max())]
    keep = np.arange(order.shape[1])[None, :] < counts[:, None]
    rows = np.nonzero(keep)[0]
    return rows, order[keep]


def _department(rng, u, d, lines):
    univ = f"http://www.University{u}.edu"
    base = f"http://www.Department{d}.University{u}.edu"
    dept = f"<{base}>"
    lines.add([dept], _TYPE, [_p("Department")])
    lines.add([dept], _p("name"), [f'"Department{d}"'])
    lines.add([dept], _p("subOrganizationOf"), [f"<{univ}>"])

    # faculty: kind and index within the kind; professors are the first three kinds
    names, pubs, is_prof = [], [], []
    for kind, (lo, hi), (plo, phi) in _FACULTY:
        n = int(rng.integers(lo, hi + 1))
        names += [f"{kind}{i}" for i in range(n)]
        pubs.append(rng.integers(plo, phi + 1, n))
        is_prof += [kind != "Lecturer"] * n
    pubs = np.concatenate(pubs)
    nf = len(names)
    fac = [f"<{base}/{x}>" for x in names]
    kinds = [x.rstrip("0123456789") for x in names]
    lines.add(fac, _TYPE, [_p(k) for k in kinds])
    lines.add(fac, _p("worksFor"), [dept] * nf)
    _person(lines, fac, names, d, u)
    lines.add(fac, _p("researchInterest"), _lit(f"Research{r}" for r in rng.integers(0, 30, nf)))
    for prop in ("undergraduateDegreeFrom", "mastersDegreeFrom", "doctoralDegreeFrom"):
        lines.add(fac, _p(prop), _universities(rng, nf, u))
    n_full = kinds.count("FullProfessor")
    lines.add([fac[int(rng.integers(0, n_full))]], _p("headOf"), [dept])

    # courses: every course taught by exactly one faculty member
    courses = {}
    for kind in ("Course", "GraduateCourse"):
        teacher = np.repeat(np.arange(nf), rng.integers(1, 3, nf))
        iris = [f"<{base}/{kind}{i}>" for i in range(len(teacher))]
        lines.add(iris, _TYPE, [_p(kind)] * len(iris))
        lines.add(iris, _p("name"), _lit(f"{kind}{i}" for i in range(len(iris))))
        lines.add([fac[t] for t in teacher], _p("teacherOf"), iris)
        courses[kind] = iris

    # publications of the faculty
    owner = np.repeat(np.arange(nf), pubs)
    seq = np.arange(len(owner)) - np.repeat(np.cumsum(pubs) - pubs, pubs)
    pub = [f"<{base}/{names[o]}/Publication{j}>" for o, j in zip(owner, seq, strict=True)]
    lines.add(pub, _TYPE, [_p("Publication")] * len(pub))
    lines.add(pub, _p("name"), _lit(f"Publication{j}" for j in seq))
    lines.add(pub, _p("publicationAuthor"), [fac[o] for o in owner])

    # research groups
    groups = [f"<{base}/ResearchGroup{i}>" for i in range(int(rng.integers(10, 21)))]
    lines.add(groups, _TYPE, [_p("ResearchGroup")] * len(groups))
    lines.add(groups, _p("subOrganizationOf"), [dept] * len(groups))

    profs = np.flatnonzero(is_prof)
    _undergraduates(
        rng, lines, base, dept, nf * int(rng.integers(8, 15)), courses, fac, profs, d, u
    )
    _graduates(
        rng, lines, base, dept, nf * int(rng.integers(3, 5)), courses, fac, profs, pub, groups, d, u
    )


def _person(lines, iris, names, d, u):
    lines.add(iris, _p("name"), _lit(names))
    lines.add(iris, _p("emailAddress"), _lit(f"{x}@Department{d}.University{u}.edu" for x in names))
    lines.add(iris, _p("telephone"), _lit(["xxx-xxx-xxxx"] * len(names)))


def _universities(rng, n, u):
    return [f"<http://www.University{x}.edu>" for x in rng.integers(0, max(DEGREE_POOL, u + 1), n)]


def _undergraduates(rng, lines, base, dept, n, courses, fac, profs, d, u):
    names = [f"UndergraduateStudent{i}" for i in range(n)]
    iris = [f"<{base}/{x}>" for x in names]
    lines.add(iris, _TYPE, [_p("UndergraduateStudent")] * n)
    lines.add(iris, _p("memberOf"), [dept] * n)
    _person(lines, iris, names, d, u)
    rows, cols = _pick_distinct(rng, rng.integers(2, 5, n), len(courses["Course"]))
    lines.add([iris[r] for r in rows], _p("takesCourse"), [courses["Course"][c] for c in cols])
    advised = np.flatnonzero(rng.random(n) < 0.2)
    advisor = rng.choice(profs, len(advised))
    lines.add([iris[i] for i in advised], _p("advisor"), [fac[a] for a in advisor])


def _graduates(rng, lines, base, dept, n, courses, fac, profs, pubs, groups, d, u):
    names = [f"GraduateStudent{i}" for i in range(n)]
    iris = [f"<{base}/{x}>" for x in names]
    lines.add(iris, _TYPE, [_p("GraduateStudent")] * n)
    lines.add(iris, _p("memberOf"), [dept] * n)
    _person(lines, iris, names, d, u)
    lines.add(iris, _p("undergraduateDegreeFrom"), _universities(rng, n, u))
    lines.add(iris, _p("advisor"), [fac[a] for a in rng.choice(profs, n)])
    rows, cols = _pick_distinct(rng, rng.integers(1, 4, n), len(courses["GraduateCourse"]))
    lines.add(
        [iris[r] for r in rows], _p("takesCourse"), [courses["GraduateCourse"][c] for c in cols]
    )
    rows, cols = _pick_distinct(rng, rng.integers(0, 6, n), len(pubs))
    lines.add([pubs[c] for c in cols], _p("publicationAuthor"), [iris[r] for r in rows])
    ta = np.flatnonzero(rng.random(n) < rng.uniform(1 / 5, 1 / 4))
    lines.add([iris[i] for i in ta], _TYPE, [_p("TeachingAssistant")] * len(ta))
    taught = rng.integers(0, len(courses["Course"]), len(ta))
    lines.add(
        [iris[i] for i in ta], _p("teachingAssistantOf"), [courses["Course"][c] for c in taught]
    )
    ra = np.flatnonzero(rng.random(n) < rng.uniform(1 / 4, 1 / 3))
    lines.add([iris[i] for i in ra], _TYPE, [_p("ResearchAssistant")] * len(ra))
    lines.add(
        [iris[i] for i in ra],
        _p("worksFor"),
        [groups[g] for g in rng.integers(0, len(groups), len(ra))],
    )


def iter_lubm(universities: int, seed: int = 0):
    """Yield the N-Triples text of each department of each university, in order."""
    from hpgraph.errors import InvalidArgumentError

    if universities < 1:
        raise InvalidArgumentError(f"universities must be >= 1, got {universities}")
    for u in range(universities):
        rng = np.random.default_rng([seed, u])
        lines = _Lines()
        univ = f"<http://www.University{u}.edu>"
        lines.add([univ], _TYPE, [_p("University")])
        lines.add([univ], _p("name"), [f'"University{u}"'])
        yield lines.text()
        for d in range(int(rng.integers(15, 26))):
            lines = _Lines()
            _department(rng, u, d, lines)
            yield lines.text()


def _open(path, gz):
    if gz:  # level 6: gzip's default level 9 costs 3x the time for a few per cent
        return gzip.open(path, "wt", compresslevel=6, encoding="utf-8", newline="\n")
    return open(path, "w", encoding="utf-8", newline="\n")


def generate_lubm(path, universities: int, seed: int = 0) -> int:
    """Write LUBM(universities) for ``seed`` to ``path`` (``.nt``, or ``.nt.gz``); returns
    the number of triples. Written to a temporary name and renamed."""
    path = os.fspath(path)
    tmp = path + ".part"
    count = 0
    try:
        with _open(tmp, path.endswith(".gz")) as fh:
            for text in iter_lubm(universities, seed):
                count += text.count("\n")
                fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return count
