"""An independent oracle for judging quotes: a README's units and their meaning-bearing context.

This is the reference the judge (`claimcheck.judge`) is measured against, so it shares
none of its code: Markdown is rendered with GitHub's renderer (cmarkgfm) and the HTML is
read with Python's own `html.parser` (the judge uses Lexbor), straight from the tree.

A page is a sequence of *units*, each a block a reader sees as one piece:

- `p`: a paragraph `<p>` (one inside a list item, a table cell or a blockquote belongs to
  that unit instead; a `<p>` that holds block elements, which a browser would close
  before them, is read as a container);
- `li`: a list item's own text, without its nested lists, tables, code blocks, quotes
  and headings (those are units of their own); a loose item's second and later
  paragraphs are paragraphs of their own;
- `tr`: a table row, its cells' texts joined with single spaces (nested lists, tables,
  code blocks, quotes and headings in a cell are units of their own);
- `heading` (h1–h6) and `pre` (a code block); a blockquote's paragraphs are units like
  any others (a notice's first one shown with its title, "Note …", as GitHub shows it);
- `img`: a picture's alt text inside a paragraph, a unit of its own (badges);
- `text`: inline content standing loose in a container that is no unit (a `<div>`, a
  `<summary>`, a `<details>`): raw-HTML READMEs are full of it.

Invisible content is skipped (script, style, svg, template, noscript, comments,
elements with `hidden`, `aria-hidden="true"` or an inline `display:none` /
`visibility:hidden`); an image counts as its alt text, set apart by spaces. Text is
NFKC-folded, zero-width characters are dropped, typographic quotes and dashes fold to
ASCII, and whitespace collapses to single spaces.

Each unit's *context* (what, when it changes, changes the quote's meaning) is:

- `unit`: the unit's own text;
- `headings`: the document outline path above it (nearest h1, the nearest h2 under it,
  and so on; a heading's own path excludes itself);
- `header`: for a table row, the table's header row (the row in `<thead>`, else the
  first row if it has `<th>` cells); units nested inside a table cell carry their
  table's header row too;
- `lead_in`: for a list item, the paragraph right before its list (same parent,
  nothing visible between) when that paragraph ends with ':'; for a nested list, the
  parent item's own text;
- `notices`: GitHub alerts (a blockquote starting `[!NOTE]`, `[!TIP]`, `[!IMPORTANT]`,
  `[!WARNING]`, `[!CAUTION]`) and the older bold style (a blockquote starting with
  **Note**, **Warning**, **Caution** or **Important**) that stand before the unit
  either at the top of the page (before the first h2) or in the unit's own section or
  an enclosing one.

Siblings (other rows, other items, other paragraphs) are never context.

A quote *occurs* in a unit case-insensitively and on whole-token boundaries: a token is
a run of letters, digits and underscores joined by `.`, `,`, `-`, `/` or `:` between
two such characters (`2.5`, `1,100,000`, `MIT-0`, `llama.cpp`), so "5 GPUs" does not
occur in "2.5 GPUs", nor "CUDA 12" in "CUDA 12.8".
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

import cmarkgfm
from bs4 import BeautifulSoup
from bs4.element import NavigableString, PageElement, PreformattedString, Tag

HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
INVISIBLE = frozenset({"script", "style", "svg", "template", "noscript", "head", "title"})
# Elements after which a reader's words never run on into the next ones.
SEPARATING = frozenset(
    {
        *HEADINGS,
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "caption",
        "center",
        "dd",
        "details",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "footer",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    }
)
# Block elements that make an inline-looking element (or a <p>) a container.
_BLOCK_INSIDE = SEPARATING - {"br", "td", "th"}
# Inside a list item or a table row these are units of their own, not its text.
NESTED_UNITS = frozenset({*HEADINGS, "ul", "ol", "li", "table", "tr", "pre", "blockquote"})
_TABLE_PARTS = frozenset({"thead", "tbody", "tfoot", "tr", "colgroup", "col"})
CONTEXT_PARTS = ("unit", "headings", "header", "lead_in", "notices")

_ALERT = re.compile(r"^\[!(?:note|tip|important|warning|caution)\]", re.I)
# GitHub shows an alert whose marker stands alone on its first line with the kind as a
# title ("Note") instead of the marker: that is the text a reader sees.
_ALERT_LINE = re.compile(r"^\s*\[!(note|tip|important|warning|caution)\][ \t]*(?:\n|$)", re.I)
_OLD_NOTICE_WORDS = frozenset({"note", "warning", "caution", "important"})
_HIDDEN_STYLE = re.compile(r"(?:display\s*:\s*none|visibility\s*:\s*hidden)", re.I)
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_TYPOGRAPHIC = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u2039\u203a", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    }
)
_SPACES = re.compile(r"\s+")
JOINERS = frozenset(".,-/:")
TOKEN = re.compile(r"\w+(?:[.,\-/:]\w+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")
REWORDING_SHARE = 0.6
MIN_REWORDING_WORDS = 3
"""A quote of one or two words has no reworded form: it is there or it is missing (the
house rule that `claimcheck lint` warns about as short-quote)."""


def normalize(text: str) -> str:
    """Text as a reader compares it: NFKC, no zero-width marks, ASCII quotes, one space."""
    text = unicodedata.normalize("NFKC", text.translate(_ZERO_WIDTH)).translate(_TYPOGRAPHIC)
    return _SPACES.sub(" ", text).strip()


def words(text: str) -> list[str]:
    """The case-folded word tokens of a text (numbers like `2.5` are one token)."""
    return TOKEN.findall(normalize(text).casefold())


# -- the context and the units -------------------------------------------------------


@dataclass(frozen=True)
class Context:
    """What gives a unit its meaning: its text, outline path, header, lead-in, notices."""

    unit: str
    headings: tuple[str, ...] = ()
    header: str | None = None
    lead_in: str | None = None
    notices: tuple[str, ...] = ()

    def changes(self, other: Context) -> tuple[str, ...]:
        """The names of the parts that differ from `other` (empty: the same context)."""
        return tuple(p for p in CONTEXT_PARTS if getattr(self, p) != getattr(other, p))


@dataclass(frozen=True)
class Unit:
    """One block a reader sees as a piece: its kind, its text and its context."""

    kind: str
    text: str
    context: Context
    is_notice: bool = False


@dataclass
class _Scope:
    """What a unit inherits from where it stands: a table's header, a parent item."""

    header: str | None = None
    parent_item: str | None = None


