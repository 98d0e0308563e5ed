"""Permanent citations: the lines of a file a quote stands on, and the links that show them.

A reader who follows a claim's link sees the page as it is today; an editor who wants
readers to see what was checked cites the version itself: on GitHub the file at the
checked commit with the quote's lines (`…/blob/<sha>/README.md#L10-L12`), beside a
text-fragment link to the live page (`#:~:text=`, written by `claims.fragment`), which
browsers scroll to and highlight. Pure: the caller finds the commit and the body; this
module finds lines and writes the blob link.

Lines come from cmark-gfm's source positions (`data-sourcepos` on every block it
renders), which the page's reading keeps for its units (`Page.lines_of`), so a quote is
placed on the Markdown lines of the unit a reader sees it in, however the Markdown
wrote it (emphasis, links, line breaks inside a paragraph), and the file is rendered
once for judging and citing alike. Of several places that say the quote, the one cited
is one its prefix and suffix fit, as the judge verified it. Raw HTML in a README
(a `<table>`, a `<details>`), which cmark passes through with no position, is placed by
reading the file's own lines between the units around it (in the page read whole, for
a claim's scoped part of it).
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from urllib.parse import quote as url_quote

from claimcheck.judge.anchor import verbatim_spans
from claimcheck.judge.normalize import normalize_text
from claimcheck.models import Anchor
from claimcheck.page import Page


def quote_pdf_page(page: Page, anchor: Anchor) -> int | None:
    """The PDF page (from 1) the quote stands on, where the judge verifies it
    (`verbatim_spans`); None: not a PDF's page, or the quote is not on it verbatim."""
    if page.pdf_pages is None:
        return None
    for start, _ in verbatim_spans(anchor, page.text):
        return page.pdf_page_of(page.unit_at(start))
    return None


def at_pdf_page(url: str, number: int) -> str:
    """A PDF's URL that opens at page `number`: the `page` open parameter of RFC 8118
    (`#page=3`), which PDF viewers and browsers follow, in place of any fragment."""
    return f"{url.split('#', 1)[0]}#page={number}"


def quote_lines(
    page: Page,
    anchor: Anchor,
    markdown: Callable[[], str] | None = None,
    whole: Callable[[], Page] | None = None,
) -> tuple[int, int] | None:
    """The first and last Markdown line of the units the quote stands on (1-based).

    The quote is placed where the judge verifies it (`verbatim_spans`: its exact
    occurrences that its prefix and suffix fit), so a quote a README says twice is
    cited where the claim's context puts it, not wherever the words first appear. A
    range quote runs from its start's unit to its end's. A unit of raw HTML (a README's
    `<table>`, a centred paragraph) has no lines from cmark; given the file's
    `markdown`, its quote is looked for in the lines between the units around it
    (`_raw_lines`). Of several occurrences that fit, the first that can be placed.
    None: the quote is not on the page verbatim (no verdict cites it), or could not be
    placed.

    `whole`: for a page of the parts a claim's scope selects, the page read whole. The
    units around a scoped unit are not the file's (the scope skips what lies between),
    so a unit of raw HTML is looked for there, by its text, and placed between its
    neighbours in the whole page; a text the whole page has more than once is not
    placed (which of them the scope selected, its text cannot tell).
    """
    for start, end in verbatim_spans(anchor, page.text):
        first, last = page.unit_at(start), page.unit_at(max(start, end - 1))
        placed = [lines for index in range(first, last + 1) if (lines := page.lines_of(index))]
        if placed:
            return min(lines[0] for lines in placed), max(lines[1] for lines in placed)
        if markdown is None or page.lines is None or first != last:
            continue
        around, index = page, first
        if whole is not None:
            around = whole()
            text = page.units[first].text
            same = [n for n, unit in enumerate(around.units) if unit.text == text]
            if len(same) != 1 or around.lines is None:
                continue
            index = same[0]
        found = _raw_lines(around, index, page.text[start:end], markdown())
        if found is not None:
            return found
    return None


