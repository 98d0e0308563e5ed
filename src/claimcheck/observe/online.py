"""The stages of a run that go online, as the pipeline calls them (`pipeline.OnlineStages`).

Imported by what goes online only (the CLI imports it when a command fetches), so an
offline run loads no HTTP client or event loop.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from claimcheck.config import Config
from claimcheck.history.ahead import HistoryAhead
from claimcheck.history.online import add_blame, backfill, learn_origins
from claimcheck.judge.verdict import Observed, SourceState
from claimcheck.models import Claim, ClaimResult
from claimcheck.net.settings import fetch_settings
from claimcheck.observe.fetch import Settled, fetch_states
from claimcheck.observe.keep import read_as_data
from claimcheck.observe.rendering import rendered
from claimcheck.observe.stats import ProgressCallback, RunStats
from claimcheck.observe.stored import resolve_sources
from claimcheck.store.state import RunState
from claimcheck.store.store import Store


class Online:
    """Fetch and keep every source (history asked as each answer arrives, the rest
    after), blame stale claims, learn where uncited snapshots came from."""

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
        on_settled: Settled | None,
    ) -> tuple[dict[str, SourceState], RunStats]:
        """Each source's state as fetched and kept now, and the baselines its claims
        want stored: asked in the fetch where known before it (adding each to `asked`),
        the rest after it (`backfill`)."""
        ahead = HistoryAhead.of(claims, config, store, now, asked)
        states, stats = fetch_sources(
            claims,
            config,
            now=now,
            on_progress=on_progress,
            store=store,
            remember=remember,
            history=ahead,
            on_settled=on_settled,
            remembered=remembered,
        )
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
        return states, stats

    def blame(
        self,
        results: list[ClaimResult],
        config: Config,
        store: Store,
        on_progress: ProgressCallback | None,
    ) -> tuple[list[ClaimResult], int]:
        """The results with the commit that changed each stale claim's quote, and the
        requests that took (`add_blame`)."""
        blamed, stats = add_blame(
            results, config, fetch_settings(config), store, on_progress=on_progress
        )
        return blamed, stats.requests

    def learn_origins(self, results: list[ClaimResult], store: Store, config: Config) -> int:
        """Ask which version each of `results`' uncited snapshots is; the requests."""
        _, asked = learn_origins(results, store, config, fetch_settings(config))
        return asked


ONLINE = Online()
"""The online stages: what a caller gives `pipeline.run_verify` for a run that fetches."""


def fetch_sources(
    claims: Sequence[Claim],
    config: Config,
    *,
    now: dt.datetime | None = None,
    on_progress: ProgressCallback | None = None,
    store: Store | None = None,
    remember: bool = True,
    history: HistoryAhead | None = None,
    on_settled: Settled | None = None,
    remembered: RunState | None = None,
) -> tuple[dict[str, SourceState], RunStats]:
    """What is known now of each claim's source, by URL: fetched and kept.

    `remember` keeps the docs version an alias URL ended on (`keep.track_version`); a
    run that judges for a person alone leaves it, so the next run still reports a move.
    `history`: the versions to ask history for as each answer arrives; `on_settled` is
    told each source whose state is final before the fetch ends (`observe.fetch`);
    `remembered`: the state the caller read (`load_state`), else read here.
    """
    now = now or dt.datetime.now(dt.UTC)
    store = store or Store.of(config)
    refs = resolve_sources(claims, config)
    return fetch_states(
        store,
        refs,
        config,
        now,
        on_progress,
        rendered(claims, refs, config),
        remember=remember,
        history=history,
        on_settled=on_settled,
        remembered=remembered,
        data=read_as_data(claims),
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
        refs = resolve_sources(claims, config)  # judges nothing: a docs move is left for verify
        to_render = rendered(claims, refs, config)
        _, stats = fetch_states(
            store,
            refs,
            config,
            now,
            on_progress,
            to_render,
            remember=False,
            suggest=False,
            data=read_as_data(claims),
        )
    return stats
