"""A page as a reader sees it: units of text, each with what can change its meaning.

A *unit* is the smallest block a reader sees as one text: a paragraph, a list item
(its own text, not its nested list), a table row (its cells side by side), a heading,
a code block, a picture's alt text. A quote lies inside one unit — "Nvidia GPU HIP"
across two table rows is not something the page says — unless it is a range quote.

Each unit carries its meaning-bearing context, and nothing else: the chain of headings
above it, its table's header row, its list's lead-in ("The following backends were
removed:", or the parent item of a nested list), and the notices (GitHub alerts,
`> **Warning**`) that stand before it at the top of the page or in its own or an
enclosing section. Siblings — other rows, other items, other paragraphs — are not
context: a row added to a table says nothing new about the rows already there.

The page's text is its units' texts, one per line, so a match that contains a newline
crosses a unit boundary.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from bs4.element import NavigableString, PageElement, PreformattedString, Tag

from claimcheck.judge.extract import is_hidden, parse_page, visible_text
from claimcheck.judge.normalize import normalize_text
from claimcheck.models import MediaType

_NOTICE = re.compile(r"^\s*(?:note|tip|important|warning|caution)\b", re.I)
_ALERT = re.compile(r"^\[!(note|tip|important|warning|caution)\]\s*", re.I)
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_LISTS = frozenset({"ul", "ol", "dl", "menu"})
_ITEMS = frozenset({"li", "dt", "dd"})
# Blocks a list item may hold that are units of their own, after the item's own text.
_NESTED_BLOCKS = frozenset({*_LISTS, "table", "pre", "blockquote", *_HEADINGS})
# Elements that group blocks; their loose inline content forms implicit paragraphs.
_FLOW = frozenset(
    {
        "[document]",
        "html",
        "body",
        "div",
        "section",
        "article",
        "main",
        "header",
        "footer",
        "aside",
        "nav",
        "details",
        "center",
        "figure",
        "form",
        "fieldset",
        "address",
        "hgroup",
        "dialog",
        "search",
        "picture",
        "blockquote",
    }
)
_PARAGRAPHS = frozenset({"p", "summary", "figcaption", "caption", "legend"})
# Blocks inside a list item that stay part of its own text, set apart by a space.
_BLOCK_PARTS = frozenset({*_PARAGRAPHS, *_FLOW, "br", "hr", "dt", "dd"})
_MAX_DEPTH = 150


@dataclass(frozen=True)
class Unit:
    """One unit of a page and the context that can change what it means."""

    kind: str  # paragraph, item, row, heading, code, image
    text: str
    headings: tuple[str, ...] = ()
    header: str | None = None
    lead_in: str | None = None


@dataclass(frozen=True)
class Notice:
    """A warning, caution or note, with the units it spans and the section it is in."""

    text: str
    start: int
    end: int
    headings: tuple[str, ...]


@dataclass(frozen=True)
class Page:
    """A page's units in reading order, its notices, and its text (one unit a line)."""

    units: tuple[Unit, ...]
    notices: tuple[Notice, ...] = ()
    starts: tuple[int, ...] = field(default=(), compare=False)

    @classmethod
    def of(cls, units: list[Unit], notices: list[Notice]) -> Page:
        starts: list[int] = []
        at = 0
        for unit in units:
            starts.append(at)
            at += len(unit.text) + 1
        return cls(tuple(units), tuple(notices), tuple(starts))

    @functools.cached_property
    def text(self) -> str:
        """The units' texts, one per line: what quotes are looked for in."""
        return "\n".join(unit.text for unit in self.units)

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


def text_page(text: str) -> Page:
    """A plain text as a page: its paragraphs (blank-line separated) are its units."""
    units = [Unit("paragraph", p) for p in map(normalize_text, re.split(r"\n\s*\n", text)) if p]
    return Page.of(units, [])


def read_page(body: str, media: MediaType) -> Page:
    """The units of a body as a reader sees them (Markdown rendered as GitHub does)."""
    if media is MediaType.TEXT:
        return text_page(body)
    reader = _Reader()
    reader.flow(parse_page(body, media), 0)
    reader.flush()
    return Page.of(reader.units, reader.notices)


