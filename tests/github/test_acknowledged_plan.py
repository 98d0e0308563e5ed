"""The issue plan of acknowledged review verdicts, pure: no issue while one holds, its
open issue closed with the note; a forged acknowledgement of a stale verdict files as
any stale verdict does."""

from __future__ import annotations

import datetime as dt

from claimcheck.github.sync import Kind, SyncSettings, plan_sync
from claimcheck.models import Acknowledged, Anchor, Claim, ClaimResult, Review, Verdict

REVIEW = Review(
    date=dt.date(2026, 12, 1),
    note="looked",
    verdict=Verdict.CONTEXT_CHANGED,
    version="0123456789abcdef",
)


def result(verdict: Verdict, holds: bool = True) -> ClaimResult:
    claim = Claim(
        id="a",
        page="p",
        claim="c",
        source="https://example.org/",
        anchor=Anchor(quote="q"),
        checked=dt.date(2026, 1, 10),
        file="claims/p.yaml",
        line=4,
        reviewed=REVIEW,
    )
    return ClaimResult(
        claim=claim,
        verdict=verdict,
        reason="why",
        acknowledged=Acknowledged(
            review=REVIEW.model_copy(update={"verdict": verdict}), holds=holds
        ),
    )


def test_an_acknowledged_review_verdict_files_no_issue_and_says_why() -> None:
    (action,) = plan_sync([result(Verdict.CONTEXT_CHANGED)], {}, [], SyncSettings(login=None))
    assert (action.kind, action.reason) == (
        Kind.NOTHING,
        "context-changed: acknowledged on 2026-12-01; no issue",
    )


def test_a_forged_acknowledgement_of_a_stale_verdict_files_its_issue() -> None:
    (action,) = plan_sync([result(Verdict.DRIFTED)], {}, [], SyncSettings(login=None))
    assert action.kind is Kind.CREATE
