"""A page's visible text as one string: what the extraction tests compare.

The judge reads a page into units (`judge.units.read_page`); these tests look at the
step under it, the visible text of the content roots, blocks separated by newlines.
"""

from __future__ import annotations

from claimcheck.judge.extract import append_visible, content_roots, parse_page
from claimcheck.models import MediaType


def extract_text(body: str, media: MediaType, scope: str | None = None) -> str:
    """Return the text a reader sees in `body`, blocks separated by newlines: an HTML
    page's main content, or the part `scope` selects (see `content_roots`).

    The result is not normalized (see `anchor.normalize_text`): whitespace inside a
    block is kept as found, so that the extraction stays a faithful view of the page.
    """
    if media is MediaType.TEXT:
        return "" if scope is not None else body
    document = parse_page(body, media)
    roots, _ = content_roots(document, media, scope)
    if scope is None and [r.tag for r in roots] == ["body"]:
        roots = [document]  # the whole page less its chrome: its blocks' newlines too
    out: list[str] = []
    for root in roots:
        append_visible(out, root)
    return "".join(out)
