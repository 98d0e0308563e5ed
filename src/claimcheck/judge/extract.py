"""Extraction of a source's visible text from its Markdown, HTML or plain-text body.

An anchor quotes what a reader sees, not what the author typed: link targets, image
URLs, emphasis markers and tags are not part of the quote (an image counts as its alt
text, as for a screen reader), and a formatting-only edit must not look like a change.
Markdown is therefore rendered the way GitHub renders it and then reduced to text
exactly like an HTML page.

An HTML page is judged by its main content, as a reader reads it (`content_roots`):
not its navigation, sidebars, site header and footer, tables of contents, or text only
a screen reader announces. A claim's `scope` (a CSS selector) names the part instead.
Markdown (a README) has no such chrome: GitHub shows it whole, and it is read whole.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode, SelectolaxError

from claimcheck.judge.front_matter import split_front_matter
from claimcheck.judge.gfm import SOURCEPOS, UNSAFE, gfm_to_html
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

MARKED = frozenset({*_INVISIBLE, *_BLOCKS, *_CELLS, "img"})
"""Elements whose visible text is not just their content's: hidden, set apart by line
breaks or a tab, or a picture's alt text. Any other element holding one text node shows
that text and nothing else (`append_visible` need not walk it)."""

_DOCUMENT = re.compile(r"<(?:!doctype|html|head|body)\b", re.I)
_HIDDEN_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\b", re.I)
# The attributes `_hides` reads: an element without any of them is not hidden by them.
_HIDING = "[hidden], [aria-hidden], [style]"
_SURROGATE = re.compile("[\ud800-\udfff]")

# Lexbor's names (`LexborNode.tag`) of a text node and of the document node; those of
# comments and doctypes (`-comment`, `-doctype`) start with `-` too, no element's does.
TEXT = "-text"
DOCUMENT = "-document"

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

MARKDOWN_MEDIA = frozenset({MediaType.MARKDOWN, MediaType.CARD})
"""The media rendered from Markdown: what has Markdown lines to cite."""


def parse_page(body: str, media: MediaType) -> LexborNode:
    """The page as a reader's browser holds it (its document node): Markdown rendered as
    GitHub does.

    Lexbor builds the tree by the HTML5 tree-construction algorithm, as browsers (and
    GitHub's sanitizer) do: READMEs with broken raw HTML (a `<table>` where `</table>`
    was meant, a `<p>` left open in a cell) still get their headings, paragraphs and
    lists as separate blocks rather than nested inside the table. It replaced html5lib,
    which builds the same tree by the same algorithm in pure Python at many times the
    cost; `tests/judge/test_parser_parity.py` holds the two to the same pages. A
    fragment (rendered Markdown, a snippet) is parsed as a body, so that leading
    elements are not mistaken for a document head: the whole document is parsed, not a
    fragment in a context element, so the tree is the one a browser shows for the page.

    Rendered Markdown carries each block's Markdown lines (`data-sourcepos`), read into
    the units so that a citation can select the lines a quote stands on without
    rendering the file again; the attribute changes no text a reader sees. A card's
    lines count from the line after its front matter (`front_matter_lines`).
    """
    if media is MediaType.CARD:  # its front matter is the card's metadata, not text
        body = split_front_matter(body)[1]
    if media in MARKDOWN_MEDIA:
        body = gfm_to_html(body, UNSAFE | SOURCEPOS)
    if not _DOCUMENT.search(body[:4096]):
        body = "<body>" + body
    html = LexborHTMLParser(_utf8(body)).root
    document = html.parent if html is not None else None
    if document is None:  # pragma: no cover - a document parse always has <html>
        raise ValueError("the HTML parser built no document")
    return document


def _utf8(body: str) -> bytes:
    """The body as the UTF-8 bytes Lexbor reads; a lone surrogate (half of a UTF-16
    pair, from a badly decoded page) becomes U+FFFD, as a browser shows it, rather than
    being dropped and gluing its neighbours together."""
    try:
        return body.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", body).encode("utf-8")


def media_for(content_type: str | None, path: str) -> MediaType:
    """Choose how to read a body from its Content-Type, then from its path.

    A specific type (HTML, Markdown, JSON) is trusted; a generic one (`text/plain`, GitHub's
    `application/vnd.github.raw`, `application/octet-stream`, none) says nothing about
    the markup, so the file name decides — GitHub serves raw README.md as text/plain.
    """
    mime = (content_type or "").split(";", 1)[0].strip().lower()
    if mime in _HTML_TYPES:
        return MediaType.HTML
    if mime in _MARKDOWN_TYPES:
        return MediaType.MARKDOWN
    if mime == "application/json" or mime.endswith("+json"):
        return MediaType.JSON
    name = posixpath.basename(urlsplit(path).path if "://" in path else path).lower()
    suffix = posixpath.splitext(name)[1]
    if suffix in _MARKDOWN_SUFFIXES or (name == "readme" and not suffix):
        return MediaType.MARKDOWN
    if suffix in _HTML_SUFFIXES:
        return MediaType.HTML
    return MediaType.TEXT


def visible_text(root: LexborNode, hiding: frozenset[int] | None = None) -> str:
    """Walk a node depth first, emitting its visible text and block boundaries.

    `hiding`: the page's `hiding_elements`, when the caller has them (found under `root`
    when not)."""
    out: list[str] = []
    append_visible(out, root, hiding)
    return "".join(out)


def append_visible(out: list[str], root: LexborNode, hiding: frozenset[int] | None = None) -> None:
    """`visible_text` of `root`, appended to `out` piece by piece (callers that gather
    several nodes' texts join them once).

    An explicit stack instead of recursion: deeply nested pages must not hit Python's
    recursion limit. A `None` on the stack marks the end of a block element. Comments
    and doctypes are not text; the document node is walked like an element. This is the
    hottest loop of reading a page, hence `element_name` and `hidden_in` written out.
    `hiding`: the page's `hiding_elements` (found under `root` when not given).
    """
    if hiding is None:
        hiding = hiding_elements(root)
    stack: list[LexborNode | None] = [root]
    pop, push, emit = stack.pop, stack.append, out.append
    while stack:
        node = pop()
        if node is None:
            emit("\n")
            continue
        tag = node.tag
        if tag == TEXT:
            emit(node.text_content or "")
            continue
        if not tag or (tag[0] == "-" and tag != DOCUMENT):
            continue
        name = tag.lower()
        if name in _INVISIBLE or (hiding and node.mem_id in hiding):
            continue
        if name == "img":
            emit(_image_text(node.attributes))
        elif name in _BLOCKS:
            emit("\n")
            push(None)
        elif name in _CELLS:
            emit("\t")
        child = node.last_child
        if child is not None and child.prev is None and child.tag == TEXT:
            emit(child.text_content or "")  # one text (a heading's, a cell's): no push
            continue
        while child is not None:
            push(child)
            child = child.prev


def element_name(tag: str | None) -> str | None:
    """The lower-case name of a node that holds content (an element or the document,
    from its Lexbor `tag`), or None for a text, comment or doctype node.

    Element names never start with `-` (a tag name starts with a letter); Lexbor's names
    of the other node kinds do.
    """
    if not tag or (tag[0] == "-" and tag != DOCUMENT):
        return None
    return tag.lower()


def _image_text(attributes: dict[str, str | None]) -> str:
    """An image stands for its alt text, set apart from its neighbours' words.

    Badges are pictures of text ("License: MIT") that claims do quote, and the alt text
    is the only text of them there is. Its URL is never text.
    """
    alt = attributes.get("alt")
    return f" {alt} " if alt is not None and alt.strip() else ""


def is_hidden(node: LexborNode) -> bool:
    """Whether a reader cannot see this element's content at all."""
    return hidden(node, (node.tag or "").lower())


def hidden(node: LexborNode, name: str) -> bool:
    """`is_hidden` for an element whose lower-case name the caller already has."""
    if name in _INVISIBLE:
        return True
    attributes = node.attributes
    return bool(attributes) and _hides(attributes)


def hiding_elements(root: LexborNode) -> frozenset[int]:
    """The elements at or below `root` that their attributes hide (`_hides`), by
    `mem_id`: found by one CSS query of the attributes that can hide (most pages have
    none), so that a walk of many elements asks a set rather than reading each one's
    attributes. With it, an element is hidden when its name is invisible or it is in
    the set (`hidden_in`)."""
    return frozenset(node.mem_id for node in root.css(_HIDING) if _hides(node.attributes))


def hidden_in(node: LexborNode, name: str, hiding: frozenset[int]) -> bool:
    """`hidden`, for an element under the root of `hiding` (its `hiding_elements`)."""
    return name in _INVISIBLE or (bool(hiding) and node.mem_id in hiding)


def shown_name(node: LexborNode, tag: str | None, hiding: frozenset[int]) -> str | None:
    """`element_name` of a node (`tag`: its Lexbor `tag`) when it is an element that is
    not `hidden_in` the page of `hiding`, else None: the one question a walk asks of
    each child, asked in one call."""
    if not tag or (tag[0] == "-" and tag != DOCUMENT):
        return None
    name = tag.lower()
    if name in _INVISIBLE or (hiding and node.mem_id in hiding):
        return None
    return name


def _hides(attributes: dict[str, str | None]) -> bool:
    """Whether an element's attributes hide it (Lexbor gives a bare attribute as None)."""
    # hidden="until-found" content is revealed by find-in-page and text fragments.
    if "hidden" in attributes and (attributes["hidden"] or "").lower() != "until-found":
        return True
    aria = attributes.get("aria-hidden")
    if aria is not None and aria.strip().lower() == "true":
        return True
    style = attributes.get("style")
    return style is not None and _HIDDEN_STYLE.search(style) is not None


# -- main content ----------------------------------------------------------------------
#
# What a reader reads of an HTML page is its main content: not the site's navigation,
# sidebars, banner and footer, which repeat on every page and name other pages' topics
# (a quote only in a sidebar link is not something the page says). Landmarks say where
# that chrome is (HTML elements and ARIA roles, the way screen readers skip to the main
# content); a few documentation themes' class names say it where landmarks don't.

MAIN_CONTENT = "main content"
"""The region of a page read by the main-content rule (a scoped read's is its selector)."""

# Classes of text shown only to screen readers (Bootstrap, Tailwind, WordPress, H5BP):
# a sighted reader never sees it, wherever it stands. With closed dialogs (not shown
# until a script opens them), dropped from every HTML page, scoped or not.
_SCREEN_READER_ONLY = (
    ".sr-only, .visually-hidden, .visually-hidden-focusable, .screen-reader-text,"
    " .visuallyhidden, dialog:not([open])"
)

# Chrome by element, and by ARIA role (the first token of `role` names it).
_CHROME_ELEMENTS = "nav, aside, search, dialog, header, footer, [role]"
_CHROME_NAMES = frozenset({"nav", "aside", "search", "dialog"})
_CHROME_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "search", "dialog", "alertdialog"}
)
# A header or footer is the page's banner / content info only when no article, aside,
# main, nav or section (or element of such a role) encloses it (HTML-AAM); inside an
# article, its header holds the title and date: kept.
_SECTIONING = frozenset({"article", "aside", "main", "nav", "section"})
_SECTIONING_ROLES = frozenset({"article", "complementary", "main", "navigation", "region"})

