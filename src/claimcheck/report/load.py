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

import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from claimcheck.errors import ClaimcheckError
from claimcheck.json_text import invalid_because
from claimcheck.models import (
    Acknowledged,
    Anchor,
    ArchivedCopy,
    Blame,
    Citation,
    Claim,
    ClaimPart,
    ClaimResult,
    MediaType,
    Report,
    Review,
    Shard,
    Snapshot,
    Verdict,
)
from claimcheck.report.bounds import check_bounds, parse_report_text
from claimcheck.report.document import (
    MAX_REPORT_BYTES,
    SCHEMA_VERSION,
    PartDocument,
    ResultDocument,
)
from claimcheck.untrusted import shorten


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


def _result(entry: object) -> ClaimResult:
    """A result as the report gives it (`ResultDocument`, which says what an older
    report's may lack), its parts' included."""
    document = ResultDocument.model_validate(entry)
    parts = tuple(_evidence(document, part) for part in document.parts)
    acknowledged = _acknowledged(document)
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
        absent=tuple(document.absent),
        scope=document.scope,
        id=document.id,
        page=document.page,
        claim=document.claim,
        source=document.source,
        anchor=_anchor(document),
        checked=dt.date.fromisoformat(document.checked),
        cited=document.cited,
        file=document.file,
        line=document.line,
        reviewed=None if acknowledged is None else acknowledged.review,
    )
    result = _evidence(document, document, claim, parts)
    if acknowledged is None:
        return result
    return result.model_copy(update={"acknowledged": acknowledged})


def _acknowledged(document: ResultDocument) -> Acknowledged | None:
    """The acknowledgement a result carries, with the claim file's entry it stands for."""
    given = document.acknowledged
    if given is None:
        return None
    review = Review(
        date=dt.date.fromisoformat(given.date),
        note=given.note,
        verdict=Verdict(given.verdict),
        version=given.version,
        until=dt.date.fromisoformat(given.until) if given.until else None,
        by=given.by,
    )
    return Acknowledged(review=review, holds=given.holds, lapsed=given.lapsed)


def _evidence(
    result: ResultDocument,
    fields: PartDocument | ResultDocument,
    claim: Claim | None = None,
    parts: tuple[ClaimResult, ...] = (),
) -> ClaimResult:
    """The result of `fields` (the result's own, or one part's) about `claim`; a part's
    claim is the result's claim on that part's source alone."""
    if claim is None:
        claim = Claim(
            absent=tuple(fields.absent),
            scope=fields.scope,
            id=result.id,
            page=result.page,
            claim=result.claim,
            source=fields.source,
            anchor=_anchor(fields),
            checked=dt.date.fromisoformat(result.checked),
            file=result.file,
            line=result.line,
        )
    return ClaimResult(
        claim=claim,
        verdict=Verdict(fields.verdict),
        reason=fields.reason,
        score=fields.score,
        found=fields.found,
        diff=fields.diff,
        snapshot=_snapshot(fields, fields.snapshot_file, fields.snapshot_fetched_at),
        moved_to=fields.moved_to,
        occurrences=fields.occurrences,
        baseline=_snapshot(fields, fields.baseline_file, fields.baseline, fields.baseline_origin),
        block_before=fields.block_before,
        block_after=fields.block_after,
        block_diff=fields.block_diff,
        blame=Blame.model_validate(fields.blame.model_dump()) if fields.blame else None,
        citation=Citation.model_validate(fields.citation.model_dump()) if fields.citation else None,
        archived=(
            ArchivedCopy.model_validate(fields.archived.model_dump()) if fields.archived else None
        ),
        parts=parts,
    )


def _anchor(fields: PartDocument | ResultDocument) -> Anchor | None:
    if not fields.quote:
        return None
    return Anchor(
        quote=fields.quote, quote_end=fields.quote_end, prefix=fields.prefix, suffix=fields.suffix
    )


def _snapshot(
    fields: PartDocument | ResultDocument,
    path: str | None,
    fetched: str | None,
    origin: str | None = None,
) -> Snapshot | None:
    """The snapshot a report names, with its key, file and time (no digest or
    validators: a report does not carry them)."""
    when = _datetime(fetched)
    if when is None:
        return None
    key, _, file = (path or "").rpartition("/")
    source = fields.source or ""
    suffix = file.rsplit(".", 1)[-1].lower() if "." in file else ""
    media = {"md": MediaType.MARKDOWN, "html": MediaType.HTML}.get(suffix, MediaType.TEXT)
    return Snapshot(
        key=key,
        url=source,
        final_url=fields.moved_to or source,
        fetched_at=when,
        status=200,
        sha256="",
        media=media,
        file=file,
        origin=origin or "fetch",
    )


def _datetime(value: object) -> dt.datetime | None:
    """An ISO date or date-time (a bare date is midnight UTC); None for anything else."""
    if not isinstance(value, str):
        return None
    try:
        when = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)
