"""SPARQL's string and numeric functions (section 17.4): REGEX, REPLACE, LANGMATCHES,
STRLEN, UCASE, LCASE, STRSTARTS, STRENDS, CONTAINS, STRBEFORE, STRAFTER, CONCAT, SUBSTR,
ENCODE_FOR_URI, MD5/SHA*, ABS, CEIL, FLOOR, ROUND, and the date parts of
:mod:`.dates`.

Each function is ``(operand names, f)``: ``f`` maps the (kind, value) of its operands to
a (kind, value) or None (an error), as
:func:`hpgraph.rdf.sparql.expressions.evaluate` does for the rest. The caller evaluates
an expression once per distinct combination of the variables it reads, operand lists at
a time (``f`` over zipped lists), so a function of one variable runs once per distinct
term of the dictionary, not per row. An optional operand left out is ``ABSENT``. A
string literal is kind ``str`` (simple or xsd:string) or ``lang``; the functions that
return a string keep the language tag of their first argument where SPARQL says so."""

from __future__ import annotations

import functools
import hashlib
import math
import re
import urllib.parse
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from hpgraph.rdf.sparql.dates import DATE_PARTS

__all__ = ["BUILTINS", "ABSENT"]

ABSENT = ("absent", None)
_FLAGS = {"i": re.IGNORECASE, "s": re.DOTALL, "m": re.MULTILINE, "x": re.VERBOSE}


def _string(v):
    """(lexical, language or None) of a string literal; None for any other value."""
    if v is None:
        return None
    if v[0] == "str":
        return v[1], None
    if v[0] == "lang":
        return v[1]
    return None


def _simple(v):
    """The lexical form of a simple literal (or xsd:string); None otherwise."""
    return v[1] if v is not None and v[0] == "str" else None


def _out(text, lang):
    return ("lang", (text, lang)) if lang else ("str", text)


def _pair(x, y):
    """Two string arguments whose tags are compatible (17.4.3.1.4): both untagged, both
    tagged alike, or the first tagged and the second not; None otherwise."""
    a, b = _string(x), _string(y)
    if a is None or b is None or (b[1] is not None and a[1] != b[1]):
        return None
    return a, b


@functools.lru_cache(maxsize=256)
def _compile(pattern, flags):
    """The Python regular expression for an XPath ``pattern`` and flags; None if either
    is invalid (an error in SPARQL)."""
    bits = 0
    for f in flags:
        if f == "q":
            pattern = re.escape(pattern)
        elif f in _FLAGS:
            bits |= _FLAGS[f]
        else:
            return None
    try:
        return re.compile(pattern, bits)
    except re.error:
        return None


def _flags(v):
    return "" if v is ABSENT else _simple(v)


def _regex(text, pattern, flags):
    text, pattern, flags = _string(text), _simple(pattern), _flags(flags)
    if text is None or pattern is None or flags is None:
        return None
    rx = _compile(pattern, flags)
    return None if rx is None else ("bool", rx.search(text[0]) is not None)


def _replacement(text):
    """An XPath replacement string (``$n`` groups, ``\\$`` and ``\\\\`` escapes) as a
    Python one; None if malformed."""
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            if i + 1 >= len(text) or text[i + 1] not in "\\$":
                return None
            out.append("\\\\" if text[i + 1] == "\\" else "$")
            i += 2
        elif c == "$":
            m = re.match(r"\d+", text[i + 1 :])
            if m is None:
                return None
            out.append(f"\\g<{m.group()}>")
            i += 1 + len(m.group())
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _replace(text, pattern, repl, flags):
    text, pattern, repl, flags = _string(text), _simple(pattern), _simple(repl), _flags(flags)
    if None in (text, pattern, repl, flags):
        return None
    rx, repl = _compile(pattern, flags), _replacement(repl)
    if rx is None or repl is None or rx.match(""):  # XPath: a pattern matching "" errs
        return None
    try:
        return _out(rx.sub(repl, text[0]), text[1])
    except (re.error, IndexError):
        return None


def _langmatches(tag, rng):
    tag, rng = _simple(tag), _simple(rng)
    if tag is None or rng is None:
        return None
    tag, rng = tag.lower(), rng.lower()
    if rng == "*":
        return ("bool", tag != "")
    return ("bool", tag == rng or tag.startswith(rng + "-"))


def _strlen(v):
    s = _string(v)
    return None if s is None else ("num", len(s[0]))


def _case(upper):
    def fn(v):
        s = _string(v)
        return None if s is None else _out(s[0].upper() if upper else s[0].lower(), s[1])

    return fn


