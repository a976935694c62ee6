"""Query results out: a pyarrow Table of N-Triples terms; the W3C SPARQL 1.1 JSON, CSV and
TSV result formats of SELECT and ASK; CONSTRUCT and DESCRIBE's triples as N-Triples."""

from __future__ import annotations

import numpy as np

from hpgraph.errors import InvalidArgumentError
from hpgraph.rdf.sparql.terms import split_literal, term_value

__all__ = ["to_table", "format_results", "format_boolean", "format_triples"]

#: Above this many rows a result column takes its strings from the store's terms as one
#: pyarrow array (:meth:`~hpgraph.rdf.store.Store.term_array`, C++ ``take``: LUBM(5) Q14's
#: 43,051 rows 0.63 against 31 ms), unless the query made some of its terms; below,
#: ``take``'s fixed cost (~30 us a column) is more than looking the ids up one by one.
TAKE_RESULT = 256
#: Up to this many rows a column holding terms the query made is built id by id; above,
#: once per distinct id (sorting costs more than it saves below: 0.13 against 0.57 ms
#: for 646 rows, 0.8 against 1.4 ms for 5,000 distinct ids; faster from ~40,000 rows).
SMALL_RESULT = 8192


def to_table(store, variables, result):
    """The result as a pyarrow Table of N-Triples term strings (null when unbound)."""
    import pyarrow as pa

    cols, n, ctx = result
    if not variables:  # no columns, but still as many rows as solutions
        return pa.table({"_": pa.nulls(n)}).drop_columns(["_"])
    terms, extra, m = ctx.store.terms, ctx.extra, len(ctx.store.terms)
    if n <= TAKE_RESULT:  # each id looked up; the columns one after another in one array
        strs = [
            terms[i] if 0 <= i < m else None if i < 0 else extra[i - m]
            for col in cols
            for i in col.tolist()
        ]
        whole = pa.array(strs, pa.string())
        arrays = [whole] if len(cols) == 1 else [whole.slice(j * n, n) for j in range(len(cols))]
        return pa.Table.from_arrays(arrays, names=list(variables))
    arrays = []
    for col in cols:
        if n > TAKE_RESULT and col.max(initial=-1) < m:
            unbound = col < 0
            index = pa.array(col, mask=unbound) if unbound.any() else col
            arrays.append(ctx.store.term_array().take(index))
        elif n <= SMALL_RESULT:  # each id looked up
            strs = [
                terms[i] if 0 <= i < m else None if i < 0 else extra[i - m] for i in col.tolist()
            ]
            arrays.append(pa.array(strs, pa.string()))
        else:
            uniq, inv = np.unique(col, return_inverse=True)
            strs = np.array([None if i < 0 else ctx.term(int(i)) for i in uniq], dtype=object)
            arrays.append(pa.array(strs[inv.reshape(-1)], type=pa.string()))
    return pa.Table.from_arrays(arrays, names=list(variables))


def _json_term(key):
    kind, val = term_value(key)
    if kind == "iri":
        return {"type": "uri", "value": val}
    if kind == "bnode":
        return {"type": "bnode", "value": val}
    lex, lang, dt = split_literal(key)
    out = {"type": "literal", "value": lex}
    if lang:
        out["xml:lang"] = lang
    elif dt:
        out["datatype"] = dt
    return out


def format_results(variables, table, fmt: str) -> str:
    """W3C SPARQL 1.1 results in ``csv``, ``tsv`` or ``json`` from :func:`to_table`'s output."""
    import csv
    import io
    import json

    rows = (
        list(zip(*[table.column(v).to_pylist() for v in variables], strict=True))
        if variables
        else []
    )
    if fmt == "json":
        bindings = [
            {v: _json_term(k) for v, k in zip(variables, row, strict=True) if k is not None}
            for row in rows
        ]
        return json.dumps({"head": {"vars": variables}, "results": {"bindings": bindings}}) + "\n"
    if fmt == "tsv":
        lines = ["\t".join("?" + v for v in variables)]
        lines += ["\t".join("" if k is None else k for k in row) for row in rows]
        return "\n".join(lines) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\r\n")
        w.writerow(variables)
        for row in rows:
            out = []
            for k in row:
                if k is None:
                    out.append("")
                else:
                    kind, val = term_value(k)
                    if kind in ("iri",):
                        out.append(val)
                    elif kind == "bnode":
                        out.append("_:" + val)
                    else:
                        out.append(split_literal(k)[0])
            w.writerow(out)
        return buf.getvalue()
    raise InvalidArgumentError(f"unknown result format {fmt!r} (csv, tsv, json)")


def format_boolean(value: bool, fmt: str) -> str:
    """ASK's answer: JSON ``{"head":{},"boolean":true}`` (W3C); CSV and TSV, which the W3C
    formats define for SELECT only, ``true`` / ``false`` as pyoxigraph writes them."""
    import json

    if fmt == "json":
        return json.dumps({"head": {}, "boolean": bool(value)}, separators=(",", ":")) + "\n"
    if fmt in ("csv", "tsv"):
        return ("true" if value else "false") + "\n"
    raise InvalidArgumentError(f"unknown result format {fmt!r} (csv, tsv, json)")


def format_triples(table) -> str:
    """CONSTRUCT / DESCRIBE's triples (:func:`to_table`'s subject, predicate, object
    columns) as N-Triples lines: the terms are already in N-Triples form."""
    cols = [table.column(i).to_pylist() for i in range(3)]
    return "".join(f"{s} {p} {o} .\n" for s, p, o in zip(*cols, strict=True))
