"""Fetch every source and take each answer as it arrives: the fetch-and-keep stage.

Each answer is unwrapped (a forge's answer as the file itself), its page read by a
worker while the others are on their way, weighed by the gate and stored (`keep`), and
then, if history wants a version of it, its history asked (`history.ahead`).

A run is mostly waiting on the network: taking each source through all of this as its
answer comes, rather than phase after phase, does the reading, storing and the
history's own waiting inside that wait. What does not depend on one source alone comes
after: renamed repositories (`renames`) and rendering in Chromium (`rendering`). A
source whose state is final before then (neither renamed nor rendered) is told to
`on_settled` at once, so that its claims can be judged inside the wait too. A source
that is gone is told with the Wayback Machine's last capture of it from before it went
(`suggest_copy`): kept in the record of the last run that found it gone, else asked
once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
from collections.abc import Callable

from claimcheck.cache.read_as_fetched import ReadAsFetched, read_as_fetched
from claimcheck.config import Config
from claimcheck.forges.forge import Servers
from claimcheck.forges.github import rename_github_url
from claimcheck.forges.registry import forge_of, servers_of
from claimcheck.forges.wayback import Wayback
from claimcheck.history.ahead import HistoryAhead, HistoryAsker
from claimcheck.history.baseline import ticker
from claimcheck.judge.plausible import answer_text
from claimcheck.judge.verdict import Gone, Observed, SourceState
from claimcheck.models import ArchivedCopy, SourceRef
from claimcheck.net.fetch import Fetched, FetchOutcome, FetchRequest
from claimcheck.net.fetcher import Fetcher
from claimcheck.net.settings import fetch_settings
from claimcheck.observe.keep import answer_media, answer_of, state_of, store_answer, track_version
from claimcheck.observe.known import archived_of
from claimcheck.observe.renames import renamed_repositories
from claimcheck.observe.rendering import prepare_renders, render_answer
from claimcheck.observe.stats import ProgressCallback, RunStats, in_source_order
from claimcheck.observe.stored import free_page
from claimcheck.render.render import RENDERED_ORIGIN
from claimcheck.store.state import RunState, load_state
from claimcheck.store.store import Store

IN_HAND_PER_REQUEST = 2
"""Sources a fetch holds between their request and their stored version, per request it
may have in flight: enough to keep every connection busy while the workers read."""

Settled = Callable[[str, SourceState], None]
"""Told each source whose state is final before the fetch ends, with that state."""


def fetch_states(
    store: Store,
    refs: dict[str, SourceRef],
    config: Config,
    now: dt.datetime,
    on_progress: ProgressCallback | None,
    rendered: frozenset[str] = frozenset(),
    *,
    remember: bool = True,
    history: HistoryAhead | None = None,
    on_settled: Settled | None = None,
    remembered: RunState | None = None,
    suggest: bool = True,
    data: frozenset[str] = frozenset(),
) -> tuple[dict[str, SourceState], RunStats]:
    """Fetch every source, keep what each answer says, and give each source's state.

    `rendered`: the sources read as a browser renders them; `remember` keeps the docs
    version an alias URL ended on (`keep.track_version`); `history`: the versions to
    ask history for as each answer arrives; `remembered`: the state the caller read
    (`load_state`), else read here; `suggest`: a gone source is told its last archived
    copy (`suggest_copy`; a fetch that judges nothing asks for none); `data`: the
    sources read as data, whose JSON answers are their versions (`keep.read_as_data`).
    """
    if remembered is None:
        remembered = load_state(config.snapshots_dir)
    fetch = _SourceFetch(
        store,
        refs,
        config,
        now,
        on_progress,
        rendered,
        remembered,
        remember=remember,
        history=history,
        on_settled=on_settled,
        suggest=suggest,
        data=data,
    )
    request_count, fetch.stats.history_requests = asyncio.run(fetch.fetch_all())
    return fetch.finish(request_count)


class _SourceFetch:
    """One run's fetch of its sources: the requests, each answer taken as it arrives,
    and the steps after the last one. Holds what those steps need: the states set as
    answers came, the outcomes a rendering or a rename still needs, the README paths."""

    def __init__(
        self,
        store: Store,
        refs: dict[str, SourceRef],
        config: Config,
        now: dt.datetime,
        on_progress: ProgressCallback | None,
        rendered: frozenset[str],
        remembered: RunState,
        *,
        remember: bool,
        history: HistoryAhead | None,
        on_settled: Settled | None,
        suggest: bool,
        data: frozenset[str] = frozenset(),
    ) -> None:
        self.store = store
        self.config = config
        self.now = now
        self.rendered = rendered
        self.remember = remember
        self.history = history
        self.on_settled = on_settled
        self.items = list(refs.items())
        self.servers = servers_of(config)
        self.requests = [self._request(url, ref) for url, ref in self.items]
        self.stats = RunStats(sources=len(refs))
        self.remembered = remembered
        self.suggest = suggest
        self.data = data
        self.wayback: Wayback | None = None  # set in the fetch: its fetcher asks it
        self.states: dict[str, SourceState] = {}
        self.outcomes: dict[str, FetchOutcome | None] = {}  # what steps after the fetch need
        self.paths: dict[str, str] = {}
        self.asks_history = history is not None and bool(history.wanted)
        phase = "fetching and reading history" if self.asks_history else "fetching"
        self.tick = ticker(phase, len(self.items), on_progress)

    def _request(self, url: str, ref: SourceRef) -> FetchRequest:
        """The source's request, conditional on its stored version."""
        latest = self.store.latest(ref.key)
        if latest is not None and (latest.origin == RENDERED_ORIGIN) != (url in self.rendered):
            latest = None  # read the other way last time: a 304 would keep the wrong body
        etag = latest.etag if latest else None
        last_modified = latest.last_modified if latest else None
        forge = forge_of(ref)  # a forge's own request, its token to its own host only
        if forge is None:
            return FetchRequest(ref.fetch_url, etag=etag, last_modified=last_modified)
        return forge.request(
            ref, self.servers.server(forge), etag=etag, last_modified=last_modified
        )

    async def fetch_all(self) -> tuple[int, int]:
        """Every request at once (within the fetcher's limits); the requests sent for
        the sources and, counted apart, those sent to read history."""
        async with Fetcher(fetch_settings(self.config)) as fetcher:
            reader = read_as_fetched(self.store.pages, len(self.items))
            asker = None
            looked_up = fetcher.apart()  # history's requests, counted apart
            if self.history is not None and self.asks_history:
                asker = HistoryAsker(self.history, looked_up, self.config, self.store)
            if self.suggest and self.config.history.wayback:
                self.wayback = Wayback(looked_up, self.config.wayback_url)
            try:
                # A task group: the first to fail (or a progress callback that stops the
                # run) cancels the others at once, so none stores anything after it.
                concurrency = self.config.fetch.concurrency
                in_hand = asyncio.Semaphore(IN_HAND_PER_REQUEST * concurrency)
                async with asyncio.TaskGroup() as group:
                    for (url, ref), request in zip(self.items, self.requests, strict=True):
                        group.create_task(
                            self._observe(fetcher, reader, asker, in_hand, url, ref, request)
                        )
            except BaseExceptionGroup as failed:
                raise failed.exceptions[0] from None
            finally:
                reader.close()
            if asker is not None:
                asker.remember_paths()
            return fetcher.requests_made, looked_up.requests_made

    async def _observe(
        self,
        fetcher: Fetcher,
        reader: ReadAsFetched,
        asker: HistoryAsker | None,
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
            state, moved = await self._take_answer(fetcher, reader, asker, url, ref, request)
            if state is None:  # its history, and its judging, after the rendering
                return
            if asker is not None:
                await asker.ask(ref, live=isinstance(state, Observed) and state.live)
            if self.on_settled is not None and not moved:  # a move may be a rename
                self.on_settled(url, state)
            else:
                free_page(self.store, state)

    async def _take_answer(
        self,
        fetcher: Fetcher,
        reader: ReadAsFetched,
        asker: HistoryAsker | None,
        url: str,
        ref: SourceRef,
        request: FetchRequest,
    ) -> tuple[SourceState | None, bool]:
        """The source's state once its answer is in, weighed and stored (None: to be
        rendered after the fetch), and whether it moved."""
        answered = await fetcher.fetch(request)
        outcome, path = await unwrapped(fetcher, ref, answered, self.servers, self.store)
        del answered
        moved = bool(getattr(outcome, "moved_to", None))
        to_render = url in self.rendered and isinstance(outcome, Fetched)
        # Kept past the fetch only where a later step needs it (a rendering, a rename):
        # not every answer's body at once.
        self.outcomes[url] = outcome if to_render or moved else None
        self.tick()  # told before the answer is stored: a stop here stores nothing more
        if path:
            self.paths[ref.key] = path
            if asker is not None:
                asker.learned_path(ref, path)
        if to_render:
            return None, moved  # rendered after the fetch (`rendering.prepare_renders`)
        if isinstance(outcome, Fetched):
            state = await self._keep(reader, url, ref, outcome)
        else:
            state = state_of(self.store, ref, outcome, self.now, self.stats)
        if isinstance(state, Gone):
            state = await self.suggest_copy(url, ref, state)
        if isinstance(state, Observed) and forge_of(ref) is None:
            state = track_version(self.store, ref, outcome, state, remember=self.remember)
        self.states[url] = state
        return state, moved

    async def suggest_copy(self, url: str, ref: SourceRef, state: Gone) -> Gone:
        """A gone source told the last capture of it from before it went: the one the
        record of the last run that found it gone keeps (asked again never), else the
        Wayback Machine's last capture that answered 200 up to the last stored version's
        fetch (the last time it was seen alive), asked once. None held (recorded too, so
        not asked again while the source stays gone), the Wayback Machine off or failing
        (asked again next run), or a URL that may not be named to it: no suggestion."""
        seen = self.remembered.sources.get(url)
        record = seen.found if seen is not None else None
        kept = archived_of(record)
        if kept is not None:
            return dataclasses.replace(state, archived=kept)
        if record is not None and record.kind == "gone" and record.unarchived:
            return dataclasses.replace(state, unarchived=True)
        if self.wayback is None:
            return state
        latest = self.store.latest(ref.key)
        alive = latest.fetched_at if latest is not None else None
        found = await self.wayback.last_capture(url, alive)
        if isinstance(found, ArchivedCopy):
            return dataclasses.replace(state, archived=found)
        return state if found is None else dataclasses.replace(state, unarchived=True)

    async def _keep(
        self, reader: ReadAsFetched, url: str, ref: SourceRef, outcome: Fetched
    ) -> SourceState:
        """A body's page read by a worker (unless the run has one already), then the
        body weighed by the gate and stored."""
        answer, media = answer_of(outcome), answer_media(ref, outcome, data=url in self.data)
        text = answer_text(answer, media)
        key = self.store.pages.to_read(text, media)
        if key is not None:  # no page of this body yet: a worker reads it
            document = await reader.read(text, key)
            if document is not None:
                self.store.pages.read_elsewhere(key, document)
        del text, answer
        return store_answer(
            self.store,
            url,
            ref,
            outcome,
            self.now,
            self.stats,
            self.config,
            self.remembered,
            data=url in self.data,
        )

    def finish(self, request_count: int) -> tuple[dict[str, SourceState], RunStats]:
        """The steps after the fetch: renamed repositories asked, the sources to render
        rendered and kept, the README paths noted; every state in the sources' order."""
        moves = [outcome for outcome in self.outcomes.values() if outcome is not None]
        renames, rename_requests = renamed_repositories(moves, self.config)
        self.stats.requests = request_count + rename_requests
        # In the claims' order (answers arrive in any): a kept browser renders them in turn.
        to_render = {
            url: outcome
            for url, _ in self.items
            if url in self.rendered and isinstance(outcome := self.outcomes.get(url), Fetched)
        }
        prepared = prepare_renders(to_render, self.config) if to_render else {}
        for url, ref in self.items:
            outcome = self.outcomes[url]
            state = self.states.get(url)
            if url in prepared and isinstance(outcome, Fetched):
                state = render_answer(
                    self.store,
                    url,
                    ref,
                    outcome,
                    prepared[url],
                    self.now,
                    self.stats,
                    self.config,
                    self.remembered,
                )
                if isinstance(state, Observed) and forge_of(ref) is None:
                    state = track_version(self.store, ref, outcome, state, remember=self.remember)
            assert state is not None  # every other source's was set as its answer came
            if ref.key in self.paths:
                self.store.note_history(ref.key, ref.url, readme_path=self.paths[ref.key])
            moved = getattr(outcome, "moved_to", None)
            if isinstance(state, Observed) and moved in renames:
                state = state.moved(rename_github_url(ref.url, renames[moved]))
            self.states[url] = state
        in_source_order(self.stats, [ref.url for _, ref in self.items])
        return {url: self.states[url] for url, _ in self.items}, self.stats


async def unwrapped(
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
