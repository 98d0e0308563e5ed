"""Baselines and blame: each claim's source as of its check date, and who changed it since.

The baseline of a claim is the stored snapshot of its source as of the claim's
`checked` date. That date is a whole UTC day, and a source may change during it: the
checker saw some version of that day, so the baseline is the newest one in which the
quote holds, and only when it holds in none is it the version at the end of the day.
When no stored snapshot is known to be in force that day, it is backfilled from
history (GitHub commits, or the Wayback Machine for other pages) and stored with its
true date and origin, so the next run finds it on disk. A version from history is known
to be in force only from its date to the day history was asked about (extended when
history answers it again for a later day, `Store.save`): a claim checked later asks
history for its own day rather than take an older claim's version, so its baseline does
not depend on which other claims share its source. For a stale claim on a forge
(GitHub, the Hub, GitLab, Codeberg), blame bisects the commits since the baseline to
name the one that changed the quote; each forge's module (`forges.registry`) reads
its own history.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from claimcheck.config import Config
from claimcheck.forges.forge import Absent, Version, Withheld
from claimcheck.forges.registry import forge_of, servers_of
from claimcheck.forges.resolve import source_ref
from claimcheck.judge.anchor import quote_holds
from claimcheck.judge.answer import Answer, Expect, Suspect
from claimcheck.judge.plausible import judge_answer
from claimcheck.judge.verdict import page_text
from claimcheck.models import (
    Anchor,
    Claim,
    ClaimResult,
    MediaType,
    Snapshot,
    SourceRef,
    Verdict,
)
from claimcheck.store.store import Store

if TYPE_CHECKING:  # history goes online: imported when it is asked (`ask_history`)
    from claimcheck.forges.history import History
    from claimcheck.net.fetcher import Fetcher, FetchSettings

T = TypeVar("T")


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
    key = source_ref(claim.source, config).key
    seen = store.in_force_on(key, claim.checked)
    if len(seen) < 2 or claim.anchor is None:
        return seen[-1] if seen else None
    for snapshot in reversed(seen):
        if quote_holds(claim.anchor, store.page(snapshot).text):
            return snapshot
    return seen[-1]


HistoryWanted = dict[tuple[str, dt.date], SourceRef]
"""The versions a run asks history for: (source key, check date) → the source."""


def history_wanted(claims: Sequence[Claim], config: Config, store: Store) -> HistoryWanted:
    """Every (source, check date) of a claim (every part's) with no stored version that
    old, except those history already said it holds nothing for."""
    wanted: HistoryWanted = {}
    refs: dict[str, SourceRef] = {}  # each source resolved once, not once a claim
    for claim in (view for each in claims for view in each.views()):  # every part's
        if not (claim.source and claim.anchor):
            continue
        ref = refs.get(claim.source)
        if ref is None:
            ref = refs[claim.source] = source_ref(claim.source, config)
        if not wants_history(store, ref, claim.checked):
            continue
        wanted[(ref.key, claim.checked)] = ref
    return wanted


def wants_history(store: Store, ref: SourceRef, day: dt.date) -> bool:
    """Whether history should be asked for `ref` as of `day`: no version known to be in
    force then is stored (`baseline_of` is None; a version from history counts only for
    the days history vouched for it), and history did not say it holds nothing that
    old."""
    if store.in_force_on(ref.key, day):
        return False
    return day.isoformat() > store.history_notes(ref.key).get("none_until", "")


def backfill(
    claims: Sequence[Claim],
    config: Config,
    store: Store,
    settings: FetchSettings,
    *,
    current: frozenset[str] = frozenset(),
    on_progress: Callable[[str, int, int], None] | None = None,
    asked: Collection[tuple[str, dt.date]] = (),
) -> HistoryStats:
    """Store a baseline for every claim whose check date is older than its snapshots.

    `current` names the sources (by key) fetched in this run: their latest snapshot is
    the file as it is now, so a file unchanged since the check date is not downloaded
    a second time. What history answers for good is remembered in the source's index
    (see `Store.history_notes`): a README's path, and "nothing that old", so that a
    claim older than its source is not asked about again every run. `asked`: what this
    run already asked (as each source's answer arrived, `observe.fetch`), whatever
    history said, so that nothing is asked twice in one run.
    """
    stats = HistoryStats()
    wanted = {
        asking: ref
        for asking, ref in history_wanted(claims, config, store).items()
        if asking not in asked
    }
    if not wanted:
        return stats
    refs = {key: ref for (key, _), ref in wanted.items()}
    tick = ticker("reading history", len(wanted), on_progress)

    def steps(history: History) -> list[Awaitable[Version | Absent | None]]:
        return [
            _counted(version_at(history, ref, day, current=key in current), tick)
            for (key, day), ref in wanted.items()
        ]

    found, requests = ask_history(settings, config, store, refs, steps, remember=True)
    stats.requests += requests
    for ((_, day), ref), version in zip(wanted.items(), found, strict=True):
        keep_found(store, ref, day, version, stats)
    return stats


def keep_found(
    store: Store,
    ref: SourceRef,
    day: dt.date,
    version: Version | Absent | None,
    stats: HistoryStats,
) -> None:
    """Store what history found of `ref` as of `day`: a version, with its true date and
    origin, once it passes the same gate as a fetched answer, in force from its date to
    the end of `day` (history vouched for nothing later; a version it gave before stands
    to `day` when it answers that one again); "nothing that old" as a note
    (`none_until`); nothing for a failure, which is asked again next run."""
    key = ref.key
    if isinstance(version, Absent):
        none_until = store.history_notes(key).get("none_until", "")
        store.note_history(key, ref.url, none_until=max(none_until, day.isoformat()))
    if not isinstance(version, Version):
        stats.not_found += 1
        return
    media = ref.media or MediaType.HTML
    latest = store.latest(key)
    if version.body is None:
        # The file as fetched in this run: it passed the gate then, as stored.
        if latest is None:  # pragma: no cover - a current version is a stored one
            stats.not_found += 1
            return
        text = store.read_body(latest)
    else:
        # A capture or an old commit can be a challenge or error page too: the same
        # gate as a fetched answer keeps it from becoming a baseline.
        from_repository = forge_of(ref) is not None
        expect = Expect.GITHUB_RAW if from_repository else Expect.PAGE
        answer = Answer(200, {}, version.body, ref.url, ref.url)
        gate = judge_answer(answer, expect, media, read=store.visible_text)
        if isinstance(gate, Suspect):
            stats.not_found += 1
            return
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
        vouched_until=day,  # history said: this version, as of the end of `day`
    )
    stats.backfilled += 1


async def version_at(
    history: History, ref: SourceRef, day: dt.date, *, current: bool
) -> Version | Absent | None:
    """The source as it stood at the end of `day` (body None: as fetched this run)."""
    until = end_of_day(day)
    forge = forge_of(ref)
    if forge is not None:
        return await forge.version_at(history, ref, until, current=current)
    found = await history.wayback.version(ref.url, until)
    return None if isinstance(found, Withheld) else found  # not asked: no answer


def add_blame(
    results: Sequence[ClaimResult],
    config: Config,
    settings: FetchSettings,
    store: Store | None = None,
    *,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> tuple[list[ClaimResult], HistoryStats]:
    """Name the upstream commit that changed the quote of each stale claim on a forge."""
    stats = HistoryStats()
    store = store or Store.of(config)
    wanted = [i for i, r in enumerate(results) if _blameable(r, config, store)]
    if not wanted:
        return list(results), stats
    sources = {results[i].claim.source for i in wanted} - {None}
    resolved = (source_ref(s, config) for s in sources if s)
    refs = {r.key: r for r in resolved}
    tick = ticker("blaming", len(wanted), on_progress)

    def steps(history: History) -> list[Awaitable[ClaimResult]]:
        return [_counted(_blame(history, results[i], config), tick) for i in wanted]

    blamed, requests = ask_history(settings, config, store, refs, steps, remember=True)
    stats.requests += requests
    updated = list(results)
    for index, result in zip(wanted, blamed, strict=True):
        updated[index] = result
        stats.blamed += result.blame is not None
    return updated, stats


def ticker(
    phase: str, total: int, on_progress: Callable[[str, int, int], None] | None
) -> Callable[[], None]:
    """A function to call as each of `total` steps of `phase` ends, telling `on_progress`."""
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if on_progress is not None:
            on_progress(phase, done, total)

    return tick


async def _counted(step: Awaitable[T], tick: Callable[[], None]) -> T:
    """`step`'s result, with `tick` called once it ends (whether it answered or raised)."""
    try:
        return await step
    finally:
        tick()


def _blameable(result: ClaimResult, config: Config, store: Store) -> bool:
    """Stale, backed by a forge's repository, and the quote did hold at the
    baseline (else no commit removed it: it was never there)."""
    claim, baseline = result.claim, result.baseline
    if not result.verdict.is_stale or baseline is None or claim.source is None:
        return False
    if claim.anchor is None or result.verdict is Verdict.SOURCE_GONE:
        return False
    if forge_of(source_ref(claim.source, config)) is None:
        return False
    return quote_holds(claim.anchor, store.page(baseline).text)


async def _blame(history: History, result: ClaimResult, config: Config) -> ClaimResult:
    claim, baseline = result.claim, result.baseline
    assert claim.source is not None
    assert claim.anchor is not None
    assert baseline is not None
    ref = source_ref(claim.source, config)
    still_holds = functools.partial(_holds, claim.anchor, baseline.media)
    forge = forge_of(ref)
    assert forge is not None  # only forge sources are blamed (`_blameable`)
    culprit = await forge.blame(history, ref, baseline.fetched_at, still_holds)
    return result.model_copy(update={"blame": culprit}) if culprit else result


def _holds(anchor: Anchor, media: MediaType, body: bytes) -> bool:
    return quote_holds(anchor, page_text(body.decode("utf-8", errors="replace"), media))


def history_for(
    fetcher: Fetcher, config: Config, store: Store, refs: dict[str, SourceRef] | None = None
) -> History:
    """History over the fetcher, as the config names its servers and tokens (every
    forge's, the Wayback Machine's unless it is turned off), told the README paths the
    store knows of `refs`, with the answers history gave in this run
    (`Store.history_asked`): each history or blame request is sent once a run,
    whichever step (the fetch's, backfill, blame, cite) and however many claims ask it."""
    # Imported here, not at the top: `forges.history` loads the HTTP client, and an
    # offline run, which imports this module, loads none (see `ask_history`).
    from claimcheck.forges.history import Asked, History

    if store.history_asked is None:
        store.history_asked = Asked()
    history = History(
        fetcher,
        asked=store.history_asked,
        api_url=config.github_api_url,
        token=config.github_token,
        wayback_url=config.wayback_url if config.history.wayback else None,
        hf_endpoint=config.hf_endpoint,
        hf_token=config.hf_token,
        servers=servers_of(config),
    )
    for key, ref in (refs or {}).items():
        forge = forge_of(ref)
        path = store.history_notes(key).get("readme_path")
        if forge is not None and path:
            forge.remembered_path(history, ref, path)
    return history


def remember_paths(history: History, store: Store, refs: dict[str, SourceRef]) -> None:
    """Keep the README paths history learned, in each source's index (asked once ever)."""
    for key, ref in refs.items():
        forge = forge_of(ref)
        path = forge.learned_path(history, ref) if forge is not None else None
        if path and store.history_notes(key).get("readme_path") != path:
            store.note_history(key, ref.url, readme_path=path)


def ask_history(
    settings: FetchSettings,
    config: Config,
    store: Store,
    refs: dict[str, SourceRef],
    steps: Callable[[History], Sequence[Awaitable[T]]],
    *,
    remember: bool,
) -> tuple[list[T], int]:
    """Run `steps` over one history, on a fetcher of their own, at once, in an event loop
    of their own; their answers in order and the requests sent. `remember`: keep the
    README paths history learned (`remember_paths`).

    The one door to history's network half (backfill, blame and the citations' origins
    each go through it): the fetcher and the event loop are imported here, when history
    is asked, never at the top, so that an offline run, which imports this module,
    loads no HTTP client and starts no event loop.
    """
    import asyncio

    from claimcheck.net.fetcher import Fetcher

    async def run() -> tuple[list[T], int]:
        async with Fetcher(settings) as fetcher:
            history = history_for(fetcher, config, store, refs)
            found = await asyncio.gather(*steps(history))
            if remember:
                remember_paths(history, store, refs)
            return list(found), fetcher.requests_made

    return asyncio.run(run())