def _raw_lines(page: Page, index: int, quote: str, markdown: str) -> tuple[int, int] | None:
    """The lines of raw HTML a unit's `quote` was written on: searched in the file's
    lines after the last placed unit before it and before the first placed one after
    it (so in the HTML block it came from, never elsewhere in the file), read as a
    reader sees them: tags and comments out, entities decoded, text folded.

    cmark's position of a block can run one line over the HTML after it (a Setext
    heading's does over an `<h4>` on the line under its underline), so where the lines
    strictly between the neighbours do not hold the quote, the neighbours' own edge
    lines are searched too: the nearest the file has to the unit, never further."""
    before = (page.lines_of(i) for i in range(index - 1, -1, -1))  # nearest first
    after = (page.lines_of(i) for i in range(index + 1, len(page.units)))
    low = next((lines[1] + 1 for lines in before if lines), 1)
    high = next((lines[0] - 1 for lines in after if lines), None)
    file_lines = _file_lines(markdown)
    wanted = _folded(quote)
    if not wanted:
        return None
    for first, last in ((low, high), (max(low - 1, 1), None if high is None else high + 1)):
        shown, owners = _shown_lines(file_lines, first, last)
        at = shown.find(wanted)
        if at >= 0:
            return owners[at], owners[at + len(wanted) - 1]
    return None


@functools.lru_cache(maxsize=4)
def _file_lines(markdown: str) -> list[str]:
    """The file's lines, its comments blanked: made once for the many quotes of one
    file in raw HTML (read only; the caller holds the file while citing it)."""
    return _COMMENT.sub(_blank, markdown).splitlines()


def _shown_lines(lines: list[str], low: int, high: int | None) -> tuple[str, list[int]]:
    """Lines `low`..`high` (1-based) as one folded text, and each character's line."""
    parts: list[str] = []
    owners: list[int] = []
    for number in range(low, len(lines) + 1 if high is None else min(high, len(lines)) + 1):
        text = _folded(html.unescape(_TAG.sub(_shown_tag, lines[number - 1])))
        if not text:
            continue
        if parts:
            parts.append(" ")
            owners.append(number)
        parts.append(text)
        owners.extend([number] * len(text))
    return "".join(parts), owners


def _folded(text: str) -> str:
    return " ".join(normalize_text(text).casefold().split())


def _shown_tag(tag: re.Match[str]) -> str:
    """What a reader sees of a tag: a picture's alt text (as the page's reading takes
    it); nothing for an inline element (`<a>`, `<b>`: "on <a>Discord</a>, or" reads
    "on Discord, or"); a break between words for any other."""
    found = _TAG_NAME.match(tag.group())
    name = found.group(1).lower() if found else ""
    if name == "img":
        alt = _ALT.search(tag.group())
        return f" {alt.group(2) or alt.group(3) or ''} " if alt else " "
    return "" if name in _INLINE else " "


def _blank(comment: re.Match[str]) -> str:
    """A comment as the line breaks it spanned, so no line moves."""
    return "\n" * comment.group().count("\n")


_TAG = re.compile(r"<[^<>]*>")
_TAG_NAME = re.compile(r"</?([a-zA-Z][a-zA-Z0-9]*)")
_INLINE = frozenset(
    {"a", "abbr", "b", "code", "del", "em", "font", "i", "kbd", "s", "small", "span", "strong"}
    | {"sub", "sup", "u"}
)
_ALT = re.compile(r"""\salt\s*=\s*("([^"]*)"|'([^']*)')""", re.IGNORECASE)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def github_blob_url(
    owner: str, repo: str, sha: str, path: str, lines: tuple[int, int] | None
) -> str:
    """The file at a commit on github.com, its lines selected (`#L10-L12`).

    Every part is percent-encoded: owner, repository and path come from the claim's
    URL or a repository's answer and must not add a segment, query or fragment.
    """
    return _github_blob(owner, repo, sha, path) + line_fragment(lines)


@functools.lru_cache(maxsize=1 << 14)
def _github_blob(owner: str, repo: str, sha: str, path: str) -> str:
    """The file's URL without lines: made once for the many quotes on one file."""
    names = "/".join(url_quote(part, safe="") for part in (owner, repo))
    return f"https://github.com/{names}/blob/{url_quote(sha, safe='')}/{url_quote(path)}"


def hub_blob_url(endpoint: str, repo_path: str, sha: str, lines: tuple[int, int] | None) -> str:
    """A Hugging Face card (`README.md`) at a commit, its lines selected as on GitHub.

    `repo_path` is the repository's path on the Hub's site, already encoded
    (`HubCard.path`: `ORG/NAME`, `datasets/ORG/NAME`, …).
    """
    base = f"{endpoint.rstrip('/')}/{repo_path}/blob/{url_quote(sha, safe='')}/README.md"
    return base + line_fragment(lines)


def line_fragment(lines: tuple[int, int] | None) -> str:
    """`#L10` or `#L10-L12`, the lines both GitHub and the Hub select; empty for None."""
    if lines is None:
        return ""
    first, last = lines
    return f"#L{first}" if first == last else f"#L{first}-L{last}"
