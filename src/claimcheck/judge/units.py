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

A page of Markdown also knows the lines of the file each unit was written on
(`Page.lines_of`, from cmark-gfm's source positions), so that a citation selects a
quote's lines from the reading the judge already made, never rendering the file again.
"""

from __future__ import annotations

import re
from array import array

from selectolax.lexbor import LexborNode

from claimcheck.judge.block_parts import (
    LIST_SELECTOR,
    LISTS,
    alert_title,
    alt_text,
    inline_and_images,
    inline_text,
    is_alert,
    outer_lists,
    row_cells,
    row_text,
    table_rows,
)
from claimcheck.judge.extract import (
    MARKDOWN_MEDIA,
    MARKED,
    TEXT,
    append_visible,
    content_roots,
    element_name,
    hidden_in,
    hiding_elements,
    parse_page,
    shown_name,
    visible_text,
)
from claimcheck.judge.front_matter import front_matter_lines
from claimcheck.judge.gfm import SOURCEPOS_ATTRIBUTE, sourcepos_lines_of
from claimcheck.judge.normalize import normalize_text
from claimcheck.judge.pdf import body_bytes, pdf_page
from claimcheck.models import MediaType
from claimcheck.page import Notice, Page, Unit

_NOTICE = re.compile(r"^\s*(?:note|tip|important|warning|caution)\b", re.I)
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_ITEMS = frozenset({"li", "dt", "dd"})
# Blocks a list item may hold that are units of their own, after the item's own text.
_NESTED_BLOCKS = frozenset({*LISTS, "table", "pre", "blockquote", *_HEADINGS})
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
# An item's children whose visible text is more than their one text node's.
_SET_APART = MARKED | _BLOCK_PARTS
_MAX_DEPTH = 150
# Nested lists recurse through `list` and `item` (one frame a level of depth), not
# `element`: their own, higher guard keeps Python's recursion limit out of reach
# without cutting short any list the reader could read before it had one.
_MAX_LIST_DEPTH = 600


def text_page(text: str) -> Page:
    """A plain text as a page: its paragraphs (blank-line separated) are its units."""
    units = [Unit("paragraph", p) for p in map(normalize_text, re.split(r"\n\s*\n", text)) if p]
    return Page.of(units, [])


def read_page(body: str, media: MediaType, scope: str | None = None) -> Page:
    """The units of a body as a reader sees them (Markdown rendered as GitHub does): an
    HTML page's main content, or the parts a `scope` selector picks (see
    `extract.content_roots`). A scope that matches nothing gives a page of no units;
    a plain text has no elements for one to match, nor has a PDF (its bytes carried
    as text, `judge.pdf.body_text`)."""
    if media is MediaType.PDF:
        return pdf_page(body_bytes(body)) if scope is None else Page.of([], [], scope)
    if media is MediaType.TEXT or media is MediaType.JSON:  # a JSON document's text as is
        return text_page(body) if scope is None else Page.of([], [], scope)
    document = parse_page(body, media)
    roots, region = content_roots(document, media, scope)
    reader = _Reader(
        hiding_elements(document), _Places(body, media) if media in MARKDOWN_MEDIA else None
    )
    for root in roots:
        if root is document:
            reader.flow(root, 0)
        elif (name := element_name(root.tag)) is not None:
            reader.element(root, name, 0)
        reader.flush()
    lines = reader.places.lines() if reader.places is not None else None
    return Page.of(reader.units, reader.notices, region, lines)


class _Places:
    """The Markdown lines of rendered blocks (`data-sourcepos`), as lines of the file.

    A card's blocks count from the line after its front matter. The positions are in
    the rendered HTML, where a README's raw HTML could write one too: a position past
    the file's end is no position.
    """

    def __init__(self, body: str, media: MediaType) -> None:
        self.offset = front_matter_lines(body) if media is MediaType.CARD else 0
        self.count = body.count("\n") + 1
        self.nodes: list[LexborNode | None] = []  # the element each unit was read from

    def lines(self) -> array[int]:
        """Each unit's first and last line, side by side: those of the nearest block at
        or above its element that cmark placed, or (0, 0). Read once the walk is done,
        all at once (`sourcepos_lines_of`), while the page's tree is still held."""
        values: list[str | None] = []
        for node in self.nodes:
            value = None
            while node is not None:
                value = node.attributes.get(SOURCEPOS_ATTRIBUTE)
                if value is not None:
                    break
                node = node.parent
            values.append(value)
        offset, count = self.offset, self.count
        lines = array("i")
        for found in sourcepos_lines_of(values):
            if found is not None and 0 < found[0] + offset <= found[1] + offset <= count:
                lines.extend((found[0] + offset, found[1] + offset))
            else:
                lines.extend((0, 0))
        return lines


