"""An HTML page is judged by its main content, as a reader reads it; a scope names a part.

The fixtures of `tests/data/pages` are documentation pages in the structure their
frameworks render; their README lists, by hand, the quotes in the main text (must
verify) and the quotes only in the chrome or hidden (must not). The rules themselves
(which root, which landmarks, which classes) are held to small pages below.
"""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest

from claimcheck.cache.pages import page_document, page_from_document
from claimcheck.judge.anchor import locate_anchor
from claimcheck.judge.extract import MAIN_CONTENT, selector_problem
from claimcheck.judge.normalize import normalize_text
from claimcheck.judge.units import read_page
from claimcheck.judge.verdict import judge_claim
from claimcheck.models import Anchor, Claim, MediaType, Snapshot, Verdict
from claimcheck.page import Page
from support import html5lib_reader
from support.doc_pages import DocPage, doc_pages
from support.extracting import extract_text
from support.judging import observe_body

PAGES = doc_pages()
_TAG = re.compile(r"<[^>]*>")


def verified(quote: str, page: Page) -> bool:
    """Whether the quote stands verbatim inside one unit, on token edges."""
    match = locate_anchor(Anchor(quote=quote), page.text, min_score=101.0)
    return match is not None and match.exact


def on_the_page(quote: str, page: DocPage) -> bool:
    """Whether the quote is somewhere in the page as served: in all of its text (the
    old reader's, chrome included) or in its markup (hidden text, attributes)."""
    whole = html5lib_reader.read_page(page.body, MediaType.HTML).text
    source = normalize_text(html.unescape(_TAG.sub(" ", page.body)))
    raw = normalize_text(html.unescape(page.body))
    return any(normalize_text(quote) in text for text in (whole, source, raw))


def test_the_fixture_set_is_all_there() -> None:
    names = {page.name for page in PAGES}
    assert {
        "sphinx-rtd.html",
        "mkdocs-material.html",
        "docusaurus.html",
        "github-pages.html",
        "cookie-and-sr-only.html",
        "pydata-sidebar-only.html",
        "model-card.html",
    } <= names
    for page in PAGES:
        assert page.path.is_file(), page.name
        assert page.verify, page.name
        assert page.not_verify, page.name


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_quote_of_the_oracle_is_on_the_page(page: DocPage) -> None:
    """A quote that is nowhere in the page would pass `must not verify` for nothing (the
    quotes that must verify are checked by verifying them)."""
    for quote in page.not_verify:
        assert on_the_page(quote, page), quote


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_main_text_verifies_and_chrome_does_not(page: DocPage) -> None:
    read = read_page(page.body, MediaType.HTML)
    assert read.region == MAIN_CONTENT
    assert [q for q in page.verify if not verified(q, read)] == []
    assert [q for q in page.not_verify if verified(q, read)] == []


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_extracted_text_is_the_main_content_too(page: DocPage) -> None:
    text = normalize_text(extract_text(page.body, MediaType.HTML))
    for quote in page.not_verify:
        assert normalize_text(quote) not in text, quote


# -- the rules, one at a time ----------------------------------------------------------


def texts(body: str, media: MediaType = MediaType.HTML, scope: str | None = None) -> list[str]:
    return [unit.text for unit in read_page(body, media, scope).units]


LANDMARKS = {
    "nav": "<nav><a href='/'>Chrome</a></nav><p>Text</p>",
    "aside": "<aside><p>Chrome</p></aside><p>Text</p>",
    "search": "<search><p>Chrome</p></search><p>Text</p>",
    "site header": "<header><p>Chrome</p></header><p>Text</p>",
    "site footer": "<p>Text</p><footer><p>Chrome</p></footer>",
    "header in a div": "<div><header><p>Chrome</p></header></div><p>Text</p>",
    "role navigation": "<div role='navigation'><p>Chrome</p></div><p>Text</p>",
    "role banner": "<div role='BANNER'><p>Chrome</p></div><p>Text</p>",
    "role contentinfo": "<p>Text</p><div role='contentinfo'><p>Chrome</p></div>",
    "role complementary": "<div role='complementary'><p>Chrome</p></div><p>Text</p>",
    "role search": "<form role='search'><p>Chrome</p></form><p>Text</p>",
    "role dialog": "<div role='dialog'><p>Chrome</p></div><p>Text</p>",
    "role alertdialog": "<div role='alertdialog'><p>Chrome</p></div><p>Text</p>",
    "open dialog": "<dialog open><p>Chrome</p></dialog><p>Text</p>",
    "closed dialog": "<dialog><p>Chrome</p></dialog><p>Text</p>",
    "template": "<div><template><p>Chrome</p></template></div><p>Text</p>",
    "hidden": "<div hidden><p>Chrome</p></div><p>Text</p>",
    "aria-hidden": "<div aria-hidden='true'><p>Chrome</p></div><p>Text</p>",
    "display none": "<div style='display:none'><p>Chrome</p></div><p>Text</p>",
    "visibility hidden": "<div style='visibility: hidden'><p>Chrome</p></div><p>Text</p>",
}


