"""The lines a quote stands on, found without the reading and the judge citations use.

`claimcheck.judge.permalink.quote_lines` takes each unit's Markdown lines from the
page's one reading (`Page.lines_of`) at the occurrence the judge verifies. This module
finds them independently, as citations did before units kept lines: render the file
again with cmarkgfm's own binding (not `claimcheck.judge.gfm`), parse the HTML with
html5lib and BeautifulSoup (not Lexbor), and take every element cmark placed
(`data-sourcepos`), with its whole text, as a block. Only the folding of text is shared
with the judge.

A quote is placed as a citation places it, by rules written here and not taken from the
judge: in the first block (by line) that holds it as whole words and holds no smaller
block that does. A word ends at a character that is neither a letter, digit nor `_`,
and not at `-`, `.`, `/` or `:` between two of those ("5" is not a word of "2.5",
"vllm" not one of "vllm-project", "2023" not one of "2023/12"), as the judge reads
numbers, versions and names. The old way took the smallest block holding the characters
anywhere, which put "13B" on a code block saying "llama-13b" and "license" on the last
line of a README whose first paragraph says it.

Two faults of the old code are not kept: it joined a block's text nodes with spaces,
so a quote across a link and the full stop after it ("the Apache 2.0 license.") was
in no block; and it did not read a picture's alt text, which a reader (and the judge)
takes for the picture. Here inline text is joined as written, blocks are set apart by
spaces, and a picture is its alt text.
"""

from __future__ import annotations

import re

import cmarkgfm
from bs4 import BeautifulSoup, NavigableString, Tag
from cmarkgfm.cmark import Options

from claimcheck.judge.normalize import normalize_text
from claimcheck.models import Anchor

Blocks = list[tuple[int, int, str]]

_SOURCEPOS = re.compile(r"(\d+):\d+-(\d+):(\d+)")
_INLINE = frozenset(
    {"a", "em", "strong", "code", "del", "s", "span", "b", "i", "u", "sup", "sub", "kbd", "input"}
)


def markdown_blocks(markdown: str) -> Blocks:
    """Every block cmark rendered, with its lines and folded text, smallest first."""
    html = cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=Options.CMARK_OPT_SOURCEPOS | Options.CMARK_OPT_UNSAFE
    )
    soup = BeautifulSoup(html, "html5lib")
    found: Blocks = []
    for tag in soup.find_all(attrs={"data-sourcepos": True}):
        assert isinstance(tag, Tag)
        match = _SOURCEPOS.fullmatch(str(tag.get("data-sourcepos")))
        if match is None:
            continue
        first, last = int(match[1]), int(match[2])
        last = max(first, last - 1) if match[3] == "0" else last
        found.append((first, last, folded(_text(tag))))
    found.sort(key=lambda block: (block[1] - block[0], len(block[2])))
    return found


def _text(tag: Tag) -> str:
    """A block's text as a reader reads it: inline text as written, blocks apart."""
    parts: list[str] = []
    for node in tag.descendants:
        if isinstance(node, NavigableString):
            if type(node) is NavigableString:  # not a comment, doctype or the like
                parts.append(str(node))
        elif isinstance(node, Tag):
            if node.name == "img":
                parts.append(f" {node.get('alt') or ''} ")
            elif node.name not in _INLINE:
                parts.append(" ")
    return "".join(parts)


def quote_lines(blocks: Blocks, anchor: Anchor) -> tuple[int, int] | None:
    """The lines of the first innermost block holding the quote as whole words."""
    wanted = folded(anchor.quote)
    if not wanted:
        return None
    words = re.compile(rf"(?<!\w)(?<!\w[-./:]){re.escape(wanted)}(?!\w)(?![-./:]\w)")
    holding = [(first, last) for first, last, shown in blocks if words.search(shown)]
    innermost = [
        block
        for block in holding
        if not any(other != block and block[0] <= other[0] <= other[1] <= block[1]
                   for other in holding)
    ]  # fmt: skip
    return min(innermost) if innermost else None


def folded(text: str) -> str:
    return " ".join(normalize_text(text).casefold().split())
