"""The quote, or the text closest to it, on one version of a page, as `diff` and
`explain` show it, and the change `diff` shows.

Pure: the page and the claim's result in, values out. The closest text is the
judge's own (`locate_anchor` with the drift score), so what a person is shown is the
text a verdict names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from claimcheck.judge.anchor import locate_anchor
from claimcheck.judge.change import Change, anchor_change, change_of
from claimcheck.judge.context import Context

if TYPE_CHECKING:
    from claimcheck.models import Anchor, ClaimResult
    from claimcheck.page import Page


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


def diff_change(result: ClaimResult, closest_now: str | None) -> Change | None:
    """The change `diff` shows: the one every report format shows (`change_of`); for a
    claim the judge found nothing close enough to, the quote against `closest_now`, the
    closest text on the page now (the same function, on the text `diff` shows)."""
    change = change_of(result)
    anchor = result.claim.anchor
    if change is None and closest_now is not None and not result.found and anchor is not None:
        return anchor_change(anchor, closest_now)
    return change