@dataclass
class _Reader:
    """Reads units off an HTML tree in document order, tracking outline and notices."""

    units: list[Unit] = field(default_factory=list)
    outline: list[tuple[int, int, str]] = field(default_factory=list)  # level, id, text
    notices: list[tuple[bool, tuple[int, ...], str]] = field(default_factory=list)
    top_over: bool = False
    _ids: int = 0

    def path(self) -> tuple[int, ...]:
        return tuple(ident for _, ident, _ in self.outline)

    def emit(self, kind: str, text: str, scope: _Scope, *, lead_in: str | None = None) -> None:
        if not text:
            return
        path = self.path()
        applying = tuple(notice for top, at, notice in self.notices if top or path[: len(at)] == at)
        context = Context(
            unit=text,
            headings=tuple(t for _, _, t in self.outline),
            header=scope.header,
            lead_in=lead_in,
            notices=applying,
        )
        self.units.append(Unit(kind, text, context))

    def heading(self, tag: Tag, scope: _Scope) -> None:
        """A heading opens a section; the page's top ends at the first one below the
        title (the first heading, when it is an h1): an h2 in the usual layout."""
        level = int(tag.name[1])
        while self.outline and self.outline[-1][0] >= level:
            self.outline.pop()
        text = visible_text(tag)
        self.emit("heading", text, scope)
        if text:
            self.top_over = self.top_over or self._ids > 0 or level != 1
            self._ids += 1
            self.outline.append((level, self._ids, text))

    def blockquote(self, tag: Tag, scope: _Scope) -> None:
        """A quote's paragraphs are units, as a reader sees them; the whole quote, when it
        is a notice, is context for what follows it (not for its own paragraphs)."""
        raw = visible_text(tag)
        notice = bool(raw) and is_notice(tag, raw)
        text = _alert_as_shown(tag, raw)
        first = len(self.units)
        _walk(self, tag, scope)
        if first < len(self.units):
            head = self.units[first]
            shown = _alert_as_shown(tag, head.text)
            context = Context(shown, head.context.headings, head.context.header,
                              head.context.lead_in, head.context.notices)  # fmt: skip
            self.units[first] = Unit(head.kind, shown, context, is_notice=notice)
        if notice:
            self.notices.append((not self.top_over, self.path(), text))


