"""Tests of visible-text extraction from Markdown, HTML and plain text, and media choice."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.judge.extract import media_for
from claimcheck.models import MediaType
from support import paths
from support.extracting import extract_text

CORPUS = paths.CORPUS


def words(text: str) -> str:
    """The text with whitespace folded, to compare what a reader sees."""
    return " ".join(text.split())


MARKDOWN_CASES = [
    ("emphasis-is-not-text", "Some **bold** and _em_ text", "Some bold and em text"),
    ("emphasis-adds-no-space", "**bold**text", "boldtext"),
    ("link-target-is-not-text", "See [the docs](https://example.com/docs) now", "See the docs now"),
    (
        "image-is-its-alt-text",
        "Badge ![License: MIT](https://x.io/mit.svg) here",
        "Badge License: MIT here",
    ),
    ("badges-do-not-glue", "[![a](https://x.io/a.svg)](x)[![b](https://x.io/b.svg)](y)", "a b"),
    ("image-without-alt", "Logo ![](https://x.io/logo.png) here", "Logo here"),
    ("autolink-is-text", "Go to https://example.com today", "Go to https://example.com today"),
    ("heading-marker", "# Title\n\nBody", "Title Body"),
    ("bullet-markers", "- one\n- two\n* three", "one two three"),
    ("ordered-list", "1. first\n2. second", "first second"),
    ("table-pipes", "| a | b |\n|---|---|\n| c | d |", "a b c d"),
    ("strikethrough-is-visible", "now ~~then~~ later", "now then later"),
    ("code-span", "run `make test` first", "run make test first"),
    ("fenced-code", "```sh\nmake  test\n```", "make test"),
    ("soft-wrap", "one\ntwo", "one two"),
    ("hard-break", "one  \ntwo", "one two"),
    ("raw-html-br", "one<br>two", "one two"),
    ("html-comment", "one <!-- hidden note --> two", "one two"),
    ("entities", "a&lt;b&gt; &amp; c&nbsp;d", "a<b> & c d"),
    ("escaped-brackets", r"\[2024/07\] Support", "[2024/07] Support"),
    (
        "details-summary",
        "<details><summary>More</summary>\n\nInner text\n</details>",
        "More Inner text",
    ),
    ("paragraphs-do-not-glue", "first\n\nsecond", "first second"),
    ("centered-logo", '<p align="center"><img src="logo.png" alt="Logo"></p>\n\nText', "Logo Text"),
]


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [case[1:] for case in MARKDOWN_CASES],
    ids=[case[0] for case in MARKDOWN_CASES],
)
def test_markdown_reduces_to_visible_text(markdown: str, expected: str) -> None:
    assert words(extract_text(markdown, MediaType.MARKDOWN)) == expected


HTML_CASES = [
    ("script", "<p>a</p><script>var x = 1;</script><p>b</p>", "a b"),
    ("style", "<style>p { color: red }</style><p>a</p>", "a"),
    ("template", "<template><p>t</p></template><p>a</p>", "a"),
    ("noscript", "<noscript>enable js</noscript><p>a</p>", "a"),
    ("head", "<html><head><title>T</title></head><body>a</body></html>", "a"),
    ("svg", '<p>a<svg><text x="0">svg text</text></svg>b</p>', "ab"),
    ("hidden-image", '<p>a<img alt="icon" aria-hidden="true">b</p>', "ab"),
    ("hidden-attribute", "<p>a</p><p hidden>secret</p>", "a"),
    ("hidden-until-found-is-findable", '<div hidden="until-found">b</div>', "b"),
    ("aria-hidden", '<p>a<span aria-hidden="true">icon</span></p>', "a"),
    ("aria-hidden-false", '<p>a <span aria-hidden="false">b</span></p>', "a b"),
    ("display-none", '<p>a</p><div style="color: red; display:none">x</div>', "a"),
    ("visibility-hidden", '<p>a</p><div style="visibility: hidden">x</div>', "a"),
    ("inline-adds-no-space", "<p><b>a</b><i>b</i><code>c</code><a href='x'>d</a></p>", "abcd"),
    ("sup", "<p>x<sup>2</sup></p>", "x2"),
    ("divs-do-not-glue", "<div>a</div><div>b</div>", "a b"),
    ("list-items", "<ul><li>a</li><li>b</li></ul>", "a b"),
    ("table-cells", "<table><tr><td>a</td><td>b</td></tr><tr><th>c</th></tr></table>", "a b c"),
    ("headings", "<h1>a</h1><h2>b</h2>", "a b"),
    ("definition-list", "<dl><dt>a</dt><dd>b</dd></dl>", "a b"),
    ("br", "a<br/>b", "a b"),
    ("comment-and-doctype", "<!DOCTYPE html><!-- c --><p>a</p>", "a"),
    ("unknown-element-is-inline", "<p>a<x-thing>b</x-thing></p>", "ab"),
]


@pytest.mark.parametrize(
    ("html", "expected"),
    [case[1:] for case in HTML_CASES],
    ids=[case[0] for case in HTML_CASES],
)
def test_html_reduces_to_visible_text(html: str, expected: str) -> None:
    assert words(extract_text(html, MediaType.HTML)) == expected


def test_blocks_are_separated_by_newlines() -> None:
    text = extract_text("<p>a</p><p>b</p>", MediaType.HTML)
    assert "a\n" in text
    assert "\nb" in text


def test_deeply_nested_html_does_not_recurse() -> None:
    depth = 5000
    html = "<span>" * depth + "deep" + "</span>" * depth
    assert words(extract_text(html, MediaType.HTML)) == "deep"


def test_text_is_returned_as_is() -> None:
    body = "# not a heading\n**not bold**  \n"
    assert extract_text(body, MediaType.TEXT) == body


MEDIA_CASES = [
    ("html-type", "text/html; charset=utf-8", "page", MediaType.HTML),
    ("html-type-wins-over-md-path", "text/html", "/o/r/blob/main/README.md", MediaType.HTML),
    ("xhtml-type", "application/xhtml+xml", "page", MediaType.HTML),
    ("github-html", "application/vnd.github.html; charset=utf-8", "readme", MediaType.HTML),
    ("markdown-type", "text/markdown; charset=UTF-8", "notes.txt", MediaType.MARKDOWN),
    ("plain-md", "text/plain; charset=utf-8", "/o/r/main/README.md", MediaType.MARKDOWN),
    ("plain-txt", "text/plain", "/o/r/main/LICENSE.txt", MediaType.TEXT),
    ("plain-html-path", "text/plain", "docs/index.html", MediaType.HTML),
    ("github-raw-md", "application/vnd.github.raw", "docs/guide.markdown", MediaType.MARKDOWN),
    ("github-raw-rst", "application/vnd.github.raw", "README.rst", MediaType.TEXT),
    ("api-readme-path", "application/vnd.github.raw", "/repos/o/r/readme", MediaType.MARKDOWN),
    ("bare-readme", None, "README", MediaType.MARKDOWN),
    ("mdown", None, "x.mdown", MediaType.MARKDOWN),
    ("uppercase-ext", None, "GUIDE.MD", MediaType.MARKDOWN),
    ("htm", None, "old.htm", MediaType.HTML),
    ("url-path-with-query", None, "https://x.org/a/README.md?plain=1", MediaType.MARKDOWN),
    ("no-hint", None, "data", MediaType.TEXT),
    ("octet-stream", "application/octet-stream", "CHANGES.md", MediaType.MARKDOWN),
]


@pytest.mark.parametrize(
    ("content_type", "path", "expected"),
    [case[1:] for case in MEDIA_CASES],
    ids=[case[0] for case in MEDIA_CASES],
)
def test_media_for(content_type: str | None, path: str, expected: MediaType) -> None:
    assert media_for(content_type, path) is expected


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.fail(f"README corpus not found at {CORPUS}: tests/data is incomplete")
    return CORPUS


def test_real_readme_drops_markup(corpus: Path) -> None:
    """llama.cpp's README: a bullet with a link keeps its words, loses its URL."""
    body = (corpus / "ggml-org__llama.cpp" / "2024-03-01.md").read_text(encoding="utf-8")
    text = words(extract_text(body, MediaType.MARKDOWN))
    assert "Non-linear quantization IQ4_NL: https://github.com/ggerganov/llama.cpp/pull/5590" in (
        text
    )
    assert "Since its inception, the project has improved significantly" in text
    assert "issuecomment-1465108022" not in text
    assert "<li>" not in text
