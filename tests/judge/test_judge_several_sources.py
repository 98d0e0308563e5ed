"""A claim on several sources: each part judged as a claim of its source, the worst wins."""

from __future__ import annotations

import datetime as dt

from claimcheck.judge.anchor import normalize_text
from claimcheck.judge.verdict import (
    NoSnapshot,
    Observed,
    SourceState,
    Unreachable,
    combine_parts,
    judge_claim,
)
from claimcheck.models import Anchor, Claim, ClaimPart, ClaimResult, MediaType, Snapshot, Verdict

LLAMA = "https://github.com/ggml-org/llama.cpp"
VLLM = "https://github.com/vllm-project/vllm"
TGI = "https://github.com/huggingface/text-generation-inference"


def snap(url: str) -> Snapshot:
    return Snapshot(
        key=url.removeprefix("https://") + "/README",
        url=url,
        final_url=url,
        fetched_at=dt.datetime(2026, 7, 1, tzinfo=dt.UTC),
        status=200,
        sha256="0" * 64,
        media=MediaType.MARKDOWN,
        file="2026-07-01T000000Z-00000000.md",
    )


def seen(url: str, text: str) -> Observed:
    return Observed(snapshot=snap(url), text=normalize_text(text), live=True)


ROW = Claim(
    id="row",
    page="compare",
    claim="Both are plain C/C++ or serve an OpenAI-compatible API; TGI is maintained",
    source=LLAMA,
    anchor=Anchor(quote="Plain C/C++ implementation"),
    checked=dt.date(2026, 7, 1),
    file="claims/compare.yaml",
    line=4,
    parts=(
        ClaimPart(source=LLAMA, anchor=Anchor(quote="Plain C/C++ implementation")),
        ClaimPart(source=VLLM, anchor=Anchor(quote="OpenAI-compatible API server")),
        ClaimPart(source=TGI, anchor=None, absent=("now in maintenance mode",)),
    ),
)
PAGES = {
    LLAMA: "- Plain C/C++ implementation without any dependencies",
    VLLM: "- OpenAI-compatible API server, plus Anthropic Messages API",
    TGI: "Text Generation Inference is a toolkit for deploying LLMs.",
}


def judged(claim: Claim, states: dict[str, SourceState]) -> ClaimResult:
    """As `run` judges it: each part against its own source's state, then combined."""
    parts = [judge_claim(view, states[view.source or ""]) for view in claim.views()]
    return combine_parts(claim, parts)


def test_a_single_source_claim_is_its_own_only_view() -> None:
    single = ROW.model_copy(update={"parts": ()})
    assert single.views() == (single,)
    assert single.sources == (LLAMA,)


def test_each_part_is_a_claim_of_its_source() -> None:
    views = ROW.views()
    assert [v.source for v in views] == [LLAMA, VLLM, TGI]
    assert views[2].anchor is None
    assert views[2].absent == ("now in maintenance mode",)
    assert all(v.parts == () and v.id == "row" and v.line == 4 for v in views)
    assert ROW.sources == (LLAMA, VLLM, TGI)


def test_every_part_holds_so_the_claim_is_verified() -> None:
    result = judged(ROW, {url: seen(url, text) for url, text in PAGES.items()})
    assert result.verdict is Verdict.VERIFIED
    assert [p.verdict for p in result.parts] == [Verdict.VERIFIED] * 3
    assert result.reason == (
        f"all 3 sources hold; part 1 of 3 ({LLAMA}): the quote is in the source now"
    )
    assert result.claim.parts == ROW.parts


def test_one_changed_quote_makes_the_claim_stale_and_names_its_part() -> None:
    pages = {**PAGES, VLLM: "- An OpenAI-compatible server for the API, plus more"}
    result = judged(ROW, {url: seen(url, text) for url, text in pages.items()})
    assert result.verdict is Verdict.DRIFTED
    assert result.reason.startswith(f"part 2 of 3 ({VLLM}): the quote changed")
    assert [p.verdict for p in result.parts] == [
        Verdict.VERIFIED,
        Verdict.DRIFTED,
        Verdict.VERIFIED,
    ]
    # The result shows the failing part: its source, its quote, its found text.
    assert result.claim.source == VLLM
    assert result.claim.anchor == Anchor(quote="OpenAI-compatible API server")
    assert result.found == result.parts[1].found
    assert result.diff is not None


def test_an_absence_part_said_contradicts_the_claim() -> None:
    pages = {**PAGES, TGI: "text-generation-inference is now in maintenance mode."}
    result = judged(ROW, {url: seen(url, text) for url, text in pages.items()})
    assert result.verdict is Verdict.CONTRADICTED
    assert result.reason.startswith(f"part 3 of 3 ({TGI}): the source now says ")
    assert result.found == "text-generation-inference is now in maintenance mode."
    assert result.claim.anchor is None
    assert result.claim.absent == ("now in maintenance mode",)


def test_stale_beats_unreachable_beats_verified() -> None:
    states: dict[str, SourceState] = {
        LLAMA: Unreachable(reason="timed out", hint="run again"),
        VLLM: seen(VLLM, "nothing about servers here"),
        TGI: seen(TGI, PAGES[TGI]),
    }
    assert judged(ROW, states).verdict is Verdict.MISSING
    states[VLLM] = seen(VLLM, PAGES[VLLM])
    unknown = judged(ROW, states)
    assert unknown.verdict is Verdict.UNREACHABLE
    assert unknown.reason.startswith(f"part 1 of 3 ({LLAMA}): could not fetch the source")


def test_a_part_never_stored_leaves_the_claim_unverified_not_verified() -> None:
    states: dict[str, SourceState] = {url: seen(url, text) for url, text in PAGES.items()}
    states[TGI] = NoSnapshot()
    result = judged(ROW, states)
    assert result.verdict is Verdict.UNVERIFIED
    assert result.claim.source == TGI  # so the gate counts it unchecked (exit 3)
    assert result.reason.startswith(f"part 3 of 3 ({TGI}): offline and no snapshot")


def test_the_first_of_equally_bad_parts_is_named() -> None:
    states: dict[str, SourceState] = {url: seen(url, "nothing") for url in PAGES}
    result = judged(ROW, states)
    assert [p.verdict for p in result.parts][:2] == [Verdict.MISSING, Verdict.MISSING]
    assert result.reason.startswith(f"part 1 of 3 ({LLAMA}):")
