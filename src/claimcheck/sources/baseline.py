"""Baselines and blame: each claim's source as of its check date, and who changed it since.

The baseline of a claim is the stored snapshot of its source as of the claim's
`checked` date. That date is a whole UTC day, and a source may change during it: the
checker saw some version of that day, so the baseline is the newest one in which the
quote holds, and only when it holds in none is it the version at the end of the day.
When no snapshot is that old, it is backfilled from history (GitHub commits, or the
Wayback Machine for other pages) and stored with its true date and origin, so the next
run finds it on disk. For a stale GitHub-backed claim, blame bisects the commits since
the baseline to name the one that changed the quote.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
from collections.abc import Sequence
from dataclasses import dataclass

from claimcheck.config import Config
from claimcheck.judge.anchor import quote_holds
from claimcheck.judge.context import Context, locate_context
from claimcheck.judge.verdict import Observed, observe_body, page_text
from claimcheck.models import (
    Anchor,
    Claim,
    ClaimResult,
    MediaType,
    Snapshot,
    SourceRef,
    Verdict,
)
from claimcheck.sources.fetch import Fetcher, FetchSettings
from claimcheck.sources.history import History, Version
from claimcheck.sources.plausible import Answer, Expect, Suspect, judge_answer
from claimcheck.sources.resolve import github_file, resolve_source
from claimcheck.sources.store import Store


@dataclass
class HistoryStats:
    """What a history pass did: baselines stored, blames found, requests sent."""

    backfilled: int = 0
    not_found: int = 0
    blamed: int = 0
    requests: int = 0


def end_of_day(day: dt.date) -> dt.datetime:
    """The last moment of a check date, UTC: what the checker saw that day."""
    return dt.datetime.combine(day, dt.time.max, tzinfo=dt.UTC)


def start_of_day(day: dt.date) -> dt.datetime:
    """The first moment of a check date, UTC: what a checker saw when the day began."""
    return dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC)


def observe_snapshot(
    store: Store, snapshot: Snapshot, *, live: bool, moved_to: str | None = None
) -> Observed:
    """A stored snapshot as the judge sees it: its normalized visible text and body."""
    return observe_body(snapshot, store.read_body(snapshot), live=live, moved_to=moved_to)


def baseline_of(store: Store, claim: Claim, config: Config) -> Snapshot | None:
    """The stored version of the claim's source the checker verified it in, on its check date.

    A check date is a day, not a moment: the source may have changed after the checker
    looked. Any version in force during that UTC day (the one of its start included) in
    which the quote holds made the claim true that day, and the newest such is the
    baseline. When it holds in none, the end-of-day version is, so the judge can still
    say the claim never had this support. Only that day's versions are read, and one
    alone needs no reading at all.
    """
    if claim.source is None:
        return None
    key = resolve_source(claim.source, config.github_api_url).key
    seen = store.in_force_during(key, start_of_day(claim.checked), end_of_day(claim.checked))
    if len(seen) < 2 or claim.anchor is None:
        return seen[-1] if seen else None
    for snapshot in reversed(seen):
        if _holds(claim.anchor, snapshot.media, store.read_body(snapshot).encode("utf-8")):
            return snapshot
    return seen[-1]


def backfill(
    claims: Sequence[Claim], config: Config, store: Store, settings: FetchSettings
) -> HistoryStats:
    """Store a baseline for every claim whose check date is older than its snapshots."""
    wanted: dict[tuple[str, dt.date], SourceRef] = {}
    for claim in claims:
        if claim.source and claim.anchor and baseline_of(store, claim, config) is None:
            ref = resolve_source(claim.source, config.github_api_url)
            wanted[(ref.key, claim.checked)] = ref
    stats = HistoryStats()
    if not wanted:
        return stats

    async def run() -> list[Version | None]:
        async with Fetcher(settings) as fetcher:
            history = _history(fetcher, config)
            found = await asyncio.gather(
                *(_version_at(history, ref, end_of_day(day)) for (_, day), ref in wanted.items())
            )
            stats.requests += fetcher.requests_made
        return list(found)

    for ((key, _day), ref), version in zip(wanted.items(), asyncio.run(run()), strict=True):
        if version is None:
            stats.not_found += 1
            continue
        media = ref.media or MediaType.HTML
        # A capture or an old commit can be a challenge or error page too: the same
        # gate as a fetched answer keeps it from becoming a baseline.
        expect = Expect.GITHUB_RAW if github_file(ref) is not None else Expect.PAGE
        gate = judge_answer(Answer(200, {}, version.body, ref.url, ref.url), expect, media)
        if isinstance(gate, Suspect):
            stats.not_found += 1
            continue
        text = gate.text
        store.save(
            key=key,
            url=ref.url,
            final_url=ref.fetch_url,
            status=200,
            body=text.encode("utf-8"),  # stored as UTF-8, like every fetched body
            media=media,
            fetched_at=version.date,
            origin=version.origin,
        )
        stats.backfilled += 1
    return stats


async def _version_at(history: History, ref: SourceRef, until: dt.datetime) -> Version | None:
    source = github_file(ref)
    if source is not None:
        return await history.github_version(source, until)
    return await history.wayback_version(ref.url, until)


def add_blame(
    results: Sequence[ClaimResult], config: Config, settings: FetchSettings
) -> tuple[list[ClaimResult], HistoryStats]:
    """Name the upstream commit that changed the quote of each stale GitHub claim."""
    stats = HistoryStats()
    store = Store(config.snapshots_dir)
    wanted = [i for i, r in enumerate(results) if _blameable(r, config, store)]
    if not wanted:
        return list(results), stats

    async def run() -> list[ClaimResult]:
        async with Fetcher(settings) as fetcher:
            history = _history(fetcher, config)
            blamed = await asyncio.gather(*(_blame(history, results[i], config) for i in wanted))
            stats.requests += fetcher.requests_made
        return list(blamed)

    updated = list(results)
    for index, result in zip(wanted, asyncio.run(run()), strict=True):
        updated[index] = result
        stats.blamed += result.blame is not None
    return updated, stats


def _blameable(result: ClaimResult, config: Config, store: Store) -> bool:
    """Stale, GitHub-backed, and the quote did hold at the baseline (else no commit
    removed it: it was never there)."""
    claim, baseline = result.claim, result.baseline
    if not result.verdict.is_stale or baseline is None or claim.source is None:
        return False
    if claim.anchor is None or result.verdict is Verdict.SOURCE_GONE:
        return False
    if github_file(resolve_source(claim.source, config.github_api_url)) is None:
        return False
    return _holds(claim.anchor, baseline.media, store.read_body(baseline).encode("utf-8"))


async def _blame(history: History, result: ClaimResult, config: Config) -> ClaimResult:
    claim, baseline = result.claim, result.baseline
    assert claim.source is not None
    assert claim.anchor is not None
    assert baseline is not None
    source = github_file(resolve_source(claim.source, config.github_api_url))
    assert source is not None
    culprit, _ = await history.blame(
        source,
        since=baseline.fetched_at,
        still_holds=functools.partial(_holds, claim.anchor, baseline.media),
    )
    return result.model_copy(update={"blame": culprit}) if culprit else result


def _holds(anchor: Anchor, media: MediaType, body: bytes) -> bool:
    return quote_holds(anchor, page_text(body.decode("utf-8", errors="replace"), media))


def _history(fetcher: Fetcher, config: Config) -> History:
    return History(
        fetcher,
        api_url=config.github_api_url,
        token=config.github_token,
        wayback_url=config.wayback_url,
    )


def contexts_of(
    claim: Claim, config: Config, store: Store
) -> tuple[Context | None, Context | None]:
    """The claim's context in its baseline and in the latest snapshot, when found."""
    if claim.source is None or claim.anchor is None:
        return None, None
    latest = store.latest(resolve_source(claim.source, config.github_api_url).key)
    base = baseline_of(store, claim, config)
    before = (
        locate_context(claim.anchor, observe_snapshot(store, base, live=False).page)
        if base
        else None
    )
    after = (
        locate_context(claim.anchor, observe_snapshot(store, latest, live=False).page)
        if latest
        else None
    )
    return before, after