def _alert_as_shown(tag: Tag, text: str) -> str:
    """A GitHub alert's text with its `[!NOTE]` marker shown as GitHub does: "Note"."""
    first = next(
        (
            str(node)
            for node in tag.descendants
            if isinstance(node, NavigableString)
            and not isinstance(node, PreformattedString)
            and node.strip()
        ),
        "",
    )
    line = _ALERT_LINE.match(first)
    marker = _ALERT.match(text)
    if line is None or marker is None:
        return text
    return normalize(f"{line.group(1).capitalize()} {text[marker.end() :]}")


def is_hidden(tag: Tag) -> bool:
    """Whether a reader cannot see this element at all."""
    if tag.name.lower() in INVISIBLE or tag.get("hidden") is not None:
        return True
    aria = tag.get("aria-hidden")
    if isinstance(aria, str) and aria.strip().lower() == "true":
        return True
    style = tag.get("style")
    return isinstance(style, str) and _HIDDEN_STYLE.search(style) is not None


def reading(
    node: PageElement | Iterable[PageElement], skip: Callable[[Tag], bool] | None = None
) -> Iterator[str | Tag]:
    """A node's visible text pieces in reading order; a `skip`ped tag is yielded whole."""
    stack: list[PageElement | None] = (
        [node] if isinstance(node, PageElement) else list(reversed(list(node)))
    )
    while stack:
        item = stack.pop()
        if item is None:
            yield " "
        elif isinstance(item, NavigableString):
            if not isinstance(item, PreformattedString):
                yield str(item)
        elif isinstance(item, Tag) and not is_hidden(item):
            if item is not node and skip is not None and skip(item):
                yield item
                continue
            name = item.name.lower()
            if name == "img":
                alt = item.get("alt")
                yield f" {alt} " if isinstance(alt, str) else " "
                continue
            if name in SEPARATING:
                yield " "
                stack.append(None)
            stack.extend(reversed(item.contents))


def visible_text(
    node: PageElement | Iterable[PageElement], skip: Callable[[Tag], bool] | None = None
) -> str:
    """The normalized text a reader sees in a node (or nodes), leaving out `skip`ped tags."""
    return normalize("".join(p for p in reading(node, skip) if isinstance(p, str)))


def _skip_nested(tag: Tag) -> bool:
    return tag.name.lower() in NESTED_UNITS


def is_notice(tag: Tag, text: str) -> bool:
    """A GitHub alert (`[!WARNING]`) or an older `**Note**` blockquote."""
    if _ALERT.match(text):
        return True
    for node in tag.descendants:
        if isinstance(node, NavigableString):
            if isinstance(node, PreformattedString) or not node.strip():
                continue
            return False
        if isinstance(node, Tag) and node.name.lower() in ("strong", "b"):
            word = visible_text(node).rstrip(": ").casefold()
            return word in _OLD_NOTICE_WORDS
    return False


def _has_block_inside(tag: Tag) -> bool:
    return any(isinstance(d, Tag) and d.name.lower() in _BLOCK_INSIDE for d in tag.descendants)


def _tags_below(
    tag: Tag, wanted: frozenset[str], stop: frozenset[str], *, into_wanted: bool = False
) -> Iterator[Tag]:
    """Tags named in `wanted` under `tag`, in document order, never looking inside hidden
    tags or `stop` tags, nor inside wanted ones unless `into_wanted`."""
    stack = [c for c in reversed(tag.contents) if isinstance(c, Tag)]
    while stack:
        node = stack.pop()
        name = node.name.lower()
        if is_hidden(node) or name in stop:
            continue
        if name in wanted:
            yield node
            if not into_wanted:
                continue
        stack.extend(c for c in reversed(node.contents) if isinstance(c, Tag))


def _first_visible_before(tag: Tag) -> Tag | None:
    """The element right before `tag` among its siblings, if only whitespace is between."""
    for node in tag.previous_siblings:
        if isinstance(node, PreformattedString):
            continue
        if isinstance(node, NavigableString):
            if node.strip():
                return None
            continue
        if isinstance(node, Tag) and not is_hidden(node):
            return node
    return None