# Chrome that some documentation themes mark by class only, no landmark: short on
# purpose, one line per theme (tests/data/pages holds a page of each).
_CHROME_CLASSES = ", ".join(
    (
        ".headerlink",  # Sphinx and MkDocs: the "¶" link glued to every heading
        ".wy-nav-side, .rst-versions",  # Read the Docs theme: sidebar, versions flyout
        ".md-sidebar, .md-header, .md-footer",  # MkDocs Material: sidebars, bars
        # Docusaurus: sidebar, tables of contents, "#" heading links, and the doc's
        # footer inside the article ("Edit this page", "Last updated on").
        ".theme-doc-sidebar-container, .theme-doc-toc-desktop, .theme-doc-toc-mobile",
        ".hash-link, .theme-doc-footer, .theme-edit-this-page",
    )
)

_MAIN = "main, [role~=main i]"
_ARTICLE = "article, [role~=article i]"


def content_roots(
    document: LexborNode, media: MediaType, scope: str | None = None
) -> tuple[list[LexborNode], str | None]:
    """The elements a page is read from, in document order, and the region they are.

    Markdown is read whole (region None), unless a scope selects in it. An HTML page
    loses its screen-reader-only text and closed dialogs; then `scope`, when given,
    selects the parts to read (every match not inside another, region the selector:
    none when nothing matches); else the page is read from its main content (region
    `MAIN_CONTENT`): its chrome dropped (`_drop_chrome`), and the root the one
    `<main>` (or `role=main`), else the one `<article>`, else `<body>`, narrowed again
    inside it while a main or an article there holds most of its text (`_main_root`).

    The tree is changed in place: the dropped elements are removed from it.
    """
    if media is MediaType.HTML:
        _drop(document.css(_SCREEN_READER_ONLY))
    if scope is not None:
        return _outermost(n for n in document.css(scope) if _shown(n)), scope
    if media is not MediaType.HTML:
        return [document], None
    _drop_chrome(document)
    return [_main_root(document)], MAIN_CONTENT


