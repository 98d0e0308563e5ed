"""A quote's lines, taken from the units' own source positions, held to real history.

Citations select the Markdown lines a quote stands on from the page's one reading
(`Unit.lines`). Two oracles that share none of that code check them on the README
history the suite carries (every unit of every version as a quote, and a slice of each
long one, as claims quote them):

- the words: every word of a quote is on the lines it is given, in the raw Markdown
  (its markup taken out, as a reader's eye skips it);
- the old way (`support.lines_oracle`): the file rendered again by cmarkgfm's own
  binding and parsed by html5lib, the smallest placed block holding the quote. Where
  the two differ, the difference must be one of the kinds explained below, and the
  new lines never lose a quote the old way placed.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path

from claimcheck.judge.normalize import normalize_text
from claimcheck.judge.permalink import Blocks, page_blocks, quote_lines
from claimcheck.judge.units import Page, read_page
from claimcheck.models import Anchor, MediaType
from support import paths
from support.lines_oracle import folded, markdown_blocks
from support.lines_oracle import quote_lines as oracle_lines

VERSIONS = sorted(paths.CORPUS.glob("*/*.md"))
_WORD = re.compile(r"[^\W_]{2,}")
_MARKUP = re.compile(r"<[^>]*>|[\W_]+")


@cache
def _page(path: Path) -> Page:
    return read_page(path.read_text(encoding="utf-8"), MediaType.MARKDOWN)


def _quotes(page: Page) -> list[str]:
    """Each unit's text, and a slice from the middle of each long one."""
    found: list[str] = []
    for unit in page.units:
        found.append(unit.text)
        if len(unit.text) > 60:
            third = len(unit.text) // 3
            found.append(unit.text[third : third + 40])
    return [quote for quote in found if quote.strip()]


def _words_missing(markdown_lines: list[str], lines: tuple[int, int], quote: str) -> list[str]:
    shown = normalize_text(" ".join(markdown_lines[lines[0] - 1 : lines[1]])).casefold()
    bare = _MARKUP.sub("", shown)
    return [w for w in _WORD.findall(quote.casefold()) if w not in shown and w not in bare]


def test_every_quote_is_given_lines_that_hold_its_words() -> None:
    assert len(VERSIONS) >= 290
    placed = missing = unplaced = 0
    for path in VERSIONS:
        source = path.read_text(encoding="utf-8").splitlines()
        page = _page(path)
        blocks = page_blocks(page)
        for quote in _quotes(page):
            lines = quote_lines(blocks, Anchor(quote=quote))
            if lines is None:
                unplaced += 1  # raw HTML: cmark writes its blocks with no position
                continue
            placed += 1
            missing += bool(_words_missing(source, lines, quote))
    # 55,209 placed; 2,216 unplaced, every one in raw HTML (centred logos, badge rows,
    # HTML tables), which cmark passes through without a position, as the old way did.
    assert placed > 50_000
    assert missing == 0
    assert unplaced <= placed // 20, unplaced


def _kind_of_difference(
    page: Page, quote: str, old: tuple[int, int] | None, new: tuple[int, int] | None
) -> str:
    wanted = folded(quote)
    if sum(wanted in folded(unit.text) for unit in page.units) > 1:
        return "in several units: both places hold it"
    if old is None:
        # The old way's blocks hold every text node, so a quote of what a reader sees
        # (an alert's title "Warning", an item's own text around its nested code block)
        # is in none of them.
        return "placed now, in no block of the old way"
    if new is not None and new[0] <= old[0] and old[1] <= new[1]:
        # The unit holds more than the block cmark placed the quote in (a code block in
        # a <details> of a list item): its lines enclose the old, tighter ones.
        return "the unit's lines enclose the old block's"
    return "unexplained"


def test_the_lines_agree_with_the_old_way_or_differ_only_as_explained() -> None:
    differences: Counter[str] = Counter()
    compared = 0
    for path in VERSIONS[::4]:  # a quarter of the versions: the old way is slow
        page = _page(path)
        old_blocks: Blocks = markdown_blocks(path.read_text(encoding="utf-8"))
        new_blocks = page_blocks(page)
        for quote in _quotes(page):
            anchor = Anchor(quote=quote)
            old, new = oracle_lines(old_blocks, anchor), quote_lines(new_blocks, anchor)
            compared += 1
            if old != new:
                assert new is not None, (path.name, quote, old)
                differences[_kind_of_difference(page, quote, old, new)] += 1
    assert compared > 10_000
    assert differences["unexplained"] == 0, differences
    assert sum(differences.values()) <= compared // 100, differences  # 99% the same
