"""The HTML report: one self-contained page to read, filter and act on every claim.

No external assets: the CSS and the filter script are inline, and a Content Security
Policy allows that one script (by its hash) and nothing else, so even a mistake in
escaping could not run a page's script. Every third-party string is escaped.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from typing import Literal

from claimcheck.models import ClaimResult, Report, Verdict
from claimcheck.report.build import summary_line
from claimcheck.report.formats.common import (
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
    cited_results,
    display_url,
    level_of,
    needing_attention,
    quote_text,
    safe_url,
    source_link,
)
from claimcheck.report.formats.html_assets import SCRIPT, STYLE
from claimcheck.untrusted import clean_text

_SCRIPT_HASH = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
_CSP = (
    f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{_SCRIPT_HASH}'; "
    "base-uri 'none'; form-action 'none'"
)
_NOW_MISSING = {
    Verdict.MISSING: "nothing close to the quote is on the page now",
    Verdict.SOURCE_GONE: "the page is gone",
    Verdict.UNREACHABLE: "the page could not be fetched",
    Verdict.UNVERIFIED: "not judged: no snapshot of the page yet",
}


def esc(text: str) -> str:
    """Third-party text as inert HTML text or attribute value."""
    return html.escape(clean_text(text), quote=True)


def render_html(report: Report, color: bool = False) -> str:
    """The whole page: summary counts, filters, then claims needing attention first."""
    attention = needing_attention(report)
    acknowledged = acknowledged_results(report)  # apart: a person looked already
    passing = [r for r in report.results if level_of(r.verdict) is Level.NONE]
    when = report.generated_at.strftime("%Y-%m-%d %H:%M %Z").strip()
    mode = " · offline (stored snapshots)" if report.offline else ""
    parts = [
        "<!doctype html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>claimcheck report {esc(when)}</title>",
        f"<style>{STYLE}</style>",
        "</head>",
        "<body>",
        "<header>",
        "<h1>claimcheck report</h1>",
        f'<p class="meta">{esc(summary_line(report))} · generated {esc(when)}{mode}</p>',
        _counts(report),
        '<form id="filters" class="filters" hidden>',
        '<label>verdict <select id="filter-verdict"><option value="">all</option>'
        '<option value="attention">needs attention</option>'
        '<option value="acknowledged">acknowledged</option></select></label>',
        '<label>page <select id="filter-page"><option value="">all pages</option></select></label>',
        '<output id="shown"></output>',
        "</form>",
        "</header>",
        "<main>",
        *(_claim(r) for r in [*attention, *acknowledged, *passing]),
        "</main>",
        f"<script>{SCRIPT}</script>",
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


def _counts(report: Report) -> str:
    items = "".join(
        f'<li class="level-{level_of(v).value}{"" if report.count(v) else " zero"}">'
        f"<b>{report.count(v)}</b> {v.value}</li>"
        for v in Verdict
    )
    if report.acknowledged:
        items += f'<li class="level-acknowledged"><b>{report.acknowledged}</b> acknowledged</li>'
    return f'<ul class="counts">{items}</ul>'


def _claim(result: ClaimResult) -> str:
    claim = result.claim
    level = "acknowledged" if result.quiet else level_of(result.verdict).value
    where = f"{claim.page} · {claim.file}:{claim.line}"
    parts = [
        f'<article class="claim level-{level}" id="claim-{esc(claim.id)}" data-level="{level}" '
        f'data-verdict="{result.verdict.value}" data-page="{esc(claim.page)}">',
        f'<header><span class="badge">{result.verdict.value}</span> '
        f'<h2>{esc(claim.id)}</h2> <span class="where">{esc(where)}</span></header>',
        f'<p class="claim-text">{esc(claim.claim)}</p>',
        f'<p class="reason">{esc(result.reason)}</p>',
    ]
    reviewed = acknowledgement_text(result)
    if reviewed is not None:
        parts.append(f'<p class="reviewed">{esc(reviewed)}</p>')
    absent = absent_text(claim)
    said = absent_said(result)
    if claim.anchor is None and not absent:
        parts.append(f'<p class="cited">cites: {esc(claim.cited or "nothing")}</p>')
    elif claim.anchor is not None and said is None and _changed(result):
        parts.append(_sides(result))
    elif claim.anchor is not None:
        parts.append(f'<p class="quote">“{esc(quote_text(claim) or "")}”</p>')
    # An absence claim: what it checks, and the unit that now says it when contradicted.
    if absent:
        parts.append(f'<p class="absent">must not say: {esc(absent)}</p>')
    if said is not None and result.found:
        parts.append(_says_now(result, result.found, said[1]))
    parts.append(_links(result))
    parts.append("</article>")
    return "\n".join(parts)


def _changed(result: ClaimResult) -> bool:
    """Whether the card shows the quote then and now: it needs attention, or its block
    changed."""
    return level_of(result.verdict) is not Level.NONE or result.block_before is not None


def _sides(result: ClaimResult) -> str:
    """Then and now side by side, removed words struck out and added words marked."""
    claim = result.claim
    then = f"checked {claim.checked}"
    if result.baseline is not None:
        then += f" · baseline {result.baseline.fetched_at.date()}"
    now = f"snapshot {result.snapshot.fetched_at.date()}" if result.snapshot else "no snapshot"
    change = change_of(result)
    if change is not None:
        what = "block" if change.what == "block" else "quote"
        left = _marked(change, "removed", change.before if change.what == "block" else None)
        right = _marked(change, "added", change.after if change.what == "block" else None)
        right = _context(change.lead, right, change.tail)
    else:
        what = "quote"
        left = esc(quote_text(claim) or "")
        found = result.found if result.verdict is not Verdict.VERIFIED else None
        right = esc(found) if found else _placeholder(result)
    return (
        '<div class="sides">'
        f'<section class="then"><h3>{what} then · {esc(then)}</h3><p class="text">{left}</p>'
        "</section>"
        f'<section class="now"><h3>{what} now · {esc(now)}</h3><p class="text">{right}</p>'
        "</section></div>"
    )


def _context(lead: tuple[str, ...], marked: str, tail: tuple[str, ...]) -> str:
    """The quote's side now between the words around it on the page, shown as context."""
    before = f'<span class="context">{esc(" ".join(lead))}</span> ' if lead else ""
    after = f' <span class="context">{esc(" ".join(tail))}</span>' if tail else ""
    return before + marked + after


