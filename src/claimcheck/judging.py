"""Judge every claim on what is known of its source: the judge stage, with the pages it reads.

Each claim is judged against its source's state now and its baseline as of its check
date (`judge.verdict.judge_claim`), or as kept from an earlier run (`cache.verdicts`).
A run that fetches judges a source's claims as soon as its state is final
(`JudgedAsSettled`), the rest after the fetch, source by source (`judge_in_order`), and
frees each page once no claim left to judge stands on it (`Release`), so that a run
holds a few pages at once rather than every source's.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from claimcheck.cache.verdicts import Verdicts
from claimcheck.config import Config
from claimcheck.errors import StoreError
from claimcheck.forges.resolve import source_ref
from claimcheck.history.baseline import baseline_of, wants_history
from claimcheck.history.citations import Citer
from claimcheck.judge.review import acknowledge
from claimcheck.judge.verdict import (
    Observed,
    SourceState,
    Thresholds,
    combine_parts,
    expire,
    judge_claim,
)
from claimcheck.models import Claim, ClaimResult
from claimcheck.observe.known import as_claim_sees, observed, with_page
from claimcheck.observe.stats import ProgressCallback
from claimcheck.observe.stored import free_page
from claimcheck.store.state import ClaimState
from claimcheck.store.store import Store

if TYPE_CHECKING:  # the readers run in workers; judging only names what it hands them
    from claimcheck.cache.read_ahead import Wanted

JUDGING_STEP = 250  # judging is told every this many claims, and at its end


def pages_in_order(
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


class Release:
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

    def after(self, done: int, claim: Claim, store: Store, baselines: Baselines) -> None:
        """Free what the claim judged at position `done` was the last to need."""
        for source in claim.sources:
            state = self._states.get(source)
            if not isinstance(state, Observed):
                continue
            snapshot = state.snapshot
            if self._body_done[snapshot.sha256] == done:
                store.pages.forget(snapshot.sha256, snapshot.media)
            if self._source_done[source] != done:
                continue
            for seen in baselines.pop(snapshot.key, {}).values():
                baseline = seen.snapshot
                if self._body_done.get(baseline.sha256, -1) <= done:
                    store.pages.forget(baseline.sha256, baseline.media)


@dataclass
class JudgedAsSettled:
    """Judges a source's claims as soon as its state is final in the fetch (`on_settled`
    of `observe.fetch`), inside the wait for the other answers, rather than after the
    last one: the claims on that source alone whose baseline no later step can change
    (its history asked already, or not wanted). The rest are judged after the fetch.

    A claim judged here is judged as it would be there: by `judge_one`, on the same state,
    baseline and kept verdicts, its quote's lines placed and its citation made
    (`Citer.cite_settled`) while its page is at hand;
    the source's pages are freed once its claims are judged (kept on disk). `asked`: the
    versions history was asked for in this run, added to as the fetch asks them.
    """

    claims: Sequence[Claim]
    judge: Judge
    judged: dict[int, ClaimResult]
    asked: set[tuple[str, dt.date]] = field(default_factory=set)
    by_source: dict[str, list[int]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        for index, claim in enumerate(self.claims):
            if claim.source and not claim.parts:  # a claim on several waits for all
                self.by_source.setdefault(claim.source, []).append(index)

    def settled(self, url: str, state: SourceState) -> None:
        """Judge the claims on `url` alone whose baseline is final: history asked for
        it in this run, or not wanted (`backfill` would ask the rest after the fetch)."""
        store = self.judge.store
        baselines: Baselines = {}
        ref = source_ref(url, self.judge.config)
        # A body already stored (a night where the source did not change) is cited now:
        # what its citation is made from is known. A new one's record still changes in
        # the run (its README's path, the versions history finds), so it is cited after.
        cite = isinstance(state, Observed) and not state.fresh
        wanted: dict[dt.date, bool] = {}  # whether history is wanted, by check date
        for index in self.by_source.pop(url, []):
            claim = self.claims[index]
            dated = claim.anchor is not None or claim.field is not None
            if dated and (ref.key, claim.checked) not in self.asked:
                wants = wanted.get(claim.checked)
                if wants is None:
                    wants = wanted[claim.checked] = wants_history(store, ref, claim.checked)
                if wants:
                    continue
            result = self.judge.one(claim, {url: state}, baselines)
            self.judge.citer.place(result)
            self.judged[index] = self.judge.citer.cite_settled(result) if cite else result
        if cite:
            self.judge.citer.let_go()
        free_page(store, state)
        for of_source in baselines.values():
            for seen in of_source.values():
                store.pages.forget(seen.snapshot.sha256, seen.snapshot.media)


def judge_one(
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
    part's (`combine_parts`). A claim a person acknowledged (`reviewed:`) has its
    acknowledgement weighed last, on the whole claim's result (`judge.review.acknowledge`).
    """
    if claim.parts:
        parts = [
            _judge_source(view, states, store, config, now, baselines, verdicts, standing)
            for view in claim.views()
        ]
        result = combine_parts(claim, parts)
    else:
        result = _judge_source(claim, states, store, config, now, baselines, verdicts, standing)
    return result if claim.reviewed is None else acknowledge(result, now.date())


