"""Claim files: the happy path, every malformed form, and where errors point."""

from __future__ import annotations

import datetime as dt
import textwrap

import pytest

from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.errors import ClaimFileError
from claimcheck.models import Anchor

GOOD = """\
page: deepinfer-vs-llama-cpp
title: DeepInfer vs llama.cpp
checked: 2026-10-20                 # default check date of the claims below
claims:
  - id: llamacpp-quantization
    claim: llama.cpp supports 1.5-bit to 8-bit integer quantization
    source: https://github.com/ggml-org/llama.cpp
    quote: "1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"
  - id: llamacpp-license
    claim: llama.cpp is MIT licensed
    source: https://github.com/ggml-org/llama.cpp/blob/master/LICENSE
    quote: MIT License
    checked: 2026-10-21
"""

LICENSE_URL = "https://github.com/ggml-org/llama.cpp/blob/master/LICENSE"
LICENSE_LINES = f"    source: {LICENSE_URL}\n    quote: MIT License\n"


def problems_of(*files: tuple[str, str]) -> list[str]:
    with pytest.raises(ClaimFileError) as info:
        parse_claims(list(files), read=read_document)
    return info.value.problems


def test_the_readme_example_parses_with_lines_and_default_dates() -> None:
    first, second = parse_claims([("claims/page.yaml", GOOD)], read=read_document)
    assert first.id == "llamacpp-quantization"
    assert first.page == "deepinfer-vs-llama-cpp"
    assert first.checked == dt.date(2026, 10, 20)
    assert (first.file, first.line) == ("claims/page.yaml", 5)
    assert first.anchor == Anchor(
        quote="1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"
    )
    assert second.checked == dt.date(2026, 10, 21)
    assert second.line == 9


def test_prefix_suffix_and_range_fields_reach_the_anchor() -> None:
    text = GOOD.replace(
        "    quote: MIT License\n",
        "    quote: MIT\n    quote_end: License\n    prefix: the\n    suffix: applies\n",
    )
    claim = parse_claims([("p.yaml", text)], read=read_document)[1]
    assert claim.anchor == Anchor(quote="MIT", quote_end="License", prefix="the", suffix="applies")


def test_a_text_fragment_url_carries_the_anchor() -> None:
    text = GOOD.replace(
        LICENSE_LINES,
        "    source: https://example.org/page#:~:text=the-,MIT%20License,-applies\n",
    )
    claim = parse_claims([("p.yaml", text)], read=read_document)[1]
    assert claim.source == "https://example.org/page"
    assert claim.anchor == Anchor(quote="MIT License", prefix="the", suffix="applies")


def test_a_claim_without_source_is_citation_needed() -> None:
    text = GOOD + textwrap.indent(
        "- id: deepinfer-license\n"
        "  claim: DeepInfer is Apache-2.0\n"
        "  cited: DeepInfer README / Q&A\n",
        "  ",
    )
    claim = parse_claims([("p.yaml", text)], read=read_document)[2]
    assert claim.source is None
    assert claim.anchor is None
    assert claim.cited == "DeepInfer README / Q&A"


