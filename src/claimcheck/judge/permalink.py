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
once for judging and citing alike.
"""

from __future__ import annotations

import functools
from urllib.parse import quote as url_quote

from claimcheck.judge.normalize import normalize_text
from claimcheck.judge.units import Page
from claimcheck.models import Anchor

Blocks = list[tuple[int, int, str]]
"""A Markdown file's rendered blocks: first line, last line, folded visible text."""


def quote_lines(blocks: Blocks, anchor: Anchor) -> tuple[int, int] | None:
    """The first and last Markdown line of the blocks the quote stands in (1-based).

    The block is the smallest unit whose text holds the quote (a list item's paragraph
    rather than the whole list); a range quote runs from its start's block to the first
    block after it that holds its end. None: the quote is in no block. `blocks` are the
    file's `page_blocks`, made once for the many quotes on one file.
    """
    start = _smallest(blocks, anchor.quote)
    if start is None:
        return None
    if anchor.quote_end is None:
        return start[0], start[1]
    later = [b for b in blocks if b[0] >= start[0]]
    end = _smallest(later, anchor.quote_end)
    return (start[0], end[1]) if end is not None else (start[0], start[1])


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


def page_blocks(page: Page) -> Blocks:
    """A Markdown page's units as blocks, with the lines each was written on and its
    folded text, smallest first (the units' texts are normalized already)."""
    found: Blocks = []
    for index, unit in enumerate(page.units):
        lines = page.lines_of(index)
        if lines is not None:
            found.append((lines[0], lines[1], " ".join(unit.text.casefold().split())))
    found.sort(key=lambda block: (block[1] - block[0], len(block[2])))
    return found


def _smallest(blocks: Blocks, text: str) -> tuple[int, int] | None:
    wanted = _folded(text)
    if not wanted:
        return None
    for first, last, shown in blocks:  # smallest first
        if wanted in shown:
            return first, last
    return None


def _folded(text: str) -> str:
    return " ".join(normalize_text(text).casefold().split())
