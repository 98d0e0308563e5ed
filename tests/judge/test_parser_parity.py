"""The Lexbor reader reads every page the tests carry as the html5lib reader it replaced.

`claimcheck.judge` reads pages with Lexbor (selectolax) rather than html5lib and
BeautifulSoup, for speed. Both build the tree by the HTML5 algorithm, so the units, the
notices and the extracted text must stay the same: `support.html5lib_reader` keeps the
old reader, frozen, as the oracle. Compared here: every README version of the corpus,
every golden case's bodies, and every HTML-looking string of the test modules (as HTML
and as Markdown).

html5lib 1.1 (2020) follows an older edition of the HTML standard, and strays from it in
places where Lexbor and browsers follow today's: its list of "special" elements lacks
`summary`, `main`, `hgroup`, `figcaption` and `template`, it lets a `<p>` inside a
`<template>` close the paragraph around it, it puts an element that closes an implied
`<dd>`/`<dt>`/`<li>`/`<p>` inside a table instead of before it, it keeps `</p>` inside
`<svg>`, and it drops the newline after `<pre>` even when other tags come between. None
of this occurs in the corpus or the cases; where a fixture meets it, the expected page
is written by hand below (`BROWSER_READS`) and the fixture is named in `DEVIATIONS`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from claimcheck.judge.units import read_page
from claimcheck.models import MediaType
from claimcheck.page import Page, Unit
from support import html5lib_reader, paths
from support.extracting import extract_text

TESTS = paths.ROOT / "tests"
CORPUS_PAGES = sorted(paths.CORPUS.glob("*/*.md"))
CASE_BODIES = sorted((TESTS / "cases").glob("*/*.md"))
MIN_CORPUS_PAGES = 290
"""The corpus holds 290 README versions of 10 engines: a lost folder fails the count."""

_TAG = re.compile(r"<(?:[A-Za-z][\w-]*|/[A-Za-z][\w-]*|!--|!doctype)[^<>]*>", re.I)
_SURROGATE = re.compile("[\ud800-\udfff]")
_NOT_SCANNED = frozenset({"test_parser_parity.py", "html5lib_reader.py"})

DEVIATIONS = {
    ("<template><p>t</p></template><p>a</p>", MediaType.MARKDOWN): (
        "cmark-gfm wraps it in a <p>; html5lib lets the template's <p> close that "
        "paragraph and so puts `t` outside the template (see BROWSER_READS)"
    ),
}
"""Fixtures that html5lib reads unlike the HTML standard, with why."""


def _body(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def _fixture_snippets() -> dict[str, str]:
    """Each string constant of the test modules that holds markup, with where it is."""
    found: dict[str, str] = {}
    for path in sorted(TESTS.rglob("*.py")):
        if path.name in _NOT_SCANNED or "data" in path.relative_to(TESTS).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Constant) or not isinstance(node.value, str | bytes):
                continue
            value = node.value
            text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
            if _TAG.search(text):
                found.setdefault(text, f"{path.relative_to(TESTS)}:{node.lineno}")
    return found


FIXTURES = _fixture_snippets()
CHROME_MODULES = ("judge/test_main_content.py", "judge/test_walls.py", "support/fault_server.py")
"""Test modules whose markup holds a page's chrome on purpose (the walls' modules: consent
dialogs and cookie banners): read as HTML, the new reader drops it (its expected units are
written there by hand, or the wall is what the test looks for); as Markdown, the two
readers still read it alike."""
MARKUP_CASES = [
    (snippet, media)
    for snippet, where in FIXTURES.items()
    for media in (MediaType.HTML, MediaType.MARKDOWN)
    if media is MediaType.MARKDOWN or not where.startswith(CHROME_MODULES)
]


def assert_reads_alike(body: str, media: MediaType) -> None:
    """Lexbor's page and text equal html5lib's. A lone surrogate has no UTF-8 form to give
    Lexbor (it reads U+FFFD, as a browser shows it): html5lib is given the same."""
    old_page, old_text = html5lib_reader.read_page_and_text(_SURROGATE.sub("\ufffd", body), media)
    new_page = read_page(body, media)
    assert new_page.units == old_page.units
    assert new_page.notices == old_page.notices
    assert new_page.text == old_page.text
    if media is MediaType.HTML:
        # An HTML page is now read from its main content (`<main>`, `role=main`, an
        # `<article>`): the walk starts below `<html>` and `<body>`, whose block
        # boundaries the old reader emitted as newlines around the page's text. Pages
        # with chrome to drop are compared in test_main_content.py, by hand.
        assert extract_text(body, media).strip("\n") == old_text.strip("\n")
    else:
        assert extract_text(body, media) == old_text


def test_the_corpus_and_the_cases_are_all_there() -> None:
    assert len(CORPUS_PAGES) >= MIN_CORPUS_PAGES
    assert len(CASE_BODIES) >= 95
    assert len(FIXTURES) >= 100


@pytest.mark.parametrize(
    "path", CORPUS_PAGES, ids=[str(p.relative_to(paths.CORPUS)) for p in CORPUS_PAGES]
)
def test_every_corpus_version_reads_alike(path: Path) -> None:
    assert_reads_alike(_body(path), MediaType.MARKDOWN)


@pytest.mark.parametrize(
    "path", CASE_BODIES, ids=[str(p.relative_to(TESTS / "cases")) for p in CASE_BODIES]
)
def test_every_golden_case_body_reads_alike(path: Path) -> None:
    assert_reads_alike(_body(path), MediaType.MARKDOWN)


@pytest.mark.parametrize(
    ("snippet", "media"),
    MARKUP_CASES,
    ids=[f"{FIXTURES[snippet]}-{media.value}" for snippet, media in MARKUP_CASES],
)
def test_every_markup_fixture_of_the_tests_reads_alike(snippet: str, media: MediaType) -> None:
    if (snippet, media) in DEVIATIONS:  # html5lib is wrong here: the readers must differ
        assert units(html5lib_reader.read_page(snippet, media)) != units(read_page(snippet, media))
        return
    try:
        html5lib_reader.read_page(snippet, media)
    except UnicodeEncodeError:  # cmark-gfm takes no lone surrogate: neither reader reads it
        with pytest.raises(UnicodeEncodeError):
            read_page(snippet, media)
        return
    assert_reads_alike(snippet, media)


def units(page: Page) -> list[tuple[str, ...]]:
    """A page's units as (kind, text, headings › joined, header, lead-in) rows."""
    return [_row(unit) for unit in page.units]


