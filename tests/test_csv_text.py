"""Text written into result CSVs: exact decimal shares (hpgraph.io.decimals) against
Python's decimal arithmetic, and the quoting decision of write_csv_table against the csv
module's reading of what it wrote."""

from __future__ import annotations

import csv
import io
from decimal import ROUND_HALF_EVEN, Decimal

import numpy as np
import pyarrow as pa
import pytest

from hpgraph.io.decimals import share_text
from hpgraph.io.results import _needs_quotes, write_csv_table

SEED = 20261127


def _reference(ptr, values, places):
    """The rule by hand: round half to even, the row's first largest takes the rest."""
    out = []
    unit = Decimal(1).scaleb(-places)
    for v in range(len(ptr) - 1):
        row = [Decimal(float(x) * 10**places).quantize(Decimal(1), ROUND_HALF_EVEN)
               for x in values[ptr[v] : ptr[v + 1]]]  # fmt: skip
        if row:
            best = row.index(max(row))
            row[best] += 10**places - sum(row)
        for q in row:
            text = format((q * unit).normalize(), "f")
            out.append(text)
    return out


@pytest.mark.parametrize("places", [1, 3, 6, 9])
def test_shares_match_decimal_arithmetic(places):
    rng = np.random.default_rng(SEED + places)
    counts = rng.integers(0, 7, 400)
    counts[:40] = 1  # one community: exactly "1"
    ptr = np.concatenate([[0], np.cumsum(counts)])
    raw = rng.random(ptr[-1]) ** 3 + 1e-9
    raw[rng.random(ptr[-1]) < 0.2] = 0.5  # ties for the largest
    coef = raw / np.repeat(np.add.reduceat(raw, ptr[:-1][counts > 0]), counts[counts > 0])
    text = share_text(ptr, coef, places).to_pylist()
    assert text == _reference(ptr, coef, places)
    for v in np.flatnonzero(counts):
        assert sum(Decimal(t) for t in text[ptr[v] : ptr[v + 1]]) == 1


def test_shares_edge_cases():
    assert share_text(np.array([0]), np.zeros(0)).to_pylist() == []
    got = share_text(np.array([0, 1, 1, 3]), np.array([0.9999999999999998, 0.5, 0.5]))
    assert got.to_pylist() == ["1", "0.5", "0.5"]
    assert share_text(np.array([0, 2]), np.array([1.0, 0.0]), 2).to_pylist() == ["1", "0"]
    with pytest.raises(ValueError, match="places"):
        share_text(np.array([0, 1]), np.array([1.0]), 0)


def test_quotes_only_where_a_value_needs_them():
    a = pa.array(["ab", "c,d", "é", 'say "x"', "x"])
    assert _needs_quotes(a) and _needs_quotes(a.slice(1, 1)) and _needs_quotes(a.slice(3, 1))
    assert not _needs_quotes(a.slice(2, 1)) and not _needs_quotes(a.slice(4))
    assert not _needs_quotes(a.slice(0, 1)) and not _needs_quotes(pa.array([None], pa.string()))
    assert _needs_quotes(pa.array(["a\nb"], pa.large_string()))
    for values in (["a", "b"], ["a", "b,c"], ["é", 'q"'], ["line\nbreak", "x"]):
        sink = io.BytesIO()
        table = pa.table({"name": pa.chunked_array([values[:1], values[1:]]), "n": [1, 2]})
        write_csv_table(table, pa.PythonFile(sink, mode="w"))
        text = sink.getvalue().decode()
        assert list(csv.reader(io.StringIO(text))) == [["name", "n"], [values[0], "1"],
                                                        [values[1], "2"]]  # fmt: skip
        assert ('"' in text) == any(c in "".join(values) for c in ',"\n')