def selector_problem(selector: str) -> str | None:
    """What is wrong with a CSS selector for `scope`, or None when Lexbor can use it."""
    if not selector.strip():
        return "is empty: give a CSS selector, such as `main` or `#installation`"
    try:
        LexborHTMLParser(b"").css(selector)
    except SelectolaxError:
        return f"{selector!r} is not a CSS selector this reader can use"
    return None


def _drop_chrome(document: LexborNode) -> None:
    """Remove the page's landmarks of chrome and the themes' chrome classes."""
    chrome: list[LexborNode] = []
    for node in document.css(_CHROME_ELEMENTS):
        name = (node.tag or "").lower()
        if name in ("header", "footer"):
            landmark = not _inside_sectioning(node)
        else:
            landmark = name in _CHROME_NAMES
        if landmark or _role(node) in _CHROME_ROLES:
            chrome.append(node)
    chrome.extend(document.css(_CHROME_CLASSES))
    _drop(chrome)


def _role(node: LexborNode) -> str:
    """An element's ARIA role: the first token of its `role` attribute, lower-cased."""
    tokens = (node.attributes.get("role") or "").split()
    return tokens[0].lower() if tokens else ""


def _inside_sectioning(node: LexborNode) -> bool:
    parent = node.parent
    while parent is not None:
        if (parent.tag or "").lower() in _SECTIONING or _role(parent) in _SECTIONING_ROLES:
            return True
        parent = parent.parent
    return False


