"""Rewriting one highlight link's text directive in an article, every other byte kept.

Links are read back with cmark-gfm and selectolax (what a site renders), not with the
reader under test, and the directive is decoded with urllib's `unquote`.
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import unquote

import cmarkgfm
import pytest
from selectolax.lexbor import LexborHTMLParser

from claimcheck.claims.article import parse_article
from claimcheck.claims.article_edit import set_link_anchor
from claimcheck.claims.edit import EditError
from claimcheck.claims.yaml_read import read_document
from claimcheck.models import Anchor, MediaType

TODAY = dt.date(2026, 10, 21)
MARKDOWN = """\
---
checked: 2026-10-20
---
# A

One [a](https://a.example/docs#:~:text=old%20words) and [b](https://b.example/#:~:text=kept).
"""
HTML = (
    '<html><head><meta name="claimcheck:checked" content="2026-10-20"></head><body>\n'
    '<p>One <a href="https://a.example/?x=1&amp;y=2#:~:text=old%20words">a</a>.</p>\n'
    '<p><a href="https://b.example/#:~:text=kept">b</a></p></body></html>\n'
)
HOSTILE = Anchor(quote="2-bit, 4-bit (fast) & more)", prefix="C/C++ ")


def test_a_markdown_link_gets_the_new_directive_and_the_rest_stays_byte_for_byte() -> None:
    (first, second) = parse_article(
        "a.md", MARKDOWN, MediaType.MARKDOWN, today=TODAY, read=read_document
    )

    edited, claim = set_link_anchor("a.md", MARKDOWN, MediaType.MARKDOWN, first, HOSTILE, TODAY)

    head, tail = MARKDOWN.split("old%20words")
    prefix = head.rpartition("text=")[0] + "text="
    assert edited.startswith(prefix)
    assert edited.endswith(tail)
    html = cmarkgfm.github_flavored_markdown_to_html(edited)
    hrefs = [a.attributes.get("href") or "" for a in LexborHTMLParser(html).css("a")]
    assert len(hrefs) == 2
    directive = hrefs[0].partition("#:~:text=")[2]
    prefix_term, _, quote = directive.partition("-,")
    assert (unquote(prefix_term), unquote(quote)) == (HOSTILE.prefix, HOSTILE.quote)
    assert hrefs[1] == "https://b.example/#:~:text=kept"
    assert claim.anchor == HOSTILE
    assert (
        parse_article("a.md", edited, MediaType.MARKDOWN, today=TODAY, read=read_document)[1]
        == second
    )


def test_an_html_link_is_written_escaped_and_keeps_its_query() -> None:
    (first, _) = parse_article("a.html", HTML, MediaType.HTML, today=TODAY, read=read_document)

    edited, _ = set_link_anchor("a.html", HTML, MediaType.HTML, first, HOSTILE, TODAY)

    href = LexborHTMLParser(edited).css_first("a").attributes.get("href") or ""
    assert href.startswith("https://a.example/?x=1&y=2#:~:text=")
    assert unquote(href.partition("-,")[2]) == HOSTILE.quote
    assert edited.split("<p><a")[1] == HTML.split("<p><a")[1]


def test_a_range_quote_is_refused_and_nothing_changes() -> None:
    (first, _) = parse_article(
        "a.md", MARKDOWN, MediaType.MARKDOWN, today=TODAY, read=read_document
    )

    with pytest.raises(EditError, match="a range text fragment cannot be set") as raised:
        set_link_anchor(
            "a.md", MARKDOWN, MediaType.MARKDOWN, first, Anchor(quote="a", quote_end="b"), TODAY
        )
    # The hint is about the article's link: an article has no claim file to edit by hand.
    assert "text directive" in raised.value.hint
    assert "claim file" not in raised.value.hint
