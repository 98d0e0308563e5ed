"""The shortcuts that make reading claims fast give the answers of the long way round.

`field_checks.visible` skips the normalization when a character surely survives it, and
`field_checks._url_problem` skips the per-character scan on ASCII URLs (and runs once per URL
a parse): each is checked here against the code it stands in for.
"""

from __future__ import annotations

import datetime as dt
import sys
import time
import unicodedata
from urllib.parse import urlsplit

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from claimcheck.claims import field_checks, parse
from claimcheck.claims.yaml_read import read_document
from claimcheck.errors import ClaimFileError
from claimcheck.judge.normalize import normalize_text

TODAY = dt.date(2026, 10, 21)


def test_no_character_the_shortcut_calls_visible_is_normalized_away() -> None:
    """Every character `_SURELY_VISIBLE` matches stays visible: normalizing leaves text."""
    lost = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if not 0xD800 <= code <= 0xDFFF
        and field_checks._SURELY_VISIBLE.match(chr(code))
        and not normalize_text(chr(code))
    ]
    assert lost == []


TRICKY = ["", " ", "\u200b", "\u00ad", "\ufeff", "\u2060 \u200d", "\u3000", "\u00a0x", "ﬁ", "″"]


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(), st.lists(st.sampled_from(TRICKY)).map("".join)))
@example("\u200b \u200b")
@example("a\u0301")
def test_visible_is_what_normalizing_leaves(text: str) -> None:
    assert field_checks.visible(text) == bool(normalize_text(text))


def old_not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty or whitespace only")
    if not normalize_text(value):
        raise ValueError(
            "has no visible text: only invisible characters (zero-width spaces, soft"
            " hyphens, ...) and whitespace"
        )
    return value


def outcome(check: object, value: str) -> str:
    assert callable(check)
    try:
        return f"ok: {check(value)!r}"
    except ValueError as error:
        return f"error: {error}"


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(), st.lists(st.sampled_from(TRICKY)).map("".join)))
def test_not_blank_says_what_it_said(text: str) -> None:
    assert outcome(field_checks.not_blank, text) == outcome(old_not_blank, text)


def old_url_problem(value: str) -> str | None:
    """The source URL check as it was: a scan of every character, then urlsplit."""
    if any(c.isspace() or unicodedata.category(c) == "Cf" for c in value):
        return "must not contain whitespace or invisible characters (percent-encode them)"
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError as exc:
        if "port" in str(exc).lower():
            return f"has a bad port ({exc}): a port is a number from 1 to 65535"
        return f"is not a valid URL: {exc}"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http(s) URL with a host"
    if port == 0:
        return "port 0 is not a port a server listens on: give 1 to 65535"
    return None


URL_BITS = st.sampled_from(
    [
        "https://", "http://", "ftp://", "e.org", ":0", ":80", ":99999", ":abc", "[::1", "[::1]",
        "/p", "?q=1&r=2", "#:~:text=a", "%20", " ", "\t", "\x0b", "\x1c", "\x1f", "\u200b",
        "\u00a0", "\u202e", "é", "\ufeff", "user@",
    ]
)  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(), st.lists(URL_BITS, max_size=8).map("".join)))
def test_the_url_check_says_what_it_said(value: str) -> None:
    """What the long way round said; of a URL it took, the rule made since (a password)."""
    value = value.strip()
    said = old_url_problem(value)
    assert field_checks._url_problem(value) == (said or field_checks._credentials_problem(value))


def test_a_bad_source_repeated_is_reported_at_each_claim() -> None:
    """The per-parse cache of URL checks keeps the problem for every claim that has it."""
    entries = "".join(
        f"  - id: c{n}\n    claim: c\n    source: https://e.org:0/\n    quote: q\n"
        for n in range(3)
    )
    text = "page: p\nchecked: 2026-01-01\nclaims:\n" + entries
    other = text.replace("id: c", "id: d")
    with pytest.raises(ClaimFileError) as info:
        parse.parse_claims([("a.yaml", text), ("b.yaml", other)], today=TODAY, read=read_document)
    assert [p.split(": source: ")[0] for p in info.value.problems] == [
        "a.yaml:6: claim 'c0'",
        "a.yaml:10: claim 'c1'",
        "a.yaml:14: claim 'c2'",
        "b.yaml:6: claim 'd0'",
        "b.yaml:10: claim 'd1'",
        "b.yaml:14: claim 'd2'",
    ]
    assert all("port 0 is not a port" in p for p in info.value.problems)


def test_a_file_of_many_unknown_keys_is_reported_at_once() -> None:
    """Each unknown key's line is looked up, not searched for: 12,000 take no 12,000²."""
    text = "page: p\n" + "".join(f"k{n}: v\n" for n in range(12_000))
    start = time.perf_counter()
    with pytest.raises(ClaimFileError) as info:
        parse.parse_claims([("p.yaml", text)], today=TODAY, read=read_document)
    assert time.perf_counter() - start < 5
    assert len(info.value.problems) == 12_002
    assert info.value.problems[-1] == "p.yaml:12001: k11999: unknown key"
