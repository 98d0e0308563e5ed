"""From results to a report: counts, the exit code and the JSON document.

Exit codes are decided here, once, from the verdicts alone:

    0  nothing stale (moved claims still hold; citation-needed claims are listed)
    1  at least one stale claim: drifted, missing or source-gone
    2  bad input or usage (raised before any result exists; see errors.py)
    3  nothing stale, but some sources could not be checked (network, no snapshot)

A review verdict a person acknowledged (`ClaimResult.quiet`) never fails the gate, even
when `--fail-on` names its verdict: the person looked already.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from typing import Any

from claimcheck.models import ClaimResult, ExitCode, Report, Shard, Verdict
from claimcheck.report.document import ReportDocument, ResultWriter
from claimcheck.wording import counted


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
    """Stale beats unchecked beats OK; `fail_on` makes more verdicts count as stale,
    but an acknowledged review verdict (`ClaimResult.quiet`), which a person looked at."""
    present = {r.verdict for r in report.results}  # each verdict weighed once
    if any(v.is_stale for v in present):
        return ExitCode.STALE
    if fail_on and any(r.verdict in fail_on and not r.quiet for r in report.results):
        return ExitCode.STALE
    if present & _UNCHECKED and any(is_unchecked(r) for r in report.results):
        return ExitCode.UNCHECKED
    return ExitCode.OK


_UNCHECKED = frozenset({Verdict.UNREACHABLE, Verdict.UNVERIFIED})
"""The verdicts of a result whose source may not have been checked (`is_unchecked`)."""


def counts(report: Report) -> dict[str, int]:
    """Claims per verdict, every verdict present (zero included), in verdict order."""
    tally = Counter(result.verdict for result in report.results)
    return {v.value: tally[v] for v in Verdict}


def summary_line(report: Report) -> str:
    """One human line: how many claims, and the non-zero verdict counts."""
    parts = [f"{n} {name}" for name, n in counts(report).items() if n]
    line = f"{counted(len(report.results), 'claim')}: " + (", ".join(parts) if parts else "none")
    # Of the review verdicts, those a person acknowledged: counted apart, not again.
    return line + (f"; {report.acknowledged} acknowledged" if report.acknowledged else "")


def report_document(report: Report) -> dict[str, Any]:
    """The versioned JSON form of a report (`document.ReportDocument`; documented in
    docs/reports.md)."""
    return {**report_head(report), "results": list(result_documents(report))}


def report_head(report: Report) -> dict[str, Any]:
    """The report's document but its `results`, which come last (`result_documents`).

    `shard` is there only in a shard's report: a whole run's reads as it always has.
    """
    document = ReportDocument.head(
        report, int(exit_code(report)), counts(report), report.acknowledged
    ).dump()
    del document["results"]
    return document


def result_documents(report: Report) -> Iterator[dict[str, Any]]:
    """Each result's document, made when it is asked for (`document.result_fields`)."""
    return map(ResultWriter().fields, report.results)
