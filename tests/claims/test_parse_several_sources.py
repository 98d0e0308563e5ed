"""`sources:` in a claim file: a claim on two or more sources, each part with its quote."""

from __future__ import annotations

import datetime as dt

import pytest

from claimcheck.claims.parse import parse_claims
from claimcheck.claims.shard import shard_of
from claimcheck.claims.yaml_read import read_document
from claimcheck.errors import ClaimFileError
from claimcheck.models import Anchor, Claim, ClaimPart

TODAY = dt.date(2026, 10, 20)
GOOD = """\
page: compare
checked: 2026-10-01
claims:
  - id: row
    claim: Both serve an OpenAI-compatible API.
    sources:
      - source: https://github.com/ggml-org/llama.cpp
        quote: OpenAI API
        suffix: compatible
      - source: https://github.com/vllm-project/vllm#:~:text=OpenAI-compatible%20API%20server
      - source: https://example.org/tgi
        absent: [now in maintenance mode, archived]
        scope: " main "
"""


def parse(text: str) -> list[Claim]:
    return parse_claims([("claims/compare.yaml", text)], today=TODAY, read=read_document)


def problems(text: str) -> list[str]:
    with pytest.raises(ClaimFileError) as caught:
        parse(text)
    return caught.value.problems


def test_a_claim_on_three_sources_has_three_parts_and_shows_the_first() -> None:
    (claim,) = parse(GOOD)
    assert claim.parts == (
        ClaimPart(
            source="https://github.com/ggml-org/llama.cpp",
            anchor=Anchor(quote="OpenAI API", suffix="compatible"),
        ),
        ClaimPart(
            source="https://github.com/vllm-project/vllm",
            anchor=Anchor(quote="OpenAI-compatible API server"),
        ),
        ClaimPart(
            source="https://example.org/tgi",
            anchor=None,
            scope="main",
            absent=("now in maintenance mode", "archived"),
        ),
    )
    assert (claim.source, claim.anchor) == (claim.parts[0].source, claim.parts[0].anchor)
    assert (claim.line, claim.checked) == (4, dt.date(2026, 10, 1))


def test_every_problem_at_once_at_its_part_line() -> None:
    text = """\
page: compare
checked: 2026-10-01
claims:
  - id: row
    claim: c
    source: https://github.com/a/b
    quote: q
    sources:
      - source: https://github.com/a/b
        prefix: p
      - source: https://example.org/x
        absent: ["  "]
      - quote: y
  - id: lone
    claim: c
    sources:
      - source: https://github.com/a/b
        quote: q
  - id: fine
    claim: c
    sources:
      - source: https://github.com/a/b
        quote: q
      - source: https://example.org/
"""
    assert problems(text) == [
        "claims/compare.yaml:6: claim 'row': source: give `source` (one source) or "
        "`sources` (several), not both",
        "claims/compare.yaml:7: claim 'row': quote: a claim with `sources` gives `quote` in "
        "the part it is about",
        "claims/compare.yaml:9: claim 'row': sources[1].quote: quote_end, prefix and suffix "
        "need a quote",
        "claims/compare.yaml:12: claim 'row': sources[2].absent: must not be empty or "
        "whitespace only",
        "claims/compare.yaml:13: claim 'row': sources[3].source: required, but missing",
        "claims/compare.yaml:16: claim 'lone': sources: list two or more sources; a claim on "
        "one source gives `source`",
        "claims/compare.yaml:24: claim 'fine': sources[2].quote: a claim with a source needs "
        "a quote",
    ]


def test_a_file_without_schema_errors_still_checks_each_part() -> None:
    text = GOOD.replace("        absent: [now in maintenance mode, archived]\n", "")
    assert problems(text) == [
        "claims/compare.yaml:11: claim 'row': sources[3].quote: a claim with a source needs a quote"
    ]


def claim_on(claim_id: str, *sources: str) -> Claim:
    parts = tuple(ClaimPart(source=s, anchor=Anchor(quote="q")) for s in sources)
    return Claim(
        id=claim_id,
        page="p",
        claim="c",
        source=sources[0],
        anchor=Anchor(quote="q"),
        checked=TODAY,
        file="claims/p.yaml",
        line=4,
        parts=parts if len(parts) > 1 else (),
    )


def test_a_shard_holds_every_source_of_its_claims_and_no_other_shard_does() -> None:
    urls = [f"https://example.org/{i}" for i in range(12)]
    claims = [claim_on(f"c{i}", url) for i, url in enumerate(urls)]
    claims += [claim_on("row", urls[0], urls[5]), claim_on("chain", urls[5], urls[9])]
    shards = [shard_of(claims, k, 4) for k in range(1, 5)]
    assert sorted(c.id for shard in shards for c in shard) == sorted(c.id for c in claims)
    fetched = [{s for c in shard for s in c.sources} for shard in shards]
    for one in range(4):
        for other in range(one + 1, 4):
            assert not fetched[one] & fetched[other]
    (holder,) = [i for i, shard in enumerate(shards) if "row" in {c.id for c in shard}]
    assert {urls[0], urls[5], urls[9]} <= fetched[holder]
    assert "chain" in {c.id for c in shards[holder]}
