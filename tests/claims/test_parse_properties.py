"""Property tests: the claim parser, the text-fragment parser and the normalizer never crash.

Whatever text a pull request puts in a claim file, parsing either returns claims or raises
`ClaimFileError` naming `file:line`; a source URL's fragment either parses or raises
`FragmentError`; normalizing text is idempotent.
"""

from __future__ import annotations

import datetime as dt
import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from claimcheck.claims.field_checks import bad_character
from claimcheck.claims.fragment import FragmentError, split_text_fragment
from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.errors import ClaimFileError
from claimcheck.judge.normalize import normalize_text

GOOD = """\
page: p
title: "A page"
checked: 2026-01-01
claims:
  - id: a
    claim: a claim
    source: https://example.com/page
    quote: a quote of some words
    prefix: before
  - id: b
    claim: another
    cited: a book
"""
TODAY = dt.date(2026, 6, 1)
WHERE = re.compile(r"^p\.yaml:\d+: ")
# What YAML reads as structure, and the characters the checks care about.
YAML_BITS = st.sampled_from(
    [
        "&a ", "*a", "!!binary ", "!x ", "<<: ", "? ", "- ", ": ", "[", "]", "{", "}", ",",
        "\n", "\n  ", "\n    ", '"', "'", "\\", "\\u200b", "\\ud800", "#", "|", ">", "---",
        "...", "%", "@", "`", "\t", "\x00", "\x1b", "\u200b", "\u202e", "\ufeff", "\x85",
        "2999-01-01", "null", "~", "1e400", ":99999", "#:~:text=", "%20", "%00", "%FF",
    ]
)  # fmt: skip
NOISE = st.lists(st.one_of(YAML_BITS, st.text(max_size=4)), max_size=12).map("".join)
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def parse_or_refuse(text: str) -> None:
    problems: list[str] = []
    try:
        claims = parse_claims([("p.yaml", text)], today=TODAY, read=read_document)
    except ClaimFileError as error:
        problems, claims = error.problems, []
    assert all(WHERE.match(problem) for problem in problems), problems
    for claim in claims:  # what the parser lets through is text a reader can see
        assert claim.checked <= TODAY + dt.timedelta(days=1)
        if claim.anchor is not None:
            assert normalize_text(claim.anchor.quote)
            assert bad_character(claim.anchor.quote) is None


@SETTINGS
@given(st.text())
@example("a: &x [*x]\n")
@example("claims: " + "[" * 10_000)
@example("page: p\nchecked: 2026-01-01\nclaims:\n  - !!python/object/apply:os.system [x]\n")
def test_any_text_is_claims_or_a_claim_file_error(text: str) -> None:
    parse_or_refuse(text)


@SETTINGS
@given(position=st.integers(0, len(GOOD)), cut=st.integers(0, 8), noise=NOISE)
def test_a_damaged_claim_file_is_claims_or_a_claim_file_error(
    position: int, cut: int, noise: str
) -> None:
    parse_or_refuse(GOOD[:position] + noise + GOOD[position + cut :])


@SETTINGS
@given(field=st.sampled_from(["quote", "prefix", "claim", "source", "checked"]), value=NOISE)
def test_any_value_of_a_field_is_claims_or_a_claim_file_error(field: str, value: str) -> None:
    lines = [
        f"    {field}: {value}" if line.startswith(f"    {field}:") else line
        for line in GOOD.splitlines()
    ]
    if field == "checked":
        lines = [f"checked: {value}" if line.startswith("checked:") else line for line in lines]
    parse_or_refuse("\n".join(lines) + "\n")


FRAGMENT_BITS = st.sampled_from(
    [
        "text=",
        "&",
        ",",
        "-",
        "%",
        "%2",
        "%20",
        "%2C",
        "%2D",
        "%00",
        "%E2%80%8B",
        "%FF",
        ":~:",
        "#",
        "a",
        "é",
    ]
)


@SETTINGS
@given(st.one_of(st.text(), st.lists(FRAGMENT_BITS, max_size=10).map("".join)))
def test_any_fragment_is_an_anchor_or_a_fragment_error(fragment: str) -> None:
    try:
        url, anchor = split_text_fragment("https://example.com/page#:~:" + fragment)
    except FragmentError:
        return
    assert url.startswith("https://example.com/page")
    if anchor is not None:
        assert anchor.quote


@SETTINGS
@given(st.lists(FRAGMENT_BITS, min_size=1, max_size=8).map("".join))
def test_a_fragment_in_a_claim_file_is_claims_or_a_claim_file_error(fragment: str) -> None:
    text = GOOD.replace("    quote: a quote of some words\n    prefix: before\n", "").replace(
        "https://example.com/page", f"'https://example.com/page#:~:text={fragment}'"
    )
    parse_or_refuse(text)


@settings(max_examples=500, deadline=None)
@given(st.text())
@example("\u200b \u200b")
@example("\ufb01 \u2033")
def test_normalizing_is_idempotent(text: str) -> None:
    once = normalize_text(text)
    assert normalize_text(once) == once
