"""Which claims drifted since the last online run: the moment `[archive] on = ["drift"]`
captures a source (a plain function of two records, no I/O, so that an offline command
can import it without the archive's HTTP client)."""

from __future__ import annotations

from claimcheck.models import Claim, Report, Verdict
from claimcheck.store.state import RunState


def newly_drifted(report: Report, before: RunState) -> list[Claim]:
    """The claims `report` finds drifted that the last online run (`before`, the state
    read before this run) did not: a source is captured when its claim drifts, not every
    night it stays drifted."""
    drifted = [result.claim for result in report.results if result.verdict is Verdict.DRIFTED]
    return [
        claim
        for claim in drifted
        if (was := before.claims.get(claim.id)) is None or was.verdict is not Verdict.DRIFTED
    ]