def _test(op):
    def fn(x, y):
        p = _pair(x, y)
        return None if p is None else ("bool", op(p[0][0], p[1][0]))

    return fn


def _cut(after):
    """STRBEFORE / STRAFTER: the part before / after the first match, tagged like the
    first argument; a simple empty string where there is no match."""

    def fn(x, y):
        p = _pair(x, y)
        if p is None:
            return None
        (s, lang), (t, _) = p
        i = s.find(t)
        if i < 0:
            return ("str", "")
        return _out(s[i + len(t) :] if after else s[:i], lang)

    return fn


def _concat(*values):
    parts = [_string(v) for v in values]
    if any(p is None for p in parts):
        return None
    langs = {p[1] for p in parts}
    return _out("".join(p[0] for p in parts), langs.pop() if len(langs) == 1 else None)


def _round_half_up(x):
    """XPath's fn:round: the nearest integer, halves rounded towards +infinity."""
    return math.floor(x + 0.5)


def _integer(v):
    return v is not None and v[0] == "num" and type(v[1]) is int


def _substr(v, start, length):
    """SUBSTR(string, start, length): characters from 1-based ``start`` (integers)."""
    s = _string(v)
    if s is None or not _integer(start) or (length is not ABSENT and not _integer(length)):
        return None
    lo = start[1]
    hi = len(s[0]) + 1 if length is ABSENT else lo + length[1]
    return _out(s[0][max(lo, 1) - 1 : max(hi, 1) - 1], s[1])


def _encode(v):
    s = _string(v)
    return None if s is None else ("str", urllib.parse.quote(s[0], safe="-_.~"))


def _hash(algorithm):
    def fn(v):
        s = _simple(v)
        if s is None:
            return None
        return ("str", hashlib.new(algorithm, s.encode("utf-8")).hexdigest())

    return fn


def _numeric(fn_int, fn_dec, fn_float):
    def fn(v):
        if v is None or v[0] != "num":
            return None
        x = v[1]
        if isinstance(x, float):
            return ("num", x if not math.isfinite(x) else fn_float(x))
        if isinstance(x, Decimal):
            return ("num", fn_dec(x))
        return ("num", fn_int(x))

    return fn


def _same(x):
    return x


_ONE = ("arg",)
_TWO = ("arg1", "arg2")
#: name -> (operand names, function of the operands' values); ``*arg``: a list.
BUILTINS = {
    "Builtin_REGEX": (("text", "pattern", "flags"), _regex),
    "Builtin_REPLACE": (("arg", "pattern", "replacement", "flags"), _replace),
    "Builtin_LANGMATCHES": (_TWO, _langmatches),
    "Builtin_STRLEN": (_ONE, _strlen),
    "Builtin_UCASE": (_ONE, _case(True)),
    "Builtin_LCASE": (_ONE, _case(False)),
    "Builtin_STRSTARTS": (_TWO, _test(str.startswith)),
    "Builtin_STRENDS": (_TWO, _test(str.endswith)),
    "Builtin_CONTAINS": (_TWO, _test(str.__contains__)),
    "Builtin_STRBEFORE": (_TWO, _cut(False)),
    "Builtin_STRAFTER": (_TWO, _cut(True)),
    "Builtin_CONCAT": (("*arg",), _concat),
    "Builtin_SUBSTR": (("arg", "start", "length"), _substr),
    "Builtin_ENCODE_FOR_URI": (_ONE, _encode),
    "Builtin_MD5": (_ONE, _hash("md5")),
    "Builtin_SHA1": (_ONE, _hash("sha1")),
    "Builtin_SHA256": (_ONE, _hash("sha256")),
    "Builtin_SHA384": (_ONE, _hash("sha384")),
    "Builtin_SHA512": (_ONE, _hash("sha512")),
    "Builtin_ABS": (_ONE, _numeric(abs, abs, abs)),
    "Builtin_CEIL": (
        _ONE,
        _numeric(
            _same, lambda d: d.to_integral_value(ROUND_CEILING), lambda f: float(math.ceil(f))
        ),
    ),
    "Builtin_FLOOR": (
        _ONE,
        _numeric(_same, lambda d: d.to_integral_value(ROUND_FLOOR), lambda f: float(math.floor(f))),
    ),
    "Builtin_ROUND": (
        _ONE,
        _numeric(
            _same,
            lambda d: (d + Decimal("0.5")).to_integral_value(ROUND_FLOOR),
            lambda f: float(_round_half_up(f)),
        ),
    ),
    **DATE_PARTS,
}
