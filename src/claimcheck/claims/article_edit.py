"""Edit an article in place: the text directive of one highlight link, nothing else.

An article is the published page, so `accept` may change only what it must: the
link's `#:~:text=` directive becomes the new anchor, percent-encoded as the Text
Fragments spec asks (`,`, `-` and `&` inside a term escaped; parentheses too, so a
Markdown link's destination stays balanced), and every other byte of the file stays as
it was. The edited article is read again and must give the same claims but this one,
whose anchor must be the new one; otherwise nothing is written.
"""

from __future__ import annotations

import datetime as dt
from html import escape
from urllib.parse import unquote

from claimcheck.claims.article import read_article
from claimcheck.claims.edit import EditError
from claimcheck.claims.fragment import FragmentError, build_text_fragment, split_text_fragment
from claimcheck.claims.yaml_read import read_document
from claimcheck.models import Anchor, Claim, MediaType


def set_link_anchor(
    name: str, text: str, media: MediaType, claim: Claim, anchor: Anchor, today: dt.date
) -> tuple[str, Claim]:
    """The article with `claim`'s link pointing at `anchor`, and the claim read back.

    The link is the one the claim was read from (`Article.links`), found as written
    from the claim's line on (Markdown may percent-encode it, HTML escape `&`).
    """
    if anchor.quote_end is not None:
        raise _cannot(
            f"{name}:{claim.line}: claim {claim.id!r}: a range text fragment cannot be set"
        )
    before = read_article(name, text, media, read=read_document, today=today)
    index = next((i for i, c in enumerate(before.claims) if c.id == claim.id), None)
    if index is None:
        raise _cannot(f"{name}: no link with claim id {claim.id!r}")
    link = before.links[index]
    at, written = _find(text, media, link, before.claims[index].line)
    # HTML: built from the link as read (entities decoded), escaped again below.
    source = link if media is MediaType.HTML else written
    try:
        if split_text_fragment(source)[1] == anchor:  # as written, however it is encoded
            return text, before.claims[index]
        new = build_text_fragment(source, anchor.quote, anchor.prefix, anchor.suffix)
    except FragmentError as exc:
        raise _cannot(f"{name}:{claim.line}: claim {claim.id!r}: source: {exc}") from exc
    base, _, directive = new.partition(":~:")
    new = f"{base}:~:{directive.replace('(', '%28').replace(')', '%29')}"
    if media is MediaType.HTML:
        new = escape(new, quote=True)
    edited = text[:at] + new + text[at + len(written) :]
    after = read_article(name, edited, media, read=read_document, today=today)
    _check(name, before.claims, after.claims, index, anchor)
    return edited, after.claims[index]


ARTICLE_EDIT_HINT = (
    "edit the link's text directive (#:~:text=...) in the article by hand; "
    "`claimcheck verify ARTICLE` checks the result"
)


def _cannot(message: str) -> EditError:
    """An edit of an article refused: its hint is about the article's link, not about a
    claim file (`EditError`'s own hint)."""
    return EditError(message, hint=ARTICLE_EDIT_HINT)


def _find(text: str, media: MediaType, link: str, line: int) -> tuple[int, str]:
    """Where the link stands in the article (from its line on), as written there."""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
    variants = [link, escape(link, quote=True), unquote(link)]
    if media is MediaType.HTML:
        variants.append(link.replace("&", "&amp;"))
    hits = [(at, v) for v in variants if (at := text.find(v, start)) >= 0]
    if not hits:
        raise _cannot(f"line {line}: the link {link!r} is not written there as read")
    return min(hits)


def _check(name: str, before: list[Claim], after: list[Claim], index: int, anchor: Anchor) -> None:
    same = len(before) == len(after) and all(
        b == a for i, (b, a) in enumerate(zip(before, after, strict=True)) if i != index
    )
    if not same or after[index].anchor != anchor:
        raise _cannot(f"{name}: the edit would change more than the link; nothing written")