def _paragraph_lead_in(listing: Tag) -> str | None:
    before = _first_visible_before(listing)
    if before is None or before.name.lower() != "p":
        return None
    text = visible_text(before)
    return text if text.endswith(":") else None


def _rows_of(table: Tag) -> list[Tag]:
    """The table's own rows (not those of tables nested in its cells)."""
    return list(_tags_below(table, frozenset({"tr"}), frozenset({"table"}), into_wanted=True))


def _header_row(rows: list[Tag]) -> Tag | None:
    for row in rows:
        if row.parent is not None and row.parent.name.lower() == "thead":
            return row
    if rows and _cells(rows[0]) and _cells(rows[0])[0].name.lower() == "th":
        return rows[0]
    return None


def _cells(row: Tag) -> list[Tag]:
    return [
        c
        for c in row.children
        if isinstance(c, Tag) and c.name.lower() in ("td", "th") and not is_hidden(c)
    ]


def _row_text(row: Tag) -> str:
    cells = _cells(row)
    if not cells:
        return visible_text(row, _skip_nested)
    texts = (visible_text(cell, _skip_nested) for cell in cells)
    return " ".join(t for t in texts if t)


def _nested_blocks(tag: Tag) -> Iterator[Tag]:
    """The top-most nested-unit elements inside a list item or row, in document order."""
    return _tags_below(tag, NESTED_UNITS, frozenset())


def _walk(reader: _Reader, node: Tag, scope: _Scope) -> None:
    """Read the units of a container's children; loose inline content forms `text` units."""
    loose: list[PageElement] = []

    def flush() -> None:
        if loose:
            reader.emit("text", visible_text(loose), scope)
            loose.clear()

    for child in list(node.children):
        if isinstance(child, NavigableString):
            if not isinstance(child, PreformattedString):
                loose.append(child)
            continue
        if not isinstance(child, Tag) or is_hidden(child):
            continue
        name = child.name.lower()
        if name == "br" or (name not in SEPARATING and not _has_block_inside(child)):
            loose.append(child)
            continue
        flush()
        _block(reader, child, name, scope)
    flush()


def _block(reader: _Reader, tag: Tag, name: str, scope: _Scope) -> None:
    if name in HEADINGS:
        reader.heading(tag, scope)
    elif name == "pre":
        reader.emit("pre", visible_text(tag), scope)
    elif name == "blockquote":
        reader.blockquote(tag, scope)
    elif name == "p" and not _has_block_inside(tag):
        _paragraph(reader, tag, scope)
    elif name in ("ul", "ol"):
        _listing(reader, tag, scope)
    elif name == "li":
        _item(reader, tag, scope, scope.parent_item)
    elif name == "table":
        _table(reader, tag, scope)
    elif name == "tr":
        _row(reader, tag, scope, scope.header)
    else:
        _walk(reader, tag, scope)


def _paragraph(reader: _Reader, tag: Tag, scope: _Scope) -> None:
    """A paragraph's text, then each picture in it as a unit of its own: a row of badges
    is pictures side by side, each its own text ("License: MIT")."""
    reader.emit("p", visible_text(tag, _is_image), scope)
    for image in tag.find_all("img"):
        alt = image.get("alt")
        if isinstance(alt, str) and not any(is_hidden(t) for t in [image, *image.parents]):
            reader.emit("img", normalize(alt), scope)


def _is_image(tag: Tag) -> bool:
    return tag.name.lower() == "img"


def _listing(reader: _Reader, listing: Tag, scope: _Scope) -> None:
    lead_in = scope.parent_item if scope.parent_item is not None else _paragraph_lead_in(listing)
    for child in list(listing.children):
        if isinstance(child, Tag) and not is_hidden(child):
            if child.name.lower() == "li":
                _item(reader, child, scope, lead_in)
            else:
                _block(reader, child, child.name.lower(), _Scope(scope.header))
        elif isinstance(child, NavigableString) and not isinstance(child, PreformattedString):
            reader.emit("text", normalize(str(child)), scope)