BAD = [
    (
        "unknown-key",
        ("    quote: MIT License\n", "    quote: MIT License\n    colour: red\n"),
        "p.yaml:13: claim 'llamacpp-license': colour: unknown key",
    ),
    (
        "empty-quote",
        ("    quote: MIT License\n", '    quote: "  "\n'),
        "p.yaml:12: claim 'llamacpp-license': quote: must not be empty",
    ),
    (
        "bad-url",
        ("blob/master/LICENSE", "blob/master/LICENSE with space"),
        "p.yaml:11: claim 'llamacpp-license': source: must not contain whitespace",
    ),
    (
        "not-http",
        ("https://github.com/ggml-org/llama.cpp/blob", "ftp://github.com/ggml-org/llama.cpp/blob"),
        "p.yaml:11: claim 'llamacpp-license': source: must be an http(s) URL",
    ),
    (
        "bad-date",
        ("    checked: 2026-10-21\n", "    checked: 2026-13-45\n"),
        "p.yaml:13: claim 'llamacpp-license': checked:",
    ),
    ("bad-file-date", ("checked: 2026-10-20 ", "checked: yesterday "), "p.yaml:3: checked:"),
    (
        "missing-quote",
        ("    quote: MIT License\n", ""),
        "p.yaml:9: claim 'llamacpp-license': quote: a claim with a source needs a quote",
    ),
    (
        "no-source-no-cited",
        ("    source: https://github.com/ggml-org/llama.cpp/blob/master/LICENSE\n", ""),
        "p.yaml:9: claim 'llamacpp-license': source: give a source URL, or `cited`",
    ),
    (
        "quote-not-a-string",
        ("    quote: MIT License\n", "    quote: 3\n"),
        "p.yaml:12: claim 'llamacpp-license': quote: must be text, not a number (3); put it "
        "in quotes",
    ),
    (
        "bad-id",
        ("id: llamacpp-license", "id: llamacpp license!"),
        "p.yaml:9: claim 'llamacpp license!': id: must be letters, digits, '.', '_' and '-'",
    ),
    ("missing-claims", ("claims:\n", "claimz:\n"), "p.yaml:4: claimz: unknown key"),
    ("invalid-fragment", ("    quote: MIT License\n", ""), None),
]


@pytest.mark.parametrize(
    ("change", "expected"), [(c, e) for _, c, e in BAD if e], ids=[i for i, _, e in BAD if e]
)
def test_malformed_claim_files_name_file_line_claim_and_field(
    change: tuple[str, str], expected: str
) -> None:
    old, new = change
    assert old in GOOD
    problems = problems_of(("p.yaml", GOOD.replace(old, new, 1)))
    assert any(p.startswith(expected) for p in problems), problems


@pytest.mark.parametrize(
    ("fragment", "message"),
    [
        ("#:~:text=-,foo", "source:"),
        ("#:~:text=", "source:"),
        ("#:~:text=a&text=b", "source:"),
    ],
    ids=["dash-without-term", "empty-text", "two-text-directives"],
)
def test_invalid_text_fragments_are_claim_file_errors(fragment: str, message: str) -> None:
    text = GOOD.replace(
        LICENSE_LINES,
        f"    source: https://example.org/{fragment}\n",
    )
    problems = problems_of(("p.yaml", text))
    assert any(p.startswith(f"p.yaml:11: claim 'llamacpp-license': {message}") for p in problems), (
        problems
    )


def test_quote_given_twice_is_an_error() -> None:
    text = GOOD.replace("blob/master/LICENSE\n", "blob/master/LICENSE#:~:text=MIT\n")
    problems = problems_of(("p.yaml", text))
    assert problems == [
        "p.yaml:12: claim 'llamacpp-license': quote: the source URL already carries a text "
        "fragment; give the quote once"
    ]


def test_duplicate_ids_across_files_point_at_both() -> None:
    problems = problems_of(
        ("a.yaml", GOOD), ("b.yaml", GOOD.replace("page: deepinfer", "page: other"))
    )
    assert problems == [
        "b.yaml:5: claim 'llamacpp-quantization': id: duplicate id, first defined at a.yaml:5",
        "b.yaml:9: claim 'llamacpp-license': id: duplicate id, first defined at a.yaml:9",
    ]


def test_invalid_yaml_names_the_line() -> None:
    problems = problems_of(("p.yaml", GOOD.replace("    quote: MIT License", '    quote: "MIT')))
    assert problems[0].startswith("p.yaml:1") or problems[0].startswith("p.yaml:"), problems
    assert "invalid YAML" in problems[0]


def test_duplicate_yaml_keys_are_errors() -> None:
    problems = problems_of(
        (
            "p.yaml",
            GOOD.replace("    quote: MIT License\n", "    quote: MIT License\n    quote: MIT\n"),
        )
    )
    assert "p.yaml:13: invalid YAML" in problems[0]


