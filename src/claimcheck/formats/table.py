"""The terminal table: one row per claim, the default output of `claimcheck verify`."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table
from rich.text import Text

from claimcheck.models import Report, Verdict
from claimcheck.report import summary_line
from claimcheck.untrusted import clean_text, shorten

_STYLE = {
    Verdict.VERIFIED: "green",
    Verdict.CONTEXT_CHANGED: "yellow",
    Verdict.EXPIRED: "yellow",
    Verdict.MOVED: "yellow",
    Verdict.DRIFTED: "bold red",
    Verdict.MISSING: "bold red",
    Verdict.SOURCE_GONE: "bold red",
    Verdict.UNREACHABLE: "magenta",
    Verdict.UNVERIFIED: "dim",
}


def render_table(report: Report, color: bool = False, width: int = 160) -> str:
    """A table of claim, page, verdict, source and reason; colour only when asked.

    All third-party text goes through `clean_text` and is added as rich `Text`, never
    as markup, so a page cannot inject styles or escape sequences.
    """
    table = Table(show_lines=False, expand=False, box=None, pad_edge=False)
    for name in ("claim", "page", "verdict", "source", "reason"):
        table.add_column(name, overflow="fold")
    for result in report.results:
        claim = result.claim
        source = claim.source or (f"cited: {claim.cited}" if claim.cited else "-")
        reason = result.reason
        if result.found and result.verdict is Verdict.DRIFTED:
            reason += f' — now: "{shorten(result.found, 100)}"'
        table.add_row(
            Text(clean_text(claim.id)),
            Text(clean_text(claim.page)),
            Text(result.verdict.value, style=_STYLE[result.verdict]),
            Text(shorten(clean_text(source), 60)),
            Text(clean_text(reason)),
        )
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
    console.print(Text(summary_line(report)))
    return buffer.getvalue()
