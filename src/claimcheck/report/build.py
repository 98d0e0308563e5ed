"""From results to a report: counts, the exit code and the JSON document.

Exit codes are decided here, once, from the verdicts alone:

    0  nothing stale (moved claims still hold; citation-needed claims are listed)
    1  at least one stale claim: drifted, missing or source-gone
    2  bad input or usage (raised before any result exists; see errors.py)
    3  nothing stale, but some sources could not be checked (network, no snapshot)
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from typing import Any

from claimcheck.models import ClaimResult, ExitCode, Report, Shard, Verdict
from claimcheck.wording import counted

SCHEMA_VERSION = 1


def with_shard(report: Report, shard: Shard) -> Report:
    """The report as the report of one shard of its run (`Report.shard`)."""
    return report.model_copy(update={"shard": shard})


def build_report(
    results: Iterable[ClaimResult],
    *,
    now: dt.datetime,
    offline: bool,
    duration_s: float | None = None,
) -> Report:
    """Collect results (in claim-file order) into a report."""
    return Report(generated_at=now, offline=offline, results=tuple(results), duration_s=duration_s)


def is_unchecked(result: ClaimResult) -> bool:
    """The claim's source could not be checked in this run (not: has no source at all)."""
    if result.verdict is Verdict.UNREACHABLE:
        return True
    return result.verdict is Verdict.UNVERIFIED and result.claim.source is not None


def exit_code(report: Report, fail_on: Collection[Verdict] = ()) -> ExitCode:
    """Stale beats unchecked beats OK; `fail_on` makes more verdicts count as stale."""
    if any(r.verdict.is_stale or r.verdict in fail_on for r in report.results):
        return ExitCode.STALE
    if any(is_unchecked(r) for r in report.results):
        return ExitCode.UNCHECKED
    return ExitCode.OK


def counts(report: Report) -> dict[str, int]:
    """Claims per verdict, every verdict present (zero included), in verdict order."""
    tally = Counter(result.verdict for result in report.results)
    return {v.value: tally[v] for v in Verdict}


def summary_line(report: Report) -> str:
    """One human line: how many claims, and the non-zero verdict counts."""
    parts = [f"{n} {name}" for name, n in counts(report).items() if n]
    return f"{counted(len(report.results), 'claim')}: " + (", ".join(parts) if parts else "none")


def report_document(report: Report) -> dict[str, Any]:
    """The versioned JSON form of a report (documented in docs/reports.md)."""
    return {**report_head(report), "results": list(result_documents(report))}


def report_head(report: Report) -> dict[str, Any]:
    """The report's document but its `results`, which come last (`result_documents`).

    `shard` is there only in a shard's report: a whole run's reads as it always has.
    """
    shard = report.shard
    return {
        "schema_version": SCHEMA_VERSION,
        "generated_at": report.generated_at.isoformat(),
        "offline": report.offline,
        "duration_s": report.duration_s,
        **({"shard": shard.model_dump()} if shard is not None else {}),
        "exit_code": int(exit_code(report)),
        "counts": counts(report),
    }


def result_documents(report: Report) -> Iterator[dict[str, Any]]:
    """Each result's document, made when it is asked for."""
    return (_result_document(r) for r in report.results)


_CLAIM_FIELDS = ("id", "page", "file", "line", "claim", "checked", "cited")
"""What every part of a claim on several sources shares, given once in its result."""


def _result_document(result: ClaimResult) -> dict[str, Any]:
    """One result; a claim on several sources gives its worst part's fields, and each
    part's (the fields of a result but the claim's own) in `parts`."""
    document = _fields(result)
    document["parts"] = [
        {k: v for k, v in _fields(part).items() if k not in _CLAIM_FIELDS} for part in result.parts
    ]
    return document


def _fields(result: ClaimResult) -> dict[str, Any]:
    claim, snapshot, anchor = result.claim, result.snapshot, result.claim.anchor
    return {
        "id": claim.id,
        "page": claim.page,
        "file": claim.file,
        "line": claim.line,
        "claim": claim.claim,
        "checked": claim.checked.isoformat(),
        "verdict": result.verdict.value,
        "stale": result.verdict.is_stale,
        "reason": result.reason,
        "source": claim.source,
        "cited": claim.cited,
        "quote": anchor.quote if anchor else None,
        "quote_end": anchor.quote_end if anchor else None,
        "prefix": anchor.prefix if anchor else None,
        "suffix": anchor.suffix if anchor else None,
        "absent": list(claim.absent),
        "scope": claim.scope,
        "score": result.score,
        "found": result.found,
        "diff": result.diff,
        "occurrences": result.occurrences,
        "moved_to": result.moved_to,
        "snapshot": snapshot.fetched_at.date().isoformat() if snapshot else None,
        "snapshot_fetched_at": snapshot.fetched_at.isoformat() if snapshot else None,
        "snapshot_file": f"{snapshot.key}/{snapshot.file}" if snapshot else None,
        "baseline": result.baseline.fetched_at.date().isoformat() if result.baseline else None,
        "baseline_origin": result.baseline.origin if result.baseline else None,
        "block_before": result.block_before,
        "block_after": result.block_after,
        "block_diff": result.block_diff,
        "blame": result.blame.model_dump(mode="json") if result.blame else None,
        "citation": result.citation.model_dump(mode="json") if result.citation else None,
    }
