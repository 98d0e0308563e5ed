"""The terminal table: one row per claim, the default output of `claimcheck verify`."""

from __future__ import annotations

from collections.abc import Callable

from rich.cells import cell_len, chop_cells, set_cell_size

from claimcheck.models import ClaimResult, Report, Verdict
from claimcheck.report.build import summary_line
from claimcheck.report.formats.common import (
    Level,
    acknowledged_results,
    acknowledgement_text,
    display_url,
    level_of,
    text_now,
)
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
    Verdict.CONTRADICTED: "bold red",
    Verdict.SOURCE_GONE: "bold red",
    Verdict.UNREACHABLE: "magenta",
    Verdict.UNVERIFIED: "dim",
}
_SOURCE_WIDTH = 30
# A mark in its own column, so stale rows stand out without colour too (NO_COLOR, logs).
_MARK = {Level.ERROR: "✗", Level.WARNING: "!", Level.NOTICE: "?", Level.NONE: ""}
_ACKNOWLEDGED = "~"  # a review verdict a person acknowledged: quiet, but not verified


def render_table(report: Report, color: bool = False, width: int = DEFAULT_WIDTH) -> str:
    """A table of mark, claim, verdict, source and reason, grouped by page.

    Made to scan 75 rows: each page's claims sit under its name, rows needing
    attention carry a mark (✗ stale, ! review, ? unknown or moved) and colour when
    coloured, a verified row stays on one line, and the stale claims are listed again
    under the table with their file:line. Below 100 columns the source column goes,
    so the reason keeps room to read. All third-party text goes through `clean_text`,
    so a page cannot inject styles or escape sequences.

    The columns have fixed widths, so rows are laid out one by one as they come (with
    rich's measure of terminal cells, for wide scripts): a general table layout
    measures every cell of every row, and took seconds for 10,000 claims.
    """
    wide = width >= 100
    ids = max((len(clean_text(r.claim.id)) for r in report.results), default=5)
    claim_width = max(5, min(ids, 36, width * 2 // 5))
    verdict_width = max((len(r.verdict.value) for r in report.results), default=7)
    others = 1 + verdict_width + (_SOURCE_WIDTH if wide else 0) + 2 * (3 + wide)
    claim_width = max(5, min(claim_width, width - others - 20))  # the reason keeps 20
    widths = [1, claim_width, verdict_width, *([_SOURCE_WIDTH] if wide else []), 0]
    widths[-1] = max(20, width - others - claim_width)
    paint = _painter(color)
    out: list[str] = []
    header = ["", "claim", "verdict", *(["source"] if wide else []), "reason"]
    out += _row([(_text(h, "bold"), False) for h in header], widths, paint)
    page = None
    for result in report.results:
        claim = result.claim
        if claim.page != page:
            if page is not None:
                out.append("")
            title = (("page ", "dim"), (clean_text(claim.page), "bold underline"))
            out += _row([(_text("", ""), False), (title, True)], [*widths[:1], width], paint)
            page = claim.page
        level = level_of(result.verdict)
        # A row that needs nothing stays on one line; the others show their whole reason.
        quiet = level is Level.NONE
        style = "dim" if result.quiet else _STYLE[result.verdict]
        cells = [
            (_text(_ACKNOWLEDGED if result.quiet else _MARK[level], style), False),
            (_text(clean_text(claim.id), style if level is Level.ERROR else ""), True),
            (_text(result.verdict.value, style), False),
        ]
        if wide:
            cells.append((_text(_source(result), "dim"), False))
        cells.append((_text(_reason(result), ""), not quiet))
        out += _row(cells, widths, paint)
    stale = [r for r in report.results if r.verdict.is_stale]
    if stale:
        out.append("")
        out += _lines(f"stale ({len(stale)}), fix these first:", width, "bold red", paint)
        places = [clean_text(f"{r.claim.file}:{r.claim.line}") for r in stale]
        pad = max(len(p) for p in places)
        for place, result in zip(places, stale, strict=True):
            line = f"  ✗ {place:<{pad}}  {clean_text(result.claim.id)}  {result.verdict}"
            out += _lines(line, width, "", paint)
    acknowledged = acknowledged_results(report)
    if acknowledged:
        out.append("")
        head = f"acknowledged ({len(acknowledged)}), quiet until their sources change:"
        out += _lines(head, width, "bold", paint)
        places = [clean_text(f"{r.claim.file}:{r.claim.line}") for r in acknowledged]
        pad = max(len(p) for p in places)
        for place, result in zip(places, acknowledged, strict=True):
            said = clean_text(acknowledgement_text(result) or "")
            line = f"  {_ACKNOWLEDGED} {place:<{pad}}  {clean_text(result.claim.id)}  "
            out += _lines(f"{line}{result.verdict}, {said}", width, "", paint)
    out += _lines(summary_line(report), width, "", paint)
    return "".join(line.rstrip() + "\n" for line in out)


_SGR = {
    "green": "32",
    "yellow": "33",
    "cyan": "36",
    "bold red": "1;31",
    "magenta": "35",
    "dim": "2",
    "bold": "1",
    "bold underline": "1;4",
}

_Styled = tuple[tuple[str, str], ...]  # (text, style) pieces of one cell
_Paint = Callable[[str, str], str]


def _text(text: str, style: str) -> _Styled:
    return ((text, style),)


def _painter(color: bool) -> _Paint:
    """Wraps text in the ANSI codes of its style when colour is on; else leaves it."""

    def paint(text: str, style: str) -> str:
        return f"\x1b[{_SGR[style]}m{text}\x1b[0m" if color and style and text else text

    return paint


def _row(cells: list[tuple[_Styled, bool]], widths: list[int], paint: _Paint) -> list[str]:
    """One table row as lines: each cell folded (True) or cut with an ellipsis (False)
    to its column's width, the columns two spaces apart."""
    laid = [_lay(pieces, w, fold) for (pieces, fold), w in zip(cells, widths, strict=False)]
    lines: list[str] = []
    for n in range(max(len(cell) for cell in laid)):
        parts: list[str] = []
        for column, cell in enumerate(laid):
            text, style = cell[n] if n < len(cell) else ("", "")
            last = column == len(laid) - 1
            gap = "" if last else " " * (widths[column] - cell_len(text))
            parts.append(_paint_pieces(text, style, paint) + gap)
        lines.append("  ".join(parts))
    return lines


def _paint_pieces(text: str, style: str, paint: _Paint) -> str:
    if "\0" not in style:
        return paint(text, style)
    # A cell of several styles (the page title): pieces are kept apart by NUL marks.
    return "".join(paint(t, st) for t, st in zip(text.split("\0"), style.split("\0"), strict=True))


def _lay(pieces: _Styled, width: int, fold: bool) -> list[tuple[str, str]]:
    """A cell's lines at `width` cells, with their style (several pieces: one line)."""
    if len(pieces) > 1:
        return [("\0".join(t for t, _ in pieces), "\0".join(st for _, st in pieces))]
    text, style = pieces[0]
    if fold:
        return [(line, style) for line in _fold(text, width)] or [("", style)]
    if cell_len(text) > width:
        text = set_cell_size(text, max(width - 1, 0)).rstrip() + "…"
    return [(text, style)]


def _lines(text: str, width: int, style: str, paint: _Paint) -> list[str]:
    return [paint(line, style) for line in _fold(text, width)] or [""]


def _fold(text: str, width: int) -> list[str]:
    """Words to lines of at most `width` cells; a longer word is cut where it must.
    Leading spaces indent every line."""
    body = text.lstrip(" ")
    indent = text[: len(text) - len(body)]
    if indent and len(indent) < width:
        return [indent + line for line in _fold(body, width - len(indent))]
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        while cell_len(word) > width:
            if line:
                lines.append(line)
                line = ""
            head = chop_cells(word, width)[0]
            lines.append(head)
            word = word[len(head) :]
        if not line:
            line = word
        elif cell_len(line) + 1 + cell_len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line or not lines:
        lines.append(line)
    return lines


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
    if result.quiet:
        reason += f" — {shorten(clean_text(acknowledgement_text(result) or ''), 200)}"
    return reason
