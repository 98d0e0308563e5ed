"""GitHub Actions workflow commands: an annotation at each claim's line, then every claim.

Stale claims are `::error`, review verdicts `::warning`, claims that could not be
judged and moved sources `::notice`, and so are review verdicts a person acknowledged
(`claimcheck ack`), titled as such, with the note. GitHub shows only a few annotations of each kind
per step, so the full list follows in a folded log group (and, when the CLI sees
`GITHUB_STEP_SUMMARY`, in the job summary as Markdown).
"""

from __future__ import annotations

from claimcheck.models import ClaimResult, Report
from claimcheck.report.build import summary_line
from claimcheck.report.formats.common import (
    Level,
    acknowledged_results,
    evidence,
    level_of,
    needing_attention,
)
from claimcheck.untrusted import clean_text, shorten


def escape_data(text: str) -> str:
    """Escape a command's message as the runner expects (`%`, CR and LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command property's value: a message's escapes plus `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report, color: bool = False) -> str:
    """One annotation per claim needing attention, then a log group of all claims.

    Every line of the group starts with a verdict name and third-party text is cleaned
    of line breaks, so nothing a page says can start a workflow command of its own.
    """
    lines = [_annotation(r) for r in needing_attention(report)]
    lines += [_annotation(r) for r in acknowledged_results(report)]
    lines.append(f"::group::{escape_data(summary_line(report))}")
    width = max((len(r.verdict.value) for r in report.results), default=0)
    ids = max((len(clean_text(r.claim.id)) for r in report.results), default=0)
    for result in report.results:
        claim = result.claim
        lines.append(
            f"{result.verdict.value:<{width}}  {clean_text(claim.id):<{ids}}  "
            f"{clean_text(claim.file)}:{claim.line}  {clean_text(result.reason)}"
        )
    lines.append("::endgroup::")
    return "\n".join(lines) + "\n"


def _annotation(result: ClaimResult) -> str:
    claim = result.claim
    level = Level.NOTICE if result.quiet else level_of(result.verdict)
    noun = {Level.ERROR: "stale claim", Level.WARNING: "claim to review"}.get(level, "claim")
    if result.quiet:
        noun = "acknowledged claim"
    properties = ",".join(
        f"{key}={escape_property(value)}"
        for key, value in (
            ("file", clean_text(claim.file)),
            ("line", str(claim.line)),
            ("title", f"{noun} {clean_text(claim.id)}: {result.verdict.value}"),
        )
    )
    return f"::{level.value} {properties}::{escape_data(_message(result))}"


def _message(result: ClaimResult) -> str:
    """The annotation body, one fact a line (the runner shows the line breaks)."""
    lines = [clean_text(result.reason)]
    for label, text in evidence(result):
        text = shorten(clean_text(text), 300)
        if label in ("quote", "now", "says now"):
            text = f"“{text}”"
        lines.append(f"{label}: {text}")
    return "\n".join(lines)
