"""Read a JSON report (`verify --format json`) back into results, for steps that run later.

The report carries what a person reads, not every stored detail: snapshots come back
with their key, file and time but without digest or validators (empty), which is all
that rendering a result needs. Unknown keys are ignored so newer reports still load;
a newer `schema_version` is refused, since a field may have changed meaning. A report
with a `shard` loads with it (`Report.shard`); one without (older reports too) as a
whole run's.

A report is input from outside, so every field is bounded before any of it is used
(`bounds.check_bounds`): a field out of bounds is refused with its JSON path, never
carried into work that grows with it. A claim judged twice is refused too.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from claimcheck.errors import ClaimcheckError
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
    invalid_because,
)
from claimcheck.report.bounds import MAX_REPORT_BYTES, check_bounds, parse_report_text
from claimcheck.report.build import SCHEMA_VERSION
from claimcheck.untrusted import shorten

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class ReportError(ClaimcheckError):
    """The file is not a claimcheck JSON report this version can read."""

    hint = "write the report with `claimcheck verify --format json` (or `--output json=PATH`)"


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


def load_report_document(document: Any) -> Report:
    """The report of a parsed JSON document; every problem names the result it is in.

    The document's bounds are checked first (`bounds.check_bounds`), so nothing below
    works on a forged size.
    """
    if (problem := check_bounds(document)) is not None:
        raise ReportError(problem)
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


def _result(entry: object) -> ClaimResult:
    if not isinstance(entry, Mapping):
        raise TypeError(f"a result must be an object, not {type(entry).__name__}")
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
