"""GitHub Flavored Markdown to HTML with cmark-gfm, as GitHub renders a README.

cmark-gfm is GitHub's own Markdown renderer, which is what a reader of a README sees.
The rendering itself, through cmarkgfm's binding with the memory it leaks given back,
is `_compat/cmark.py`'s. `tests/judge/test_gfm.py` holds the HTML to cmarkgfm's on
real READMEs and the memory to a bound.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cmarkgfm.cmark import Options

from claimcheck._compat.cmark import render_gfm

UNSAFE = Options.CMARK_OPT_UNSAFE
SOURCEPOS = Options.CMARK_OPT_SOURCEPOS
SOURCEPOS_ATTRIBUTE = "data-sourcepos"
"""Where cmark-gfm writes a rendered block's place in the Markdown (with `SOURCEPOS`)."""

_SOURCEPOS = re.compile(r"(\d+):\d+-(\d+):(\d+)")
# Many values of the form cmark writes, one a line, in ASCII digits (which `int` reads as
# the expression's `\d` matched them).
_SOURCEPOS_LINES = re.compile(r"(?:[0-9]+:[0-9]+-[0-9]+:[0-9]+\n)*")


def gfm_to_html(markdown: str, options: int = UNSAFE) -> str:
    """The HTML GitHub renders for `markdown` (cmarkgfm's `github_flavored_markdown_to_html`)."""
    return render_gfm(markdown, options)


def sourcepos_lines(value: str | None) -> tuple[int, int] | None:
    """The first and last Markdown line (1-based) of a block, from its `data-sourcepos`
    (`FIRST:COL-LAST:COL`); None when the value is absent or not of that form.

    A block that runs to column 0 of a line ends with the line before: cmark counts the
    blank line after a list item as the item's.
    """
    match = _SOURCEPOS.fullmatch(value or "")
    if match is None:
        return None
    first, last = int(match[1]), int(match[2])
    return first, max(first, last - 1) if match[3] == "0" else last


def sourcepos_lines_of(values: Sequence[str | None]) -> list[tuple[int, int] | None]:
    """`sourcepos_lines` of each value, found at once: a page's hundreds of positions
    are checked by one match and cut into their numbers by plain string splits, when all
    are of the form cmark writes (else each is read on its own)."""
    written = [value for value in values if value]
    joined = "\n".join(written)
    if written and (
        joined.count("\n") >= len(written)  # a value of several lines
        or _SOURCEPOS_LINES.fullmatch(joined + "\n") is None
    ):
        return [sourcepos_lines(value) for value in values]
    # FIRST:COL-LAST:COL a line: four numbers a value.
    numbers = joined.replace("-", ":").replace("\n", ":").split(":")
    firsts, lasts = map(int, numbers[0::4]), map(int, numbers[2::4])
    places = zip(firsts, lasts, numbers[3::4], strict=True)
    found: list[tuple[int, int] | None] = []
    for value in values:
        if not value:
            found.append(None)
            continue
        first, last, end = next(places)
        found.append((first, max(first, last - 1) if end == "0" else last))
    return found
