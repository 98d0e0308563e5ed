"""The page reader as it was with html5lib and BeautifulSoup: the oracle of the Lexbor one.

`claimcheck.judge.extract` and `claimcheck.judge.units` read pages with Lexbor
(selectolax) since html5lib and BeautifulSoup took most of a run's time. This module
keeps the reading code as it stood before that port, frozen, so that
`tests/judge/test_parser_parity.py` can assert the new reader gives the same `Page`
(units and notices) and the same extracted text on every page the tests carry, and
`bench/bench_read_pages.py` can time the two side by side. Only the dataclasses and
`normalize_text` are shared with the judge; do not "fix" this code, it is the record
of the old behaviour.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import cmarkgfm
from bs4 import BeautifulSoup
from bs4.element import NavigableString, PageElement, PreformattedString, Tag

from claimcheck.judge.normalize import normalize_text
from claimcheck.judge.units import text_page
from claimcheck.models import MediaType
from claimcheck.page import Notice, Page, Unit

# Elements whose content a reader never sees as text on the page: metadata, code,
# graphics, fallback content of embedded media, ruby's fallback parentheses.
_INVISIBLE = frozenset(
    {
        "head",
        "title",
        "script",
        "style",
        "template",
        "noscript",
        "svg",
        "iframe",
        "object",
        "canvas",
        "video",
        "audio",
        "rp",
    }
)

# Elements that start and end a block: their words never glue to a neighbour's.
_BLOCKS = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "br",
        "caption",
        "center",
        "dd",
        "details",
        "dialog",
        "dir",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "html",
        "legend",
        "li",
        "main",
        "menu",
        "nav",
        "ol",
        "option",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "tfoot",
        "thead",
        "tr",
        "ul",
    }
)

# Table cells sit side by side: separated by a tab, rows by the newline of <tr>.
_CELLS = frozenset({"td", "th"})

_DOCUMENT = re.compile(r"<(?:!doctype|html|head|body)\b", re.I)
_HIDDEN_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b", re.I)

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


def extract_text(body: str, media: MediaType) -> str:
    """Return the text a reader sees in `body`, blocks separated by newlines.

    The result is not normalized (see `anchor.normalize_text`): whitespace inside a
    block is kept as found, so that the extraction stays a faithful view of the page.
    """
    if media is MediaType.TEXT:
        return body
    return visible_text(parse_page(body, media))


def parse_page(body: str, media: MediaType) -> BeautifulSoup:
    """The page as a reader's browser holds it: Markdown rendered as GitHub does.

    html5lib builds the tree by the HTML5 algorithm, as browsers (and GitHub's
    sanitizer) do: READMEs with broken raw HTML (a `<table>` where `</table>` was
    meant) still get their headings, paragraphs and lists as separate blocks rather
    than nested inside the table. A fragment (rendered Markdown, a snippet) is parsed
    as a body, so that leading elements are not mistaken for a document head.
    """
    if media is MediaType.MARKDOWN:
        body = cmarkgfm.github_flavored_markdown_to_html(
            body, options=cmarkgfm.Options.CMARK_OPT_UNSAFE
        )
    if not _DOCUMENT.search(body[:4096]):
        body = "<body>" + body
    return BeautifulSoup(body, "html5lib")


def visible_text(root: PageElement) -> str:
    """Walk an element depth first, emitting its visible text and block boundaries.

    An explicit stack instead of recursion: deeply nested pages must not hit Python's
    recursion limit. A `None` on the stack marks the end of a block element.
    """
    out: list[str] = []
    stack: list[PageElement | None] = [root]
    while stack:
        node = stack.pop()
        if node is None:
            out.append("\n")
        elif isinstance(node, NavigableString):
            # Comments, doctypes, CDATA and processing instructions are not text.
            if not isinstance(node, PreformattedString):
                out.append(str(node))
        elif isinstance(node, Tag) and not is_hidden(node):
            name = node.name.lower()
            if name == "img":
                out.append(_image_text(node))
            elif name in _BLOCKS:
                out.append("\n")
                stack.append(None)
            elif name in _CELLS:
                out.append("\t")
            stack.extend(reversed(node.contents))
    return "".join(out)


def _image_text(img: Tag) -> str:
    """An image stands for its alt text, set apart from its neighbours' words.

    Badges are pictures of text ("License: MIT") that claims do quote, and the alt text
    is the only text of them there is. Its URL is never text.
    """
    alt = img.get("alt")
    return f" {alt} " if isinstance(alt, str) and alt.strip() else ""


def is_hidden(tag: Tag) -> bool:
    """Whether a reader cannot see this element's content at all."""
    if tag.name.lower() in _INVISIBLE:
        return True
    # hidden="until-found" content is revealed by find-in-page and text fragments.
    hidden = tag.get("hidden")
    if hidden is not None and not (isinstance(hidden, str) and hidden.lower() == "until-found"):
        return True
    aria = tag.get("aria-hidden")
    if isinstance(aria, str) and aria.strip().lower() == "true":
        return True
    style = tag.get("style")
    return isinstance(style, str) and _HIDDEN_STYLE.search(style) is not None


def read_page(body: str, media: MediaType) -> Page:
    """The units of a body as a reader sees them (Markdown rendered as GitHub does)."""
    if media is MediaType.TEXT:
        return text_page(body)
    reader = _Reader()
    reader.flow(parse_page(body, media), 0)
    reader.flush()
    return Page.of(reader.units, reader.notices)


def read_page_and_text(body: str, media: MediaType) -> tuple[Page, str]:
    """`read_page` and `extract_text` of one body from one parse (not part of the frozen
    reader: html5lib's parse is the slow part, and the parity test wants both)."""
    if media is MediaType.TEXT:
        return text_page(body), body
    soup = parse_page(body, media)
    reader = _Reader()
    reader.flow(soup, 0)
    reader.flush()
    return Page.of(reader.units, reader.notices), visible_text(soup)


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
            self.units[start] = first._replace(text=_alert_title(first.text))
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
