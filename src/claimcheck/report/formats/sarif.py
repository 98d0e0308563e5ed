"""SARIF 2.1.0: GitHub code scanning shows each claim needing attention as an alert.

Results sit at the claim's line in its claim file. Verified claims are counted in the
run's properties but are not results: GitHub code scanning ignores SARIF's `kind`
and would raise an alert for a `pass` result too.

The driver names the claimcheck version that wrote the log, and every run carries the
same `automationDetails.id` (AUTOMATION_ID): code scanning takes each upload as the
next run of one analysis, so the alert of a claim that holds again is closed.

A review verdict a person acknowledged (`claimcheck ack`) is a result too, with its true
verdict and level, and a `suppressions` entry of kind `inSource` (the acknowledgement
is written in the claim file) with the note as its justification: code scanning shows
it as dismissed rather than as an open alert.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from claimcheck.json_text import indented, indented_bytes
from claimcheck.models import ClaimResult, Report, Verdict
from claimcheck.report.build import counts
from claimcheck.report.formats.common import (
    Level,
    absent_text,
    acknowledged_results,
    blame_text,
    citation_targets,
    cited_results,
    level_of,
    needing_attention,
    quote_text,
    shown_diff,
    source_link,
)
from claimcheck.untrusted import clean_text, shorten

SARIF_SCHEMA = (
    "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json"
)
INFORMATION_URI = "https://github.com/claimcheck/claimcheck"
FINGERPRINT = "claimcheck/claim/v1"
AUTOMATION_ID = "claimcheck/claims/"
"""The category `claimcheck/claims` and no run id: every run is the same analysis.

GitHub's upload-sarif keeps an id already in the log (its `category` input is used only
for a log without one)."""

_LEVEL = {Level.ERROR: "error", Level.WARNING: "warning", Level.NOTICE: "note", Level.NONE: "none"}
_RULES: dict[Verdict, tuple[str, str]] = {
    Verdict.VERIFIED: ("The quote is on the source.", "Nothing to do."),
    Verdict.CONTEXT_CHANGED: (
        "The quote holds, but the text around it changed since the check date.",
        "Read the changed block on the source; update the claim or its check date.",
    ),
    Verdict.EXPIRED: (
        "The claim was checked too long ago.",
        "Check the claim again and update its check date.",
    ),
    Verdict.DRIFTED: (
        "The quote changed on the source.",
        "Compare the quote with the current text; update the claim and its quote.",
    ),
    Verdict.MISSING: (
        "The quote is no longer on the source.",
        "Find new support for the claim, or correct or remove it.",
    ),
    Verdict.CONTRADICTED: (
        "The source now says what the claim says it does not.",
        "Read where the source says it; correct the published page, then the claim.",
    ),
    Verdict.SOURCE_GONE: (
        "The source is gone (HTTP 404 or 410).",
        "Find where the source moved, or new support for the claim.",
    ),
    Verdict.MOVED: (
        "The source moved permanently; the quote holds at the new address.",
        "Update the claim's source URL.",
    ),
    Verdict.UNREACHABLE: (
        "The source could not be fetched; the claim's truth is unknown.",
        "Run again later; set GITHUB_TOKEN if GitHub's rate limit was hit.",
    ),
    Verdict.UNVERIFIED: (
        "The claim could not be judged: no snapshot yet, or no checkable source.",
        "Run `claimcheck snapshot`, or give the claim a source URL and quote.",
    ),
}


def render_sarif(report: Report, color: bool = False) -> str:
    """A SARIF log with one rule per verdict and one result per claim needing attention."""
    return indented(sarif_log(report))


def render_sarif_bytes(report: Report) -> bytes:
    """`render_sarif` as UTF-8 (see `json_text.indented_bytes`)."""
    return indented_bytes(sarif_log(report))


def sarif_log(report: Report) -> dict[str, Any]:
    """The SARIF log of a report, as a document."""
    verdicts = list(Verdict)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "claimcheck",
                        "version": tool_version(),
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule(v) for v in verdicts],
                    }
                },
                "automationDetails": {"id": AUTOMATION_ID},
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "endTimeUtc": report.generated_at.isoformat(),
                    }
                ],
                "results": [
                    _result(r, verdicts.index(r.verdict))
                    for r in [*needing_attention(report), *acknowledged_results(report)]
                ],
                "properties": {
                    "offline": report.offline,
                    "counts": counts(report),
                    "acknowledged": report.acknowledged,
                },
            }
        ],
    }
    return log


@cache
def tool_version() -> str:
    """The installed claimcheck's version, as `claimcheck --version` prints it."""
    try:
        return version("claimcheck-desk")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def fingerprint(result: ClaimResult) -> str:
    """Stable across runs for one claim: its page and id, never its changing text."""
    key = f"{result.claim.page}\0{result.claim.id}".encode()
    return hashlib.sha256(key).hexdigest()


