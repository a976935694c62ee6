"""SPARQL numeric values: xsd:integer (and its derived types) as Python ints, xsd:decimal
as ``Decimal``, xsd:float and xsd:double as floats; arithmetic with the type promotion of
XPath (integer < decimal < double; integer / integer is a decimal) and the literal a
result is written back as."""

from __future__ import annotations

import decimal
import math
from decimal import Decimal

from hpgraph.rdf.parse import canonical_literal

__all__ = ["XSD", "INTEGERS", "NUMERIC", "parse_number", "arith", "number_key"]

XSD = "http://www.w3.org/2001/XMLSchema#"
INTEGERS = {
    XSD + t
    for t in (
        "integer int long short byte nonNegativeInteger positiveInteger negativeInteger "
        "nonPositiveInteger unsignedInt unsignedLong unsignedShort unsignedByte"
    ).split()
}
NUMERIC = INTEGERS | {XSD + "decimal", XSD + "double", XSD + "float"}
_CONTEXT = decimal.Context(prec=40)


def parse_number(lexical: str, datatype: str):
    """The value of a numeric literal; None when the lexical form is not valid."""
    try:
        if datatype in INTEGERS:
            return int(lexical)
        if datatype == XSD + "decimal":
            if "e" in lexical.lower() or not lexical.strip():
                return None
            return Decimal(lexical)
        return float(lexical)
    except (ValueError, decimal.InvalidOperation):
        return None


def arith(op: str, x, y):
    """``x op y`` (op one of + - * /) with SPARQL's promotion; None on an error."""
    if isinstance(x, float) or isinstance(y, float):
        x, y = float(x), float(y)
        if op == "/" and y == 0:
            if x == 0 or x != x:
                return math.nan
            return math.copysign(math.inf, x) * math.copysign(1, y)
    elif isinstance(x, Decimal) or isinstance(y, Decimal) or op == "/":
        x, y = Decimal(x), Decimal(y)
        if op == "/" and y == 0:
            return None
        with decimal.localcontext(_CONTEXT):
            return _apply(op, x, y)
    return _apply(op, x, y)


def _apply(op, x, y):
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    return x * y if op == "*" else x / y


def number_key(v) -> str:
    """The dictionary key of a numeric result: an xsd:integer, decimal or double."""
    if isinstance(v, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(v, int):
        return canonical_literal(str(v), None, XSD + "integer")
    if isinstance(v, Decimal):
        text = format(v.normalize(_CONTEXT), "f")
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return canonical_literal(text if text not in ("", "-0") else "0", None, XSD + "decimal")
    if v != v:
        text = "NaN"
    elif v in (math.inf, -math.inf):
        text = "INF" if v > 0 else "-INF"
    else:
        text = repr(v)
    return canonical_literal(text, None, XSD + "double")
