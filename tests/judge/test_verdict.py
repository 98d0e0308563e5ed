"""judge_claim: every verdict from plain values, no I/O."""

from __future__ import annotations

import datetime as dt

import pytest

from claimcheck.judge.anchor import normalize_text
from claimcheck.judge.units import read_page
from claimcheck.judge.verdict import (
    Gone,
    NoSnapshot,
    Observed,
    SourceState,
    Thresholds,
    Unreachable,
    judge_claim,
)
from claimcheck.models import Anchor, Claim, MediaType, Snapshot, Verdict

SNAP = Snapshot(
    key="github.com/o/r/README",
    url="https://github.com/o/r",
    final_url="https://api.github.com/repos/o/r/readme",
    fetched_at=dt.datetime(2026, 10, 20, tzinfo=dt.UTC),
    status=200,
    sha256="0" * 64,
    media=MediaType.MARKDOWN,
    file="2026-10-20T000000Z-00000000.md",
)
QUOTE = "1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"


def claim(anchor: Anchor | None = None, source: str | None = "https://github.com/o/r") -> Claim:
    return Claim(
        id="c",
        page="p",
        claim="supports 1.5- to 8-bit",
        source=source,
        anchor=anchor if anchor is not None else (Anchor(quote=QUOTE) if source else None),
        checked=dt.date(2026, 10, 20),
        cited=None if source else "DeepInfer README / Q&A",
        file="claims/p.yaml",
        line=5,
    )


def seen(text: str, moved_to: str | None = None, live: bool = True) -> Observed:
    return Observed(snapshot=SNAP, text=normalize_text(text), live=live, moved_to=moved_to)


NOW = f"Plain C/C++ implementation. {QUOTE} for faster inference."
CASES: list[tuple[str, Claim, SourceState | None, Verdict, str]] = [
    ("verified", claim(), seen(NOW), Verdict.VERIFIED, "the quote is in the source now"),
    (
        "verified-offline",
        claim(),
        seen(NOW, live=False),
        Verdict.VERIFIED,
        "snapshot of 2026-10-20",
    ),
    (
        "drifted",
        claim(),
        seen("2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization support"),
        Verdict.DRIFTED,
        "the quote changed",
    ),
    (
        "missing",
        claim(),
        seen("Nothing about bits at all here, only apples."),
        Verdict.MISSING,
        "not in the source",
    ),
    ("gone", claim(), Gone(status=404, url="https://x"), Verdict.SOURCE_GONE, "HTTP 404"),
    (
        "moved",
        claim(),
        seen(NOW, moved_to="https://github.com/new/r"),
        Verdict.MOVED,
        "moved permanently",
    ),
    (
        "moved-and-drifted",
        claim(),
        seen(
            "2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization",
            moved_to="https://n",
        ),
        Verdict.DRIFTED,
        "changed",
    ),
    (
        "unreachable",
        claim(),
        Unreachable(reason="HTTP 503 after 4 attempts", hint="try later"),
        Verdict.UNREACHABLE,
        "HTTP 503",
    ),
    (
        "unreachable-with-last",
        claim(),
        Unreachable(reason="timeout", hint="", last=SNAP),
        Verdict.UNREACHABLE,
        "last stored snapshot is from 2026-10-20",
    ),
    ("offline-no-snapshot", claim(), NoSnapshot(), Verdict.UNVERIFIED, "claimcheck snapshot"),
    ("citation-needed", claim(source=None), None, Verdict.UNVERIFIED, "citation needed"),
    (
        "prefix-picks-occurrence",
        claim(Anchor(quote="MIT", prefix="under the", suffix="license")),
        seen("MIT is a university. Released under the MIT license."),
        Verdict.VERIFIED,
        "2 occurrences",
    ),
    (
        "context-lost",
        claim(Anchor(quote="MIT", prefix="under the", suffix="license")),
        seen("MIT is a university. Released under the Apache license."),
        Verdict.DRIFTED,
        "prefix/suffix",
    ),
]