@pytest.mark.parametrize("body", LANDMARKS.values(), ids=list(LANDMARKS))
def test_chrome_and_hidden_elements_are_dropped(body: str) -> None:
    assert texts(body) == ["Text"]


SCREEN_READER_ONLY = ["sr-only", "visually-hidden", "screen-reader-text", "visuallyhidden"]


@pytest.mark.parametrize("name", SCREEN_READER_ONLY)
def test_screen_reader_only_text_is_dropped(name: str) -> None:
    body = f"<main><p>Open the docs<span class='a {name}'> (new tab)</span> now.</p></main>"
    assert texts(body) == ["Open the docs now."]


# Theme chrome named by class, one fixture page each (tests/data/pages).
CHROME_CLASSES = [
    "headerlink",
    "wy-nav-side",
    "rst-versions",
    "md-sidebar",
    "md-header",
    "md-footer",
    "theme-doc-sidebar-container",
    "theme-doc-toc-desktop",
    "theme-doc-toc-mobile",
    "hash-link",
    "theme-doc-footer",
    "theme-edit-this-page",
]


@pytest.mark.parametrize("name", CHROME_CLASSES)
def test_the_few_theme_classes_of_chrome_are_dropped(name: str) -> None:
    body = f"<main><article><h1>Title<a class='{name}'>¶</a></h1><p>Text</p>"
    body += f"<div class='{name} x'><p>Chrome</p></div></article></main>"
    assert texts(body) == ["Title", "Text"]


def test_an_articles_own_header_and_footer_are_kept() -> None:
    body = (
        "<header><p>Site</p></header><article><header><h1>Post title</h1>"
        "<p>Jan 20, 2025</p></header><p>Body</p><footer><p>Tags: gpu</p></footer></article>"
        "<footer><p>Site footer</p></footer>"
    )
    assert texts(body) == ["Post title", "Jan 20, 2025", "Body", "Tags: gpu"]


def test_a_header_inside_a_section_is_kept() -> None:
    body = "<section><header><h2>Results</h2></header><p>Body</p></section>"
    assert texts(body) == ["Results", "Body"]


def test_main_is_preferred_and_what_is_outside_it_dropped() -> None:
    body = "<div class='top'><p>Promo</p></div><main><p>Body</p></main><div><p>Legal</p></div>"
    assert texts(body) == ["Body"]


def test_role_main_is_a_main() -> None:
    body = "<div class='side'><p>Links</p></div><div role='main'><p>Body</p></div>"
    assert texts(body) == ["Body"]


def test_a_hidden_main_is_not_the_main_content() -> None:
    body = "<main hidden><p>Old</p></main><main><p>Body</p></main><p>Other</p>"
    assert texts(body) == ["Body"]


def test_the_one_article_holding_most_of_the_text_is_the_main_content() -> None:
    body = (
        "<main><div class='crumbs'><p>Docs</p></div><article><p>A long body of text that"
        " holds most of what the page says.</p></article><div><p>Next page</p></div></main>"
    )
    assert texts(body) == ["A long body of text that holds most of what the page says."]


def test_a_small_article_in_a_bigger_page_is_not_taken_for_it() -> None:
    body = (
        "<p>The page's own text, long enough to be most of what a reader reads here.</p>"
        "<article><p>A card</p></article>"
    )
    assert texts(body) == [
        "The page's own text, long enough to be most of what a reader reads here.",
        "A card",
    ]


def test_a_page_of_many_articles_is_read_whole() -> None:
    """A blog index, a forum thread: every post is the page's; none is dropped."""
    body = "".join(f"<article><p>Post {n} says this.</p></article>" for n in range(3))
    assert texts(body) == ["Post 0 says this.", "Post 1 says this.", "Post 2 says this."]


def test_a_page_without_landmarks_is_its_body_less_chrome() -> None:
    body = "<div id='top'><p>Hello</p></div><div><table><tr><td>a</td><td>1</td></tr></table>"
    assert texts(body) == ["Hello", "a 1"]


def test_markdown_keeps_its_html_as_github_shows_it() -> None:
    """A README is shown whole, without chrome: its raw HTML is read as before."""
    readme = (
        "<nav><p>Contents</p></nav>\n\n<header><p>Banner</p></header>\n\n"
        "<aside><p>Side note</p></aside>\n\n<details><summary>More</summary>\n\n"
        "Inside\n\n</details>\n\n<span class='sr-only'>kept</span>\n"
    )
    page = read_page(readme, MediaType.MARKDOWN)
    assert page.region is None
    assert [unit.text for unit in page.units] == [
        "Contents",
        "Banner",
        "Side note",
        "More",
        "Inside",
        "kept",
    ]


# -- scope -----------------------------------------------------------------------------

SCOPED = (
    "<nav id='toc'><ul><li>Install</li><li>FP8 KV cache</li></ul></nav>"
    "<main><div class='tab'><p>One</p><div class='tab'><p>Inner</p></div></div>"
    "<p>Between</p><div class='tab'><p>Two<span class='sr-only'> (hidden)</span></p></div>"
    "<div hidden><div class='tab'><p>Hidden tab</p></div></div></main>"
)