def _item(reader: _Reader, item: Tag, scope: _Scope, lead_in: str | None) -> None:
    """A list item's own text, cut into one unit per run between its nested blocks
    (text after a nested code block is not glued to the text before it)."""
    paragraphs = item.find_all("p", recursive=False)

    def skip(tag: Tag) -> bool:
        # A loose item's first paragraph is its own text; later ones are paragraphs.
        later = tag.name.lower() == "p" and tag.parent is item and tag is not paragraphs[0]
        return _skip_nested(tag) or later

    inner = _Scope(scope.header, parent_item=visible_text(item, skip))
    run: list[str] = []
    for piece in reading(item, skip):
        if isinstance(piece, str):
            run.append(piece)
            continue
        reader.emit("li", normalize("".join(run)), scope, lead_in=lead_in)
        run.clear()
        _block(reader, piece, piece.name.lower(), inner)
    reader.emit("li", normalize("".join(run)), scope, lead_in=lead_in)


def _table(reader: _Reader, table: Tag, scope: _Scope) -> None:
    rows = _rows_of(table)
    header = _header_row(rows)
    header_text = _row_text(header) if header is not None else None
    for row in rows:
        _row(reader, row, scope, None if row is header else header_text)
    inner = _Scope(header_text)
    for child in list(table.children):
        if isinstance(child, Tag) and not is_hidden(child):
            if child.name.lower() not in _TABLE_PARTS:
                _block(reader, child, child.name.lower(), inner)
        elif isinstance(child, NavigableString) and not isinstance(child, PreformattedString):
            reader.emit("text", normalize(str(child)), inner)


def _row(reader: _Reader, row: Tag, scope: _Scope, header: str | None) -> None:
    reader.emit("tr", _row_text(row), _Scope(header))
    inner = _Scope(header)
    for nested in _nested_blocks(row):
        if nested.name.lower() != "tr":  # a row left open holds the next: read as a row
            _block(reader, nested, nested.name.lower(), inner)


# -- a page's units, and where a quote stands in them ------------------------------


def _glued(text: str, at: int) -> bool:
    """Whether position `at` (between text[at-1] and text[at]) falls inside a token."""
    if at <= 0 or at >= len(text):
        return False

    def w(i: int) -> bool:
        return 0 <= i < len(text) and (text[i].isalnum() or text[i] == "_")

    if w(at - 1) and w(at):
        return True
    if text[at - 1] in JOINERS and w(at - 2) and w(at):
        return True
    return text[at] in JOINERS and w(at - 1) and w(at + 1)


def occurrences(quote: str, text: str) -> list[int]:
    """Starts of `quote` in `text`, case-insensitively and on whole-token boundaries."""
    return _folded_occurrences(normalize(quote).casefold(), normalize(text).casefold())


def _folded_occurrences(needle: str, hay: str) -> list[int]:
    if not needle:
        return []
    found: list[int] = []
    at = hay.find(needle)
    while at != -1:
        if not _glued(hay, at) and not _glued(hay, at + len(needle)):
            found.append(at)
        at = hay.find(needle, at + 1)
    return found


def sentences(text: str) -> list[str]:
    """A unit's sentences (a sentence ends at . ! or ? before a capital, digit or quote)."""
    return [s for s in _SENTENCE_END.split(text) if s]