class _Reader:
    """Walks a parsed page once, emitting units with their headings, header, lead-in,
    and (for Markdown, `places`) the lines of the file each was written on."""

    def __init__(self, hiding: frozenset[int], places: _Places | None = None) -> None:
        self.hiding = hiding  # the page's `hiding_elements`
        self.units: list[Unit] = []
        self.notices: list[Notice] = []
        self.chain: list[tuple[int, str]] = []
        self.loose: list[str] = []
        self.images: list[str] = []
        self.headings: tuple[str, ...] = ()  # the chain's texts, kept as it changes
        self.places = places
        self.container: LexborNode | None = None  # the block whose children `flow` reads
        self.loose_in: LexborNode | None = None  # the container of the pending loose text

    def emit(
        self,
        kind: str,
        text: str,
        node: LexborNode | None = None,
        header: str | None = None,
        lead_in: str | None = None,
    ) -> None:
        # Blank text normalizes to nothing: spare normalize_text the many blank runs
        # between blocks (str.isspace and the `\s` of its regex are the same class).
        if text and not text.isspace():
            self.add(kind, normalize_text(text), node, header, lead_in)

    def add(
        self,
        kind: str,
        text: str,
        node: LexborNode | None = None,
        header: str | None = None,
        lead_in: str | None = None,
    ) -> None:
        """`emit` for a normalized text (normalize_text is idempotent: not run twice);
        `node`: the element it was read from, which places it in a Markdown file."""
        if text:
            self.units.append(Unit(kind, text, self.headings, header, lead_in))
            if self.places is not None:
                self.places.nodes.append(node)

    def inline(self, text: str) -> None:
        """Loose inline content of the container being read, for its implicit paragraph."""
        if not self.loose:
            self.loose_in = self.container
        self.loose.append(text)

    def _open_loose(self) -> None:
        """Note the container an implicit paragraph (or its pictures) starts in."""
        if not self.loose:
            self.loose_in = self.container

    def flush(self) -> None:
        """End the implicit paragraph of loose inline content, and its pictures."""
        if self.loose:
            self.emit("paragraph", "".join(self.loose), self.loose_in)
            self.loose.clear()
        for alt in self.images:
            self.emit("image", alt, self.loose_in)
        self.images.clear()

    def flow(self, node: LexborNode, depth: int) -> None:
        """Children of a block container: blocks become units, inline content paragraphs."""
        outer, self.container = self.container, node
        child = node.first_child
        while child is not None:
            tag = child.tag
            if tag == TEXT:
                self.inline(child.text_content or "")
            else:
                name = shown_name(child, tag, self.hiding)
                if name is not None:
                    self.element(child, name, depth + 1)
            child = child.next
        self.container = outer

    def element(self, tag: LexborNode, name: str, depth: int) -> None:
        if depth > _MAX_DEPTH:  # pathological nesting: the rest is one paragraph
            self.inline(visible_text(tag, self.hiding))
        elif name in _HEADINGS:
            self.flush()
            self.heading(tag, _HEADINGS[name])
        elif name in _PARAGRAPHS:
            self.flush()
            self.paragraph(tag)
        elif name in LISTS:
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
            self.emit("code", visible_text(tag, self.hiding), tag)
        elif name == "hr":
            self.flush()
        elif name == "br":
            self.inline(" ")
        elif name == "blockquote" or (name == "div" and is_alert(tag)):
            self.flush()
            self.notice_or_quote(tag, depth)
        elif name in _FLOW:
            self.flush()
            self.flow(tag, depth)
            self.flush()
        elif name == "img":
            alt = alt_text(tag)
            if alt:
                self._open_loose()
                self.images.append(alt)
        else:
            text, images = inline_and_images(tag, self.hiding)
            self.inline(text)
            self.images.extend(images)

    def heading(self, tag: LexborNode, level: int) -> None:
        self.chain = [(lvl, text) for lvl, text in self.chain if lvl < level]
        text = normalize_text(inline_text(tag, self.hiding))
        self.headings = tuple(text for _, text in self.chain)
        self.add("heading", text, tag)
        if text:
            self.chain.append((level, text))
            self.headings = (*self.headings, text)

    def paragraph(self, tag: LexborNode) -> None:
        text, images = inline_and_images(tag, self.hiding)
        self.emit("paragraph", text, tag)
        for alt in images:
            self.emit("image", alt, tag)

    def list(self, tag: LexborNode, lead_in: str | None, depth: int) -> None:
        if depth > _MAX_LIST_DEPTH:  # as in `element`: the rest is one paragraph
            self.inline(visible_text(tag, self.hiding))
            return
        child = tag.first_child
        while child is not None:
            name = shown_name(child, child.tag, self.hiding)
            if name is not None:
                if name in _ITEMS:
                    self.item(child, lead_in, depth + 1)
                else:
                    self.element(child, name, depth + 1)
            child = child.next

    def item(self, tag: LexborNode, lead_in: str | None, depth: int) -> None:
        """The item's own text first, then its nested blocks, led in by that text.

        The own text is normalized whole, so its children's visible texts go in as they
        are: their newlines and tabs need not become spaces first (`inline_text`).
        It was written on the lines of the one child it came from (a loose item's first
        paragraph), else on the item's.
        """
        own: list[str] = []
        nested: list[tuple[LexborNode, str]] = []
        paragraphs = 0
        source: LexborNode | None = None  # the one child the own text came from
        spread = False  # own text from more than one child, or from the item's text
        hiding = self.hiding
        child = tag.first_child
        while child is not None:
            kind = child.tag
            if kind == TEXT:
                text = child.text_content or ""
                own.append(text)
                spread = spread or not text.isspace()
            else:
                name = shown_name(child, kind, hiding)
                if name is not None:
                    paragraphs += name == "p"
                    # A loose item's first paragraph is its own text; later ones are
                    # paragraphs of their own, as a reader sees them.
                    if name in _NESTED_BLOCKS or (name == "p" and paragraphs > 1):
                        nested.append((child, name))
                        child = child.next
                        continue
                    before = len(own)
                    only = child.first_child
                    if name not in _SET_APART and only is not None and only.next is None:
                        # Most items' children: a link, a code span, one text each.
                        if only.tag == TEXT:
                            own.append(only.text_content or "")
                        else:
                            append_visible(own, child, hiding)
                    elif name in _BLOCK_PARTS:  # a loose item's paragraphs
                        own.append(" ")
                        append_visible(own, child, hiding)
                        own.append(" ")
                    else:
                        append_visible(own, child, hiding)
                    if self.places is not None and "".join(own[before:]).strip():
                        spread = spread or source is not None
                        source = child
            child = child.next
        text = normalize_text("".join(own))
        self.add("item", text, tag if spread or source is None else source, lead_in=lead_in)
        for block, name in nested:
            if name in LISTS:
                self.list(block, text or lead_in, depth + 1)
            else:
                self.element(block, name, depth + 1)
                self.flush()

    def table(self, tag: LexborNode) -> None:
        rows, header = table_rows(tag)
        # Most tables hold no list: their cells need no look for one, each.
        lists = tag.css_first(LIST_SELECTOR) is not None
        header_text = (
            normalize_text(row_text(header, self.hiding, lists)) if header is not None else None
        )
        child = tag.first_child
        while child is not None:
            if child.tag == "caption":
                self.emit("paragraph", inline_text(child, self.hiding), child)
            child = child.next
        header_id = header.mem_id if header is not None else None
        for row in rows:
            if hidden_in(row, "tr", self.hiding):
                continue
            self.emit(
                "row",
                row_text(row, self.hiding, lists),
                row,
                header=None if row.mem_id == header_id else header_text,
            )
            # A list in a cell is items a reader sees one by one (lmdeploy's model
            # tables): they are units of their own, under the table's header.
            if lists:
                for cell in row_cells(row):
                    for inner in outer_lists(cell):
                        self.list(inner, header_text, 0)

    def notice_or_quote(self, tag: LexborNode, depth: int) -> None:
        """A blockquote's paragraphs are units; a notice is also remembered as context.

        GitHub shows an alert's marker (`[!WARNING]`) as a title ("Warning"): so do we,
        in the notice and in its first unit, so a quote of it reads as the page does.
        """
        start = len(self.units)
        self.flow(tag, depth)
        self.flush()
        text = alert_title(normalize_text(visible_text(tag, self.hiding)))
        if start < len(self.units):
            first = self.units[start]
            self.units[start] = first._replace(text=alert_title(first.text))
        if _NOTICE.match(text) or is_alert(tag):
            self.notices.append(Notice(text, start, len(self.units), self.headings))

    def _lead_in(self, tag: LexborNode) -> str | None:
        """The paragraph right before a list, when it introduces it (ends with ':').

        Anything but blank text between them (a comment with words in it too) means the
        paragraph does not lead straight into the list.
        """
        sibling = tag.prev
        while sibling is not None:
            kind = sibling.tag
            if kind == TEXT:
                if (sibling.text_content or "").strip():
                    return None
            elif kind == "-comment":
                if sibling.comment_content:
                    return None
            elif (name := element_name(kind)) is not None:
                if name != "p" or hidden_in(sibling, name, self.hiding):
                    return None
                text = normalize_text(inline_and_images(sibling, self.hiding)[0])
                return text if text.endswith(":") else None
            sibling = sibling.prev
        return None