def _main_root(document: LexborNode) -> LexborNode:
    """The element holding the page's main content, once its chrome is dropped."""
    root = document.css_first("body") or document
    while True:
        mains = _within(root, _MAIN)
        if len(mains) == 1:  # the author says where the main content is
            root = mains[0]
            continue
        candidates = mains or _within(root, _ARTICLE)
        if not candidates:
            return root
        # One article, or several mains or articles: the one holding most of the text,
        # when that is most of the root's (a page of many posts, or a post with a
        # small card in it, is read whole).
        sizes = [_size(n) for n in candidates]
        largest = max(range(len(candidates)), key=sizes.__getitem__)
        if 2 * sizes[largest] <= _size(root):
            return root
        root = candidates[largest]


def _within(root: LexborNode, selector: str) -> list[LexborNode]:
    """The outermost shown elements below `root` (Lexbor's `css` includes the root
    itself when it matches) that `selector` matches."""
    root_id = root.mem_id
    return _outermost(n for n in root.css(selector) if n.mem_id != root_id and _shown(n))


def _size(node: LexborNode) -> int:
    """How much text a reader sees in a node: its visible characters, not its spaces."""
    return sum(map(len, visible_text(node).split()))


def _shown(node: LexborNode) -> bool:
    """Whether neither the element nor any element above it is hidden."""
    current: LexborNode | None = node
    while current is not None:
        name = element_name(current.tag)
        if name is not None and hidden(current, name):
            return False
        current = current.parent
    return True


def _outermost(nodes: Iterable[LexborNode]) -> list[LexborNode]:
    """The nodes (in document order) that no other of them encloses."""
    found = list(nodes)
    ids = {node.mem_id for node in found}
    kept: list[LexborNode] = []
    for node in found:
        parent = node.parent
        while parent is not None and parent.mem_id not in ids:
            parent = parent.parent
        if parent is None:
            kept.append(node)
    return kept


def _drop(nodes: Iterable[LexborNode]) -> None:
    """Remove elements from their tree: the outermost only (removing one frees what it
    holds, so an element inside it must not be touched after)."""
    for node in _outermost(nodes):
        node.decompose()
