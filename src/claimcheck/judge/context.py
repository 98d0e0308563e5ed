"""A quote's context — what can change its meaning — and what changed in it.

The context of a verbatim quote is its own unit (paragraph, list item, table row), the
headings above it, its table's header row, its list's lead-in, and the notices over
it (see `units.py`). When the quote still stands but one of these changed, a reader
may take the same words differently: "CUDA" under "Supported backends" and under
"Removed backends" are two claims. Each change is named, so an editor reads *what*
changed ("the section heading changed from … to …") instead of diffing two blocks.
Headings are compared the way quotes are matched, case-folded and emoji aside: "Usage
on MacOS" becoming "Usage on macOS", or "Hot Topics" gaining a 🔥, changes no words.
"""

from __future__ import annotations

from dataclasses import dataclass

from claimcheck.judge.anchor import diff_words, locate_anchor, read_alike
from claimcheck.models import Anchor
from claimcheck.page import Page
from claimcheck.untrusted import shorten

_UNIT_NAMES = {
    "paragraph": "paragraph",
    "item": "list item",
    "row": "table row",
    "heading": "heading",
    "code": "code block",
    "image": "picture",
}
_TRAILING = ".;,:!"


@dataclass(frozen=True)
class Context:
    """What stands around one occurrence of a quote on one version of a page."""

    kind: str
    unit: str
    headings: tuple[str, ...]
    header: str | None
    lead_in: str | None
    notices: tuple[str, ...]
    top_notices: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The context as a person reads it: notices, headings, lead-in, header, unit."""
        lines = [f"! {notice}" for notice in self.notices]
        if self.headings:
            lines.append("§ " + " › ".join(self.headings))
        if self.lead_in:
            lines.append(self.lead_in)
        if self.header:
            lines.append(f"| {self.header}")
        prefix = {"item": "• ", "row": "| "}.get(self.kind, "")
        lines.append(prefix + self.unit)
        return "\n".join(lines)


def locate_context(anchor: Anchor, page: Page) -> Context | None:
    """The context of the quote's exact occurrence (the one its prefix/suffix pick)."""
    found = locate_anchor(anchor, page.text, min_score=101.0)
    if found is None:
        return None
    first, last = page.unit_at(found.start), page.unit_at(max(found.start, found.end - 1))
    unit = page.units[first]
    text = " ".join(u.text for u in page.units[first : last + 1])
    notices = page.notices_over(first)
    top = tuple(n.text for n in page.notices if not n.headings[1:] and n.end <= first)
    return Context(
        kind=unit.kind,
        unit=text,
        headings=unit.headings,
        header=unit.header,
        lead_in=unit.lead_in,
        notices=notices,
        top_notices=tuple(n for n in notices if n in top),
    )


def changes(before: Context, after: Context) -> list[str]:
    """What changed in the quote's context, one phrase a change, in reading order."""
    found: list[str] = []
    for notice in after.notices:
        if notice not in before.notices:
            where = "at the top of the page" if notice in after.top_notices else "above it"
            found.append(f"a notice was added {where}: {_quoted(notice)}")
    for notice in before.notices:
        if notice not in after.notices:
            found.append(f"a notice over it was removed: {_quoted(notice)}")
    if not _same_headings(before.headings, after.headings):
        found.append(_heading_change(before.headings, after.headings))
    if before.lead_in != after.lead_in:
        found.append(f"its list's lead-in changed: {_from_to(before.lead_in, after.lead_in)}")
    if before.header != after.header:
        found.append(f"its table's header row changed: {_from_to(before.header, after.header)}")
    if _bare(before.unit) != _bare(after.unit):
        name = _UNIT_NAMES.get(after.kind, after.kind)
        found.append(f"its {name} changed: {diff_words(before.unit, after.unit)}")
    return found


def context_diff(before: Context, after: Context) -> str:
    """A word-level diff of two contexts, for a person to see what was added or removed."""
    return diff_words(before.text, after.text)


def _same_headings(before: tuple[str, ...], after: tuple[str, ...]) -> bool:
    """Whether two chains of headings say the same words, as quotes are matched: a
    heading that changed only in case ("Usage on MacOS" -> "Usage on macOS") or gained
    or lost an emoji is the same heading (`anchor.read_alike`)."""
    return len(before) == len(after) and all(
        read_alike(b, a) for b, a in zip(before, after, strict=True)
    )


def _heading_change(before: tuple[str, ...], after: tuple[str, ...]) -> str:
    """The change of headings in words: the headings that say something else, or the
    whole chain when the quote now stands at another depth."""
    if len(before) == len(after):
        pairs = [(b, a) for b, a in zip(before, after, strict=True) if not read_alike(b, a)]
        level = "section heading" if len(pairs) == 1 else "headings"
        old = " › ".join(b for b, _ in pairs)
        new = " › ".join(a for _, a in pairs)
        return f"the {level} changed from {_quoted(old)} to {_quoted(new)}"
    return (
        f"it now stands under {_quoted(' › '.join(after) or '(no heading)')}, "
        f"not {_quoted(' › '.join(before) or '(no heading)')}"
    )


def _from_to(before: str | None, after: str | None) -> str:
    if before is None:
        return f"now {_quoted(after or '')}"
    if after is None:
        return f"{_quoted(before)} is gone"
    return f"from {_quoted(before)} to {_quoted(after)}"


def _quoted(text: str) -> str:
    return f"“{shorten(text, 160)}”"


def _bare(text: str) -> str:
    """A unit's text as a reader compares it: a lost final period is not a change."""
    return text.rstrip().rstrip(_TRAILING).rstrip()
