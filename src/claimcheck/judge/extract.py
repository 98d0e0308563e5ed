"""Extraction of a source's visible text from its Markdown, HTML or plain-text body.

An anchor quotes what a reader sees, not what the author typed: link targets, image
URLs, emphasis markers and tags are not part of the quote (an image counts as its alt
text, as for a screen reader), and a formatting-only edit must not look like a change.
Markdown is therefore rendered the way GitHub renders it and then reduced to text
exactly like an HTML page.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import urlsplit

import cmarkgfm
from bs4 import BeautifulSoup
from bs4.element import NavigableString, PageElement, PreformattedString, Tag

from claimcheck.models import MediaType

# Elements whose content a reader never sees as text on the page: metadata, code,
# graphics, fallback content of embedded media, ruby's fallback parentheses.
_INVISIBLE = frozenset(
    {
        "head",
        "title",
        "script",
        "style",
        "template",
        "noscript",
        "svg",
        "iframe",
        "object",
        "canvas",
        "video",
        "audio",
        "rp",
    }
)

# Elements that start and end a block: their words never glue to a neighbour's.
_BLOCKS = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "br",
        "caption",
        "center",
        "dd",
        "details",
        "dialog",
        "dir",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "html",
        "legend",
        "li",
        "main",
        "menu",
        "nav",
        "ol",
        "option",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "tbody",
        "tfoot",
        "thead",
        "tr",
        "ul",
    }
)

# Table cells sit side by side: separated by a tab, rows by the newline of <tr>.
_CELLS = frozenset({"td", "th"})

_DOCUMENT = re.compile(r"<(?:!doctype|html|head|body)\b", re.I)
_HIDDEN_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b", re.I)

_MARKDOWN_SUFFIXES = frozenset(
    {".md", ".markdown", ".mdown", ".mdwn", ".mkd", ".mkdn", ".mkdown", ".ronn"}
)
_HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
# GitHub's API answers `application/vnd.github.html` when asked for rendered HTML.
_HTML_TYPES = frozenset(
    {
        "text/html",
        "application/xhtml+xml",
        "application/vnd.github.html",
        "application/vnd.github.v3.html",
    }
)
_MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})


def extract_text(body: str, media: MediaType) -> str:
    """Return the text a reader sees in `body`, blocks separated by newlines.

    The result is not normalized (see `anchor.normalize_text`): whitespace inside a
    block is kept as found, so that the extraction stays a faithful view of the page.
    """
    if media is MediaType.TEXT:
        return body
    return visible_text(parse_page(body, media))


def parse_page(body: str, media: MediaType) -> BeautifulSoup:
    """The page as a reader's browser holds it: Markdown rendered as GitHub does.

    html5lib builds the tree by the HTML5 algorithm, as browsers (and GitHub's
    sanitizer) do: READMEs with broken raw HTML (a `<table>` where `</table>` was
    meant) still get their headings, paragraphs and lists as separate blocks rather
    than nested inside the table. A fragment (rendered Markdown, a snippet) is parsed
    as a body, so that leading elements are not mistaken for a document head.
    """
    if media is MediaType.MARKDOWN:
        body = cmarkgfm.github_flavored_markdown_to_html(
            body, options=cmarkgfm.Options.CMARK_OPT_UNSAFE
        )
    if not _DOCUMENT.search(body[:4096]):
        body = "<body>" + body
    return BeautifulSoup(body, "html5lib")


def media_for(content_type: str | None, path: str) -> MediaType:
    """Choose how to read a body from its Content-Type, then from its path.

    A specific type (HTML, Markdown) is trusted; a generic one (`text/plain`, GitHub's
    `application/vnd.github.raw`, `application/octet-stream`, none) says nothing about
    the markup, so the file name decides — GitHub serves raw README.md as text/plain.
    """
    mime = (content_type or "").split(";", 1)[0].strip().lower()
    if mime in _HTML_TYPES:
        return MediaType.HTML
    if mime in _MARKDOWN_TYPES:
        return MediaType.MARKDOWN
    name = posixpath.basename(urlsplit(path).path if "://" in path else path).lower()
    suffix = posixpath.splitext(name)[1]
    if suffix in _MARKDOWN_SUFFIXES or (name == "readme" and not suffix):
        return MediaType.MARKDOWN
    if suffix in _HTML_SUFFIXES:
        return MediaType.HTML
    return MediaType.TEXT


def visible_text(root: PageElement) -> str:
    """Walk an element depth first, emitting its visible text and block boundaries.

    An explicit stack instead of recursion: deeply nested pages must not hit Python's
    recursion limit. A `None` on the stack marks the end of a block element.
    """
    out: list[str] = []
    stack: list[PageElement | None] = [root]
    while stack:
        node = stack.pop()
        if node is None:
            out.append("\n")
        elif isinstance(node, NavigableString):
            # Comments, doctypes, CDATA and processing instructions are not text.
            if not isinstance(node, PreformattedString):
                out.append(str(node))
        elif isinstance(node, Tag) and not is_hidden(node):
            name = node.name.lower()
            if name == "img":
                out.append(_image_text(node))
            elif name in _BLOCKS:
                out.append("\n")
                stack.append(None)
            elif name in _CELLS:
                out.append("\t")
            stack.extend(reversed(node.contents))
    return "".join(out)


def _image_text(img: Tag) -> str:
    """An image stands for its alt text, set apart from its neighbours' words.

    Badges are pictures of text ("License: MIT") that claims do quote, and the alt text
    is the only text of them there is. Its URL is never text.
    """
    alt = img.get("alt")
    return f" {alt} " if isinstance(alt, str) and alt.strip() else ""


def is_hidden(tag: Tag) -> bool:
    """Whether a reader cannot see this element's content at all."""
    if tag.name.lower() in _INVISIBLE:
        return True
    # hidden="until-found" content is revealed by find-in-page and text fragments.
    hidden = tag.get("hidden")
    if hidden is not None and not (isinstance(hidden, str) and hidden.lower() == "until-found"):
        return True
    aria = tag.get("aria-hidden")
    if isinstance(aria, str) and aria.strip().lower() == "true":
        return True
    style = tag.get("style")
    return isinstance(style, str) and _HIDDEN_STYLE.search(style) is not None
