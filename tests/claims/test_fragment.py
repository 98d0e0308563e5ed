"""Tests of reading and writing text fragments (`#:~:text=`) in source URLs."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimcheck.claims.fragment import FragmentError, build_text_fragment, split_text_fragment
from claimcheck.models import Anchor

PAGE = "https://github.com/o/r"

VALID_CASES = [
    ("start-only", "#:~:text=an%20example", PAGE, Anchor(quote="an example")),
    ("start-end", "#:~:text=an,example", PAGE, Anchor(quote="an", quote_end="example")),
    (
        "prefix-start",
        "#:~:text=this%20is-,an%20example",
        PAGE,
        Anchor(quote="an example", prefix="this is"),
    ),
    (
        "start-suffix",
        "#:~:text=an%20example,-text%20fragment",
        PAGE,
        Anchor(quote="an example", suffix="text fragment"),
    ),
    (
        "all-four",
        "#:~:text=pre-,start,end,-suf",
        PAGE,
        Anchor(quote="start", quote_end="end", prefix="pre", suffix="suf"),
    ),
    ("encoded-comma", "#:~:text=a%2C%20b", PAGE, Anchor(quote="a, b")),
    ("encoded-dash", "#:~:text=%2Dflag", PAGE, Anchor(quote="-flag")),
    ("encoded-ampersand", "#:~:text=R%26D", PAGE, Anchor(quote="R&D")),
    ("utf8", "#:~:text=caf%C3%A9", PAGE, Anchor(quote="café")),
    ("plus-is-not-space", "#:~:text=C++", PAGE, Anchor(quote="C++")),
    ("inner-dash-is-kept", "#:~:text=state-of-the-art", PAGE, Anchor(quote="state-of-the-art")),
    ("keeps-plain-fragment", "#readme:~:text=foo", PAGE + "#readme", Anchor(quote="foo")),
    ("other-directive-ignored", "#:~:foo=bar&text=x", PAGE, Anchor(quote="x")),
    ("empty-directive-ignored", "#:~:&text=x&", PAGE, Anchor(quote="x")),
    ("first-delimiter-starts", "#:~:text=a:~:b", PAGE, Anchor(quote="a:~:b")),
]


@pytest.mark.parametrize(
    ("fragment", "url", "anchor"),
    [case[1:] for case in VALID_CASES],
    ids=[case[0] for case in VALID_CASES],
)
def test_split_valid_text_fragments(fragment: str, url: str, anchor: Anchor) -> None:
    assert split_text_fragment(PAGE + fragment) == (url, anchor)


NO_ANCHOR_CASES = [
    ("no-fragment", PAGE, PAGE),
    ("plain-fragment", PAGE + "#install", PAGE + "#install"),
    ("uppercase-directive", PAGE + "#:~:TEXT=foo", PAGE),
    ("capitalised-directive", PAGE + "#:~:Text=foo", PAGE),
    ("other-directive-only", PAGE + "#sec:~:note=x", PAGE + "#sec"),
    ("empty-directive", PAGE + "#:~:", PAGE),
    ("text-without-equals", PAGE + "#:~:text", PAGE),
    ("delimiter-in-query-only", PAGE + "?q=:~:text=a", PAGE + "?q=:~:text=a"),
]


@pytest.mark.parametrize(
    ("url", "base"),
    [case[1:] for case in NO_ANCHOR_CASES],
    ids=[case[0] for case in NO_ANCHOR_CASES],
)
def test_split_without_text_directive(url: str, base: str) -> None:
    assert split_text_fragment(url) == (base, None)


INVALID_CASES = [
    ("empty-value", "text=", "empty term"),
    ("empty-middle-term", "text=a,,b", "empty term"),
    ("trailing-comma", "text=a,", "empty term"),
    ("five-terms", "text=a-,b,c,d,-e", "at most 4"),
    ("three-texts", "text=a,b,c", "at most 2"),
    ("empty-prefix", "text=-,foo", "empty prefix"),
    ("prefix-without-start", "text=foo-", "prefix but no text"),
    ("suffix-without-start", "text=-foo", "suffix but no text"),
    ("prefix-and-suffix-only", "text=a-,-b", "suffix but no text"),
    ("empty-suffix", "text=foo,-", "empty suffix"),
    ("dash-ends-start", "text=pre-,foo-", "the start 'foo-' starts or ends with '-'"),
    ("dash-starts-middle", "text=foo,-bar,baz", "at most 2"),
    ("dash-starts-end", "text=foo,-bar-", "the suffix 'bar-' starts or ends with '-'"),
    ("dash-starts-prefix", "text=-a-,b", "the prefix '-a' starts or ends with '-'"),
    ("dash-starts-start", "text=-foo,bar", "the start '-foo' starts or ends with '-'"),
    ("two-text-directives", "text=a&text=b", "2 text directives"),
    ("bad-utf8", "text=%FF", "UTF-8"),
]


@pytest.mark.parametrize(
    ("directive", "message"),
    [case[1:] for case in INVALID_CASES],
    ids=[case[0] for case in INVALID_CASES],
)
def test_split_rejects_invalid_text_directives(directive: str, message: str) -> None:
    with pytest.raises(FragmentError, match=re.escape(message)):
        split_text_fragment(f"{PAGE}#:~:{directive}")


def test_fragment_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="empty term"):
        split_text_fragment(PAGE + "#:~:text=")


BUILD_CASES = [
    ("plain", PAGE, "an example", None, None, PAGE + "#:~:text=an%20example"),
    ("prefix-suffix", PAGE, "b", "a", "c", PAGE + "#:~:text=a-,b,-c"),
    ("escapes-syntax", PAGE, "a, b-c & d", None, None, PAGE + "#:~:text=a%2C%20b%2Dc%20%26%20d"),
    ("utf8", PAGE, "café", None, None, PAGE + "#:~:text=caf%C3%A9"),
    ("keeps-fragment", PAGE + "#usage", "x", None, None, PAGE + "#usage:~:text=x"),
    ("replaces-directive", PAGE + "#u:~:text=old", "new", None, None, PAGE + "#u:~:text=new"),
    ("escapes-hash-percent", PAGE, "#1 at 50%", None, None, PAGE + "#:~:text=%231%20at%2050%25"),
]


@pytest.mark.parametrize(
    ("url", "text", "prefix", "suffix", "expected"),
    [case[1:] for case in BUILD_CASES],
    ids=[case[0] for case in BUILD_CASES],
)
def test_build_text_fragment(
    url: str, text: str, prefix: str | None, suffix: str | None, expected: str
) -> None:
    assert build_text_fragment(url, text, prefix, suffix) == expected


@pytest.mark.parametrize(
    ("text", "prefix", "suffix"),
    [("", None, None), ("a", "", None), ("a", None, "")],
    ids=["empty-text", "empty-prefix", "empty-suffix"],
)
def test_build_rejects_empty_terms(text: str, prefix: str | None, suffix: str | None) -> None:
    with pytest.raises(FragmentError, match="cannot be empty"):
        build_text_fragment(PAGE, text, prefix, suffix)


TERM = st.text(st.characters(codec="utf-8"), min_size=1)
URL = st.sampled_from([PAGE, PAGE + "/blob/main/README.md", PAGE + "#usage", "http://x/?q=a#b"])


@given(url=URL, text=TERM, prefix=st.none() | TERM, suffix=st.none() | TERM)
def test_build_then_split_round_trips(
    url: str, text: str, prefix: str | None, suffix: str | None
) -> None:
    built = build_text_fragment(url, text, prefix, suffix)
    assert split_text_fragment(built) == (url, Anchor(quote=text, prefix=prefix, suffix=suffix))


# The escaping as the standard library does it, byte by byte: an oracle the fast table
# in `fragment._encode` must agree with on every text.
def _escaped_by_urllib(term: str) -> str:
    return quote(term, safe="!$'()*+;=:@/?~._").replace("-", "%2D")


@given(text=st.text(st.characters(codec="utf-8"), min_size=1))
def test_each_term_is_escaped_as_urllib_escapes_it(text: str) -> None:
    built = build_text_fragment(PAGE, text)
    assert built == f"{PAGE}#:~:text={_escaped_by_urllib(text)}"


@pytest.mark.parametrize(
    "text",
    [
        "1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization",
        "| Model | Size | 🤗 |",
        '지원 & 사용법 <b>#1</b> 100% "quoted" `code` [link](x) ~tilde~ a\\b',
        "\t\n\r\x00\x7f\x80\u00ff\u0100\uffff\U0010ffff",
    ],
)
def test_every_byte_class_is_escaped_as_urllib_escapes_it(text: str) -> None:
    built = build_text_fragment(PAGE, text, "before", "after")
    escaped = _escaped_by_urllib
    assert built == (f"{PAGE}#:~:text={escaped('before')}-,{escaped(text)},-{escaped('after')}")


def test_a_lone_surrogate_is_refused_as_urllib_refuses_it() -> None:
    with pytest.raises(UnicodeEncodeError):
        _escaped_by_urllib("a\ud800b")
    with pytest.raises(UnicodeEncodeError):
        build_text_fragment(PAGE, "a\ud800b")
