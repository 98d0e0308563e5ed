"""What diff, explain and blame share: judging one claim and showing the text around its match."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from claimcheck.history.baseline import add_blame
from claimcheck.judge.anchor import locate_anchor
from claimcheck.judge.context import Context
from claimcheck.run import fetch_settings, run_verify
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.judge.units import Page
    from claimcheck.models import Anchor, Claim, ClaimResult


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


@dataclass(frozen=True)
class Closest:
    """The quote, or the text closest to it, on one version of a page, in its context.

    `block` is the context as a person reads it (notices, headings, lead-in, header
    row, the unit), `span` the quote or closest text within it, `score` 100 for the
    quote itself; `position` is where it stands on the page (a fraction of its units)
    and `code` whether in a code block.
    """

    block: str
    span: tuple[int, int]
    score: float
    exact: bool
    context_ok: bool
    position: float
    code: bool = False


def find_closest(
    anchor: Anchor,
    page: Page,
    min_score: float,
    *,
    near: float | None = None,
    from_code: bool | None = None,
) -> Closest | None:
    """The quote on the page, else the unit closest to it: what diff and explain show.

    The closest text is the judge's (the best match scoring at least `min_score`, the
    drift score, a code block only for a quote that was code: `from_code`), so it is
    the text a drifted verdict names; when none scores that much, the best of all,
    however far. None only when nothing can be compared (a quote under three words is
    matched exactly only).
    """
    text = page.text
    code = page.code
    match = locate_anchor(
        anchor, text, min_score=min_score, near=near, code=code, from_code=from_code
    )
    if match is None and min_score > 0:
        match = locate_anchor(
            anchor, text, min_score=0.0, near=near, code=code, from_code=from_code
        )
    if match is None:
        return None
    first, last = page.unit_at(match.start), page.unit_at(max(match.start, match.end - 1))
    unit = page.units[first]
    context = Context(
        kind=unit.kind,
        unit=" ".join(u.text for u in page.units[first : last + 1]),
        headings=unit.headings,
        header=unit.header,
        lead_in=unit.lead_in,
        notices=page.notices_over(first),
    )
    block = context.text
    # The block ends with the unit(s), whose text is the page's with its line breaks
    # for spaces: the match's offsets carry over.
    offset = len(block) - len(context.unit) - page.starts[first]
    span = (match.start + offset, min(len(block), match.end + offset))
    position = text.count("\n", 0, match.start) / max(1, text.count("\n"))
    in_code = first in code
    return Closest(block, span, match.score, match.exact, match.context_ok, position, in_code)


def judge(claim: Claim, config: Config, *, fetch: bool, blame: bool) -> ClaimResult:
    """One claim's result, online or from the store, without touching state.json."""
    report, _ = run_verify([claim], config, offline=not fetch, remember=False)
    (result,) = report.results
    if blame and result.blame is None and result.verdict.is_stale:
        (result,), _ = add_blame([result], config, fetch_settings(config))
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