def _says_now(result: ClaimResult, unit: str, span: tuple[int, int]) -> str:
    """What contradicts an absence claim: the unit on the page now, the text it must not
    say marked in it."""
    now = f"snapshot {result.snapshot.fetched_at.date()}" if result.snapshot else "no snapshot"
    start, end = span
    text = f"{esc(unit[:start])}<mark>{esc(unit[start:end])}</mark>{esc(unit[end:])}"
    return (
        f'<section class="says-now"><h3>says now · {esc(now)}</h3><p class="text">{text}</p>'
        "</section>"
    )


def _placeholder(result: ClaimResult) -> str:
    text = _NOW_MISSING.get(result.verdict, "the quote is still there")
    return f'<em class="none">{esc(text)}</em>'


def _marked(change: Change, kind: Literal["removed", "added"], original: str | None) -> str:
    """One side of a word diff as HTML, keeping the original's line breaks when known."""
    side = change.side(kind)
    tag = "del" if kind == "removed" else "ins"
    words = [word for _, word in side]
    if original is not None and original.split() == words:
        gaps = ["\n" if "\n" in gap else " " for gap in re.findall(r"\s+", original.strip())]
    else:
        gaps = [" "] * max(0, len(words) - 1)
    out: list[str] = []
    for i, (changed, word) in enumerate(side):
        if changed and (i == 0 or not side[i - 1][0]):
            out.append(f"<{tag}>")
        out.append(esc(word))
        if changed and (i == len(side) - 1 or not side[i + 1][0]):
            out.append(f"</{tag}>")
        if i < len(gaps):
            out.append(gaps[i])
    return "".join(out)


def _links(result: ClaimResult) -> str:
    claim = result.claim
    items = []
    link = source_link(result)
    moved = safe_url(result.moved_to)
    if link and claim.source:
        at = "the text" if result.verdict is Verdict.CONTRADICTED else "the quote"
        label = f"open the source at {at}" if "#:~:text=" in link else "open the source"
        items.append(
            f'<a href="{html.escape(link)}" rel="noreferrer">{label}</a> '
            f'<span class="url">{esc(display_url(moved or claim.source))}</span>'
        )
    if moved and claim.source:
        items.append(f"moved from {esc(display_url(claim.source))}")
    if result.blame is not None:
        url = safe_url(result.blame.url)
        text = esc(blame_text(result.blame))
        blame = f'<a href="{html.escape(url)}" rel="noreferrer">{text}</a>' if url else text
        items.append(f"changed upstream in {blame}")
    if (copy := archived_link(result)) is not None:
        items.append(
            f'<a href="{html.escape(copy[0])}" rel="noreferrer">last archived copy</a> '
            f'<span class="url">of {copy[1]}</span>'
        )
    items.extend(_cite(result))
    return f'<p class="links">{" · ".join(items)}</p>' if items else ""


def _cite(result: ClaimResult) -> list[str]:
    """The version that was checked, to cite (the live link is the source's, above): the
    claim's own, or each part's for a claim on several sources."""
    links = []
    for index, one in cited_results(result):
        for label, url in citation_targets(one)[1:]:
            text = label if index is None else f"source {index} {label}"
            links.append(f'cite <a href="{html.escape(url)}" rel="noreferrer">{esc(text)}</a>')
    return links
