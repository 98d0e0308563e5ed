"""The bounds of a report read back: every field's, checked in one walk before use.

A report is input from outside (a shard's job, an artifact, a file anyone may hand
over), so nothing in it may make the work that reads it grow without bound: a forged
shard count, line, score, list, string or nesting is found here and named by its JSON
path (`shard.count`, `results[2].line`); the loader (`load.py`) refuses the report
with it, so `report merge`, `report render` and `issues --report` all hold to the same
bounds. The bounds are declared once, in `document.py`: the `MAX_*` constants and each
number's range on its field of the document models (`RANGES` is read from them), so the
published schema states those of its own fields; docs/reports.md says them all (after
the JSON report's fields). Pure: parsed documents in, a problem or None out.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from claimcheck.report.document import (
    MAX_DEPTH,
    MAX_INTEGER,
    MAX_ITEMS,
    MAX_KEY,
    MAX_RESULTS,
    MAX_TEXT,
    ReportDocument,
    Unit,
)
from claimcheck.untrusted import clean_text, shorten

_Range = tuple[float, float, str]
"""A numeric field's bounds: lowest, highest and what it counts (`document.Unit`)."""


def _ranges(annotation: Any, metadata: Iterable[object], path: str) -> Iterator[tuple[str, _Range]]:
    """The range of each bounded number at or under `path`, by its path with indices
    left out, as a document model's fields declare them (`Field(ge=, le=)` and `Unit`)."""
    metadata = list(metadata)
    if get_origin(annotation) is Annotated:
        inner, *more = get_args(annotation)
        for extra in more:
            metadata += extra.metadata if isinstance(extra, FieldInfo) else [extra]
        yield from _ranges(inner, metadata, path)
        return
    # `Field(ge=, le=)` as pydantic keeps them: objects with a `ge` or an `le`.
    low = next((m.ge for m in metadata if hasattr(m, "ge")), None)
    high = next((m.le for m in metadata if hasattr(m, "le")), None)
    unit = next((m.name for m in metadata if isinstance(m, Unit)), "")
    if isinstance(low, int | float) and isinstance(high, int | float):
        yield path, (low, high, unit)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        for name, field in annotation.model_fields.items():
            key = field.alias or name
            yield from _ranges(field.annotation, field.metadata, f"{path}.{key}" if path else key)
        return
    origin = get_origin(annotation)
    for arg in get_args(annotation):
        yield from _ranges(arg, (), f"{path}[]" if origin in (list, tuple) else path)


RANGES: dict[str, _Range] = dict(_ranges(ReportDocument, (), ""))
"""The range of each numeric field the loader reads, by its path with indices left out
(`results[].citation.lines[]`); any other number is bounded by `MAX_INTEGER`."""


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
    field's range (`RANGES`) or beyond `MAX_INTEGER`, or not finite.
    """
    stack: list[tuple[Any, _Step | None, int]] = [(document, None, 1)]
    while stack:
        value, step, depth = stack.pop()
        if value is None or type(value) is bool:
            continue  # most of a report's values: nothing to bound
        if type(value) is str and len(value) <= MAX_TEXT:
            continue
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
    """The path with its indices left out, as `RANGES` names fields."""
    shape = ""
    for name in _steps(step):
        shape += "[]" if isinstance(name, int) else f".{name}" if shape else name
    return shape


def _out_of_bounds(value: Any, step: _Step | None, depth: int) -> str | None:
    """What is wrong with one value at its place in the document, or None."""
    if isinstance(value, _Unreadable):
        known = RANGES.get(_shape(step))
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
    low, high, unit = RANGES.get(_shape(step), (-MAX_INTEGER, MAX_INTEGER, ""))
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
