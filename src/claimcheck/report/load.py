"""Read a JSON report (`verify --format json`) back into results, for steps that run later.

The report carries what a person reads, not every stored detail: snapshots come back
with their key, file and time but without digest or validators (empty), which is all
that rendering a result needs. Unknown keys are ignored so newer reports still load;
a newer `schema_version` is refused, since a field may have changed meaning. A report
with a `shard` loads with it (`Report.shard`); one without (older reports too) as a
whole run's.

A report is input from outside (a shard's job, an artifact, a file anyone may hand
over), so every field is bounded before any of it is used (`check_bounds`): a forged
shard count, line, score, list or string is refused with the JSON path of the field,
never carried into work that grows with it. The bounds are the `MAX_*` constants
below, and the README says them (after the JSON report's fields).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from claimcheck.errors import ClaimcheckError, invalid_because
from claimcheck.models import (
    Anchor,
    Blame,
    Citation,
    Claim,
    ClaimPart,
    ClaimResult,
    MediaType,
    Report,
    Shard,
    Snapshot,
)
from claimcheck.report.build import SCHEMA_VERSION
from claimcheck.untrusted import clean_text, shorten

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

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


class ReportError(ClaimcheckError):
    """The file is not a claimcheck JSON report this version can read."""

    hint = "write the report with `claimcheck verify --format json` (or `--output json=PATH`)"


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


def read_report_document(path: Path) -> Any:
    """The parsed JSON of a report file, within `MAX_REPORT_BYTES`; a `ReportError`
    that names the file otherwise."""
    try:
        size = path.stat().st_size
        if size > MAX_REPORT_BYTES:
            raise ReportError(
                f"{path}: {size:,} bytes, more than the {MAX_REPORT_BYTES // 1024 // 1024} "
                "MiB a report may hold"
            )
        with path.open("rb") as handle:  # the file may grow after stat: read no more
            data = handle.read(MAX_REPORT_BYTES + 1)
        if len(data) > MAX_REPORT_BYTES:
            raise ReportError(f"{path}: more than the {MAX_REPORT_BYTES:,} bytes a report may hold")
        return parse_report_text(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ReportError(f"{path}: cannot read the report: {exc}") from exc


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


def check_bounds(document: Any) -> None:
    """Refuse a document with a field out of its bounds, naming the field's JSON path.

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
            raise ReportError(f"{_path(step)}: {problem}")
        if isinstance(value, Mapping):
            stack.extend((item, (step, key), depth + 1) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, (step, index), depth + 1) for index, item in enumerate(value))


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


def load_report_document(document: Any) -> Report:
    """The report of a parsed JSON document; every problem names the result it is in.

    The document's bounds are checked first (`check_bounds`), so nothing below works on
    a forged size.
    """
    check_bounds(document)
    if not isinstance(document, Mapping) or not isinstance(document.get("results"), list):
        raise ReportError("not a claimcheck JSON report: no `results` list")
    version = document.get("schema_version")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise ReportError(
            f"report schema_version {version!r} is not one this claimcheck reads "
            f"(up to {SCHEMA_VERSION})"
        )
    results = []
    first: dict[str, int] = {}
    for index, entry in enumerate(document["results"]):
        try:
            results.append(_result(entry))
        except (KeyError, TypeError, ValueError, ValidationError) as exc:
            raise ReportError(f"report result {index + 1}: {invalid_because(exc)}") from exc
        claim_id = results[-1].claim.id
        if claim_id in first:  # ids are unique across the claim files
            raise ReportError(
                f"results[{index}].id: {claim_id!r} is the id of results[{first[claim_id]}] "
                "too; a report judges each claim once"
            )
        first[claim_id] = index
    return Report(
        generated_at=_datetime(document.get("generated_at")) or dt.datetime.now(dt.UTC),
        offline=bool(document.get("offline", False)),
        results=tuple(results),
        duration_s=_duration(document.get("duration_s")),
        shard=_shard(document.get("shard")),
    )


def _shard(value: object) -> Shard | None:
    """The shard a report names; None for a whole run's (no `shard`, or null).

    A `shard` that is not one is refused rather than ignored: read as a whole run, a
    shard's report would let its missing claims pass for removed ones.
    """
    if value is None:
        return None
    try:
        return Shard.model_validate(value)
    except ValidationError as exc:
        raise ReportError(
            f"report shard {shorten(repr(value), 80)} is not one: expected "
            '{"index": K, "count": N}, whole numbers with 1 <= K <= N'
        ) from exc


def _duration(value: Any) -> float | None:
    """A run's duration as a report states it; anything but a number ≥ 0 is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value)


def _checked(value: object) -> dt.date:
    """A result's check date, named when it is not one."""
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            return dt.date.fromisoformat(value)
    raise ValueError(f"checked: {shorten(repr(value), 40)} is not a date (YYYY-MM-DD)")