def test_a_file_that_is_not_a_mapping_is_an_error() -> None:
    assert problems_of(("p.yaml", "- just\n- a list\n")) == [
        "p.yaml:1: a claim file must be a mapping with page, checked, claims"
    ]


def test_all_problems_of_all_files_are_reported_together() -> None:
    one = GOOD.replace("    quote: MIT License\n", '    quote: ""\n')
    two = (
        GOOD.replace("page: deepinfer-vs-llama-cpp", "page: two")
        .replace("llamacpp-", "x-")
        .replace("checked: 2026-10-21", "checked: never")
    )
    problems = problems_of(("one.yaml", one), ("two.yaml", two))
    assert [p.split(":")[0] for p in problems] == ["one.yaml", "two.yaml"]


# -- bad text: surrogate escapes and control characters --------------------------------

EVERY_FIELD = """\
page: {page}
title: {title}
checked: 2026-10-20
claims:
  - id: {id}
    claim: {claim}
    source: {source}
    quote: {quote}
    quote_end: {quote_end}
    prefix: {prefix}
    suffix: {suffix}
  - id: cited-only
    claim: c
    cited: {cited}
"""
FIELD_LINES = {
    "page": 1,
    "title": 2,
    "id": 5,
    "claim": 6,
    "source": 7,
    "quote": 8,
    "quote_end": 9,
    "prefix": 10,
    "suffix": 11,
    "cited": 14,
}
PLAIN_VALUES = {
    "page": "p",
    "title": "A page",
    "id": "a",
    "claim": "the claim",
    "source": "https://e.org/x",
    "quote": "quote",
    "quote_end": "end",
    "prefix": "before",
    "suffix": "after",
    "cited": "the README",
}
PAIR = "\\ud83d\\udda5"  # U+1F5A5 as a JSON writer escapes it, in YAML double quotes
LONE = "\\ud83d"


def every_field(**scalars: str) -> str:
    """The claim file with every string key, each plain unless given as a YAML scalar."""
    return EVERY_FIELD.format(**{**PLAIN_VALUES, **scalars})


def printable(problems: list[str]) -> list[str]:
    """Problems must reach a UTF-8 terminal: no lone surrogates, no raw control characters."""
    for problem in problems:
        problem.encode("utf-8")
        assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in problem), problem
    return problems


TEXT_FIELDS = ["title", "claim", "source", "quote", "quote_end", "prefix", "suffix", "cited"]


@pytest.mark.parametrize("field", TEXT_FIELDS)
def test_a_surrogate_pair_escape_becomes_its_character(field: str) -> None:
    separator = "" if field == "source" else " "
    value = f"{PLAIN_VALUES[field]}{separator}\U0001f5a5"
    text = every_field(**{field: f'"{PLAIN_VALUES[field]}{separator}{PAIR}"'})

    claim, cited = parse_claims([("p.yaml", text)], read=read_document)

    anchor = claim.anchor
    assert anchor is not None
    seen = {
        "claim": claim.claim,
        "source": claim.source,
        "quote": anchor.quote,
        "quote_end": anchor.quote_end,
        "prefix": anchor.prefix,
        "suffix": anchor.suffix,
        "cited": cited.cited,
    }
    assert seen.get(field, value) == value
    for text_value in [*seen.values(), claim.id, claim.page]:
        assert text_value is None or text_value.encode("utf-8")


def test_the_reported_quote_is_the_one_the_issue_names() -> None:
    text = every_field(quote=f'"{PAIR} Supports CUDA"')

    claim, _ = parse_claims([("p.yaml", text)], read=read_document)

    assert claim.anchor is not None
    assert claim.anchor.quote == "\U0001f5a5 Supports CUDA"


@pytest.mark.parametrize("field", ["page", "id"])
def test_a_joined_pair_in_a_slug_is_reported_as_its_character(field: str) -> None:
    text = every_field(**{field: f'"x{PAIR}"'})

    problems = printable(problems_of(("p.yaml", text)))

    assert any(f"{field}: must be letters, digits" in p for p in problems), problems