def _row(unit: Unit) -> tuple[str, ...]:
    return (unit.kind, unit.text, " › ".join(unit.headings), unit.header or "", unit.lead_in or "")


# Tree-building cases that matter to READMEs, with the units a browser's tree gives.
TREE_CASES = {
    "table-never-closed": (
        MediaType.MARKDOWN,
        '<table align="center">\n<tr><td>picture</td></tr>\n<table>\n\n'
        "## Description\n\nSupported:\n\n- the quote\n- another\n",
        [
            ("row", "picture", "", "", ""),
            ("heading", "Description", "", "", ""),
            ("paragraph", "Supported:", "Description", "", ""),
            ("item", "the quote", "Description", "", "Supported:"),
            ("item", "another", "Description", "", "Supported:"),
        ],
    ),
    "p-in-table-is-put-before-it": (
        MediaType.HTML,
        "<table><tr><td>a</td></tr><p>stray</p><tr><td>b</td></tr></table><p>after</p>",
        [
            ("paragraph", "stray", "", "", ""),
            ("row", "a", "", "", ""),
            ("row", "b", "", "", ""),
            ("paragraph", "after", "", "", ""),
        ],
    ),
    "p-left-open-in-a-cell": (
        MediaType.HTML,
        "<table><tr><th>Name</th><th>Notes</th></tr>"
        "<tr><td>cell<p>para in cell</td><td>two</table><p>after",
        [
            ("row", "Name Notes", "", "", ""),
            ("row", "cell para in cell two", "", "Name Notes", ""),
            ("paragraph", "after", "", "", ""),
        ],
    ),
    "li-ends-implied": (
        MediaType.HTML,
        "<p>Backends:</p><ul><li>one<li>two<ul><li>inner</ul><li>three</ul>",
        [
            ("paragraph", "Backends:", "", "", ""),
            ("item", "one", "", "", "Backends:"),
            ("item", "two", "", "", "Backends:"),
            ("item", "inner", "", "", "two"),
            ("item", "three", "", "", "Backends:"),
        ],
    ),
    "dt-dd-ends-implied": (
        MediaType.HTML,
        "<dl><dt>term<dd>definition<dt>next</dl>",
        [
            ("item", "term", "", "", ""),
            ("item", "definition", "", "", ""),
            ("item", "next", "", "", ""),
        ],
    ),
    "br-and-end-tag-br": (
        MediaType.HTML,
        "<p>one<br>two</br>three</p>loose<br>text",
        [("paragraph", "one two three", "", "", ""), ("paragraph", "loose text", "", "", "")],
    ),
    "hidden-until-found-is-shown": (
        MediaType.HTML,
        '<div hidden="until-found"><p>found</p></div><p hidden>gone</p>'
        '<p hidden="">gone too</p><p hidden="UNTIL-FOUND">also found</p>',
        [("paragraph", "found", "", "", ""), ("paragraph", "also found", "", "", "")],
    ),
}


