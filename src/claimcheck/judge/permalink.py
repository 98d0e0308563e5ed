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
is one its prefix and suffix fit, as the judge verified it.
"""

from __future__ import annotations

import functools
from urllib.parse import quote as url_quote

from claimcheck.judge.anchor import verbatim_spans
from claimcheck.judge.units import Page
from claimcheck.models import Anchor


def quote_lines(page: Page, anchor: Anchor) -> tuple[int, int] | None:
    """The first and last Markdown line of the units the quote stands on (1-based).

    The quote is placed where the judge verifies it (`verbatim_spans`: its exact
    occurrences that its prefix and suffix fit), so a quote a README says twice is
    cited where the claim's context puts it, not wherever the words first appear; of
    several that fit, the first on lines (one in raw HTML, which cmark places on no
    line, cannot be pointed at). A range quote runs from its start's unit to its end's.
    None: the quote is not on the page verbatim (no verdict that cites it), or stands
    only in raw HTML.
    """
    for start, end in verbatim_spans(anchor, page.text):
        first, last = page.unit_at(start), page.unit_at(max(start, end - 1))
        placed = [lines for index in range(first, last + 1) if (lines := page.lines_of(index))]
        if placed:
            return min(lines[0] for lines in placed), max(lines[1] for lines in placed)
    return None


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
