"""A quote's lines, taken from the units' own source positions, held to real history.

Citations select the Markdown lines a quote stands on from the page's one reading
(`Unit.lines`). Two oracles that share none of that code check them on the README
history the suite carries (every unit of every version as a quote, and a slice of each
long one, as claims quote them):

- the words: every word of a quote is on the lines it is given, in the raw Markdown
  (its markup taken out, as a reader's eye skips it);
- the blocks (`support.lines_oracle`): the file rendered again by cmarkgfm's own
  binding and parsed by html5lib, the first innermost placed block holding the quote
  as whole words, by word rules of its own. Where the two differ, the difference must
  be one of the kinds explained below, and the lines never lose a quote the blocks
  placed.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from claimcheck.judge.normalize import normalize_text
from claimcheck.judge.permalink import quote_lines
from claimcheck.judge.units import read_page
from claimcheck.models import Anchor, MediaType
from claimcheck.page import Page
from support import paths
from support.lines_oracle import Blocks, markdown_blocks
from support.lines_oracle import quote_lines as oracle_lines

# Slow: every quote of the whole README-history corpus.
pytestmark = pytest.mark.slow

VERSIONS = sorted(paths.CORPUS.glob("*/*.md"))
_WORD = re.compile(r"[^\W_]{2,}")
_MARKUP = re.compile(r"<[^>]*>|[\W_]+")


@cache
def _page(path: Path) -> Page:
    return read_page(path.read_text(encoding="utf-8"), MediaType.MARKDOWN)


def _quotes(page: Page) -> list[str]:
    """Each unit's text, and a run of whole words from the middle of each long one (a
    claim quotes words, not characters cut out of them)."""
    found: list[str] = []
    for unit in page.units:
        found.append(unit.text)
        words = unit.text.split(" ")
        if len(unit.text) > 60 and len(words) > 6:
            third = len(words) // 3
            found.append(" ".join(words[third : third + 6]))
    return [quote for quote in found if quote.strip()]


def _words_missing(markdown_lines: list[str], lines: tuple[int, int], quote: str) -> list[str]:
    shown = normalize_text(" ".join(markdown_lines[lines[0] - 1 : lines[1]])).casefold()
    bare = _MARKUP.sub("", shown)
    return [w for w in _WORD.findall(quote.casefold()) if w not in shown and w not in bare]


def test_every_quote_is_given_lines_that_hold_its_words() -> None:
    assert len(VERSIONS) >= 290
    placed = missing = unplaced = 0
    for path in VERSIONS:
        markdown = path.read_text(encoding="utf-8")
        source = markdown.splitlines()
        page = _page(path)
        for quote in _quotes(page):
            lines = quote_lines(page, Anchor(quote=quote), functools.partial(str, markdown))
            if lines is None:
                unplaced += 1
                continue
            placed += 1
            missing += bool(_words_missing(source, lines, quote))
    # 56,946 placed, none unplaced. Quotes in raw HTML (centred logos, badge rows, HTML
    # tables), which cmark passes through without a position, are placed by reading the
    # file's own lines around them (tags out, alt text in, entities decoded). The last
    # 25 to be placed were one line of TensorRT-LLM's, an <h4> right under a Setext
    # heading whose position cmark runs over that line: found on the heading's edge.
    assert placed > 50_000
    assert missing == 0
    assert unplaced == 0


def _kind_of_difference(old: tuple[int, int] | None, new: tuple[int, int] | None) -> str:
    if old is None:
        # The blocks hold every text node, so a quote of what a reader sees (an alert's
        # title "Note", an item's own text around its nested code block) is in none.
        return "placed now, in no block"
    if new is not None and new[0] <= old[0] and old[1] <= new[1]:
        # The unit holds more than the block cmark placed the quote in (a code block in
        # a <details> of a list item): its lines enclose the block's, tighter ones.
        return "the unit's lines enclose the block's"
    return "unexplained"


def test_the_lines_agree_with_the_blocks_or_differ_only_as_explained() -> None:
    differences: Counter[str] = Counter()
    compared = 0
    for path in VERSIONS[::4]:  # a quarter of the versions: html5lib is slow
        page = _page(path)
        blocks: Blocks = markdown_blocks(path.read_text(encoding="utf-8"))
        for quote in _quotes(page):
            anchor = Anchor(quote=quote)
            old, new = oracle_lines(blocks, anchor), quote_lines(page, anchor)
            compared += 1
            if old != new:
                assert new is not None, (path.name, quote, old)
                differences[_kind_of_difference(old, new)] += 1
    # 14,216 compared: 91 enclosing, 23 placed now (alert titles), none unexplained.
    assert compared > 10_000
    assert differences["unexplained"] == 0, differences
    assert sum(differences.values()) <= compared // 100, differences  # 99% the same