def _rule(verdict: Verdict) -> dict[str, Any]:
    short, help_text = _RULES[verdict]
    level = level_of(verdict)
    return {
        "id": verdict.value,
        "name": verdict.value.title().replace("-", ""),
        "shortDescription": {"text": short},
        "fullDescription": {"text": f"{short} {help_text}"},
        "help": {"text": help_text},
        "defaultConfiguration": {"level": _LEVEL[level]},
        "properties": {"tags": ["claimcheck", level.value]},
    }


def _result(result: ClaimResult, rule_index: int) -> dict[str, Any]:
    claim = result.claim
    link = source_link(result)
    document = {
        "ruleId": result.verdict.value,
        "ruleIndex": rule_index,
        "level": _LEVEL[level_of(result.verdict)],
        "message": {"text": _message(result, link)},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": _artifact(claim.file),
                    "region": {"startLine": max(1, claim.line)},
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT: fingerprint(result)},
        "properties": {
            "claimId": claim.id,
            "page": claim.page,
            "verdict": result.verdict.value,
            "source": claim.source,
            "link": link,
            "score": result.score,
            "checked": claim.checked.isoformat(),
            "cite": [
                {"source": index, "label": label, "url": url}
                for index, part in cited_results(result)
                for label, url in citation_targets(part)
            ],
        },
    }
    if result.quiet and result.acknowledged is not None:
        document["suppressions"] = [_suppression(result)]
    return document


def _suppression(result: ClaimResult) -> dict[str, Any]:
    """An acknowledged review verdict as SARIF says a result a person looked at: in
    source (the claim file's `reviewed:`), accepted, the note its justification."""
    assert result.acknowledged is not None
    review = result.acknowledged.review
    properties: dict[str, Any] = {"date": review.date.isoformat(), "version": review.version}
    if review.until is not None:
        properties["until"] = review.until.isoformat()
    if review.by is not None:
        properties["by"] = clean_text(review.by)
    return {
        "kind": "inSource",
        "status": "accepted",
        "justification": clean_text(review.note),
        "properties": properties,
    }


def _artifact(file: str) -> dict[str, str]:
    """A relative claim-file path against the checkout root (absolute ones as file URIs)."""
    path = PurePath(file)
    if path.is_absolute():
        return {"uri": path.as_uri()}
    return {"uri": quote(path.as_posix(), safe="/"), "uriBaseId": "%SRCROOT%"}


def _message(result: ClaimResult, link: str | None) -> str:
    claim = result.claim
    lines = [f"Claim {claim.id} ({result.verdict.value}): {clean_text(result.reason)}"]
    quoted = quote_text(claim)
    if quoted:
        lines.append(f"Quote: “{shorten(clean_text(quoted), 400)}”")
    absent = absent_text(claim)
    if absent:
        lines.append(f"Must not say: {shorten(clean_text(absent), 400)}")
    if result.verdict is Verdict.CONTRADICTED and result.found:
        lines.append(f"Says now: “{shorten(clean_text(result.found), 400)}”")
    diff = shown_diff(result)
    if diff:
        lines.append(f"Change: {shorten(clean_text(diff), 400)}")
    if result.block_diff:
        lines.append(f"Block change: {shorten(clean_text(result.block_diff), 400)}")
    if link:
        lines.append(f"Source: {link}")
    if result.blame is not None:
        lines.append(f"Changed upstream in {clean_text(blame_text(result.blame))}")
    for index, part in cited_results(result):
        for label, url in citation_targets(part)[1:]:
            lines.append(f"Cite{f' source {index}' if index else ''} ({label}): {url}")
    return "\n".join(lines)