class _Reader:
    """Walks a parsed page once, emitting units with their headings, header, lead-in."""

    def __init__(self) -> None:
        self.units: list[Unit] = []
        self.notices: list[Notice] = []
        self.chain: list[tuple[int, str]] = []
        self.loose: list[str] = []
        self.images: list[str] = []

    @property
    def headings(self) -> tuple[str, ...]:
        return tuple(text for _, text in self.chain)

    def emit(self, kind: str, text: str, **context: str | None) -> None:
        text = normalize_text(text)
        if text:
            self.units.append(Unit(kind, text, self.headings, **context))

    def flush(self) -> None:
        """End the implicit paragraph of loose inline content, and its pictures."""
        self.emit("paragraph", "".join(self.loose))
        self.loose.clear()
        for alt in self.images:
            self.emit("image", alt)
        self.images.clear()

    def flow(self, node: Tag, depth: int) -> None:
        """Children of a block container: blocks become units, inline content paragraphs."""
        for child in node.children:
            if isinstance(child, NavigableString):
                if not isinstance(child, PreformattedString):
                    self.loose.append(str(child))
            elif isinstance(child, Tag) and not is_hidden(child):
                self.element(child, depth + 1)

    def element(self, tag: Tag, depth: int) -> None:
        name = tag.name.lower()
        if depth > _MAX_DEPTH:  # pathological nesting: the rest is one paragraph
            self.loose.append(visible_text(tag))
        elif name in _HEADINGS:
            self.flush()
            self.heading(tag, _HEADINGS[name])
        elif name in _PARAGRAPHS:
            self.flush()
            self.paragraph(tag)
        elif name in _LISTS:
            self.flush()
            self.list(tag, self._lead_in(tag), depth)
        elif name in _ITEMS:
            self.flush()
            self.item(tag, None, depth)
        elif name == "table":
            self.flush()
            self.table(tag)
        elif name == "pre":
            self.flush()
            self.emit("code", visible_text(tag))
        elif name == "hr":
            self.flush()
        elif name == "br":
            self.loose.append(" ")
        elif name == "blockquote" or _is_alert(tag):
            self.flush()
            self.notice_or_quote(tag, depth)
        elif name in _FLOW:
            self.flush()
            self.flow(tag, depth)
            self.flush()
        elif name == "img":
            alt = _alt(tag)
            if alt:
                self.images.append(alt)
        else:
            text, images = _inline_and_images(tag)
            self.loose.append(text)
            self.images.extend(images)

    def heading(self, tag: Tag, level: int) -> None:
        self.chain = [(lvl, text) for lvl, text in self.chain if lvl < level]
        text = normalize_text(_inline_text(tag))
        self.emit("heading", text)
        if text:
            self.chain.append((level, text))

    def paragraph(self, tag: Tag) -> None:
        text, images = _inline_and_images(tag)
        self.emit("paragraph", text)
        for alt in images:
            self.emit("image", alt)

    def list(self, tag: Tag, lead_in: str | None, depth: int) -> None:
        for child in tag.children:
            if isinstance(child, Tag) and not is_hidden(child):
                if child.name.lower() in _ITEMS:
                    self.item(child, lead_in, depth + 1)
                else:
                    self.element(child, depth + 1)

    def item(self, tag: Tag, lead_in: str | None, depth: int) -> None:
        """The item's own text first, then its nested blocks, led in by that text."""
        own: list[str] = []
        nested: list[Tag] = []
        paragraphs = 0
        for child in tag.children:
            if isinstance(child, NavigableString):
                if not isinstance(child, PreformattedString):
                    own.append(str(child))
            elif isinstance(child, Tag) and not is_hidden(child):
                paragraphs += child.name.lower() == "p"
                # A loose item's first paragraph is its own text; later ones are
                # paragraphs of their own, as a reader sees them.
                if child.name.lower() in _NESTED_BLOCKS or (
                    child.name.lower() == "p" and paragraphs > 1
                ):
                    nested.append(child)
                elif child.name.lower() in _BLOCK_PARTS:  # a loose item's paragraphs
                    own.append(" " + _inline_text(child) + " ")
                else:
                    own.append(_inline_text(child))
        text = normalize_text("".join(own))
        self.emit("item", text, lead_in=lead_in)
        for block in nested:
            if block.name.lower() in _LISTS:
                self.list(block, text or lead_in, depth + 1)
            else:
                self.element(block, depth + 1)
                self.flush()

    def table(self, tag: Tag) -> None:
        rows = [row for row in tag.find_all("tr") if row.find_parent("table") is tag]
        header = _header_row(tag, rows)
        header_text = normalize_text(_row_text(header)) if header is not None else None
        for caption in tag.find_all("caption", recursive=False):
            self.emit("paragraph", _inline_text(caption))
        for row in rows:
            if is_hidden(row):
                continue
            self.emit("row", _row_text(row), header=None if row is header else header_text)
            # A list in a cell is items a reader sees one by one (lmdeploy's model
            # tables): they are units of their own, under the table's header.
            for cell in row.find_all(["td", "th"], recursive=False):
                for inner in _outer_lists(cell):
                    self.list(inner, header_text, 0)

    def notice_or_quote(self, tag: Tag, depth: int) -> None:
        """A blockquote's paragraphs are units; a notice is also remembered as context.

        GitHub shows an alert's marker (`[!WARNING]`) as a title ("Warning"): so do we,
        in the notice and in its first unit, so a quote of it reads as the page does.
        """
        start = len(self.units)
        self.flow(tag, depth)
        self.flush()
        text = _alert_title(normalize_text(visible_text(tag)))
        if start < len(self.units):
            first = self.units[start]
            self.units[start] = replace(first, text=_alert_title(first.text))
        if _NOTICE.match(text) or _is_alert(tag):
            self.notices.append(Notice(text, start, len(self.units), self.headings))

    def _lead_in(self, tag: Tag) -> str | None:
        """The paragraph right before a list, when it introduces it (ends with ':')."""
        for sibling in tag.previous_siblings:
            if isinstance(sibling, Tag):
                if sibling.name.lower() != "p" or is_hidden(sibling):
                    return None
                text = normalize_text(_inline_and_images(sibling)[0])
                return text if text.endswith(":") else None
            if isinstance(sibling, NavigableString) and str(sibling).strip():
                return None
        return None


