"""A run, stage by stage: claims → fetch → keep → judge → history → report.

Each stage is one call into the module that does it:

1. claims: `claims.load.load_claims` (called by the command, before the run);
2. fetch and keep: `observe.online` fetches every source, weighs each answer with the
   plausibility gate and stores it, asking history for the baselines as answers arrive
   (an offline run reads the store alone: `observe.stored`);
3. judge: `judging`, each claim on its source's state and baseline (a run that
   fetches judges most claims already, each as its source settles);
4. history: blame for stale claims and where uncited snapshots came from (online);
   each result's citation (`history.citations`);
5. report: `report.build`, and what was found recorded in the state file.

The stages that go online come as one argument (`OnlineStages`, given by
`observe.online.ONLINE`), so that an offline run imports no HTTP client at all. Each
distinct source is fetched once, however many claims cite it.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from claimcheck.cache.verdicts import Verdicts
from claimcheck.config import Config
from claimcheck.history.citations import Citer, uncited
from claimcheck.judge.verdict import SourceState
from claimcheck.judging import Judge, JudgedAsSettled, judge_in_order
from claimcheck.models import Claim, ClaimResult, Report
from claimcheck.observe.known import found_in_run, stands_on_now
from claimcheck.observe.stats import ProgressCallback, RunStats
from claimcheck.observe.stored import observe_stored
from claimcheck.report.build import build_report
from claimcheck.store.state import STATE_FILE, RunState, load_state, record_report, save_state
from claimcheck.store.store import Store


class OnlineStages(Protocol):
    """The stages of a run that go online (`observe.online.Online`)."""

    def observe(
        self,
        claims: Sequence[Claim],
        config: Config,
        store: Store,
        now: dt.datetime,
        *,
        on_progress: ProgressCallback | None,
        remember: bool,
        remembered: RunState,
        asked: set[tuple[str, dt.date]],
        on_settled: Callable[[str, SourceState], None] | None,
    ) -> tuple[dict[str, SourceState], RunStats]:
        """Fetch and keep every source; store the baselines its claims want."""
        ...

    def blame(
        self,
        results: list[ClaimResult],
        config: Config,
        store: Store,
        on_progress: ProgressCallback | None,
    ) -> tuple[list[ClaimResult], int]:
        """The results with each stale claim's blame, and the requests that took."""
        ...

    def learn_origins(self, results: list[ClaimResult], store: Store, config: Config) -> int:
        """Ask which version each uncited snapshot is; the requests that took."""
        ...


def run_verify(
    claims: Sequence[Claim],
    config: Config,
    *,
    online: OnlineStages | None,
    now: dt.datetime | None = None,
    on_progress: ProgressCallback | None = None,
    remember: bool = True,
    cite: bool = False,
) -> tuple[Report, RunStats]:
    """Fetch (with `online`; without it, offline), store new snapshots and judge every claim.

    `remember` records the verdicts, and what was found of each source, in state.json
    (online runs only); commands that judge a single claim for a person (blame, diff,
    explain) leave the state alone. An offline run judges each source as the last
    online run found it (`observe_stored`), each claim on the version it stands on.
    Every result whose quote holds carries its citation as the store knows it; `cite`
    (online runs) first asks which version the uncited snapshots are (`learn_origins`).
    """
    now = now or dt.datetime.now(dt.UTC)
    started = time.monotonic()
    store = Store.of(config)  # each body read into units once
    verdicts = Verdicts(config.snapshots_dir)
    citer = Citer(store, config)
    # Read once: the fetch weighs suspect answers by it, an offline run judges the sources
    # as it says, every claim stands on the versions it says, and the end of an online
    # run records in it (the run holds the store's lock, so no one writes it in between).
    remembered = load_state(config.snapshots_dir)
    judge = Judge(config, store, now, verdicts, citer, remembered.claims)
    judged: dict[int, ClaimResult] = {}
    with store.batch():  # the run's snapshots are made durable together
        if online is None:
            states, stats = observe_stored(claims, config, store=store, record=remembered)
        else:
            early = JudgedAsSettled(claims, judge, judged)
            states, stats = online.observe(
                claims,
                config,
                store,
                now,
                on_progress=on_progress,
                remember=remember,
                remembered=remembered,
                asked=early.asked,
                on_settled=early.settled,
            )
            del early
    results = judge_in_order(claims, states, judge, judged, on_progress)
    # Freed now, not at the return: each step below makes new results, and the kept
    # answers and the judged results would otherwise stay alive with them, at the
    # run's peak.
    del judged, judge, verdicts
    if online is not None:
        results, requests = online.blame(results, config, store, on_progress)
        stats.history_requests += requests
        if cite:
            stats.history_requests += online.learn_origins(uncited(results, store), store, config)
    results = citer.cite_all(results)
    citer.save()
    took = round(time.monotonic() - started, 3)
    report = build_report(results, now=now, offline=online is None, duration_s=took)
    recorded = remember and online is not None
    if recorded:
        save_state(
            config.snapshots_dir,
            record_report(
                remembered,
                report,
                stats.suspects,
                found=found_in_run(states, store, config),
                stands_on=stands_on_now(claims, states, remembered.claims),
            ),
        )
    stats.stored_files = [
        *store.changed_files(),
        *([config.snapshots_dir / STATE_FILE] if recorded else []),
    ]
    return report, stats
