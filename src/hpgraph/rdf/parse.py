"""Given an N-Triples, N-Quads, Turtle or TriG file (optionally ``.gz``), returns its
triples as canonical term strings, streamed in blocks, or as term ids; N-Quads and TriG
keep each triple's graph name (an IRI or a blank node; none: the default graph).

Terms are kept in one canonical text form, the key of the dictionary: ``<iri>``,
``_:label``, ``"lexical"`` (escaped as rdflib's ``n3()`` escapes), ``"lexical"@lang`` or
``"lexical"^^<datatype>`` (``xsd:string`` dropped, as RDF 1.1 says it is the same term).
N-Triples and N-Quads are read by our own line tokenizer (one compiled regular expression
per line); Turtle and TriG are parsed by rdflib's parser.
"""

from __future__ import annotations

import gzip
import os
import re
import warnings

import numpy as np

from hpgraph.errors import GraphFormatError
from hpgraph.rdf.triples import DEFAULT_GRAPH

__all__ = ["iter_triples", "read_nt_ids", "canonical_literal", "rdf_format", "BLOCK"]

#: Triples per yielded block.
BLOCK = 1 << 16
#: N-Triples and N-Quads files from this size on (bytes; gzip files count 4x) are read by the
#: compiled scanner: it reads 3-4x faster than the line parser, but starting numba in a
#: fresh process took 2.5-4 s on the 2-core development machine, the time the line parser
#: needs for about 500,000 triples (70 MB).
FAST_MIN_BYTES = 1 << 26
_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_IRI = r"<[^<>\"{}|^`\\\s]*>"
_BNODE = r"_:[A-Za-z0-9_](?:[A-Za-z0-9_\-.]*[A-Za-z0-9_\-])?"
_LIT = r"\"((?:[^\"\\\n\r]|\\.)*)\"(?:@([A-Za-z]+(?:-[A-Za-z0-9]+)*)|\^\^(" + _IRI + r"))?"
_LINE = re.compile(
    r"[ \t]*("
    + _IRI
    + "|"
    + _BNODE
    + r")[ \t]*("
    + _IRI
    + r")[ \t]*(?:("
    + _IRI
    + "|"
    + _BNODE
    + r")|"
    + _LIT
    + r")[ \t]*\.[ \t]*(?:#.*)?$"
)
_QUAD = re.compile(
    _LINE.pattern.replace(r"[ \t]*\.[ \t]*(?:#.*)?$", "")
    + r"[ \t]*("
    + _IRI
    + "|"
    + _BNODE
    + r")?[ \t]*\.[ \t]*(?:#.*)?$"
)
_LIT_ALL = re.compile(_LIT)
_BLANK = re.compile(r"[ \t]*(?:#.*)?$")
_ESC = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))")
_SIMPLE = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


def _unescape(text: str) -> str:
    def one(m):
        if m.group(1) or m.group(2):
            return chr(int(m.group(1) or m.group(2), 16))
        c = m.group(3)
        if c not in _SIMPLE:
            raise ValueError(f"bad escape \\{c}")
        return _SIMPLE[c]

    return _ESC.sub(one, text)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")


def canonical_literal(lexical: str, lang: str | None = None, datatype: str | None = None) -> str:
    """The dictionary key of a literal given its (unescaped) lexical form."""
    key = '"' + _escape(lexical) + '"'
    if lang:
        return key + "@" + lang.lower()
    if datatype and datatype != _XSD_STRING:
        return key + "^^<" + datatype + ">"
    return key


