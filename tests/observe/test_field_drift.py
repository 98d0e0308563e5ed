"""A field's value newly changed is a drift for `[archive] on = ["drift"]`, as a reworded
quote is; one that stays changed, or was drifted before, is not new."""

from __future__ import annotations

import datetime as dt

from claimcheck.models import Report, Verdict
from claimcheck.observe.drift import newly_drifted
from claimcheck.store.state import ClaimState, RunState
from support.claim_results import result

WHEN = dt.datetime(2026, 11, 1, 3, tzinfo=dt.UTC)


def test_a_newly_changed_field_is_a_drift() -> None:
    report = Report(
        generated_at=WHEN,
        offline=False,
        results=(
            result("license", Verdict.CHANGED),
            result("release", Verdict.CHANGED),
            result("quote", Verdict.DRIFTED),
            result("holds", Verdict.VERIFIED),
        ),
    )
    before = RunState(
        claims={
            "license": ClaimState(verdict=Verdict.VERIFIED, reason="held", since=WHEN),
            "release": ClaimState(verdict=Verdict.CHANGED, reason="changed", since=WHEN),
            "quote": ClaimState(verdict=Verdict.VERIFIED, reason="held", since=WHEN),
        }
    )

    assert [claim.id for claim in newly_drifted(report, before)] == ["license", "quote"]