def test_a_scope_reads_every_match_in_page_order_once() -> None:
    page = read_page(SCOPED, MediaType.HTML, ".tab")
    assert page.region == ".tab"
    assert [unit.text for unit in page.units] == ["One", "Inner", "Two"]


def test_a_scope_may_read_what_the_main_content_rule_drops() -> None:
    assert texts(SCOPED, scope="#toc li") == ["Install", "FP8 KV cache"]
    assert "FP8 KV cache" not in texts(SCOPED)


def test_a_scope_that_matches_nothing_reads_nothing() -> None:
    page = read_page(SCOPED, MediaType.HTML, "table")
    assert page.units == ()
    assert page.region == "table"
    assert read_page("plain text", MediaType.TEXT, "p").units == ()


def test_a_scope_applies_to_markdown_too() -> None:
    readme = "# Title\n\nIntro\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    assert texts(readme, MediaType.MARKDOWN, "table") == ["a b", "1 2"]


@pytest.mark.parametrize(
    ("selector", "problem"),
    [
        ("main", None),
        ("#install > table tr:nth-child(2)", None),
        ("div[", "'div[' is not a CSS selector this reader can use"),
        ("a >> b", "'a >> b' is not a CSS selector this reader can use"),
        ("  ", "is empty: give a CSS selector, such as `main` or `#installation`"),
    ],
)
def test_a_scope_selector_is_checked(selector: str, problem: str | None) -> None:
    assert selector_problem(selector) == problem


# -- which part of the page the quote was found in -------------------------------------

DOCS = Snapshot(
    key="docs.example/install",
    url="https://docs.example/install",
    final_url="https://docs.example/install",
    fetched_at=dt.datetime(2025, 3, 1, tzinfo=dt.UTC),
    status=200,
    sha256="1" * 64,
    media=MediaType.HTML,
    file="2025-03-01T000000Z-11111111.html",
)
DOC_BODY = (
    "<nav><p>FP8 KV cache on Hopper</p></nav><main><h1>Install</h1><h2>GPU</h2>"
    "<p>CUDA 12.4 wheels are published.</p><table class='hw'><tr><th>Backend</th></tr>"
    "<tr><td>ROCm 6.1</td></tr></table></main>"
)


def doc_claim(quote: str, scope: str | None = None) -> Claim:
    return Claim(
        id="c",
        page="p",
        claim="a claim",
        source="https://docs.example/install",
        anchor=Anchor(quote=quote),
        checked=dt.date(2025, 3, 1),
        scope=scope,
        file="claims/p.yaml",
        line=3,
    )


def judged(quote: str, scope: str | None = None) -> tuple[Verdict, str]:
    state = observe_body(DOCS, DOC_BODY, live=True)
    result = judge_claim(doc_claim(quote, scope), state)
    return result.verdict, result.reason


def test_the_verified_reason_names_the_main_content_and_the_section() -> None:
    assert judged("CUDA 12.4 wheels are published") == (
        Verdict.VERIFIED,
        "the quote is in the source now, in the main content, under 'Install › GPU'",
    )


def test_a_quote_only_in_the_navigation_is_missing() -> None:
    verdict, reason = judged("FP8 KV cache on Hopper")
    assert verdict is Verdict.MISSING
    assert reason == "the quote is not in the source, and nothing close to it is"


def test_a_scoped_quote_is_found_in_its_scope_and_named_by_it() -> None:
    assert judged("ROCm 6.1", "table.hw") == (
        Verdict.VERIFIED,
        "the quote is in the source now, in 'table.hw'",
    )
    assert judged("FP8 KV cache on Hopper", "nav")[0] is Verdict.VERIFIED
    assert judged("CUDA 12.4 wheels are published", "table.hw")[0] is Verdict.MISSING


def test_a_scope_that_matches_nothing_is_missing_with_a_reason() -> None:
    assert judged("ROCm 6.1", "table.gone") == (
        Verdict.MISSING,
        "the claim's scope 'table.gone' matches nothing in the source: the quote can't be"
        " looked for; fix the scope or remove it",
    )


def test_a_readme_reason_names_no_region() -> None:
    snapshot = DOCS.model_copy(update={"media": MediaType.MARKDOWN})
    state = observe_body(snapshot, "# Install\n\nCUDA 12.4 wheels are published.\n", live=True)
    result = judge_claim(doc_claim("CUDA 12.4 wheels are published"), state)
    assert result.reason == "the quote is in the source now"


def test_the_kept_page_keeps_its_region() -> None:
    page = read_page(DOC_BODY, MediaType.HTML)
    assert page_from_document(page_document(page)) == page
    assert page_from_document(page_document(page)).region == MAIN_CONTENT
    scoped = read_page(DOC_BODY, MediaType.HTML, "table.hw")
    assert page_from_document(page_document(scoped)).region == "table.hw"