class Document:
    """A rendered README read as units, with look-ups for quotes."""

    def __init__(self, units: Iterable[Unit]) -> None:
        self.units: tuple[Unit, ...] = tuple(units)
        self.folded = tuple(u.text.casefold() for u in self.units)
        self.whole = " ".join(self.folded)
        self._bags = [Counter(TOKEN.findall(f)) for f in self.folded]
        self._index: dict[str, set[int]] = {}
        for i, bag in enumerate(self._bags):
            for word in bag:
                self._index.setdefault(word, set()).add(i)

    def holders(self, quote: str) -> list[tuple[int, int]]:
        """(unit index, occurrences) of every unit the quote occurs in."""
        needle = normalize(quote).casefold()
        if not needle or needle not in self.whole:
            return []
        hits = (
            (i, len(_folded_occurrences(needle, f)))
            for i, f in enumerate(self.folded)
            if needle in f
        )
        return [(i, n) for i, n in hits if n]

    def across(self, quote: str) -> int:
        """How often the quote occurs in the page's units read as one text."""
        return len(_folded_occurrences(normalize(quote).casefold(), self.whole))

    def unique_unit(self, quote: str) -> Unit | None:
        """The unit holding the quote, when exactly one unit holds it exactly once."""
        held = self.holders(quote)
        return self.units[held[0][0]] if len(held) == 1 and held[0][1] == 1 else None

    def is_unique(self, quote: str) -> bool:
        """The quote occurs once in the page: in one unit, and never across units."""
        return self.unique_unit(quote) is not None and self.across(quote) == 1

    def closest(self, quote: str) -> tuple[Unit, int] | None:
        """The unit keeping most of the quote's words (≥ 60%, multiset), with the count."""
        wanted = Counter(words(quote))
        total = sum(wanted.values())
        if total < MIN_REWORDING_WORDS:
            return None
        candidates = set().union(*(self._index.get(w, set()) for w in wanted))
        scored = []
        for i in candidates:
            bag = self._bags[i]
            kept = sum(min(n, bag[w]) for w, n in wanted.items())
            scored.append((kept, kept / max(1, sum(bag.values())), -i))
        if not scored or max(scored)[0] < REWORDING_SHARE * total:
            return None
        kept, _, at = max(scored)
        return self.units[-at], kept

    def rewording_is_ambiguous(self, quote: str) -> bool:
        """Two units keep as many of the quote's words as the best one does: which of
        them replaced it is not defined (a news list of "Built-in support for X" items
        loses one), so no `found` can be expected — the quote is only stale."""
        wanted = Counter(words(quote))
        counts = sorted(
            (
                sum(min(n, self._bags[i][w]) for w, n in wanted.items())
                for i in set().union(*(self._index.get(w, set()) for w in wanted))
            ),
            reverse=True,
        )
        return len(counts) > 1 and counts[0] == counts[1]


@functools.lru_cache(maxsize=64)
def read_html(html: str) -> Document:
    """The units of an HTML page (parsed with Python's html.parser)."""
    soup = BeautifulSoup(html, "html.parser")
    reader = _Reader()
    _walk(reader, soup, _Scope())
    return Document(reader.units)


def render(markdown: str) -> str:
    """Markdown rendered the way GitHub renders it (raw HTML kept)."""
    html: str = cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=cmarkgfm.Options.CMARK_OPT_UNSAFE
    )
    return html


def read_markdown(markdown: str) -> Document:
    """The units of a Markdown page."""
    return read_html(render(markdown))


# -- the expected verdict ---------------------------------------------------------------

Expected = Literal["verified", "context-changed", "drifted", "stale", "ambiguous", "unknown"]


@dataclass(frozen=True)
class Expectation:
    """What the oracle expects for a quote of `old` judged against `new`.

    `changed` names the context parts that changed (for `context-changed`); `found`
    lists the texts a `drifted` verdict may show (the unit, or the sentences holding
    the kept words of a unit of several sentences).
    """

    verdict: Expected
    changed: tuple[str, ...] = ()
    found: tuple[str, ...] = ()


def expected_found(unit: Unit, quote: str) -> tuple[str, ...]:
    """The texts a reworded quote's `found` may be: its unit, or its sentences in it."""
    parts = sentences(unit.text)
    if unit.kind not in ("p", "li", "text", "blockquote") or len(parts) < 2:
        return (unit.text,)
    wanted = Counter(words(quote))
    need = REWORDING_SHARE * sum(wanted.values())
    for size in range(1, len(parts)):
        runs = [" ".join(parts[i : i + size]) for i in range(len(parts) - size + 1)]
        scored = [(sum((Counter(words(r)) & wanted).values()), -i, r) for i, r in enumerate(runs)]
        kept, _, run = max(scored)
        if kept >= need:
            return (unit.text, run)
    return (unit.text,)


def expect(quote: str, old: Document, new: Document) -> Expectation:
    """The verdict a correct judge gives `quote` (unique in `old`) when the page is `new`."""
    before = old.unique_unit(quote)
    if before is None:
        return Expectation("unknown")
    held = new.holders(quote)
    if len(held) > 1 or (held and held[0][1] > 1):
        return Expectation("ambiguous")
    if held:
        changed = before.context.changes(new.units[held[0][0]].context)
        return Expectation("context-changed", changed) if changed else Expectation("verified")
    closest = new.closest(quote)
    if closest is None or new.rewording_is_ambiguous(quote):
        return Expectation("stale")
    return Expectation("drifted", found=expected_found(closest[0], quote))
