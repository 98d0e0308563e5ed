"""Judge a claim against page bodies given as strings: the pure judgement, no store.

The one way tests and evaluation scripts call the judge on texts, so that they do not
depend on how `Observed` is built inside.
"""

from __future__ import annotations

import datetime as dt
import hashlib

from claimcheck.judge.verdict import Observed, Thresholds, judge_claim, read_page_cached
from claimcheck.models import Anchor, Claim, ClaimResult, MediaType, Snapshot

CHECKED = dt.date(2024, 3, 1)


def make_claim(
    quote: str,
    *,
    quote_end: str | None = None,
    prefix: str | None = None,
    suffix: str | None = None,
    checked: dt.date = CHECKED,
    claim_id: str = "c",
    source: str = "https://github.com/o/r",
) -> Claim:
    """A claim with this anchor, as a claim file would give it."""
    anchor = Anchor(quote=quote, quote_end=quote_end, prefix=prefix, suffix=suffix)
    return Claim(
        id=claim_id,
        page="page",
        claim=f"the claim {claim_id}",
        source=source,
        anchor=anchor,
        checked=checked,
        file="claims/page.yaml",
        line=1,
    )


def snapshot_of(body: str, media: MediaType, when: dt.datetime) -> Snapshot:
    """A stored snapshot of `body` (not written anywhere: the judge only reads it)."""
    digest = hashlib.sha256(body.encode("utf-8")).hexdigest()
    return Snapshot(
        key="o/r",
        url="https://github.com/o/r",
        final_url="https://api.github.com/repos/o/r/readme",
        fetched_at=when,
        status=200,
        sha256=digest,
        media=media,
        file=f"{digest}.md",
    )


def observe_body(snapshot: Snapshot, body: str, *, live: bool) -> Observed:
    """A snapshot's body as the judge sees it: its units and their visible text."""
    page = read_page_cached(body, snapshot.media)
    return Observed(snapshot=snapshot, text=page.text, live=live, body=body, units=page)


def observed(body: str, media: MediaType, when: dt.datetime, *, live: bool) -> Observed:
    return observe_body(snapshot_of(body, media, when), body, live=live)


def judge_bodies(
    claim: Claim,
    now: str,
    *,
    baseline: str | None = None,
    media: MediaType = MediaType.MARKDOWN,
    today: dt.date | None = None,
    thresholds: Thresholds | None = None,
) -> ClaimResult:
    """The verdict on `claim` when its source reads `now` (and read `baseline` on its
    check date, if given)."""
    checked_at = dt.datetime.combine(claim.checked, dt.time(12), tzinfo=dt.UTC)
    state = observed(now, media, checked_at + dt.timedelta(days=30), live=True)
    before = observed(baseline, media, checked_at, live=False) if baseline is not None else None
    return judge_claim(claim, state, thresholds, baseline=before, today=today)
