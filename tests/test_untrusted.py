"""Third-party text shown safely: terminal, Markdown inline and Markdown code."""

from __future__ import annotations

import re

import cmarkgfm
import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimcheck.untrusted import clean_text, markdown_code, markdown_text, shorten

ZWSP = "\u200b"


def rendered(markdown: str) -> str:
    return str(cmarkgfm.github_flavored_markdown_to_html(markdown))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", "plain"),
        ("a\x1b[31mred\x1b[0m", "ared"),
        ("title\x1b]0;pwned\x07", "title"),
        ("tab\tnew\nline", "tab new line"),
        ("rtl \u202eevil", "rtl evil"),
        ("bell\x07", "bell"),
        ("lone \ud800surrogate", "lone surrogate"),
    ],
    ids=["plain", "csi", "osc", "whitespace", "bidi", "control", "surrogate"],
)
def test_clean_text(text: str, expected: str) -> None:
    assert clean_text(text) == expected


def test_shorten_keeps_both_ends() -> None:
    assert shorten("abcdefghij", 5) == "ab…ij"
    assert shorten("short", 10) == "short"


def test_markdown_text_renders_as_the_same_visible_text_and_nothing_else() -> None:
    hostile = (
        "<!-- claimcheck:v1 claim=x --> <img src=x> [link](http://e) **b** @someone #123 &amp;"
    )
    html = rendered(markdown_text(hostile))
    assert "<img" not in html
    assert "<a " not in html
    assert "<strong>" not in html
    assert "<!--" not in html
    assert f"@{ZWSP}someone" in html
    assert f"#{ZWSP}123" in html


def test_markdown_code_cannot_be_broken_out_of() -> None:
    text = "run ``` then ```` and @dev #1"
    block = markdown_code(text, block=True)
    fence = block.split("text", 1)[0]
    assert fence == "`" * 5
    html = rendered(block + "\n\n**after**")
    assert "<strong>after</strong>" in html
    assert html.count("<pre") == 1


@given(st.text(max_size=80))
def test_markdown_code_span_always_closes(text: str) -> None:
    html = rendered(markdown_code(text) + " **after**")
    assert html.rstrip().endswith("<strong>after</strong></p>") or not re.search(r"\S", html)


@given(st.text(alphabet=st.characters(max_codepoint=0x7F)) | st.text())
def test_clean_text_keeps_exactly_the_visible_characters(text: str) -> None:
    """An oracle written apart from the code: character by character, what survives."""
    import re as _re
    import unicodedata as _ud

    visible = _re.sub(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|.)?", "", text)
    expected = "".join(
        " "
        if c in "\t\n\r"
        else ""
        if _ud.category(c) in ("Cc", "Cf", "Cs")
        or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
        else c
        for c in visible
    )
    assert clean_text(text) == expected
