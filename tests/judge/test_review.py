"""The acknowledgement of a review verdict, weighed purely: the verdict, the version of
what it is about, and the last day, against a `reviewed:` entry written by hand."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest

from claimcheck.judge.review import acknowledge, version_of
from claimcheck.models import Anchor, Claim, ClaimResult, Review, Verdict

CONTEXT = "§ Serving (deprecated)\nThe server batches incoming requests continuously."
DAY = dt.date(2026, 12, 6)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def review(**fields: object) -> Review:
    entry: dict[str, object] = {
        "date": dt.date(2026, 12, 1),
        "note": "looked",
        "verdict": Verdict.CONTEXT_CHANGED,
        "version": digest(f"context-changed\n{CONTEXT}"),
        **fields,
    }
    return Review.model_validate(entry)


def result(
    verdict: Verdict = Verdict.CONTEXT_CHANGED,
    block_after: str | None = CONTEXT,
    reviewed: Review | None = None,
    moved_to: str | None = None,
) -> ClaimResult:
    claim = Claim(
        id="a",
        page="p",
        claim="c",
        source="https://example.org/",
        anchor=Anchor(quote="q"),
        checked=dt.date(2026, 1, 10),
        file="claims/p.yaml",
        line=4,
        reviewed=review() if reviewed is None else reviewed,
    )
    return ClaimResult(
        claim=claim,
        verdict=verdict,
        reason="why",
        block_after=block_after,
        moved_to=moved_to,
    )


def test_the_version_is_the_digest_of_what_the_verdict_is_about() -> None:
    assert version_of(result()) == digest(f"context-changed\n{CONTEXT}")
    moved = result(Verdict.MOVED, None, moved_to="https://example.org/new")
    assert version_of(moved) == digest("moved\nhttps://example.org/new")


def test_an_acknowledgement_of_the_same_verdict_and_version_holds_through_its_last_day() -> None:
    held = acknowledge(result(reviewed=review(until=DAY)), DAY)
    assert held.acknowledged is not None
    assert (held.acknowledged.holds, held.acknowledged.lapsed) == (True, None)
    assert held.quiet
    assert (held.verdict, held.reason) == (Verdict.CONTEXT_CHANGED, "why")


LAPSES = {
    "context-changed-again": (
        result(block_after="§ Serving (removed)\nThe server batches."),
        "the source changed since",
    ),
    "another-verdict": (result(Verdict.DRIFTED), "the verdict is now drifted"),
    "ran-out": (
        result(reviewed=review(until=DAY - dt.timedelta(days=1))),
        "it ran out on 2026-12-05",
    ),
}


@pytest.mark.parametrize(("judged", "lapsed"), LAPSES.values(), ids=LAPSES.keys())
def test_an_acknowledgement_lapses_and_the_reason_says_why(
    judged: ClaimResult, lapsed: str
) -> None:
    weighed = acknowledge(judged, DAY)
    assert weighed.acknowledged is not None
    assert (weighed.acknowledged.holds, weighed.acknowledged.lapsed) == (False, lapsed)
    assert not weighed.quiet
    assert weighed.verdict is judged.verdict
    assert weighed.reason == (
        f"why; acknowledged as context-changed on 2026-12-01, but {lapsed}: the "
        "acknowledgement no longer holds"
    )


@pytest.mark.parametrize("verdict", [Verdict.VERIFIED, Verdict.UNREACHABLE, Verdict.UNVERIFIED])
def test_verified_and_unknown_verdicts_carry_no_acknowledgement(verdict: Verdict) -> None:
    judged = result(verdict)
    assert acknowledge(judged, DAY) is judged
