"""`absent:` in a claim file: text the source must not say ("is not", "lacks" claims)."""

from __future__ import annotations

import datetime as dt

import pytest

from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.errors import ClaimFileError

TODAY = dt.date(2026, 10, 21)
HEAD = "page: p\nchecked: 2026-10-01\nclaims:\n"


def parse(body: str) -> list[object]:
    return list(parse_claims([("claims/p.yaml", HEAD + body)], today=TODAY, read=read_document))


def problems(body: str) -> list[str]:
    with pytest.raises(ClaimFileError) as raised:
        parse_claims([("claims/p.yaml", HEAD + body)], today=TODAY, read=read_document)
    return raised.value.problems


def test_an_absence_claim_needs_no_quote() -> None:
    (claim,) = parse(
        "  - id: not-multi-tenant\n"
        "    claim: llama.cpp is not a multi-tenant serving platform\n"
        "    source: https://github.com/ggml-org/llama.cpp\n"
        "    absent: '  multi-tenant serving  '\n"
    )
    assert claim.absent == ("multi-tenant serving",)  # type: ignore[attr-defined]
    assert claim.anchor is None  # type: ignore[attr-defined]


def test_absent_beside_a_quote_keeps_both() -> None:
    (claim,) = parse(
        "  - id: cuda-no-rocm\n"
        "    claim: It runs on CUDA, not ROCm\n"
        "    source: https://github.com/ggml-org/llama.cpp\n"
        "    quote: CUDA\n"
        "    absent: ROCm\n"
    )
    assert claim.anchor.quote == "CUDA"  # type: ignore[attr-defined]
    assert claim.absent == ("ROCm",)  # type: ignore[attr-defined]


def test_absent_without_a_source_and_blank_absent_are_errors() -> None:
    found = problems(
        "  - id: no-source\n"
        "    claim: x\n"
        "    absent: KV cache\n"
        "  - id: cited\n"
        "    claim: x\n"
        "    cited: a talk\n"
        "    absent: KV cache\n"
        "  - id: blank\n"
        "    claim: y\n"
        "    source: https://example.org/\n"
        "    absent: '   '\n"
    )
    assert found == [
        "claims/p.yaml:6: claim 'no-source': absent: what a source must not say needs the "
        "source: give `source`",
        "claims/p.yaml:10: claim 'cited': absent: a claim with `cited` names no source, so no "
        "`absent`: give `source` instead of `cited`, or leave `absent` out",
        "claims/p.yaml:14: claim 'blank': absent: must not be empty or whitespace only",
    ]


def test_a_source_still_needs_a_quote_or_absent() -> None:
    assert problems("  - id: bare\n    claim: z\n    source: https://example.org/\n") == [
        "claims/p.yaml:4: claim 'bare': quote: a claim with a source needs a quote"
    ]


def test_absent_may_list_several_texts_any_of_which_contradicts() -> None:
    (claim,) = parse(
        "  - id: no-pd\n"
        "    claim: llama.cpp has no PD disaggregation\n"
        "    source: https://github.com/ggml-org/llama.cpp\n"
        "    absent: [disaggregation, disaggregated, ' disaggregation ']\n"
    )
    assert claim.absent == ("disaggregation", "disaggregated")  # type: ignore[attr-defined]


def test_an_empty_list_or_a_blank_text_in_it_is_an_error() -> None:
    found = problems(
        "  - id: none\n    claim: x\n    source: https://example.org/\n    absent: []\n"
        "  - id: blank\n    claim: y\n    source: https://example.org/\n"
        "    absent: [ok, '  ']\n"
    )
    assert [p.split(": ", 2)[-1] for p in found] == [
        "absent: give at least one text the source must not say",
        "absent: must not be empty or whitespace only",
    ]