@pytest.mark.parametrize(("media", "body", "expected"), TREE_CASES.values(), ids=list(TREE_CASES))
def test_tree_building_gives_the_units_a_browser_shows(
    media: MediaType, body: str, expected: list[tuple[str, ...]]
) -> None:
    assert units(read_page(body, media)) == expected
    assert_reads_alike(body, media)


# Where html5lib strays from today's HTML standard: Lexbor reads as a browser does.
BROWSER_READS = {
    "template-content-is-not-shown": (
        MediaType.MARKDOWN,
        "<template><p>t</p></template><p>a</p>",
        [("paragraph", "a", "", "", "")],
    ),
    "dd-after-dt-in-a-table-goes-before-it": (
        MediaType.HTML,
        "<table><dt>term<dd>definition",
        [("item", "term", "", "", ""), ("item", "definition", "", "", "")],
    ),
    "li-does-not-close-across-summary": (
        MediaType.HTML,
        # `summary` is a special element: the second <li> opens inside it.
        "<ul><li><summary>Title<li>two</ul>",
        [("item", "Title two", "", "", "")],
    ),
    "end-tag-p-leaves-svg": (
        MediaType.HTML,
        "<table><tr><td>x</td></tr><svg></p>word</table>",
        [("paragraph", "word", "", "", ""), ("row", "x", "", "", "")],
    ),
}


@pytest.mark.parametrize(
    ("media", "body", "expected"), BROWSER_READS.values(), ids=list(BROWSER_READS)
)
def test_where_html5lib_strays_from_the_standard_lexbor_reads_as_a_browser(
    media: MediaType, body: str, expected: list[tuple[str, ...]]
) -> None:
    assert units(read_page(body, media)) == expected
    assert units(html5lib_reader.read_page(body, media)) != expected


@pytest.mark.parametrize(
    "opening",
    ["<span>", "<div>", "<blockquote>", "<ul><li>", "<ol><li><p>x</p>", "<table><tr><td>"],
)
def test_deep_nesting_stays_clear_of_the_recursion_limit(opening: str) -> None:
    """Lexbor nests 5000 elements deep as html5lib does; the walk's guards keep Python's
    recursion limit out of reach (html5lib's reader failed on lists nested this deep:
    they recursed through `list` and `item`, which had no guard)."""
    body = opening * 5000 + "deep"
    assert "deep" in read_page(body, MediaType.HTML).text
    assert "deep" in extract_text(body, MediaType.HTML)