def _alert_title(text: str) -> str:
    """`[!WARNING] Text` as GitHub shows it: `Warning Text`."""
    return _ALERT.sub(lambda m: m.group(1).capitalize() + " ", text, count=1).strip()


def _is_alert(tag: Tag) -> bool:
    """GitHub's rendered alerts (`<div class="markdown-alert markdown-alert-warning">`)."""
    classes = tag.get("class")
    names = classes.split() if isinstance(classes, str) else list(classes or [])
    return tag.name.lower() == "div" and "markdown-alert" in names


def _alt(img: Tag) -> str:
    alt = img.get("alt")
    return alt.strip() if isinstance(alt, str) else ""


def _inline_text(tag: Tag) -> str:
    """An element's visible text on one line, pictures as their alt text."""
    return visible_text(tag).replace("\n", " ").replace("\t", " ")


def _inline_and_images(tag: Tag) -> tuple[str, list[str]]:
    """A paragraph's text without its pictures, and the pictures' alt texts.

    A row of badges is pictures side by side, each its own text ("License: MIT"); a
    Release badge added beside the licence badge does not change the licence badge.
    """
    images: list[str] = []
    parts: list[str] = []
    for node in _descendants(tag):
        if isinstance(node, Tag):
            if node.name.lower() == "img":
                alt = _alt(node)
                if alt:
                    images.append(alt)
            elif node.name.lower() == "br":
                parts.append(" ")
        elif not isinstance(node, PreformattedString):
            parts.append(str(node))
    return "".join(parts), images


def _descendants(tag: Tag) -> Iterator[PageElement]:
    """Visible descendants in document order, skipping hidden subtrees (no recursion)."""
    stack: list[PageElement] = list(reversed(tag.contents))
    while stack:
        node = stack.pop()
        if isinstance(node, Tag):
            if is_hidden(node):
                continue
            yield node
            stack.extend(reversed(node.contents))
        elif isinstance(node, NavigableString):
            yield node


def _header_row(table: Tag, rows: list[Tag]) -> Tag | None:
    """The row naming the columns: in `<thead>`, else a first row of `<th>` cells."""
    for row in rows:
        if row.find_parent("thead") is not None and row.find_parent("table") is table:
            return row
    if rows:
        cells = rows[0].find_all(["td", "th"], recursive=False)
        if cells and all(cell.name.lower() == "th" for cell in cells):
            return rows[0]
    return None


def _row_text(row: Tag | None) -> str:
    """A row's cells side by side; a list inside a cell is not row text (its items are
    units of their own)."""
    if row is None:
        return ""
    cells = row.find_all(["td", "th"], recursive=False)
    return " ".join(_cell_text(cell) for cell in cells if not is_hidden(cell))


def _cell_text(cell: Tag) -> str:
    """A cell's text without the lists it holds."""
    if cell.find(_LISTS) is None:
        return _inline_text(cell)
    return " ".join(
        str(node)
        for node in _descendants(cell)
        if isinstance(node, NavigableString)
        and not isinstance(node, PreformattedString)
        and (node.find_parent(_LISTS) is None or node.find_parent(["td", "th"]) is not cell)
    )


def _outer_lists(cell: Tag) -> list[Tag]:
    """The lists of a cell that are not inside another list or a nested table."""
    return [
        inner
        for inner in cell.find_all(_LISTS)
        if inner.find_parent(["td", "th"]) is cell and inner.find_parent(_LISTS) is None
    ]