def _result(entry: Mapping[str, Any]) -> ClaimResult:
    if not isinstance(entry.get("id"), str) or not _ID.match(entry["id"]):
        raise ValueError(f"id {entry.get('id')!r} is not a claim id")
    quote = entry.get("quote")
    anchor = None
    if quote:
        anchor = Anchor(
            quote=quote,
            quote_end=entry.get("quote_end"),
            prefix=entry.get("prefix"),
            suffix=entry.get("suffix"),
        )
    parts = tuple(_part(entry, part) for part in entry.get("parts") or ())
    claim = Claim(
        parts=tuple(
            ClaimPart(
                source=part.claim.source,
                anchor=part.claim.anchor,
                absent=part.claim.absent,
                scope=part.claim.scope,
            )
            for part in parts
            if part.claim.source is not None
        ),
        absent=_texts(entry.get("absent")),
        scope=entry.get("scope") if isinstance(entry.get("scope"), str) else None,
        id=entry["id"],
        page=entry["page"],
        claim=entry["claim"],
        source=entry.get("source"),
        anchor=anchor,
        checked=_checked(entry["checked"]),
        cited=entry.get("cited"),
        file=entry["file"],
        line=entry["line"],
    )
    return ClaimResult(
        claim=claim,
        verdict=entry["verdict"],
        reason=entry["reason"],
        score=entry.get("score"),
        found=entry.get("found"),
        diff=entry.get("diff"),
        snapshot=_snapshot(entry, entry.get("snapshot_file"), entry.get("snapshot_fetched_at")),
        moved_to=entry.get("moved_to"),
        occurrences=entry.get("occurrences") or 0,
        baseline=_baseline(entry),
        block_before=_text(entry.get("block_before")),
        block_after=_text(entry.get("block_after")),
        block_diff=_text(entry.get("block_diff")),
        blame=_blame(entry.get("blame")),
        citation=_citation(entry.get("citation")),
        parts=parts,
    )


def _texts(value: Any) -> tuple[str, ...]:
    """An absence claim's texts as a report gives them (older reports: none)."""
    if not isinstance(value, list):
        return ()
    return tuple(text for text in value if isinstance(text, str))


def _part(entry: Mapping[str, Any], part: object) -> ClaimResult:
    """One part of a claim on several sources: its fields, with the claim's own."""
    if not isinstance(part, Mapping):
        raise TypeError(f"a part must be an object, not {type(part).__name__}")
    shared = {k: entry.get(k) for k in ("id", "page", "file", "line", "claim", "checked")}
    return _result({**part, **shared, "cited": None, "parts": None})


def _snapshot(
    entry: Mapping[str, Any], path: object, fetched: object, origin: object = None
) -> Snapshot | None:
    when = _datetime(fetched)
    if when is None:
        return None
    key, _, file = path.rpartition("/") if isinstance(path, str) else ("", "", "")
    source = entry.get("source") or ""
    suffix = file.rsplit(".", 1)[-1].lower() if "." in file else ""
    media = {"md": MediaType.MARKDOWN, "html": MediaType.HTML}.get(suffix, MediaType.TEXT)
    return Snapshot(
        key=key,
        url=source,
        final_url=entry.get("moved_to") or source,
        fetched_at=when,
        status=200,
        sha256="",
        media=media,
        file=file,
        origin=origin if isinstance(origin, str) and origin else "fetch",
    )


def _baseline(entry: Mapping[str, Any]) -> Snapshot | None:
    """The baseline, whether a report gives it as a date, a time or an object."""
    value = entry.get("baseline")
    if isinstance(value, Mapping):
        return _snapshot(entry, value.get("file"), value.get("fetched_at") or value.get("date"))
    return _snapshot(entry, entry.get("baseline_file"), value, entry.get("baseline_origin"))


def _blame(value: object) -> Blame | None:
    if not isinstance(value, Mapping):
        return None
    try:
        return Blame.model_validate({k: v for k, v in value.items() if k in Blame.model_fields})
    except ValidationError:
        return None


def _citation(value: object) -> Citation | None:
    """A citation as a report gives it; None when absent (older reports) or not one."""
    if not isinstance(value, Mapping):
        return None
    try:
        return Citation.model_validate(
            {k: v for k, v in value.items() if k in Citation.model_fields}
        )
    except ValidationError:
        return None


def _datetime(value: object) -> dt.datetime | None:
    """An ISO date or date-time (a bare date is midnight UTC); None for anything else."""
    if not isinstance(value, str):
        return None
    try:
        when = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def report_schema() -> dict[str, Any]:
    """The published JSON Schema of the report document (shipped with the package)."""
    text = resources.files("claimcheck.report").joinpath("report.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
