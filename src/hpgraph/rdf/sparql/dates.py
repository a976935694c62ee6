"""xsd:dateTime and xsd:date values, read from their lexical form: their parts (YEAR,
MONTH, DAY, HOURS, MINUTES, SECONDS, TIMEZONE, TZ; as loaded, so TZ of ``+00:00`` is
``+00:00`` where pyoxigraph's canonical form gives ``Z``) and their order (the instant in
UTC), used by comparisons, ORDER BY, MIN and MAX. Other date/time types (xsd:time,
durations, gYear ...) and orders SPARQL leaves undefined (with and without a timezone)
raise ``Unsupported``."""

from __future__ import annotations

import datetime
import re
from decimal import Decimal

from hpgraph.rdf.parse import canonical_literal
from hpgraph.rdf.sparql.terms import Unsupported

__all__ = ["DATE_PARTS", "temporal_type", "datetime_order"]

_XSD = "http://www.w3.org/2001/XMLSchema#"
_DATETIME = re.compile(r"(-?\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d(?:\.\d+)?)(Z|[+-]\d\d:\d\d)?")


_DATE = re.compile(r"(-?\d{4,})-(\d\d)-(\d\d)(Z|[+-]\d\d:\d\d)?")


def _datetime(v):
    """(year, month, day, hours, minutes, seconds, timezone) of an xsd:dateTime or
    xsd:date value's lexical form (None for a part it lacks), or None."""
    if v is None or v[0] != "typed":
        return None
    lex = v[1][1 : v[1].rindex('"')]
    if v[1].endswith(f"^^<{_XSD}dateTime>"):
        m = _DATETIME.fullmatch(lex)
        return None if m is None else m.groups()
    if v[1].endswith(f"^^<{_XSD}date>"):
        m = _DATE.fullmatch(lex)
        return None if m is None else m.groups()[:3] + (None, None, None, m.group(4))
    return None


_TEMPORAL = {
    "dateTime",
    "dateTimeStamp",
    "date",
    "time",
    "gYear",
    "gYearMonth",
    "gMonth",
    "gMonthDay",
    "gDay",
    "duration",
    "dayTimeDuration",
    "yearMonthDuration",
}


def temporal_type(v):
    """The xsd date/time/duration type name of a value, else None: such values compare by
    value in SPARQL (:func:`datetime_order`)."""
    if v is None or v[0] != "typed" or not v[1].endswith(">"):
        return None
    dt = v[1][v[1].rfind("^^<") + 3 : -1]
    name = dt[len(_XSD) :] if dt.startswith(_XSD) else ""
    if name in ("dateTime", "date") and _datetime(v) is None:
        return None  # ill-formed: a literal not understood
    return name if name in _TEMPORAL else None


def datetime_order(values):
    """{position: sort key} for the well-formed xsd:dateTime or xsd:date values among
    ``values``: the instant in UTC as a fixed-width string, so that their order is their
    time order (ORDER BY, MIN, MAX, comparisons). Raises ``Unsupported`` where that order
    is not defined or not done here: other date/time types, dates mixed with dateTimes,
    values with and without a timezone."""
    out, kinds, zoned = {}, set(), set()
    for j, v in enumerate(values):
        kind = temporal_type(v)
        if kind is None:
            continue
        if kind not in ("dateTime", "date"):
            raise Unsupported(f"order of xsd:{kind} values")
        f = _datetime(v)
        kinds.add(kind)
        zoned.add(f[6] is not None)
        sec = Decimal(f[5] or 0)
        minutes = int(f[3] or 0) * 60 + int(f[4] or 0)
        if f[6] not in (None, "Z"):
            sign = -1 if f[6][0] == "-" else 1
            minutes -= sign * (int(f[6][1:3]) * 60 + int(f[6][4:6]))
        days, minutes = divmod(minutes, 24 * 60)
        try:
            day = datetime.date(int(f[0]), int(f[1]), int(f[2])) + datetime.timedelta(days=days)
        except (ValueError, OverflowError):
            raise Unsupported("order of a date outside years 1-9999") from None
        out[j] = f"{day.isoformat()}T{minutes // 60:02d}:{minutes % 60:02d}:{sec:012.9f}"
    if len(kinds) > 1 or len(zoned) > 1:
        raise Unsupported(
            "order of dates mixing xsd:date and xsd:dateTime or with and without a timezone"
        )
    return out


def _part(index, make):
    def fn(v):
        f = _datetime(v)
        if f is None or (f[index] is None and index < 6):
            return None
        return make(f[index])

    return fn


def _timezone(tz):
    """TIMEZONE: the offset as an xsd:dayTimeDuration; an error without one."""
    if tz is None:
        return None
    if tz == "Z":
        text = "PT0S"
    else:
        hours, minutes = int(tz[1:3]), int(tz[4:6])
        if hours == 0 and minutes == 0:
            text = "PT0S"
        else:
            text = ("-" if tz[0] == "-" else "") + "PT" + (f"{hours}H" if hours else "")
            text += f"{minutes}M" if minutes else ""
    return ("typed", canonical_literal(text, None, _XSD + "dayTimeDuration"))


#: name -> (operand names, function of the operand's value), as ``functions.BUILTINS``.
DATE_PARTS = {
    "Builtin_YEAR": (("arg",), _part(0, lambda x: ("num", int(x)))),
    "Builtin_MONTH": (("arg",), _part(1, lambda x: ("num", int(x)))),
    "Builtin_DAY": (("arg",), _part(2, lambda x: ("num", int(x)))),
    "Builtin_HOURS": (("arg",), _part(3, lambda x: ("num", int(x)))),
    "Builtin_MINUTES": (("arg",), _part(4, lambda x: ("num", int(x)))),
    "Builtin_SECONDS": (("arg",), _part(5, lambda x: ("num", Decimal(x)))),
    "Builtin_TIMEZONE": (("arg",), _part(6, _timezone)),
    "Builtin_TZ": (("arg",), _part(6, lambda x: ("str", x or ""))),
}