@pytest.mark.parametrize(
    ("the_claim", "state", "verdict", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_verdicts(
    the_claim: Claim, state: SourceState | None, verdict: Verdict, reason: str
) -> None:
    result = judge_claim(the_claim, state)
    assert result.verdict is verdict, result.reason
    assert reason in result.reason


def test_drifted_carries_score_found_text_and_word_diff() -> None:
    result = judge_claim(
        claim(),
        seen("Supports 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization today."),
    )
    assert result.verdict is Verdict.DRIFTED
    assert result.score is not None
    assert 70 <= result.score < 100
    assert result.found is not None
    assert "2-bit" in result.found
    assert result.diff is not None
    assert "[-1.5-bit,-]" in result.diff
    assert result.snapshot == SNAP


def test_verified_carries_the_found_text_and_full_score() -> None:
    result = judge_claim(claim(), seen(NOW))
    assert result.score == 100.0
    assert result.found == QUOTE


def test_network_trouble_is_never_stale() -> None:
    for state in (Unreachable(reason="x", hint="y"), NoSnapshot()):
        assert not judge_claim(claim(), state).verdict.is_stale


def test_stale_verdicts() -> None:
    assert {v for v in Verdict if v.is_stale} == {
        Verdict.DRIFTED,
        Verdict.CHANGED,
        Verdict.MISSING,
        Verdict.CONTRADICTED,
        Verdict.SOURCE_GONE,
    }


# -- against the baseline ---------------------------------------------------------------


def observed(markdown: str, day: int, sha: str) -> Observed:
    from claimcheck.judge.verdict import page_text as visible_text

    snapshot = SNAP.model_copy(
        update={"fetched_at": dt.datetime(2026, 10, day, tzinfo=dt.UTC), "sha256": sha * 64}
    )
    return Observed(
        snapshot=snapshot,
        text=visible_text(markdown, MediaType.MARKDOWN),
        live=True,
        body=markdown,
    )


TABLE = "## Backends\n\n| Backend | Devices |\n| --- | --- |\n| CUDA | Nvidia GPU |\n"
BACKEND = Claim(
    id="b",
    page="p",
    claim="supports CUDA",
    source="https://github.com/o/r",
    anchor=Anchor(quote="CUDA Nvidia GPU"),
    checked=dt.date(2026, 10, 20),
    file="f",
    line=1,
)


def test_a_renamed_table_header_is_context_changed_with_both_contexts() -> None:
    now = observed(TABLE.replace("| Backend | Devices |", "| Removed backend | Devices |"), 25, "b")
    result = judge_claim(BACKEND, now, baseline=observed(TABLE, 20, "a"))
    assert result.verdict is Verdict.CONTEXT_CHANGED
    assert "its table's header row changed" in result.reason
    assert result.block_before is not None
    assert result.block_after is not None
    assert "[-Backend-]{+Removed backend+}" in (result.block_diff or "")
    assert result.baseline is not None
    assert not result.verdict.is_stale


def test_a_row_added_to_the_table_is_a_sibling_and_still_verified() -> None:
    now = observed(TABLE + "| CANN | Ascend NPU |\n", 25, "b")
    result = judge_claim(BACKEND, now, baseline=observed(TABLE, 20, "a"))
    assert result.verdict is Verdict.VERIFIED


def test_reordered_rows_are_still_verified() -> None:
    base = TABLE + "| CANN | Ascend NPU |\n"
    now = TABLE.replace("| CUDA", "| CANN | Ascend NPU |\n| CUDA")
    result = judge_claim(BACKEND, observed(now, 25, "b"), baseline=observed(base, 20, "a"))
    assert result.verdict is Verdict.VERIFIED


def test_a_quote_never_in_its_baseline_is_missing_even_if_close_now() -> None:
    base = observed("## Backends\n\nNothing here yet.\n", 20, "a")
    now = observed(TABLE.replace("Nvidia GPU", "NVIDIA GPUs"), 25, "b")
    result = judge_claim(BACKEND, now, baseline=base)
    assert result.verdict is Verdict.MISSING
    assert result.reason.startswith("never matched at check date")


def test_a_quote_that_appeared_after_the_check_date_is_verified_with_a_note() -> None:
    base = observed("## Backends\n\nNothing here yet.\n", 20, "a")
    result = judge_claim(BACKEND, observed(TABLE, 25, "b"), baseline=base)
    assert result.verdict is Verdict.VERIFIED
    assert "not yet there on 2026-10-20" in result.reason


@pytest.mark.parametrize(
    ("today", "verdict"),
    [(dt.date(2027, 4, 18), Verdict.VERIFIED), (dt.date(2027, 4, 19), Verdict.EXPIRED)],
    ids=["180-days", "181-days"],
)
def test_expiry_after_max_age(today: dt.date, verdict: Verdict) -> None:
    result = judge_claim(BACKEND, observed(TABLE, 25, "b"), today=today)
    assert result.verdict is verdict


def test_stale_beats_expired_and_expiry_can_be_turned_off() -> None:
    gone = judge_claim(BACKEND, observed("nothing", 25, "b"), today=dt.date(2030, 1, 1))
    assert gone.verdict is Verdict.MISSING
    off = Thresholds(max_age_days=None)
    kept = judge_claim(BACKEND, observed(TABLE, 25, "b"), off, today=dt.date(2030, 1, 1))
    assert kept.verdict is Verdict.VERIFIED


def test_an_observation_is_judged_on_the_page_it_is_given_never_one_it_lacks() -> None:
    """The judge takes a page as a value: an observation made without one (a run reads
    pages only for the claims it judges anew) refuses to be read rather than be judged
    as an empty page; given its page (and its body, for a scope), it is judged on it."""
    body = "# Engine\n\nThe engine supports CUDA.\n"
    page = read_page(body, MediaType.MARKDOWN)
    unread = Observed(SNAP, live=True, moved_to="https://example.org/moved")
    assert unread.unread
    with pytest.raises(LookupError, match="was not read"):
        judge_claim(BACKEND, unread)

    given = unread.with_page(page)
    assert not given.unread
    assert given.page is page
    assert given.text == page.text
    assert (given.snapshot, given.live, given.moved_to) == (SNAP, True, unread.moved_to)
    with pytest.raises(LookupError, match="body"):
        given.scoped("main")
    scoped = unread.with_page(page, body).scoped("h1")
    assert scoped.text == "Engine"