def _judge_source(
    claim: Claim,
    states: dict[str, SourceState],
    store: Store,
    config: Config,
    now: dt.datetime,
    baselines: Baselines,
    verdicts: Verdicts | None,
    standing: Mapping[str, ClaimState] | None,
) -> ClaimResult:
    """The result of a claim of one source (or one part of a claim on several)."""
    state = states.get(claim.source) if claim.source else None
    state = as_claim_sees(claim, state, standing or {})
    snapshot = baseline_of(store, claim, config) if isinstance(state, Observed) else None
    baseline = None
    if snapshot is not None:
        of_source = baselines.setdefault(snapshot.key, {})
        if snapshot.file not in of_source:
            of_source[snapshot.file] = observed(snapshot, live=False)
        baseline = of_source[snapshot.file]
    verdict = config.verdict
    thresholds = _thresholds(verdict.drift_min_score, verdict.max_age_days or None)
    if not (isinstance(state, Observed) and claim.judgeable):
        return judge_claim(claim, state, thresholds, baseline=baseline, today=now.date())
    if claim.field is not None:  # judged on the bodies, at once: nothing to keep
        state = with_page(store, state, body=True)
        if baseline is not None:
            baseline = with_page(store, baseline, body=True)
        return judge_claim(claim, state, thresholds, baseline=baseline, today=now.date())
    result = verdicts.kept(claim, state, thresholds, baseline=baseline) if verdicts else None
    if result is None:  # judged now: its pages are read (a kept answer reads none)
        state = with_page(store, state, body=claim.scope is not None)
        if baseline is not None:
            baseline = with_page(store, baseline, body=claim.scope is not None)
        if verdicts is None:
            return judge_claim(claim, state, thresholds, baseline=baseline, today=now.date())
        result = verdicts.judge_anew(claim, state, thresholds, baseline=baseline)
    return expire(result, thresholds, now.date())


@functools.lru_cache(maxsize=16)
def _thresholds(drift_min_score: float, max_age_days: int | None) -> Thresholds:
    """The judgement's settings, made once for the run's claims (a config has one)."""
    return Thresholds(drift_min_score=drift_min_score, max_age_days=max_age_days)


def judge_in_order(
    claims: Sequence[Claim],
    states: dict[str, SourceState],
    judge: Judge,
    judged: dict[int, ClaimResult],
    on_progress: ProgressCallback | None,
) -> list[ClaimResult]:
    """Every claim's result, in the claims' order: those not `judged` already (as their
    sources settled) judged now, source by source, so that a page's derived views stay
    at hand while its claims are judged and are freed after the last (`Release`)."""
    store = judge.store
    baselines: Baselines = {}
    order = sorted(
        (i for i in range(len(claims)) if i not in judged),
        key=lambda i: claims[i].source or "",
    )
    release = Release(claims, order, states)
    store.pages.read_ahead(pages_in_order(claims, order, states, store))
    before = len(judged)  # judged as their sources settled
    try:
        for position, index in enumerate(order):
            judged[index] = judge.one(claims[index], states, baselines)
            judge.citer.place(judged[index])  # its quote's lines, while its page is at hand
            release.after(position, claims[index], store, baselines)
            if on_progress and (before + position + 1) % JUDGING_STEP == 0:
                on_progress("judging", before + position + 1, len(claims))
    finally:
        store.pages.stop_reading_ahead()
    if on_progress:
        on_progress("judging", len(claims), len(claims))
    judge.verdicts.save()
    return [judged[index] for index in range(len(claims))]


@dataclass
class Judge:
    """What judging a claim needs besides the claim and its source's state: the run's
    configuration, store and date, the verdicts kept across runs, the citer that places
    each quote's lines, and the versions each claim stands on (`standing`)."""

    config: Config
    store: Store
    now: dt.datetime
    verdicts: Verdicts
    citer: Citer
    standing: Mapping[str, ClaimState]

    def one(
        self, claim: Claim, states: dict[str, SourceState], baselines: Baselines
    ) -> ClaimResult:
        """`judge_one` with this run's context."""
        return judge_one(
            claim,
            states,
            self.store,
            self.config,
            self.now,
            baselines,
            self.verdicts,
            self.standing,
        )
