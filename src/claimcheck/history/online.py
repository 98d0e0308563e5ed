"""Asking history: backfill, blame, and which fixed version a snapshot is.

The network half of history (`baseline.py` holds the offline half): every question
goes through `ask_history`, on a fetcher and an event loop of its own. Only online
paths import this module (`observe.online`, the `backfill`, `blame` and `cite`
commands), so an offline run loads no HTTP client and starts no event loop.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import hashlib
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TypeVar

from claimcheck.config import Config
from claimcheck.forges.forge import Absent, Version, Withheld
from claimcheck.forges.history import Asked, History
from claimcheck.forges.registry import forge_of, servers_of
from claimcheck.forges.resolve import source_ref
from claimcheck.history.baseline import end_of_day, history_wanted, ticker
from claimcheck.history.citations import LEARN_LIMIT, Citer, dated_note, utc_iso
from claimcheck.judge.anchor import quote_holds
from claimcheck.judge.answer import Answer, Expect, Suspect
from claimcheck.judge.fields import holds_in
from claimcheck.judge.pdf import is_pdf, stored_bytes, stored_text
from claimcheck.judge.plausible import judge_answer
from claimcheck.judge.verdict import page_text
from claimcheck.models import (
    Anchor,
    Claim,
    ClaimResult,
    FieldValue,
    MediaType,
    Snapshot,
    SourceKind,
    SourceRef,
    Verdict,
)
from claimcheck.net.fetcher import Fetcher, FetchSettings
from claimcheck.store.files import StoredBody
from claimcheck.store.store import Store

T = TypeVar("T")


@dataclass
class HistoryStats:
    """What a history pass did: baselines stored, blames found, requests sent."""

    backfilled: int = 0
    not_found: int = 0
    blamed: int = 0
    requests: int = 0


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
    latest = store.latest(key)
    # A web page's media is what its fetched answers were (a JSON document's is JSON),
    # HTML when none is stored: a capture carries no type of its own here.
    media = ref.media or (latest.media if latest is not None else MediaType.HTML)
    if version.body is not None and is_pdf(version.body):
        media = MediaType.PDF  # a capture of a PDF (a web source says no media of its own)
    body: bytes | StoredBody
    if version.body is None:
        # The file as fetched in this run: it passed the gate then, as stored, and the
        # store has it (by its digest, so it is not read back).
        if latest is None:  # pragma: no cover - a current version is a stored one
            stats.not_found += 1
            return
        body = store.body_file(latest)
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
        body = stored_bytes(gate.text, media)  # stored as every fetched body is
    store.save(
        key=key,
        url=ref.url,
        final_url=ref.fetch_url,
        status=200,
        body=body,
        media=media,
        fetched_at=version.date,
        origin=version.origin,
        vouched_until=day,  # history said: this version, as of the end of `day`
    )
    stats.backfilled += 1


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
    if (claim.anchor is None and claim.field is None) or result.verdict is Verdict.SOURCE_GONE:
        return False
    ref = source_ref(claim.source, config)
    if forge_of(ref) is None or ref.kind is SourceKind.GITHUB_REPO:  # no history to blame
        return False
    if claim.field is not None:  # the field held the value at the baseline
        return holds_in(claim.field, store.read_body(baseline), baseline.media)
    assert claim.anchor is not None
    return quote_holds(claim.anchor, store.page(baseline).text)


async def _blame(history: History, result: ClaimResult, config: Config) -> ClaimResult:
    claim, baseline = result.claim, result.baseline
    assert claim.source is not None
    assert baseline is not None
    ref = source_ref(claim.source, config)
    still_holds: Callable[[bytes], bool]
    if claim.field is not None:  # the commit after which the field held another value
        still_holds = functools.partial(_field_holds, claim.field, baseline.media)
    else:
        assert claim.anchor is not None
        still_holds = functools.partial(_holds, claim.anchor, baseline.media)
    forge = forge_of(ref)
    assert forge is not None  # only forge sources are blamed (`_blameable`)
    culprit = await forge.blame(history, ref, baseline.fetched_at, still_holds)
    return result.model_copy(update={"blame": culprit}) if culprit else result


def _field_holds(field: FieldValue, media: MediaType, body: bytes) -> bool:
    return holds_in(field, body.decode("utf-8", errors="replace"), media)


def _holds(anchor: Anchor, media: MediaType, body: bytes) -> bool:
    return quote_holds(anchor, page_text(stored_text(body, media), media))


def history_for(
    fetcher: Fetcher, config: Config, store: Store, refs: dict[str, SourceRef] | None = None
) -> History:
    """History over the fetcher, as the config names its servers and tokens (every
    forge's, the Wayback Machine's unless it is turned off), told the README paths the
    store knows of `refs`, with the answers history gave in this run
    (`Store.history_asked`): each history or blame request is sent once a run,
    whichever step (the fetch's, backfill, blame, cite) and however many claims ask it."""
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

    The one door to history's network (backfill, blame and the citations' origins each
    go through it).
    """

    async def run() -> tuple[list[T], int]:
        async with Fetcher(settings) as fetcher:
            history = history_for(fetcher, config, store, refs)
            found = await asyncio.gather(*steps(history))
            if remember:
                remember_paths(history, store, refs)
            return list(found), fetcher.requests_made

    return asyncio.run(run())


def learn_origins(
    results: Sequence[ClaimResult],
    store: Store,
    config: Config,
    settings: FetchSettings,
    *,
    limit: int = LEARN_LIMIT,
) -> tuple[dict[str, str], int]:
    """Ask which fixed version each result's snapshot is, and remember what is learnt.

    At most `limit` snapshots are asked about. A snapshot is accepted as a commit's file
    only when the file at that commit is byte for byte the stored body; a Wayback
    capture (the newest no later than the snapshot) only when a reader sees the same
    text in it as in the stored body; a page whose URL may not be shown to a third
    party (an internal address) or with the Wayback Machine turned off is not asked
    about at all (`wayback.Wayback.version`). Returns a note per snapshot left
    without a version (by `key/file`), and the requests made. A network fault or rate
    limit leaves a snapshot without a version: it never changes a verdict.
    """
    wanted: dict[str, tuple[SourceRef, Snapshot]] = {}
    citer = Citer(store, config)
    for result in results:
        if result.snapshot is not None and result.claim.source is not None:
            key = f"{result.snapshot.key}/{result.snapshot.file}"
            wanted.setdefault(key, (citer.ref_of(result), result.snapshot))
    chosen = dict(list(wanted.items())[:limit])
    notes = {key: "not asked: over the limit of a run" for key in list(wanted)[limit:]}
    if not chosen:
        return notes, 0

    def steps(history: History) -> list[Awaitable[tuple[str | None, str | None]]]:
        return [_origin(history, ref, snapshot, store) for ref, snapshot in chosen.values()]

    refs = {s.key: r for r, s in chosen.values()}
    answers, requests = ask_history(settings, config, store, refs, steps, remember=False)
    for (key, (ref, snapshot)), (origin, note) in zip(chosen.items(), answers, strict=True):
        if origin is not None:
            store.note_origin(snapshot.key, ref.url, snapshot.sha256, origin)
        elif note is not None:
            notes[key] = note
    return notes, requests


async def _origin(
    history: History, ref: SourceRef, snapshot: Snapshot, store: Store
) -> tuple[str | None, str | None]:
    """The origin of a snapshot (`commit SHA`, `wayback URL`), or None and why not."""
    forge = forge_of(ref)
    notes = store.history_notes(snapshot.key)
    if forge is not None and forge.named_path(ref) is None and not notes.get("readme_path"):
        await forge.file_path(history, ref)
        learned = forge.learned_path(history, ref)  # answered, not the fallback
        if learned:
            store.note_history(snapshot.key, ref.url, readme_path=learned)
    known = store.origin_of(snapshot)
    if known is not None:
        return known, None
    # A history that did not answer says nothing of the source: said so, never as a fact
    # about the page (a note may be pasted into an article with the citation).
    if forge is not None:
        commit = await forge.commit_before(history, ref, snapshot.fetched_at)
        if commit is None:
            return None, "the forge's history did not answer; run again later"
        if isinstance(commit, Absent):
            return None, "the forge named no commit of the file at the snapshot's time"
        body = await forge.file_at(history, ref, commit.sha)
        if body is None:
            return None, f"the file at commit {commit.sha[:12]} could not be read; run again later"
        if hashlib.sha256(body).hexdigest() != snapshot.sha256:
            return None, (
                f"the file at commit {commit.sha[:12]} is not the stored snapshot: the "
                "source changed without a commit of this file, or the commit list is late"
            )
        origin = f"commit {commit.sha}"
        store.note_history(snapshot.key, ref.url, **{dated_note(origin): utc_iso(commit.date)})
        return origin, None
    found = await history.wayback.version(ref.url, snapshot.fetched_at)
    if isinstance(found, Withheld):
        return None, found.reason  # nothing was sent: the page's URL stays here
    if found is None:
        return None, "the Wayback Machine did not answer; run again later"
    if not isinstance(found, Version) or not found.origin.startswith("wayback "):
        return None, "the Wayback Machine has no capture of the page from before the snapshot"
    # A capture is cited only when a reader sees in it what was checked: the same text.
    body = found.body
    shown = page_text(stored_text(body, snapshot.media), snapshot.media) if body else ""
    if shown != store.page(snapshot).text:
        day = found.date.date().isoformat()
        return None, f"the Wayback Machine's capture of {day} does not show the stored snapshot"
    return found.origin, None
