"""What diff, explain and blame share: judging one claim, and a console to show it on."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from claimcheck.cli.lazy import blame_online, online_stages
from claimcheck.pipeline import run_verify
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.models import Claim, ClaimResult


def console(color: bool, *, soft_wrap: bool = False) -> Console:
    """A rich console on stdout, coloured only when asked (see `use_color`).

    Off a terminal (a pipe, a file, a test's capture) nothing is wrapped: a line is
    printed whole, so a URL or a commit link stays on one line for the next program.
    """
    isatty = getattr(sys.stdout, "isatty", None)
    terminal = bool(isatty and isatty())
    return Console(
        file=sys.stdout,
        no_color=not color,
        highlight=False,
        soft_wrap=soft_wrap or not terminal,
    )


def judge(claim: Claim, config: Config, *, fetch: bool, blame: bool) -> ClaimResult:
    """One claim's result, online or from the store, without touching state.json."""
    online = online_stages() if fetch else None
    report, _ = run_verify([claim], config, online=online, remember=False)
    (result,) = report.results
    if blame and result.blame is None and result.verdict.is_stale:
        result = blame_online(result, config)
    return result


def marked(text: str, span: tuple[int, int]) -> Text:
    """The text with one span highlighted (the quote, or the text closest to it)."""
    start, end = span
    shown = Text(clean_lines(text[:start]))
    shown.append(clean_lines(text[start:end]), style="reverse")
    shown.append(clean_lines(text[end:]))
    return shown


def clean_lines(text: str) -> str:
    """Untrusted text made inert line by line: its own line breaks stay (a block's
    notices, headings and unit are lines), nothing else that moves the cursor does."""
    return "\n".join(clean_text(line) for line in text.split("\n"))
