"""The Markdown report: for a GitHub job summary, a pull-request comment or an issue.

Every string that comes from a claim file, a source page or GitHub goes through
`markdown_text` / `markdown_code`, so a page cannot add links, images, mentions,
issue references or hidden HTML to the report.
"""

from __future__ import annotations

from claimcheck.models import Blame, ClaimResult, Report, Verdict
from claimcheck.report.build import summary_line
from claimcheck.report.formats.common import (
    ATTENTION_LEVELS,
    Change,
    Level,
    absent_said,
    absent_text,
    acknowledged_results,
    acknowledgement_text,
    archived_link,
    blame_text,
    change_of,
    citation_targets,
    display_url,
    level_of,
    needing_attention,
    quote_text,
    runs,
    safe_url,
    source_link,
    text_now,
)
from claimcheck.untrusted import markdown_code, markdown_text
from claimcheck.wording import counted

ICON = {Level.ERROR: "❌", Level.WARNING: "⚠️", Level.NOTICE: "ℹ️", Level.NONE: "✅"}
ACKNOWLEDGED_ICON = "☑️"
ACKNOWLEDGED_HEADING = "Acknowledged: a person looked, quiet until the source changes"
_HEADING = {
    Level.ERROR: "Stale: the quote no longer supports the claim",
    Level.WARNING: "To review: the quote holds, but look again",
    Level.NOTICE: "Not judged, or moved",
}


def render_markdown(report: Report, color: bool = False) -> str:
    """Counts by verdict, a section per claim needing attention, then every claim."""
    lines = [f"## claimcheck: {markdown_text(summary_line(report))}", ""]
    lines += _counts(report)
    attention = needing_attention(report)
    if not attention:
        lines += ["", "Every claim's quote is on its source. ✅"]
    for level in ATTENTION_LEVELS:
        results = [r for r in attention if level_of(r.verdict) is level]
        if not results:
            continue
        title = f"{ICON[level]} {_HEADING[level]} ({len(results)})"
        # Notices are folded: nothing is known to be wrong, stale claims come first.
        lines += [
            "",
            f"<details><summary>{title}</summary>" if level is Level.NOTICE else f"### {title}",
        ]
        for result in results:
            lines += ["", *_section(result)]
        if level is Level.NOTICE:
            lines += ["", "</details>"]
    acknowledged = acknowledged_results(report)
    if acknowledged:  # folded: a person looked already
        title = f"{ACKNOWLEDGED_ICON} {ACKNOWLEDGED_HEADING} ({len(acknowledged)})"
        lines += ["", f"<details><summary>{title}</summary>"]
        for result in acknowledged:
            lines += ["", *_section(result)]
        lines += ["", "</details>"]
    lines += ["", *_all_claims(report)]
    return "\n".join(lines) + "\n"


def _counts(report: Report) -> list[str]:
    verdicts = list(Verdict)
    head = " | ".join(f"{ICON[level_of(v)]} {v.value}" for v in verdicts)
    return [
        f"| {head} |",
        "|" + " ---: |" * len(verdicts),
        "| " + " | ".join(str(report.count(v)) for v in verdicts) + " |",
    ]


def _section(result: ClaimResult) -> list[str]:
    claim = result.claim
    where = markdown_code(f"{claim.file}:{claim.line}")
    lines = [
        f"#### {markdown_code(claim.id)} · {result.verdict.value}",
        "",
        f"- **Claim** ({markdown_code(claim.page)}, {where}): {markdown_text(claim.claim)}",
        f"- **Why:** {markdown_text(result.reason)}",
    ]
    quoted = quote_text(claim)
    if quoted:
        lines.append(f"- **Quote:** “{markdown_text(quoted)}”")
    absent = absent_text(claim)
    if absent:
        lines.append(f"- **Must not say:** {markdown_text(absent)}")
    change = change_of(result)
    said = absent_said(result)
    if said is not None and result.found:
        lines.append(f"- **Says now:** “{_said(result.found, said[1])}”")
    elif change is not None and change.what == "quote":
        score = f" ({result.score:.0f}% match)" if result.score is not None else ""
        lines.append(f"- **Now:** {inline_diff(change)}{score}")
    elif change is not None:
        what = "Its block" if change.what == "block" else "The quote in its context"
        lines.append(f"- **{what}, then → now:** {inline_diff(change)}")
    elif (now := text_now(result)) is not None:
        label = "Says now" if result.verdict is Verdict.CONTRADICTED else "Now"
        lines.append(f"- **{label}:** “{markdown_text(now)}”")
    lines.append(f"- **Source:** {_source(result)}")
    if (copy := archived_link(result)) is not None:
        lines.append(f"- **Last archived copy:** [the capture of {copy[1]}]({copy[0]})")
    if (cited := citation_links(result)) is not None:
        lines.append(f"- **Cite:** {cited}")
    lines.append(f"- **Dates:** {_dates(result)}")
    if result.blame is not None:
        lines.append(f"- **Changed upstream:** {markdown_blame(result.blame)}")
    if (reviewed := acknowledgement_text(result)) is not None:
        lines.append(f"- **Reviewed:** {markdown_text(reviewed)}")
    return lines


