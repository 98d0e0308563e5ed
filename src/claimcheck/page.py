"""A page as a reader sees it, as data: its units, their context, its notices, its text.

Read by `judge.units` from a body, kept by `cache.pages`, handed by the store to the
judge: the data alone, so that what holds and hands pages on needs no reader.
"""

from __future__ import annotations

import bisect
import functools
from array import array
from dataclasses import dataclass, field
from typing import NamedTuple

Lines = tuple[int, int]
"""The first and last line (1-based) of a Markdown file that a unit was written on."""


class Unit(NamedTuple):
    """One unit of a page and the context that can change what it means.

    A named tuple, not a frozen dataclass: a page has a hundred units or more, built
    once a page is read and again each time a kept page is loaded, and a tuple is made
    in C where a frozen dataclass sets each field through `object.__setattr__`. It
    compares as the dataclass did: equal only to another `Unit` with the same fields,
    never to a plain tuple.
    """

    kind: str  # paragraph, item, row, heading, code, image
    text: str
    headings: tuple[str, ...] = ()
    header: str | None = None
    lead_in: str | None = None

    def __eq__(self, other: object) -> bool:
        if type(other) is Unit:
            return tuple.__eq__(self, other)
        # A plain tuple would otherwise answer for the unit, from its own side.
        return False if isinstance(other, tuple) else NotImplemented

    def __ne__(self, other: object) -> bool:
        if type(other) is Unit:
            return tuple.__ne__(self, other)
        return True if isinstance(other, tuple) else NotImplemented

    def __hash__(self) -> int:
        return tuple.__hash__(self)


@dataclass(frozen=True, slots=True)
class Notice:
    """A warning, caution or note, with the units it spans and the section it is in."""

    text: str
    start: int
    end: int
    headings: tuple[str, ...]


@dataclass(frozen=True)
class Page:
    """A page's units in reading order, its notices, and its text (one unit a line).

    `region`: the part of the page they were read from: `MAIN_CONTENT` for an HTML
    page, the selector of a scoped read, None for a page read whole (Markdown, text).
    `lines`: for Markdown, each unit's first and last line in the file, side by side
    (0, 0 where it has none): where, not what, so no part of comparing pages (a line
    added above moves every unit without changing one), and two machine integers a
    unit, since a run holds many pages at once.
    """

    units: tuple[Unit, ...]
    notices: tuple[Notice, ...] = ()
    starts: tuple[int, ...] = field(default=(), compare=False)
    region: str | None = None
    lines: array[int] | None = field(default=None, compare=False)
    pdf_pages: array[int] | None = field(default=None, compare=False)
    """For a PDF: the number (from 1) of the PDF page each unit is on, one a unit."""

    @classmethod
    def of(
        cls,
        units: list[Unit],
        notices: list[Notice],
        region: str | None = None,
        lines: array[int] | None = None,
        pdf_pages: array[int] | None = None,
    ) -> Page:
        if lines is not None and len(lines) != 2 * len(units):
            raise ValueError("a page needs two line numbers a unit")
        if pdf_pages is not None and len(pdf_pages) != len(units):
            raise ValueError("a PDF's page needs one page number a unit")
        starts: list[int] = []
        at = 0
        for unit in units:
            starts.append(at)
            at += len(unit.text) + 1
        return cls(tuple(units), tuple(notices), tuple(starts), region, lines, pdf_pages)

    def lines_of(self, index: int) -> Lines | None:
        """The first and last line of the Markdown file unit `index` was written on, or
        None (not Markdown, or raw HTML, which cmark places on no line)."""
        if self.lines is None:
            return None
        first, last = self.lines[2 * index], self.lines[2 * index + 1]
        return (first, last) if first else None

    def pdf_page_of(self, index: int) -> int | None:
        """The PDF page unit `index` is on (from 1), or None (not a PDF)."""
        return self.pdf_pages[index] if self.pdf_pages is not None else None

    @functools.cached_property
    def text(self) -> str:
        """The units' texts, one per line: what quotes are looked for in."""
        return "\n".join(unit.text for unit in self.units)

    def text_unkept(self) -> str:
        """`text`, without keeping it on the page when it was not kept yet.

        For a page held a while before it is judged (a run reads every new body when
        it arrives and judges it after all have): its text is as large again as its
        units (often four bytes a character, for one emoji anywhere in it), and joining
        it again when it is judged takes microseconds.
        """
        kept = self.__dict__.get("text")
        return kept if isinstance(kept, str) else "\n".join(unit.text for unit in self.units)

    @functools.cached_property
    def code(self) -> frozenset[int]:
        """The indices of the units that are code blocks (lines of `text`): where a
        quote's words may stand scattered without being said (`anchor.locate_anchor`)."""
        return frozenset(i for i, unit in enumerate(self.units) if unit.kind == "code")

    def unit_at(self, offset: int) -> int:
        """The index of the unit holding a character offset of `text`."""
        return max(0, bisect.bisect_right(self.starts, offset) - 1)

    def notices_over(self, index: int) -> tuple[str, ...]:
        """Notices a reader meets before unit `index`: in its section or one enclosing it
        (the top of the page encloses every section)."""
        chain = self.units[index].headings
        return tuple(
            n.text
            for n in self.notices
            if n.end <= index and chain[: len(n.headings)] == n.headings
        )
