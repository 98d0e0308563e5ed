"""The one orchestrator: claims → sources → fetch → snapshot → anchor → verdict → report.

The CLI (and later the scheduler) call `run_verify` / `run_snapshot`; everything here
is wiring between the pure stages and the two I/O boundaries, the fetcher and the
store. Each distinct source is fetched once, however many claims cite it.

The fetching half (httpx, the guard, history) is imported by the functions that go
online, when they run: an offline run, the CI gate's most common form, does not pay
for importing an HTTP client it never uses.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from claimcheck.cache.kept import Kept
from claimcheck.cache.keys import code_version
from claimcheck.cache.verdicts import Verdicts
from claimcheck.claims.article import (
    ArticleError,
    article_media,
    article_too_large,
    not_utf8_article,
    parse_article,
)
from claimcheck.claims.parse import file_too_large, parse_claims
from claimcheck.claims.problems import not_utf8_problem
from claimcheck.config import Config
from claimcheck.errors import ClaimFileError, StoreError
from claimcheck.forges.forge import Servers
from claimcheck.forges.github import (
    JSON_MEDIA_TYPE,
    api_request,
    rename_github_url,
    renamed_repository,
)
from claimcheck.forges.registry import forge_of, servers_of
from claimcheck.forges.resolve import source_ref
from claimcheck.history.baseline import (
    HistoryStats,
    HistoryWanted,
    add_blame,
    backfill,
    baseline_of,
    history_for,
    history_wanted,
    keep_found,
    observe_snapshot,
    remember_paths,
    ticker,
    version_at,
    wants_history,
)
from claimcheck.history.citations import Citer, learn_origins, uncited
from claimcheck.judge.answer import Answer, Expect, Previous, Suspect, Suspicion
from claimcheck.judge.extract import media_for
from claimcheck.judge.plausible import answer_text, judge_answer
from claimcheck.judge.verdict import Gone as GoneState
from claimcheck.judge.verdict import (
    NoSnapshot,
    Observed,
    SourceState,
    Thresholds,
    Unreachable,
    combine_parts,
    expire,
    judge_claim,
)
from claimcheck.models import (
    Claim,
    ClaimResult,
    MediaType,
    Report,
    Snapshot,
    SourceRef,
)
from claimcheck.report.build import build_report
from claimcheck.store.known import (
    as_claim_sees,
    as_found,
    found_in_run,
    stands_on_now,
    track_alias,
)
from claimcheck.store.state import (
    STATE_FILE,
    ClaimState,
    RunState,
    load_state,
    record_report,
    save_state,
    suspect_count,
)
from claimcheck.store.store import FETCHED, Store
from claimcheck.utf8 import NotUtf8Error, decode_utf8

if TYPE_CHECKING:  # the fetching half is imported when a run goes online (see below)
    from claimcheck.cache.read_ahead import Wanted
    from claimcheck.cache.read_as_fetched import ReadAsFetched
    from claimcheck.net.fetch import Fetched, FetchOutcome, FetchRequest
    from claimcheck.net.fetcher import Fetcher, FetchSettings
    from claimcheck.render.render import RenderOutcome

ProgressCallback = Callable[[str, int, int], None]
"""Told the phase a run is in ("fetching", "fetching and reading history" when the fetch
asks history as each answer arrives, "reading history", "blaming", "judging"), how many
of its steps are done and how many there are."""
JUDGING_STEP = 250  # judging is told every this many claims, and at its end
IN_HAND_PER_REQUEST = 2
"""Sources a fetch holds between their request and their stored version, per request it
may have in flight: enough to keep every connection busy while the workers read."""


@dataclass
class RunStats:
    """What a run did, for the one-line summary and the scheduler's log.

    `requests` are those sent for the sources themselves (their pages, a forge's file,
    a renamed repository's new name); `history_requests` those sent to read history
    (baselines, blame, citations: a forge's commits, the Wayback Machine), counted
    apart so that neither is taken for the other.
    """

    sources: int = 0
    requests: int = 0
    history_requests: int = 0
    new_snapshots: int = 0
    not_modified: int = 0
    failed: list[str] = field(default_factory=list)
    suspects: dict[str, int] = field(default_factory=dict)  # source → suspicious runs in a row
    stored_files: list[Path] = field(default_factory=list)
    """The files of the snapshots folder this run wrote or removed (`Store.changed_files`)
    and the state file it recorded: what a commit of the run names, and nothing else."""


def _kept_claims(snapshots: Path | None, *, create: bool) -> Kept | None:
    if snapshots is None or not (create or snapshots.is_dir()):
        return None  # a run without a store (lint in a new folder) writes nothing
    return Kept(snapshots, CLAIMS_FILE, _claims_version())


@functools.cache
def _claims_version() -> str:
    """A digest of everything that decides what a claim file gives besides its text."""
    import claimcheck.claims
    from claimcheck import models

    return code_version((claimcheck.claims, models), ("pydantic", "pyyaml"))


def claim_files(paths: Sequence[Path]) -> list[Path]:
    """The claim files named: files as given, folders as their *.yaml / *.yml files.

    A file named `*.md` / `*.markdown` / `*.html` / `*.htm` is an article, read for its
    highlight links (`claims.article`); folders are never searched for articles.
    """
    files: list[Path] = []
    problems: list[str] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted([*path.glob("*.yaml"), *path.glob("*.yml")]))
        elif path.is_file():
            files.append(path)
        else:
            problems.append(f"{path}: no such claim file or folder")
    if problems:
        raise ClaimFileError(problems)
    return files


CLAIMS_FILE = "claims.json"
"""Where the claims of claim files read without a problem are kept between runs."""


def load_claims(
    paths: Sequence[Path],
    *,
    kept_in: Path | None = None,
    create: bool = False,
    defer: Callable[[Callable[[], None]], None] | None = None,
) -> list[Claim]:
    """Read claim files and articles (folders mean their *.yaml / *.yml files) and parse them.

    The claims come in the files' order; an id is unique across claim files and
    articles alike. `kept_in`, the snapshots folder, keeps what each claim file gave
    (`parse_claims`'s `kept`) in its `.cache`, for the next run to take while the file
    is unchanged: when the folder exists, or with `create` (a run that makes the store
    anyway), once every file, claim file and article, has been read without a problem
    and there are claims: a run refused for its input writes nothing. `defer` takes
    that write, to do it once the command's input is accepted (`cli.guard.once_accepted`).
    """
    files = claim_files(paths)
    unreadable: dict[str, str] = {}
    texts: list[tuple[str, str]] = []
    articles: list[tuple[str, str, MediaType]] = []
    for path in files:
        name = path.as_posix()
        media = article_media(name)
        try:
            # A huge file is refused before it is read into memory at all.
            size = path.stat().st_size
            too_large = (
                file_too_large(name, size) if media is None else article_too_large(name, size)
            )
            if too_large is not None:
                unreadable[name] = too_large
                continue
            text = decode_utf8(path.read_bytes())
        except NotUtf8Error as exc:
            unreadable[name] = (
                not_utf8_problem(name, exc) if media is None else not_utf8_article(name, exc)
            )
            continue
        except OSError as exc:
            unreadable[name] = f"{path}:1: cannot read: {exc}"
            continue
        if media is None:
            texts.append((name, text))
        else:
            articles.append((name, text, media))
    problems: list[str] = []
    claims: list[Claim] = []
    in_claim_files = False  # a problem in a claim file: its hint is the claim files'
    kept = _kept_claims(kept_in, create=create)
    try:
        claims = parse_claims(texts, kept=kept)
    except ClaimFileError as exc:
        problems.extend(exc.problems)
        in_claim_files = True
    seen = {claim.id: f"{claim.file}:{claim.line}" for claim in claims}
    for name, text, media in articles:
        try:
            found = parse_article(name, text, media)
        except ClaimFileError as exc:
            problems.extend(exc.problems)
            continue
        for claim in found:
            first = seen.setdefault(claim.id, f"{claim.file}:{claim.line}")
            if first != f"{claim.file}:{claim.line}":
                problems.append(
                    f"{claim.file}:{claim.line}: claim {claim.id!r}: id: duplicate id, first "
                    f"defined at {first}"
                )
                continue
            claims.append(claim)
    if problems or unreadable:
        # Every problem at once: an unreadable file does not hide the others'. Only
        # articles' problems: the hint says how an article is read, not the schema.
        in_claim_files = in_claim_files or any(article_media(n) is None for n in unreadable)
        error = ClaimFileError if in_claim_files else ArticleError
        raise error(_in_file_order(files, unreadable, problems))
    if kept is not None and claims:  # a refused run (no claims is one) writes nothing
        (defer or _now)(kept.save)
    if not articles:
        return claims
    order = {path.as_posix(): index for index, path in enumerate(files)}
    return sorted(claims, key=lambda claim: order.get(claim.file, len(order)))


def _now(write: Callable[[], None]) -> None:
    write()


def _in_file_order(
    files: Sequence[Path], unreadable: dict[str, str], parsed: list[str]
) -> list[str]:
    """The problems of unreadable files among the parser's, each file's at its place."""
    names = [path.as_posix() for path in files]

    def file_of(problem: str) -> int:
        owners = [i for i, name in enumerate(names) if problem.startswith(f"{name}:")]
        return max(owners, key=lambda i: len(names[i])) if owners else len(names)

    ordered = sorted(parsed, key=file_of)  # stable: the parser's order within a file
    for name, problem in unreadable.items():
        ordered.insert(sum(1 for p in ordered if file_of(p) < names.index(name)), problem)
    return ordered


def run_verify(
    claims: Sequence[Claim],
    config: Config,
    *,
    offline: bool,
    now: dt.datetime | None = None,
    on_progress: ProgressCallback | None = None,
    remember: bool = True,
    cite: bool = False,
) -> tuple[Report, RunStats]:
    """Fetch (unless offline), store new snapshots and judge every claim.

    `remember` records the verdicts, and what was found of each source, in state.json
    (online runs only); commands that judge a single claim for a person (blame, diff,
    explain) leave the state alone. An offline run judges each source as the last
    online run found it (`observe_sources`), each claim on the version it stands on.
    Every result whose quote holds carries its citation as the store knows it; `cite`
    (online runs) first asks which version the uncited snapshots are (`learn_origins`).
    """
    now = now or dt.datetime.now(dt.UTC)
    started = time.monotonic()
    store = Store.of(config)  # each body read into units once
    baselines: Baselines = {}
    verdicts = Verdicts(config.snapshots_dir)
    citer = Citer(store, config)
    judged: dict[int, ClaimResult] = {}
    early = None
    # Read once: the fetch weighs suspect answers by it, an offline run judges the sources
    # as it says, every claim stands on the versions it says, and the end of an online
    # run records in it (the run holds the store's lock, so no one writes it in between).
    remembered = load_state(config.snapshots_dir)
    with store.batch():  # the run's snapshots are made durable together
        # History is asked as each source's answer arrives; `backfill` asks the rest.
        ahead = None if offline else HistoryAhead.of(claims, config, store, now)
        if ahead is not None:
            early = _JudgedAsSettled(
                claims, config, store, now, verdicts, citer, ahead, judged, remembered.claims
            )
        states, stats = observe_sources(
            claims,
            config,
            offline=offline,
            recorded=True,
            now=now,
            on_progress=on_progress,
            store=store,
            remember=remember,
            history=ahead,
            on_settled=early.settled if early is not None else None,
            remembered=remembered,
        )
        if ahead is not None:
            current = frozenset(
                state.snapshot.key
                for state in states.values()
                if isinstance(state, Observed) and state.live
            )
            history = backfill(
                claims,
                config,
                store,
                fetch_settings(config),
                current=current,
                on_progress=on_progress,
                asked=ahead.asked,
            )
            stats.history_requests += history.requests
    # Judged source by source (a page's derived views stay at hand), reported in order;
    # a run that fetched judged most claims already, each as its source settled.
    order = sorted(
        (i for i in range(len(claims)) if i not in judged),
        key=lambda i: claims[i].source or "",
    )
    release = _Release(claims, order, states)
    store.pages.read_ahead(_pages_in_order(claims, order, states, store))
    before = len(judged)  # judged as their sources settled
    try:
        for position, index in enumerate(order):
            judged[index] = _judge(
                claims[index], states, store, config, now, baselines, verdicts, remembered.claims
            )
            citer.place(judged[index])  # its quote's lines, while its page is at hand
            release.after(position, claims[index], store, baselines)
            if on_progress and (before + position + 1) % JUDGING_STEP == 0:
                on_progress("judging", before + position + 1, len(claims))
    finally:
        store.pages.stop_reading_ahead()
    if on_progress:
        on_progress("judging", len(claims), len(claims))
    verdicts.save()
    results = [judged[index] for index in range(len(claims))]
    # Freed now, not at the return: each step below makes new results, and the kept
    # answers, the judged results and the baselines' pages would otherwise all stay
    # alive with them, at the run's peak.
    del judged, verdicts, baselines, early
    if not offline:
        results, blamed = add_blame(
            results, config, fetch_settings(config), store, on_progress=on_progress
        )
        stats.history_requests += blamed.requests
    if cite and not offline:
        _, asked = learn_origins(uncited(results, store), store, config, fetch_settings(config))
        stats.history_requests += asked
    results = citer.cite_all(results)
    citer.save()
    took = round(time.monotonic() - started, 3)
    report = build_report(results, now=now, offline=offline, duration_s=took)
    if remember and not offline:
        recorded = record_report(
            remembered,
            report,
            stats.suspects,
            found=found_in_run(states, store, config),
            stands_on=stands_on_now(claims, states, remembered.claims),
        )
        save_state(config.snapshots_dir, recorded)
    stats.stored_files = [
        *store.changed_files(),
        *([config.snapshots_dir / STATE_FILE] if remember and not offline else []),
    ]
    return report, stats


def _pages_in_order(
    claims: Sequence[Claim], order: list[int], states: dict[str, SourceState], store: Store
) -> Wanted:
    """The stored pages judging will ask for, each once, in the order it asks for them
    first (`Pages.read_ahead`)."""
    seen: set[str] = set()
    for index in order:
        for source in claims[index].sources:
            state = states.get(source)
            if isinstance(state, Observed) and state.snapshot.sha256 not in seen:
                snapshot = state.snapshot
                seen.add(snapshot.sha256)
                try:  # read by a worker, its digest checked there
                    body: Callable[[], str] = store.body_file(snapshot)
                except StoreError:  # read in place, where the error is the run's
                    body = functools.partial(store.read_body, snapshot)
                yield snapshot.sha256, snapshot.media, body


Baselines = dict[str, dict[str, Observed]]
"""The baselines observed in a run, by source key, then snapshot file."""


class _Release:
    """Frees the pages a run is done with while it judges, so that its peak holds a few
    pages rather than every source's: a body's page once no claim left to judge stands
    on it (sources can share a body), a baseline once its source's last claim is
    judged. A later step that asks for a freed page reads the kept one."""

    def __init__(
        self, claims: Sequence[Claim], order: list[int], states: dict[str, SourceState]
    ) -> None:
        self._states = states
        self._source_done: dict[str, int] = {}
        self._body_done: dict[str, int] = {}
        for done, index in enumerate(order):
            for source in claims[index].sources:
                self._source_done[source] = done
                state = states.get(source)
                if isinstance(state, Observed):
                    self._body_done[state.snapshot.sha256] = done
        self._holders: dict[str, list[Observed]] = {}
        for state in states.values():
            if isinstance(state, Observed):
                self._holders.setdefault(state.snapshot.sha256, []).append(state)

    def after(self, done: int, claim: Claim, store: Store, baselines: Baselines) -> None:
        """Free what the claim judged at position `done` was the last to need."""
        for source in claim.sources:
            state = self._states.get(source)
            if not isinstance(state, Observed):
                continue
            snapshot = state.snapshot
            if self._body_done[snapshot.sha256] == done:
                for holder in self._holders.pop(snapshot.sha256, []):
                    holder.forget_page()
                store.pages.forget(snapshot.sha256, snapshot.media)
            if self._source_done[source] != done:
                continue
            for observed in baselines.pop(snapshot.key, {}).values():
                baseline = observed.snapshot
                if self._body_done.get(baseline.sha256, -1) <= done:
                    store.pages.forget(baseline.sha256, baseline.media)


@dataclass
class _JudgedAsSettled:
    """Judges a source's claims as soon as its state is final in the fetch (`on_settled`
    of `_fetch_states`), inside the wait for the other answers, rather than after the
    last one: the claims on that source alone whose baseline no later step can change
    (its history asked already, or not wanted). The rest are judged after the fetch.

    A claim judged here is judged as it would be there: by `_judge`, on the same state,
    baseline and kept verdicts, and its quote's lines placed while its page is at hand;
    the source's pages are freed once its claims are judged (kept on disk).
    """

    claims: Sequence[Claim]
    config: Config
    store: Store
    now: dt.datetime
    verdicts: Verdicts
    citer: Citer
    history: HistoryAhead
    judged: dict[int, ClaimResult]
    standing: Mapping[str, ClaimState]
    by_source: dict[str, list[int]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        for index, claim in enumerate(self.claims):
            if claim.source and not claim.parts:  # a claim on several waits for all
                self.by_source.setdefault(claim.source, []).append(index)

    def settled(self, url: str, state: SourceState) -> None:
        """Judge the claims on `url` alone whose baseline is final: history asked for
        it in this run, or not wanted (`backfill` would ask the rest after the fetch)."""
        baselines: Baselines = {}
        ref = source_ref(url, self.config)
        for index in self.by_source.pop(url, []):
            claim = self.claims[index]
            asked = (ref.key, claim.checked) in self.history.asked
            if claim.anchor and not asked and wants_history(self.store, ref, claim.checked):
                continue
            result = _judge(
                claim,
                {url: state},
                self.store,
                self.config,
                self.now,
                baselines,
                self.verdicts,
                self.standing,
            )
            self.citer.place(result)
            self.judged[index] = result
        _free_page(self.store, state)
        for of_source in baselines.values():
            for observed in of_source.values():
                self.store.pages.forget(observed.snapshot.sha256, observed.snapshot.media)


def _judge(
    claim: Claim,
    states: dict[str, SourceState],
    store: Store,
    config: Config,
    now: dt.datetime,
    baselines: Baselines,
    verdicts: Verdicts | None = None,
    standing: Mapping[str, ClaimState] | None = None,
) -> ClaimResult:
    """Judge one claim against its source now and its baseline as of its check date.

    `baselines` caches observed baseline snapshots by source and file across the run's claims:
    many claims share a source and a check date. `verdicts` keeps answers across runs;
    `standing`, the claims' records, says the versions each stands on (`as_claim_sees`).
    A claim on several sources is judged a part at a time, each part as a claim of its
    own source (its own state, baseline and kept answer), and its result is the worst
    part's (`combine_parts`).
    """
    if claim.parts:
        parts = [
            _judge(view, states, store, config, now, baselines, verdicts, standing)
            for view in claim.views()
        ]
        return combine_parts(claim, parts)
    state = states.get(claim.source) if claim.source else None
    state = as_claim_sees(claim, state, standing or {})
    snapshot = baseline_of(store, claim, config) if isinstance(state, Observed) else None
    baseline = None
    if snapshot is not None:
        of_source = baselines.setdefault(snapshot.key, {})
        if snapshot.file not in of_source:
            of_source[snapshot.file] = observe_snapshot(store, snapshot, live=False)
        baseline = of_source[snapshot.file]
    verdict = config.verdict
    thresholds = Thresholds(
        drift_min_score=verdict.drift_min_score, max_age_days=verdict.max_age_days or None
    )
    judgeable = claim.anchor is not None or bool(claim.absent)
    if verdicts is not None and isinstance(state, Observed) and judgeable:
        result = verdicts.judge(claim, state, thresholds, baseline=baseline)
        return expire(result, thresholds, now.date())
    return judge_claim(claim, state, thresholds, baseline=baseline, today=now.date())


def observe_sources(
    claims: Sequence[Claim],
    config: Config,
    *,
    offline: bool,
    now: dt.datetime | None = None,
    on_progress: ProgressCallback | None = None,
    store: Store | None = None,
    remember: bool = True,
    history: HistoryAhead | None = None,
    on_settled: Callable[[str, SourceState], None] | None = None,
    remembered: RunState | None = None,
    recorded: bool = False,
) -> tuple[dict[str, SourceState], RunStats]:
    """What is known now of each claim's source, by URL: fetched (and stored) or stored.

    Offline with `recorded` (every verdict: `run_verify`), each source is as the last
    run that fetched found it (`as_found`): gone, moved, refused or not answering with
    the page stays so until an online run says otherwise. Without it (a person editing
    claims against the stored text: lint, accept), simply its latest stored version.

    `remember` keeps the docs version an alias URL ended on (`_track_version`); a run
    that judges for a person alone leaves it, so the next run still reports a move.
    `history`: the versions to ask history for as each answer arrives; `on_settled`
    is told each source whose state is final before the fetch ends (`_fetch_states`);
    `remembered`: the state the caller read (`load_state`), else read here.
    """
    now = now or dt.datetime.now(dt.UTC)
    store = store or Store.of(config)
    refs = _resolve(claims, config)
    if offline:
        if recorded and remembered is None:
            remembered = load_state(config.snapshots_dir)
        record = remembered if recorded else None
        return _stored_states(store, refs, record), RunStats(sources=len(refs))
    rendered = _rendered(claims, refs, config)
    return _fetch_states(
        store,
        refs,
        config,
        now,
        on_progress,
        rendered,
        remember=remember,
        history=history,
        on_settled=on_settled,
        remembered=remembered,
    )


def run_snapshot(
    claims: Sequence[Claim],
    config: Config,
    *,
    now: dt.datetime | None = None,
    on_progress: ProgressCallback | None = None,
) -> RunStats:
    """Fetch every source and store what changed; judge nothing."""
    now = now or dt.datetime.now(dt.UTC)
    store = Store.of(config)
    with store.batch():
        refs = _resolve(claims, config)  # judges nothing: a docs move is left for verify
        rendered = _rendered(claims, refs, config)
        _, stats = _fetch_states(store, refs, config, now, on_progress, rendered, remember=False)
    return stats


def _rendered(
    claims: Sequence[Claim], refs: dict[str, SourceRef], config: Config
) -> frozenset[str]:
    """The source URLs read as headless Chromium renders them (`render/render.py`)."""
    from claimcheck.render.render import rendered_sources

    return rendered_sources(claims, refs, config.fetch.render)


def _resolve(claims: Sequence[Claim], config: Config) -> dict[str, SourceRef]:
    """One SourceRef per distinct source URL (every part's, for a claim on several)."""
    return {source: source_ref(source, config) for claim in claims for source in claim.sources}


def _stored_states(
    store: Store, refs: dict[str, SourceRef], record: RunState | None
) -> dict[str, SourceState]:
    """Each source as `record` says the last run that fetched found it (`as_found`), or
    without one, its latest stored version as it is."""
    states: dict[str, SourceState] = {}
    for url, ref in refs.items():
        if record is not None:
            known = record.sources.get(url)
            states[url] = as_found(store, url, ref, known.found if known else None)
            continue
        latest = store.latest(ref.key)
        states[url] = (
            NoSnapshot() if latest is None else observe_snapshot(store, latest, live=False)
        )
    return states


def _fetch_states(
    store: Store,
    refs: dict[str, SourceRef],
    config: Config,
    now: dt.datetime,
    on_progress: ProgressCallback | None,
    rendered: frozenset[str] = frozenset(),
    *,
    remember: bool = True,
    history: HistoryAhead | None = None,
    on_settled: Callable[[str, SourceState], None] | None = None,
    remembered: RunState | None = None,
) -> tuple[dict[str, SourceState], RunStats]:
    """Fetch every source and take each answer as it arrives: unwrapped (`_unwrapped`),
    its page read by a worker while the others are on their way, weighed by the gate and
    stored, and then, if `history` wants a version of it, its history asked.

    A run is mostly waiting on the network: taking each source through all of this as
    its answer comes, rather than phase after phase, does the reading, storing and the
    history's own waiting inside that wait. What does not depend on one source alone
    comes after: renamed repositories and rendering in Chromium. A source whose state is
    final before then (neither renamed nor rendered) is told to `on_settled` at once,
    so that its claims can be judged inside the wait too.
    """
    import asyncio

    from claimcheck.cache.read_as_fetched import read_as_fetched
    from claimcheck.net.fetch import Fetched, FetchRequest
    from claimcheck.net.fetcher import Fetcher
    from claimcheck.render.render import RENDERED_ORIGIN

    items = list(refs.items())
    servers = servers_of(config)
    requests = []
    for url, ref in items:
        latest = store.latest(ref.key)
        if latest is not None and (latest.origin == RENDERED_ORIGIN) != (url in rendered):
            latest = None  # read the other way last time: a 304 would keep the wrong body
        etag = latest.etag if latest else None
        last_modified = latest.last_modified if latest else None
        forge = forge_of(ref)  # a forge's own request, its token to its own host only
        if forge is None:
            request = FetchRequest(ref.fetch_url, etag=etag, last_modified=last_modified)
        else:
            request = forge.request(
                ref, servers.server(forge), etag=etag, last_modified=last_modified
            )
        requests.append(request)
    stats = RunStats(sources=len(refs))
    if remembered is None:
        remembered = load_state(config.snapshots_dir)
    states: dict[str, SourceState] = {}
    outcomes: dict[str, FetchOutcome | None] = {}  # what the steps after the fetch need
    paths: dict[str, str] = {}
    asks_history = history is not None and bool(history.wanted)
    phase = "fetching and reading history" if asks_history else "fetching"
    tick = ticker(phase, len(items), on_progress)

    async def take_answer(
        fetcher: Fetcher,
        reader: ReadAsFetched,
        asker: _HistoryAsker | None,
        url: str,
        ref: SourceRef,
        request: FetchRequest,
    ) -> tuple[SourceState | None, bool]:
        """The source's state once its answer is in, weighed and stored (None: to be
        rendered after the fetch), and whether it moved."""
        answered = await fetcher.fetch(request)
        outcome, path = await _unwrapped(fetcher, ref, answered, servers, store)
        del answered
        moved = bool(getattr(outcome, "moved_to", None))
        to_render = url in rendered and isinstance(outcome, Fetched)
        # Kept past the fetch only where a later step needs it (a rendering, a rename):
        # not every answer's body at once.
        outcomes[url] = outcome if to_render or moved else None
        tick()  # told before the answer is stored: a stop here stores nothing more
        if path:
            paths[ref.key] = path
            if asker is not None:
                asker.learned_path(ref, path)
        if to_render:
            return None, moved  # rendered after the fetch (`_prepare_renders`)
        if isinstance(outcome, Fetched):
            answer, media = _answer_of(outcome), _answer_media(ref, outcome)
            text = answer_text(answer, media)
            key = store.pages.to_read(text, media)
            if key is not None:  # no page of this body yet: a worker reads it
                document = await reader.read(text, key)
                if document is not None:
                    store.pages.read_elsewhere(key, document)
            del text, answer
            state = _store_answer(store, url, ref, outcome, now, stats, config, remembered)
        else:
            state = _state_of(store, ref, outcome, now, stats)
        if isinstance(state, Observed) and forge_of(ref) is None:
            state = _track_version(store, ref, outcome, state, remember=remember)
        states[url] = state
        return state, moved

    async def observe(
        fetcher: Fetcher,
        reader: ReadAsFetched,
        asker: _HistoryAsker | None,
        in_hand: asyncio.Semaphore,
        url: str,
        ref: SourceRef,
        request: FetchRequest,
    ) -> None:
        # A bounded number of sources between their request and their judging: when
        # the workers read slower than the answers come, the fetch waits for them
        # rather than holding every body in memory. A source's page, read for the gate,
        # is held until its claims are judged (`on_settled` frees it), not read back
        # from the cache for them; a source judged later frees it at once.
        async with in_hand:
            state, moved = await take_answer(fetcher, reader, asker, url, ref, request)
            if state is None:  # its history, and its judging, after the rendering
                return
            if asker is not None:
                await asker.ask(ref, live=isinstance(state, Observed) and state.live)
            if on_settled is not None and not moved:  # a move may be a rename, asked later
                on_settled(url, state)
            else:
                _free_page(store, state)

    async def fetch_all() -> tuple[int, int]:
        async with Fetcher(fetch_settings(config)) as fetcher:
            reader = read_as_fetched(store.pages, len(items))
            asker = None
            looked_up = fetcher.apart()  # history's requests, counted apart
            if history is not None and asks_history:
                asker = _HistoryAsker(history, looked_up, config, store)
            try:
                # A task group: the first to fail (or a progress callback that stops the
                # run) cancels the others at once, so none stores anything after it.
                in_hand = asyncio.Semaphore(IN_HAND_PER_REQUEST * config.fetch.concurrency)
                async with asyncio.TaskGroup() as group:
                    for (url, ref), request in zip(items, requests, strict=True):
                        group.create_task(
                            observe(fetcher, reader, asker, in_hand, url, ref, request)
                        )
            except BaseExceptionGroup as failed:
                raise failed.exceptions[0] from None
            finally:
                reader.close()
            if asker is not None:
                asker.remember_paths()
            return fetcher.requests_made, looked_up.requests_made

    request_count, stats.history_requests = asyncio.run(fetch_all())
    moves = [outcome for outcome in outcomes.values() if outcome is not None]
    renames, rename_requests = _renamed_repositories(moves, config)
    stats.requests = request_count + rename_requests
    # In the claims' order (answers arrive in any): a kept browser renders them in turn.
    to_render = {
        url: outcome
        for url, _ in items
        if url in rendered and isinstance(outcome := outcomes.get(url), Fetched)
    }
    prepared = _prepare_renders(to_render, config) if to_render else {}
    for url, ref in items:
        outcome = outcomes[url]
        state = states.get(url)
        if url in prepared and isinstance(outcome, Fetched):
            state = _render_answer(
                store, url, ref, outcome, prepared[url], now, stats, config, remembered
            )
            if isinstance(state, Observed) and forge_of(ref) is None:
                state = _track_version(store, ref, outcome, state, remember=remember)
        assert state is not None  # every other source's was set as its answer came
        if ref.key in paths:
            store.note_history(ref.key, ref.url, readme_path=paths[ref.key])
        moved = getattr(outcome, "moved_to", None)
        if isinstance(state, Observed) and moved in renames:
            state = state.moved(rename_github_url(ref.url, renames[moved]))
        states[url] = state
    _in_source_order(stats, [ref.url for _, ref in items])
    return {url: states[url] for url, _ in items}, stats


def _in_source_order(stats: RunStats, urls: list[str]) -> None:
    """The failed and suspect sources in the order of the claims, not of their answers'
    arrival: the summary and the scheduler's log read the same from run to run."""
    place = {url: n for n, url in enumerate(urls)}
    stats.failed.sort(key=lambda url: place.get(url, len(place)))
    suspects = sorted(stats.suspects.items(), key=lambda item: place.get(item[0], len(place)))
    stats.suspects = dict(suspects)


@dataclass
class HistoryAhead:
    """The versions a run wants from history, asked in the fetch as each source's answer
    arrives (`_fetch_states`), and those it asked, whatever history said: `backfill`
    then asks only the rest."""

    wanted: HistoryWanted
    asked: set[tuple[str, dt.date]] = field(default_factory=set)

    @classmethod
    def of(
        cls, claims: Sequence[Claim], config: Config, store: Store, now: dt.datetime
    ) -> HistoryAhead:
        """What `backfill` would ask after this run's fetch, known before it: the check
        dates before today, which no version fetched now can be in force on."""
        wanted = history_wanted(claims, config, store)
        return cls({asking: ref for asking, ref in wanted.items() if asking[1] < now.date()})


class _HistoryAsker:
    """Asks history for a source's wanted versions once its state is known, and stores
    what it finds, as `backfill` would (`keep_found`)."""

    def __init__(self, plan: HistoryAhead, fetcher: Fetcher, config: Config, store: Store) -> None:
        self._plan = plan
        self._refs = {key: ref for (key, _), ref in plan.wanted.items()}
        # Told the README paths the store knows, so that each is asked once ever.
        self._history = history_for(fetcher, config, store, self._refs)
        self._store = store
        self._stats = HistoryStats()
        self._days: dict[str, list[tuple[dt.date, SourceRef]]] = {}
        for (key, day), ref in plan.wanted.items():
            self._days.setdefault(key, []).append((day, ref))

    def learned_path(self, ref: SourceRef, path: str) -> None:
        """The README path a source's answer named: its commits are asked by it."""
        forge = forge_of(ref)
        if forge is not None and ref.key in self._refs:
            forge.remembered_path(self._history, self._refs[ref.key], path)

    async def ask(self, ref: SourceRef, *, live: bool) -> None:
        """Ask for the versions wanted of `ref`'s source and store them. `live`: the
        source's latest snapshot is the file as fetched now, so a version unchanged
        since is not downloaded again."""
        import asyncio

        days = self._days.pop(ref.key, [])
        found = await asyncio.gather(
            *(version_at(self._history, wanted, day, current=live) for day, wanted in days)
        )
        for (day, wanted), version in zip(days, found, strict=True):
            keep_found(self._store, wanted, day, version, self._stats)
            self._plan.asked.add((wanted.key, day))

    def remember_paths(self) -> None:
        """Keep the README paths history learned (`remember_paths`)."""
        remember_paths(self._history, self._store, self._refs)


async def _unwrapped(
    fetcher: Fetcher, ref: SourceRef, outcome: FetchOutcome, servers: Servers, store: Store
) -> tuple[FetchOutcome, str | None]:
    """A forge's answer as the file itself, and the path it names.

    A forge's adapter turns its first answer into the file (`Forge.unwrap`): GitHub's
    README content object carries the file and its path (history needs the path, and
    asking for it apart downloaded the file twice), and one over 1 MB, which the object
    leaves out, is asked for again raw; a forge whose first answer only names the README
    has it fetched next, conditional on the stored snapshot. An answer that is not what
    the adapter expects (an error page, a rate-limit message) goes to the plausibility
    gate as it came.
    """
    from claimcheck.net.fetch import Fetched

    forge = forge_of(ref)
    if forge is None or not isinstance(outcome, Fetched):
        return outcome, None
    latest = store.latest(ref.key)
    found = forge.unwrap(
        ref,
        outcome,
        servers.server(forge),
        etag=latest.etag if latest else None,
        last_modified=latest.last_modified if latest else None,
    )
    if found.again is not None:
        return await fetcher.fetch(found.again), found.path
    return (found.outcome if found.outcome is not None else outcome), found.path


def _answer_of(outcome: Fetched) -> Answer:
    """A fetched outcome as the plausibility gate weighs it."""
    headers = {"content-type": outcome.content_type} if outcome.content_type else {}
    return Answer(
        outcome.status,
        headers,
        outcome.body,
        outcome.url,
        outcome.final_url,
        ending=outcome.ending,
    )


def _answer_media(ref: SourceRef, outcome: Fetched) -> MediaType:
    """How a fetched body is read: as its source says, else by its type and path."""
    return ref.media or media_for(outcome.content_type, urlsplit(ref.url).path)


def _track_version(
    store: Store, ref: SourceRef, outcome: FetchOutcome, state: Observed, *, remember: bool
) -> Observed:
    """A docs URL on a moving alias (`/en/latest/`) observed with the version it
    redirected to (`forges.docs_versions`); see `known.track_alias`."""
    final = getattr(outcome, "final_url", None)
    if not isinstance(final, str):
        return state
    return track_alias(store, ref, final, state, remember=remember)


def _renamed_repositories(
    outcomes: Sequence[FetchOutcome], config: Config
) -> tuple[dict[str, str], int]:
    """moved_to → new full_name, for GitHub API redirects to `/repositories/{id}/…`."""
    from claimcheck.net.fetcher import fetch_all_sync

    asked: dict[str, list[str]] = {}
    for outcome in outcomes:
        moved = getattr(outcome, "moved_to", None)
        repository = renamed_repository(moved, config.github_api_url) if moved else None
        if moved and repository:
            asked.setdefault(repository, []).append(moved)
    if not asked:
        return {}, 0
    requests = [
        api_request(
            repository, JSON_MEDIA_TYPE, api_url=config.github_api_url, token=config.github_token
        )
        for repository in asked
    ]
    outcomes_, count = fetch_all_sync(fetch_settings(config), requests)
    renames: dict[str, str] = {}
    for (_repository, moved_urls), outcome in zip(asked.items(), outcomes_, strict=True):
        full_name = _full_name(outcome)
        for moved in moved_urls:
            if full_name:
                renames[moved] = full_name
    return renames, count


def _full_name(outcome: FetchOutcome) -> str | None:
    from claimcheck.net.fetch import Fetched

    if not isinstance(outcome, Fetched):
        return None
    try:
        name = json.loads(outcome.body).get("full_name")
    except (ValueError, AttributeError):
        return None
    return name if isinstance(name, str) and name.count("/") == 1 else None


def _store_answer(
    store: Store,
    url: str,
    ref: SourceRef,
    outcome: Fetched,
    now: dt.datetime,
    stats: RunStats,
    config: Config,
    remembered: RunState,
) -> SourceState:
    """Store a fetched body as a new version, unless the plausibility gate says it is not
    the page: then the last good snapshot stays current and the claim is `unreachable`.

    The body is stored decoded (by HTTP charset, BOM, `<meta>`, detection) as UTF-8, so
    every later read of the store is a plain UTF-8 decode. (A source to render stores
    its DOM instead: `_render_answer`.)
    """
    answer = _answer_of(outcome)
    latest = store.latest(ref.key)
    media = _answer_media(ref, outcome)
    previous = None
    if latest is not None:
        previous = Previous(body=store.read_body(latest), text=store.page(latest).text)
    expect = Expect.PAGE if forge_of(ref) is None else Expect.GITHUB_RAW
    gate = judge_answer(answer, expect, media, previous, read=store.visible_text)
    if isinstance(gate, Suspect):
        return _suspected(url, ref, gate, latest, stats, config, remembered)
    return _keep_version(store, ref, outcome, gate.text, media, now, stats, latest)


def _keep_version(
    store: Store,
    ref: SourceRef,
    outcome: Fetched,
    text: str,
    media: MediaType,
    now: dt.datetime,
    stats: RunStats,
    latest: Snapshot | None,
    origin: str = FETCHED,
) -> Observed:
    """Store the text the gate let through as the source's version of this run (the
    store keeps one copy of an unchanged body) and observe it, live."""
    snapshot = store.save(
        key=ref.key,
        url=ref.url,
        final_url=outcome.final_url,
        status=outcome.status,
        body=text.encode("utf-8"),
        media=media,
        fetched_at=now,
        etag=outcome.etag,
        last_modified=outcome.last_modified,
        origin=origin,
    )
    new = latest is None or latest.sha256 != snapshot.sha256
    stats.new_snapshots += new
    # The gate's reading stays in memory for the source's judging, which frees it (and
    # keeps it on disk then): `_fetch_states` holds a bounded number of sources.
    return observe_snapshot(store, snapshot, live=True, moved_to=outcome.moved_to, fresh=new)


def _free_page(store: Store, state: SourceState) -> None:
    """Free an observed source's page from memory (the cache on disk keeps it)."""
    if isinstance(state, Observed):
        state.forget_page()
        store.pages.forget(state.snapshot.sha256, state.snapshot.media)


def _prepare_renders(
    answers: Mapping[str, Fetched], config: Config
) -> dict[str, Suspect | RenderOutcome]:
    """Each answer of a source to render, prepared for `_render_answer`: the gate's
    refusal of the HTML as served, or the page as headless Chromium renders it.

    The served HTML is judged first as a first fetch would be (the stored version is a
    rendered one, whose text a script shell lacks) and may have no visible text of its
    own, since a script writes it. The pages that pass are rendered side by side, as
    many browsers at once as `render.browsers_to_use` says for the workers the run may
    start (`jobs`). Each rendering thread keeps its browser from page to page, and loads
    each page in a context and behind a guarded proxy of its own (`render.Renderer`),
    so no page sees another's state.
    """
    from concurrent.futures import ThreadPoolExecutor

    from claimcheck.cache.read_ahead import workers_to_use
    from claimcheck.render.render import Renderer, browsers_to_use

    prepared: dict[str, Suspect | RenderOutcome] = {}
    wanted: list[tuple[str, str]] = []  # (source URL, the URL its answer came from)
    for url, outcome in answers.items():
        gate = judge_answer(_answer_of(outcome), Expect.PAGE, MediaType.HTML)
        if isinstance(gate, Suspect) and gate.kind is not Suspicion.NO_TEXT:
            prepared[url] = gate
        else:
            wanted.append((url, outcome.final_url))
    if not wanted:
        return prepared
    settings = fetch_settings(config)
    at_once = min(len(wanted), browsers_to_use(workers_to_use(config.jobs)))
    pool = ThreadPoolExecutor(max_workers=at_once, thread_name_prefix="claimcheck-render")
    with Renderer(
        policy=settings.address_policy, timeout=settings.timeout, max_bytes=settings.max_bytes
    ) as renderer:
        try:
            pages = list(pool.map(renderer.render, [final_url for _, final_url in wanted]))
        finally:
            # On a stop (Ctrl-C), no page starts after it; those loading end within
            # `timeout`, and every browser is killed with its process group.
            pool.shutdown(wait=True, cancel_futures=True)
    prepared.update(zip([url for url, _ in wanted], pages, strict=True))
    return prepared


def _render_answer(
    store: Store,
    url: str,
    ref: SourceRef,
    outcome: Fetched,
    prepared: Suspect | RenderOutcome,
    now: dt.datetime,
    stats: RunStats,
    config: Config,
    remembered: RunState,
) -> SourceState:
    """Store the DOM of a rendered page (`_prepare_renders`) as the source's new version.

    What the browser got decides (`render.judge_rendered`): the status of the document
    it loaded, the proxy's refusal of it, and the whole gate on the DOM against the
    stored rendered version. A refused answer is `unreachable` (never stale) and stores
    nothing, and so is a failed render: a failed fetch.
    """
    from claimcheck.render.render import RENDERED_ORIGIN, RenderFailed, judge_rendered

    latest = store.latest(ref.key)
    if isinstance(prepared, Suspect):
        return _suspected(url, ref, prepared, latest, stats, config, remembered)
    if isinstance(prepared, RenderFailed):
        stats.failed.append(ref.url)
        return Unreachable(reason=prepared.reason, hint=prepared.hint, last=latest)
    previous = None
    if latest is not None and latest.origin == RENDERED_ORIGIN:
        previous = Previous(body=store.read_body(latest), text=store.page(latest).text)
    judged = judge_rendered(prepared, outcome.url, outcome.final_url, previous)
    if isinstance(judged, Suspect):
        return _suspected(url, ref, judged, latest, stats, config, remembered)
    state = _keep_version(
        store, ref, outcome, judged.text, MediaType.HTML, now, stats, latest, RENDERED_ORIGIN
    )
    _free_page(store, state)  # the renders are all stored before any is judged
    return state


def _suspected(
    url: str,
    ref: SourceRef,
    gate: Suspect,
    latest: Snapshot | None,
    stats: RunStats,
    config: Config,
    remembered: RunState,
) -> Unreachable:
    """An answer that is not the page: `unreachable`, never stale, and after
    `[fetch] suspect_limit` runs in a row a reason that asks a person to look."""
    count = suspect_count(remembered, url)
    limit = config.fetch.suspect_limit
    stats.suspects[url] = count
    stats.failed.append(ref.url)
    # Said as it is: on a first fetch there is no good snapshot to keep.
    kept = "the last good snapshot is kept" if latest is not None else "nothing is stored"
    if count >= limit:
        return Unreachable(
            reason=f"{gate.reason}, {count} runs in a row: a person must look",
            hint=f"open {ref.url} in a browser; if the page really is like this now, "
            f"update the claim ({kept} until then)",
            last=latest,
        )
    return Unreachable(
        reason=gate.reason,
        hint=f"{kept}; run again later ({count} of {limit} "
        "such answers in a row before a person is asked to look)",
        last=latest,
    )


def _state_of(
    store: Store, ref: SourceRef, outcome: FetchOutcome, now: dt.datetime, stats: RunStats
) -> SourceState:
    """Turn a fetch outcome other than a body into what the judge needs."""
    from claimcheck.net.fetch import Fetched, FetchFailed, Gone, NotModified

    match outcome:
        case Fetched():  # bodies go through the plausibility gate in `_store_answer`
            raise AssertionError("a fetched body is stored by _store_answer")
        case NotModified():
            stats.not_modified += 1
            latest = store.latest(ref.key)
            if latest is None:  # a 304 without validators of ours: cannot happen; be safe
                return Unreachable(reason="304 without a stored snapshot", hint="run again")
            return observe_snapshot(store, latest, live=True, moved_to=outcome.moved_to)
        case Gone():
            return GoneState(status=outcome.status, url=outcome.final_url)
        case FetchFailed():
            stats.failed.append(ref.url)
            return Unreachable(reason=outcome.reason, hint=outcome.hint, last=store.latest(ref.key))
    raise AssertionError(f"unknown fetch outcome {outcome!r}")  # pragma: no cover


def fetch_settings(config: Config) -> FetchSettings:
    """The fetcher's settings from the [fetch] table of the config."""
    from claimcheck.net.fetcher import FetchSettings

    f = config.fetch
    return FetchSettings(
        concurrency=f.concurrency,
        per_host=f.per_host,
        per_host_interval=f.per_host_interval,
        hosts=dict(f.hosts),
        timeout=f.timeout,
        retries=f.retries,
        max_bytes=f.max_bytes,
        user_agent=f.user_agent,
        allow_addresses=config.allowed_addresses,
    )