@pytest.mark.parametrize("field", list(FIELD_LINES))
def test_a_lone_surrogate_names_file_line_and_field(field: str) -> None:
    text = every_field(**{field: f'"{PLAIN_VALUES[field]}{LONE}"'})
    at = len(PLAIN_VALUES[field]) + 1

    problems = printable(problems_of(("claims/p.yaml", text)))

    assert len(problems) == 1, problems
    assert problems[0].startswith(f"claims/p.yaml:{FIELD_LINES[field]}: "), problems
    assert f"{field}: character {at} is a lone surrogate U+D83D" in problems[0]


def test_a_lone_surrogate_names_the_claim() -> None:
    problems = problems_of(("p.yaml", every_field(quote=f'"{LONE} Supports CUDA"')))
    assert problems == [
        "p.yaml:8: claim 'a': quote: character 1 is a lone surrogate U+D83D, half of a UTF-16 "
        "pair and not a character: write the character itself, or both halves of its \\u pair"
    ]


def test_a_pair_in_the_wrong_order_is_two_lone_halves() -> None:
    problems = problems_of(("p.yaml", every_field(quote='"\\udda5\\ud83d"')))
    assert "quote: character 1 is a lone surrogate U+DDA5" in problems[0]


@pytest.mark.parametrize(
    "escape", ["\\0", "\\x07", "\\e", "\\r", "\\x1f", "\\x7f", "\\x80", "\\N", "\\x9f"]
)
def test_a_control_character_escape_names_file_line_claim_and_field(escape: str) -> None:
    problems = printable(problems_of(("p.yaml", every_field(quote=f'"a{escape}b"'))))
    assert len(problems) == 1, problems
    assert problems[0].startswith("p.yaml:8: claim 'a': quote: character 2 is the control "), (
        problems
    )


def test_tab_and_newline_are_text() -> None:
    claim, _ = parse_claims([("p.yaml", every_field(quote='"a\\tb\\nc"'))], read=read_document)
    assert claim.anchor is not None
    assert claim.anchor.quote == "a\tb\nc"


def test_every_bad_string_of_a_file_is_reported() -> None:
    text = every_field(title='"\\x07"', quote=f'"{LONE}"', cited='"\\x1b[31m"')
    problems = printable(problems_of(("p.yaml", text)))
    assert [p.split(": ")[0] for p in problems] == ["p.yaml:2", "p.yaml:8", "p.yaml:14"]


def test_a_bad_key_is_reported_without_its_bad_character() -> None:
    text = every_field() + '    "\\udda5": x\n'
    problems = printable(problems_of(("p.yaml", text)))
    assert problems == [
        "p.yaml:15: claim 'cited-only': key '\\udda5': character 1 is a lone surrogate U+DDA5, "
        "half of a UTF-16 pair and not a character: write the character itself, or both "
        "halves of its \\u pair"
    ]


def test_a_literal_control_character_names_line_column_and_field() -> None:
    text = every_field(quote="Supports\x07 CUDA")
    problems = printable(problems_of(("p.yaml", text)))
    assert problems == [
        "p.yaml:8: quote: column 20 is the control character U+0007: only tab and newline "
        "may appear"
    ]


def test_a_literal_control_character_in_a_block_scalar_names_its_key() -> None:
    text = every_field(quote="|\n      first line\n      second\x01line")
    problems = printable(problems_of(("p.yaml", text)))
    assert problems == [
        "p.yaml:10: quote: column 13 is the control character U+0001: only tab and newline "
        "may appear"
    ]


def test_a_control_character_in_a_text_fragment_is_an_error() -> None:
    text = GOOD.replace(LICENSE_LINES, "    source: https://example.org/page#:~:text=MIT%07\n")
    problems = printable(problems_of(("p.yaml", text)))
    assert problems == [
        "p.yaml:11: claim 'llamacpp-license': source: the text fragment's quote: character 4 "
        "is the control character U+0007: only tab and newline may appear"
    ]
