"""The terminal table: one row per claim, the default output of `claimcheck verify`."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table
from rich.text import Text

from claimcheck.models import ClaimResult, Report, Verdict
from claimcheck.report.build import summary_line
from claimcheck.report.formats.common import Level, display_url, level_of, text_now
from claimcheck.untrusted import clean_text, shorten

DEFAULT_WIDTH = 160
"""Columns when stdout is not a terminal: wide enough for CI logs and files."""

_STYLE = {
    Verdict.VERIFIED: "green",
    Verdict.CONTEXT_CHANGED: "yellow",
    Verdict.EXPIRED: "yellow",
    Verdict.MOVED: "cyan",
    Verdict.DRIFTED: "bold red",
    Verdict.MISSING: "bold red",
    Verdict.SOURCE_GONE: "bold red",
    Verdict.UNREACHABLE: "magenta",
    Verdict.UNVERIFIED: "dim",
}
_SOURCE_WIDTH = 30
# A mark in its own column, so stale rows stand out without colour too (NO_COLOR, logs).
_MARK = {Level.ERROR: "✗", Level.WARNING: "!", Level.NOTICE: "?", Level.NONE: ""}


def render_table(report: Report, color: bool = False, width: int = DEFAULT_WIDTH) -> str:
    """A table of mark, claim, verdict, source and reason, grouped by page.

    Made to scan 75 rows: each page's claims sit under its name, rows needing
    attention carry a mark (✗ stale, ! review, ? unknown or moved) and colour when
    coloured, a verified row stays on one line, and the stale claims are listed again
    under the table with their file:line. Below 100 columns the source column goes,
    so the reason keeps room to read. All third-party text goes through `clean_text`
    and is added as rich `Text`, never as markup, so a page cannot inject styles or
    escape sequences.
    """
    wide = width >= 100
    ids = max((len(clean_text(r.claim.id)) for r in report.results), default=5)
    claim_width = max(5, min(ids, 36, width * 2 // 5))
    verdict_width = max((len(r.verdict.value) for r in report.results), default=7)
    fixed = 1 + claim_width + verdict_width + (_SOURCE_WIDTH if wide else 0) + 2 * (3 + wide)
    reason_width = max(20, width - fixed)
    table = Table(box=None, pad_edge=False, show_edge=False, expand=False)
    table.add_column("", no_wrap=True, width=1)
    table.add_column("claim", overflow="fold", width=claim_width)
    table.add_column("verdict", no_wrap=True, width=verdict_width)
    if wide:
        table.add_column("source", no_wrap=True, width=_SOURCE_WIDTH)
    table.add_column("reason", overflow="fold", max_width=reason_width)
    page = None
    for result in report.results:
        claim = result.claim
        if claim.page != page:
            if page is not None:
                table.add_row()
            title = Text.assemble(("page ", "dim"), (clean_text(claim.page), "bold underline"))
            table.add_row("", title)
            page = claim.page
        level = level_of(result.verdict)
        # A row that needs nothing stays on one line; the others show their whole reason.
        quiet = level is Level.NONE
        cells = [
            Text(_MARK[level], style=_STYLE[result.verdict]),
            Text(
                clean_text(claim.id), style=_STYLE[result.verdict] if level is Level.ERROR else ""
            ),
            Text(result.verdict.value, style=_STYLE[result.verdict]),
        ]
        if wide:
            cells.append(Text(_source(result), style="dim"))
        cells.append(Text(_reason(result), no_wrap=quiet, overflow="ellipsis" if quiet else "fold"))
        table.add_row(*cells)
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width,
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        highlight=False,
        soft_wrap=False,
    )
    console.print(table)
    stale = [r for r in report.results if r.verdict.is_stale]
    if stale:
        console.print(Text(f"\nstale ({len(stale)}), fix these first:", style="bold red"))
        places = [clean_text(f"{r.claim.file}:{r.claim.line}") for r in stale]
        pad = max(len(p) for p in places)
        for place, result in zip(places, stale, strict=True):
            line = f"  ✗ {place:<{pad}}  {clean_text(result.claim.id)}  {result.verdict}"
            console.print(Text(line))
    console.print(Text(summary_line(report)))
    text = buffer.getvalue()
    # rich pads every cell; without colour, drop the padding at line ends (logs, diffs).
    return text if color else "".join(line.rstrip() + "\n" for line in text.splitlines())


def _source(result: ClaimResult) -> str:
    claim = result.claim
    if claim.source is None:
        return shorten(clean_text(f"cited: {claim.cited or '-'}"), _SOURCE_WIDTH)
    return shorten(clean_text(display_url(claim.source)), _SOURCE_WIDTH)


def _reason(result: ClaimResult) -> str:
    reason = clean_text(result.reason)
    now = text_now(result)
    if now and level_of(result.verdict) is not Level.NONE:
        reason += f' — now: "{shorten(clean_text(now), 100)}"'
    return reason