def rdf_format(path) -> str:
    """``"nt"``, ``"nq"``, ``"ttl"`` or ``"trig"`` from the file name (``.gz`` ignored)."""
    name = os.fspath(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith((".nt", ".ntriples")):
        return "nt"
    if name.endswith((".nq", ".nquads")):
        return "nq"
    if name.endswith((".ttl", ".turtle")):
        return "ttl"
    if name.endswith(".trig"):
        return "trig"
    raise GraphFormatError(
        "unknown RDF format (expected .nt, .nq, .ttl, .trig, optionally .gz)", path
    )


def _open_text(path):
    if not os.path.exists(path):
        raise GraphFormatError("no such file", path)
    if os.fspath(path).lower().endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", newline="\n")
    return open(path, encoding="utf-8", newline="\n")


def _iter_nt(path, quads=False):
    lineno = 0
    nq = rdf_format(path) == "nq"
    with _open_text(path) as fh:
        while True:
            lines = fh.readlines(1 << 22)
            if not lines:
                return
            block = _block_by_line(lines, path, lineno, nq)
            if quads and not nq:
                block = (*block[:3], [None] * len(block[0]))
            lineno += len(lines)
            for i in range(0, len(block[0]), BLOCK):
                yield [part[i : i + BLOCK] for part in block[: 4 if quads else 3]]


def _literal(lex, lang, dt):
    """The key of a literal from its lexical form as written, tag and ``<datatype>``."""
    if "\\" in lex:
        return canonical_literal(_unescape(lex), lang, dt[1:-1] if dt else None)
    if lang:
        return '"' + lex + '"@' + lang.lower()
    if dt and dt[1:-1] != _XSD_STRING:
        return '"' + lex + '"^^' + dt
    return '"' + lex + '"'


def _block_by_line(lines, path, lineno, quads=False):
    """(subjects, predicates, objects, graphs) of ``lines``, the first being line
    ``lineno + 1``; ``quads``: N-Quads lines (else the graphs list stays empty), a quad
    without a graph name has graph None (the default graph)."""
    s_out, p_out, o_out, g_out = [], [], [], []
    match = (_QUAD if quads else _LINE).match
    for i, line in enumerate(lines, lineno + 1):
        m = match(line, 0, len(line.rstrip("\r\n")))
        if m is None:
            if _BLANK.match(line.rstrip("\r\n")):
                continue
            raise GraphFormatError(f"malformed N-{'Quads' if quads else 'Triples'} line", path, i)
        s, p, o, lex, lang, dt = m.groups()[:6]
        if quads:
            g_out.append(m.group(7))
        if o is None:
            try:
                o = _literal(lex, lang, dt)
            except ValueError as exc:
                raise GraphFormatError(str(exc), path, i) from None
        s_out.append(s)
        p_out.append(p)
        o_out.append(o)
    return s_out, p_out, o_out, g_out


def read_nt_ids(path, ids: dict) -> np.ndarray:
    """The triples of an N-Triples file (``.gz`` too) as an (m, 3) int64 array of term ids,
    or the quads of an N-Quads file as (m, 4): subject, predicate, object, graph (the
    graph name's id, ``DEFAULT_GRAPH`` for a quad in the default graph); new terms are
    added to ``ids`` (key -> id) in order of first appearance.

    Blocks of about 64 MiB of whole lines go through the compiled scanner of
    :mod:`hpgraph.rdf._ntscan` (term spans and hashes; only each distinct term is decoded
    in Python); a block it does not take is read by the line-by-line path."""
    if not os.path.exists(path):
        raise GraphFormatError("no such file", path)
    gz = os.fspath(path).lower().endswith(".gz")
    quads = rdf_format(path) == "nq"
    fast = os.path.getsize(path) * (4 if gz else 1) >= FAST_MIN_BYTES
    opener = gzip.open if gz else open
    out, lineno, rest = [], 0, b""
    with opener(path, "rb") as fh:
        while True:
            chunk = fh.read(1 << 26)
            data = rest + chunk
            cut = data.rfind(b"\n") + 1 if chunk else len(data)
            data, rest = data[:cut], data[cut:]
            if data:
                block, lines = _block_ids(data, path, lineno, ids, fast, quads)
                out.append(block)
                lineno += lines
            if not chunk:
                break
    return np.concatenate(out) if out else np.empty((0, 4 if quads else 3), np.int64)


def _scanned_literal(term):
    """The key of a literal as the scanner took it (its grammar already checked)."""
    end = term.rfind('"')
    if "\\" in term:
        return _literal(*_LIT_ALL.fullmatch(term).groups())
    if end == len(term) - 1:
        return term
    if term[end + 1] == "@":
        return term[: end + 1] + term[end + 1 :].lower()
    return term[: end + 1] if term[end + 4 : -1] == _XSD_STRING else term


def _block_ids(data: bytes, path, lineno, ids, fast, quads):
    put = ids.setdefault
    if fast:
        from hpgraph.rdf import _ntscan

        buf = np.frombuffer(data, np.uint8)
        starts, ends, hashes, lines, bad = _ntscan.scan_lines(buf, quads)
    if fast and bad < 0 and len(hashes):
        uniq, first, inv = np.unique(hashes.reshape(-1), return_index=True, return_inverse=True)
        inv = inv.reshape(-1)
        s_flat, e_flat = starts.reshape(-1), ends.reshape(-1)
        if _ntscan.same_spans(buf, s_flat, e_flat, first[inv]):
            order = np.argsort(first)  # distinct terms in order of first appearance
            reps = first[order]
            try:
                text = _ntscan.gather_spans(buf, s_flat[reps], e_flat[reps]).tobytes()
                raw = text.decode("utf-8").split("\n")[:-1]
                keys = [t if t[:1] != '"' else _scanned_literal(t) for t in raw]
            except (ValueError, AttributeError):  # bad UTF-8 or escape: the slow path names it
                keys = None
            if keys is not None:  # "": no graph name, the default graph
                id_of = np.empty(len(uniq), np.int64)
                id_of[order] = [put(k, len(ids)) if k else DEFAULT_GRAPH for k in keys]
                return id_of[inv].reshape(-1, starts.shape[1]), lines
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError as exc:
        raise GraphFormatError(f"not UTF-8 ({exc.reason})", path) from None
    s, p, o, g = _block_by_line(lines[:-1] if lines[-1] == "" else lines, path, lineno, quads)
    block = np.empty((len(s), 4 if quads else 3), np.int64)
    block[:, 0] = [put(t, len(ids)) for t in s]
    block[:, 1] = [put(t, len(ids)) for t in p]
    block[:, 2] = [put(t, len(ids)) for t in o]
    if quads:
        block[:, 3] = [DEFAULT_GRAPH if t is None else put(t, len(ids)) for t in g]
    return block, data.count(b"\n")


def term_key(term) -> str:
    """The dictionary key of an rdflib term."""
    from rdflib import BNode, Literal, URIRef

    if isinstance(term, URIRef):
        return "<" + str(term) + ">"
    if isinstance(term, BNode):
        return "_:" + str(term)
    if isinstance(term, Literal):
        dt = None if term.datatype is None else str(term.datatype)
        return canonical_literal(str(term), term.language, dt)
    raise GraphFormatError(f"unsupported RDF term {term!r}")


def _parse_rdflib(path, fmt):
    """rdflib's Graph (Turtle) or Dataset (TriG) of the file. A syntax error is one line
    naming the file and line (rdflib's Turtle and TriG parser counts lines from 0)."""
    import rdflib
    from rdflib.plugins.parsers.notation3 import BadSyntax

    name = "TriG" if fmt == "trig" else "Turtle"
    graph = rdflib.Dataset() if fmt == "trig" else rdflib.Graph()
    try:
        with _open_text(path) as fh, warnings.catch_warnings():
            # rdflib 7's TriG parser calls its own deprecated Dataset.default_context
            warnings.simplefilter("ignore", DeprecationWarning)
            graph.parse(data=fh.read(), format="trig" if fmt == "trig" else "turtle")
    except GraphFormatError:
        raise
    except BadSyntax as exc:
        why = " ".join(str(getattr(exc, "_why", "") or "bad syntax").split())
        raise GraphFormatError(f"malformed {name}: {why[:200]}", path, exc.lines + 1) from None
    except Exception as exc:  # rdflib raises several parser error types
        msg = " ".join(str(exc).split())
        raise GraphFormatError(f"malformed {name}: {msg[:200]}", path) from None
    return graph


def _iter_rdflib(path, fmt, quads=False):
    """Blocks of a Turtle or TriG file's triples as term keys; ``quads``: with a fourth
    list, the graph name's key (None: the default graph; Turtle's triples are all in it)."""
    from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

    graph = _parse_rdflib(path, fmt)
    if fmt == "trig":
        rows = graph.quads((None, None, None, None))
    else:
        rows = ((s, p, o, DATASET_DEFAULT_GRAPH_ID) for s, p, o in graph)
    out = [], [], [], []
    for s, p, o, g in rows:
        out[0].append(term_key(s))
        out[1].append(term_key(p))
        out[2].append(term_key(o))
        out[3].append(None if g == DATASET_DEFAULT_GRAPH_ID else term_key(g))
        if len(out[0]) >= BLOCK:
            yield out if quads else out[:3]
            out = [], [], [], []
    if out[0]:
        yield out if quads else out[:3]


def iter_triples(path, *, quads=False):
    """Yield blocks ``(subjects, predicates, objects)`` of canonical term strings; with
    ``quads`` a fourth list, each triple's graph name (None: the default graph), read
    from N-Quads and TriG (N-Triples and Turtle: all None)."""
    fmt = rdf_format(path)
    if fmt in ("ttl", "trig"):
        return _iter_rdflib(path, fmt, quads)
    return _iter_nt(path, quads)
