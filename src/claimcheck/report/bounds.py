"""The bounds of a report read back: every field's, checked in one walk before use.

A report is input from outside (a shard's job, an artifact, a file anyone may hand
over), so nothing in it may make the work that reads it grow without bound: a forged
shard count, line, score, list, string or nesting is found here and named by its JSON
path (`shard.count`, `results[2].line`); the loader (`load.py`) refuses the report
with it, so `report merge`, `report render` and `issues --report` all hold to the same
bounds. The bounds are the `MAX_*` constants; docs/reports.md says them (after the JSON
report's fields) and the published schema states those of its own fields.
Pure: parsed documents in, a problem or None out.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from claimcheck.untrusted import clean_text, shorten

MAX_REPORT_BYTES = 64 * 1024 * 1024
"""The largest report file read (64 MiB): thousands of claims with their diffs fit."""
MAX_DEPTH = 16
"""The deepest nesting of arrays and objects (a report's own is 7 levels deep)."""
MAX_RESULTS = 100_000
"""The most results one report holds."""
MAX_ITEMS = 1_000
"""The most items of any other list, and the most keys of any object."""
MAX_TEXT = 1_000_000
"""The longest string, in characters (a quote, a diff, a changed paragraph)."""
MAX_KEY = 200
"""The longest key of an object."""
MAX_SHARDS = 999_999
"""The highest shard count: what `verify --shard K/N` accepts (N of up to six digits)."""
MAX_LINE = 10_000_000
"""The highest line number (of a claim in its claim file, of a quote in a source)."""
MAX_OCCURRENCES = 10_000_000
"""The most occurrences of a quote on a source."""
MAX_DURATION_S = 366 * 24 * 3600.0
"""The longest run a report may state, in seconds (a year)."""
MAX_INTEGER = 2**53
"""The largest magnitude of any other number: beyond it JSON readers lose digits."""

_RANGES: dict[str, tuple[float, float, str]] = {
    "shard.index": (1, MAX_SHARDS, "shards"),
    "shard.count": (1, MAX_SHARDS, "shards"),
    "duration_s": (0, MAX_DURATION_S, "seconds"),
    "results[].line": (1, MAX_LINE, "lines"),
    "results[].score": (0, 100, "points"),
    "results[].occurrences": (0, MAX_OCCURRENCES, "occurrences"),
    "results[].citation.lines[]": (1, MAX_LINE, "lines"),
    "results[].parts[].score": (0, 100, "points"),
    "results[].parts[].occurrences": (0, MAX_OCCURRENCES, "occurrences"),
    "results[].parts[].citation.lines[]": (1, MAX_LINE, "lines"),
}
"""The range of each numeric field the loader reads, by its path with indices left out;
any other number is bounded by `MAX_INTEGER`."""


@dataclass(frozen=True)
class _Unreadable:
    """A JSON number refused while parsing, kept so `check_bounds` names its field."""

    what: str


def parse_report_text(text: str) -> Any:
    """The parsed JSON of a report's text; a number too long or not finite (NaN,
    Infinity, 1e400) stays a marker that `check_bounds` refuses with its field's path.

    Python would otherwise read `1e400` as infinity and refuse an integer of over 4,300
    digits with an error that names no field.
    """
    return json.loads(
        text,
        parse_int=_integer,
        parse_float=_float,
        parse_constant=lambda name: _Unreadable(f"{name} is not a number JSON allows"),
    )


def _integer(text: str) -> int | _Unreadable:
    digits = len(text.lstrip("-"))
    if digits > 20:
        return _Unreadable(f"a number of {digits:,} digits is out of range")
    return int(text)


def _float(text: str) -> float | _Unreadable:
    value = float(text)
    if not math.isfinite(value):
        return _Unreadable(f"{shorten(text, 40)} is out of range")
    return value


def check_bounds(document: Any) -> str | None:
    """What is out of bounds in a document, led by the field's JSON path; None when
    nothing is (the loader refuses the document with it).

    One walk over the whole document, arrays and objects by a stack (no recursion), so
    the time is linear in its size whatever a forger put in it: nesting beyond
    `MAX_DEPTH`, a list or object too long, a string too long, a number out of its
    field's range (`_RANGES`) or beyond `MAX_INTEGER`, or not finite.
    """
    stack: list[tuple[Any, _Step | None, int]] = [(document, None, 1)]
    while stack:
        value, step, depth = stack.pop()
        problem = _out_of_bounds(value, step, depth)
        if problem is not None:
            return f"{_path(step)}: {problem}"
        if isinstance(value, Mapping):
            stack.extend((item, (step, key), depth + 1) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, (step, index), depth + 1) for index, item in enumerate(value))
    return None


_Step = tuple[Any, str | int]
"""Where a value is: its parent's step (None at the top) and its key or index; the
path is spelled out only for a value that is refused."""


def _steps(step: _Step | None) -> list[str | int]:
    names: list[str | int] = []
    while step is not None:
        step, name = step
        names.append(name)
    return names[::-1]


def _path(step: _Step | None) -> str:
    """The JSON path of a value, as `results[2].parts[0].score`."""
    path = ""
    for name in _steps(step):
        if isinstance(name, int):
            path += f"[{name}]"
        else:
            name = clean_text(shorten(name, 60))
            path += f".{name}" if path else name
    return path or "the document"


def _shape(step: _Step | None) -> str:
    """The path with its indices left out, as `_RANGES` names fields."""
    shape = ""
    for name in _steps(step):
        shape += "[]" if isinstance(name, int) else f".{name}" if shape else name
    return shape


def _out_of_bounds(value: Any, step: _Step | None, depth: int) -> str | None:
    """What is wrong with one value at its place in the document, or None."""
    if isinstance(value, _Unreadable):
        known = _RANGES.get(_shape(step))
        return value.what if known is None else f"{value.what} ({_range(*known)})"
    if isinstance(value, Mapping | list) and depth > MAX_DEPTH:
        return f"nested more than {MAX_DEPTH} levels deep"
    if isinstance(value, list):
        most = MAX_RESULTS if step is not None and step == (None, "results") else MAX_ITEMS
        return f"{len(value):,} items, more than {most:,}" if len(value) > most else None
    if isinstance(value, Mapping):
        if len(value) > MAX_ITEMS:
            return f"{len(value):,} keys, more than {MAX_ITEMS:,}"
        if any(not isinstance(k, str) or len(k) > MAX_KEY for k in value):
            return f"a key longer than {MAX_KEY} characters"
        return None
    if isinstance(value, str):
        if len(value) > MAX_TEXT:
            return f"{len(value):,} characters, more than {MAX_TEXT:,}"
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a finite number"
    low, high, unit = _RANGES.get(_shape(step), (-MAX_INTEGER, MAX_INTEGER, ""))
    if low <= value <= high:
        return None
    shown = _number(value) if abs(value) < 10**1000 else "a number of over 1,000 digits"
    return f"{shown} is out of range ({_range(low, high, unit)})"


def _range(low: float, high: float, unit: str) -> str:
    return f"{_number(low)} to {_number(high)}{' ' + unit if unit else ''}"


def _number(value: float) -> str:
    """A number as a person reads it: digits grouped, no exponent for whole numbers."""
    if isinstance(value, int) or value.is_integer():
        return shorten(f"{int(value):,}", 40)
    return shorten(f"{value:,}", 40)