def inline_diff(change: Change) -> str:
    """The word diff as Markdown: ~~removed~~ and **added** words, all escaped, between
    the words of the text now around the quote (context, unmarked)."""
    styles = {"same": "{}", "removed": "~~{}~~", "added": "**{}**"}
    words = [
        *(("same", w) for w in change.lead),
        *change.words,
        *(("same", w) for w in change.tail),
    ]
    return " ".join(styles[kind].format(markdown_text(text)) for kind, text in runs(words))


def _said(unit: str, span: tuple[int, int]) -> str:
    """The unit that contradicts an absence claim, the absent text in it in bold.

    Each piece is escaped on its own; when that escapes the unit otherwise than whole
    (a mention or reference cut at the bold's edge), the unit is shown unmarked.
    """
    start, end = span
    pieces = [markdown_text(part) for part in (unit[:start], unit[start:end], unit[end:])]
    if "".join(pieces) != markdown_text(unit):
        return markdown_text(unit)
    return f"{pieces[0]}**{pieces[1]}**{pieces[2]}"


def _source(result: ClaimResult) -> str:
    claim = result.claim
    if claim.source is None:
        return f"citation needed (cites {markdown_text(claim.cited or 'nothing')})"
    link = source_link(result)
    moved = safe_url(result.moved_to)
    label = markdown_text(display_url(moved or claim.source))
    text = f"[{label}]({link})" if link else label
    if link and "#:~:text=" in link:
        text += " (opens at the text)"
    if moved:
        text += f", moved from {markdown_text(display_url(claim.source))}"
    return text


def citation_links(result: ClaimResult) -> str | None:
    """The claim's citation as Markdown links (`citation_targets`), their URLs made safe
    to end no link or table cell. None: nothing to cite."""
    targets = citation_targets(result)
    return " · ".join(f"[{label}]({url})" for label, url in targets) if targets else None


def _dates(result: ClaimResult) -> str:
    parts = [f"checked {result.claim.checked}"]
    if result.baseline is not None:
        parts.append(f"baseline snapshot {result.baseline.fetched_at.date()}")
    if result.snapshot is not None:
        parts.append(f"current snapshot {result.snapshot.fetched_at.date()}")
    return " · ".join(parts)


def markdown_blame(blame: Blame) -> str:
    """The upstream commit as Markdown, linked when its URL is a web address."""
    text = markdown_text(blame_text(blame))
    url = safe_url(blame.url)
    return f"[{text}]({url})" if url else text


def _all_claims(report: Report) -> list[str]:
    """Every claim in a folded table, with its citation: annotations are capped, the
    summary is not.

    Cells use `markdown_text`, which escapes `|`; a code span would not stop a pipe
    from splitting a GitHub table cell.
    """
    lines = [
        f"<details><summary>All {counted(len(report.results), 'claim')}</summary>",
        "",
        "| | claim | page | verdict | where | cite |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for result in report.results:
        claim = result.claim
        lines.append(
            f"| {_icon(result)} | {markdown_text(claim.id)} | "
            f"{markdown_text(claim.page)} | {result.verdict.value} | "
            f"{markdown_text(f'{claim.file}:{claim.line}')} | {_cite_cell(result)} |"
        )
    return [*lines, "", "</details>"]


def _icon(result: ClaimResult) -> str:
    return ACKNOWLEDGED_ICON if result.quiet else ICON[level_of(result.verdict)]


def _cite_cell(result: ClaimResult) -> str:
    """The citation links of a claim, and of each part of a claim on several sources."""
    if not result.parts:
        return citation_links(result) or ""
    cells = [
        f"{index}: {citation_links(part) or part.verdict.value}"
        for index, part in enumerate(result.parts, 1)
    ]
    return "<br>".join(cells)
