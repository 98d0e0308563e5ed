"""Claim files: the happy path, every malformed form, and where errors point."""

from __future__ import annotations

import datetime as dt
import textwrap

import pytest

from claimcheck.claims.parse import claim_file_schema, parse_claims
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
        parse_claims(list(files))
    return info.value.problems


def test_the_readme_example_parses_with_lines_and_default_dates() -> None:
    first, second = parse_claims([("claims/page.yaml", GOOD)])
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
    claim = parse_claims([("p.yaml", text)])[1]
    assert claim.anchor == Anchor(quote="MIT", quote_end="License", prefix="the", suffix="applies")


def test_a_text_fragment_url_carries_the_anchor() -> None:
    text = GOOD.replace(
        LICENSE_LINES,
        "    source: https://example.org/page#:~:text=the-,MIT%20License,-applies\n",
    )
    claim = parse_claims([("p.yaml", text)])[1]
    assert claim.source == "https://example.org/page"
    assert claim.anchor == Anchor(quote="MIT License", prefix="the", suffix="applies")


def test_a_claim_without_source_is_citation_needed() -> None:
    text = GOOD + textwrap.indent(
        "- id: deepinfer-license\n"
        "  claim: DeepInfer is Apache-2.0\n"
        "  cited: DeepInfer README / Q&A\n",
        "  ",
    )
    claim = parse_claims([("p.yaml", text)])[2]
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
        "p.yaml:12: claim 'llamacpp-license': quote: Value error, must not be empty",
    ),
    (
        "bad-url",
        ("blob/master/LICENSE", "blob/master/LICENSE with space"),
        "p.yaml:11: claim 'llamacpp-license': source: Value error, must not contain whitespace",
    ),
    (
        "not-http",
        ("https://github.com/ggml-org/llama.cpp/blob", "ftp://github.com/ggml-org/llama.cpp/blob"),
        "p.yaml:11: claim 'llamacpp-license': source: Value error, must be an http(s) URL",
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
        "p.yaml:12: claim 'llamacpp-license': quote: Input should be a valid string",
    ),
    (
        "bad-id",
        ("id: llamacpp-license", "id: llamacpp license!"),
        "p.yaml:9: claim 'llamacpp license!': id: String should match pattern",
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


def test_schema_is_a_json_schema_that_accepts_the_example() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from ruamel.yaml import YAML

    schema = claim_file_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    data = YAML(typ="safe").load(GOOD)
    data["checked"] = data["checked"].isoformat()
    data["claims"][1]["checked"] = data["claims"][1]["checked"].isoformat()
    jsonschema.validate(data, schema)
    bad = {**data, "colour": "red"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
