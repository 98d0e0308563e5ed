"""The rendered structure around a quote: which block holds it, and has that block changed?

A quote can stay verbatim while what surrounds it changes its meaning: a table of
backends gains a row, a list item is extended, a warning appears right above it. The
page is cut into blocks as a reader sees them (paragraphs, lists, tables, code,
quotes, headings); the *context* of a quote is its block, the block just above it in
the same section, and the section's heading. Comparing contexts ignores what a reader
would not call a change: formatting, re-wrapping, and the order of table rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bs4.element import NavigableString, PageElement, PreformattedString, Tag

from claimcheck.judge.anchor import diff_words, locate_anchor, normalize_text
from claimcheck.judge.extract import is_hidden, parse_page, visible_text
from claimcheck.models import Anchor, MediaType

# GitHub alerts (`> [!WARNING]`) and the older `> **Warning**` convention.
_NOTICE = re.compile(
    r"^\s*(?:\[!(?:note|tip|important|warning|caution)\]|(?:note|warning|caution|important)\b)",
    re.I,
)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_CONTAINERS = frozenset({"p", "ul", "ol", "dl", "table", "pre", "blockquote", *_HEADINGS})
# Elements that only group blocks: their own loose text forms implicit paragraphs.
_WRAPPERS = frozenset(
    {
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
        "summary",
        "center",
        "figure",
        "figcaption",
        "hr",
        "br",
    }
)


@dataclass(frozen=True)
class Block:
    """One block of a page: its kind, normalized text, parts (rows / items), section."""

    kind: str
    text: str
    parts: tuple[str, ...]
    heading: str

    @property
    def display(self) -> str:
        """The block for a person: one line per list item or table row."""
        if self.kind == "list":
            return "\n".join(f"• {part}" for part in self.parts)
        if self.kind == "table":
            return "\n".join(f"| {part}" for part in self.parts)
        return self.text

    def same_as(self, other: Block) -> bool:
        """Equal for a reader: tables compare their rows as a set (order is layout)."""
        if self.kind != other.kind:
            return False
        if self.kind == "table":
            return sorted(self.parts) == sorted(other.parts)
        return self.parts == other.parts


@dataclass(frozen=True)
class Context:
    """A quote's block, the block above it in the same section, the heading, and the
    notices (warnings, cautions) that stand over it: at the top of the page or earlier
    in its section."""

    block: Block
    above: Block | None
    notices: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The context as one readable text: heading, block above, block."""
        lines = [f"! {notice}" for notice in self.notices]
        if self.block.heading:
            lines.append(f"§ {self.block.heading}")
        if self.above is not None and self.above.text not in self.notices:
            lines.append(self.above.display)
        lines.append(self.block.display)
        return "\n".join(lines)

    def same_as(self, other: Context) -> bool:
        """Whether a reader would see the same context around the quote."""
        if self.block.heading != other.block.heading or not self.block.same_as(other.block):
            return False
        if sorted(self.notices) != sorted(other.notices):
            return False
        if self.above is None or other.above is None:
            return self.above is other.above
        return self.above.same_as(other.above)


def split_blocks(body: str, media: MediaType) -> list[Block]:
    """The page's blocks in reading order."""
    if media is MediaType.TEXT:
        paragraphs = [normalize_text(p) for p in body.split("\n\n")]
        return [Block("p", p, (p,), "") for p in paragraphs if p]
    blocks: list[Block] = []
    heading = ""
    loose: list[str] = []

    def flush() -> None:
        text = normalize_text(" ".join(loose))
        loose.clear()
        if text:
            blocks.append(Block("p", text, (text,), heading))

    stack: list[PageElement | None] = [parse_page(body, media)]
    while stack:
        node = stack.pop()
        if node is None:
            flush()
        elif isinstance(node, NavigableString):
            if not isinstance(node, PreformattedString):
                loose.append(str(node))
        elif isinstance(node, Tag) and not is_hidden(node):
            name = node.name.lower()
            if name in _CONTAINERS:
                flush()
                block = _block_of(node, name, heading)
                if name in _HEADINGS:
                    heading = block.text
                if block.text:
                    blocks.append(block)
            elif name in _WRAPPERS or name == "[document]":
                flush()
                stack.append(None)
                stack.extend(reversed(node.contents))
            else:
                loose.append(visible_text(node))
    flush()
    return blocks


def _block_of(tag: Tag, name: str, heading: str) -> Block:
    text = normalize_text(visible_text(tag))
    if name == "table":
        parts = tuple(normalize_text(visible_text(row)) for row in tag.find_all("tr"))
    elif name in ("ul", "ol", "dl"):
        items = tag.find_all(["li", "dt", "dd"], recursive=False)
        parts = tuple(normalize_text(visible_text(item)) for item in items) or (text,)
    else:
        parts = (text,)
    kind = "heading" if name in _HEADINGS else ("list" if name in ("ul", "ol", "dl") else name)
    if kind == "blockquote" and _NOTICE.match(text):
        kind = "notice"
    return Block(kind, text, parts, heading if kind != "heading" else "")


def locate_context(anchor: Anchor, blocks: list[Block]) -> Context | None:
    """The context of the block holding the quote exactly, if one block holds it."""
    for index, block in enumerate(blocks):
        found = locate_anchor(anchor, block.text, min_score=101.0)
        if found is not None and found.exact:
            above = blocks[index - 1] if index > 0 else None
            if above is not None and (above.kind == "heading" or above.heading != block.heading):
                above = None
            return Context(block=block, above=above, notices=_notices_over(blocks, index))
    return None


def _notices_over(blocks: list[Block], index: int) -> tuple[str, ...]:
    """Notices a reader meets before the quote: page-top ones and its section's own."""
    first_heading = next((i for i, b in enumerate(blocks) if b.kind == "heading"), len(blocks))
    section = blocks[index].heading
    return tuple(
        b.text
        for i, b in enumerate(blocks[:index])
        if b.kind == "notice" and (i < first_heading or (b.heading == section and section))
    )


def context_diff(before: Context, after: Context) -> str:
    """A word-level diff of two contexts, for a person to see what was added or removed."""
    return diff_words(before.text, after.text)
