"""Given an N-Triples or Turtle file (optionally ``.gz``), returns its triples as canonical
term strings, streamed in blocks.

Terms are kept in one canonical text form, the key of the dictionary: ``<iri>``,
``_:label``, ``"lexical"`` (escaped as rdflib's ``n3()`` escapes), ``"lexical"@lang`` or
``"lexical"^^<datatype>`` (``xsd:string`` dropped, as RDF 1.1 says it is the same term).
N-Triples is read by our own line tokenizer (one compiled regular expression per line);
Turtle is parsed by rdflib's parser.
"""

from __future__ import annotations

import gzip
import os
import re

from hpgraph.errors import GraphFormatError

__all__ = ["iter_triples", "canonical_literal", "rdf_format", "BLOCK"]

#: Triples per yielded block.
BLOCK = 1 << 16
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
    """``"nt"`` or ``"ttl"`` from the file name (``.gz`` ignored)."""
    name = os.fspath(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith((".nt", ".ntriples")):
        return "nt"
    if name.endswith((".ttl", ".turtle")):
        return "ttl"
    raise GraphFormatError("unknown RDF format (expected .nt, .ttl, optionally .gz)", path)


def _open_text(path):
    if not os.path.exists(path):
        raise GraphFormatError("no such file", path)
    if os.fspath(path).lower().endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", newline="\n")
    return open(path, encoding="utf-8", newline="\n")


def _iter_nt(path):
    s_out, p_out, o_out = [], [], []
    match = _LINE.match
    with _open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            m = match(line, 0, len(line.rstrip("\r\n")))
            if m is None:
                if _BLANK.match(line.rstrip("\r\n")):
                    continue
                raise GraphFormatError("malformed N-Triples line", path, lineno)
            s, p, o, lex, lang, dt = m.groups()
            if o is None:
                if "\\" in lex:
                    try:
                        lex = _unescape(lex)
                    except ValueError as exc:
                        raise GraphFormatError(str(exc), path, lineno) from None
                    o = canonical_literal(lex, lang, dt[1:-1] if dt else None)
                elif lang:
                    o = '"' + lex + '"@' + lang.lower()
                elif dt and dt[1:-1] != _XSD_STRING:
                    o = '"' + lex + '"^^' + dt
                else:
                    o = '"' + lex + '"'
            s_out.append(s)
            p_out.append(p)
            o_out.append(o)
            if len(s_out) >= BLOCK:
                yield s_out, p_out, o_out
                s_out, p_out, o_out = [], [], []
    if s_out:
        yield s_out, p_out, o_out


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


def _iter_ttl(path):
    import rdflib

    graph = rdflib.Graph()
    try:
        with _open_text(path) as fh:
            graph.parse(data=fh.read(), format="turtle")
    except GraphFormatError:
        raise
    except Exception as exc:  # rdflib raises several parser error types
        msg = " ".join(str(exc).split())
        raise GraphFormatError(f"malformed Turtle: {msg[:200]}", path) from None
    s_out, p_out, o_out = [], [], []
    for s, p, o in graph:
        s_out.append(term_key(s))
        p_out.append(term_key(p))
        o_out.append(term_key(o))
        if len(s_out) >= BLOCK:
            yield s_out, p_out, o_out
            s_out, p_out, o_out = [], [], []
    if s_out:
        yield s_out, p_out, o_out


def iter_triples(path):
    """Yield blocks ``(subjects, predicates, objects)`` of canonical term strings."""
    fmt = rdf_format(path)
    return _iter_nt(path) if fmt == "nt" else _iter_ttl(path)
