"""Fetched answers read on the machine's other cores as they arrive, for the gate.

A run that fetches reads every new page early, in the plausibility gate, as it weighs
each answer (`Pages.of_text`). Those answers come in the order the network gives them,
over seconds of waiting on it, so worker processes read them as they arrive
(`ReadAsFetched`), in any order, and keep each page as they read it
(`read_ahead.read_document`), so that the main process, the run's bound, writes no
cache file for it. A page is kept only for a text the gate let be stored: once the
fetch's workers have stopped, the entries of the others are removed
(`Pages.kept_by_worker`, `Pages.drop_unstored`).

Apart from `read_ahead.py` because it waits in the fetch's event loop: an offline run
never loads asyncio.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from claimcheck.cache import read_ahead
from claimcheck.cache.pages import Pages
from claimcheck.cache.read_ahead import Key, read_document

READ_IN_PLACE_FIRST = 16
"""Fetched answers read in place before any worker starts (`ReadAsFetched`): a night in
which a few pages changed never waits for a worker's start."""

WORKER_NICENESS = 10
"""How far below the run a worker reading fetched answers runs (`ReadAsFetched`)."""


def read_as_fetched(pages: Pages, sources: int) -> ReadAsFetched:
    """Workers, as many as the store's `jobs` says, to read the answers of a fetch of
    `sources` as they arrive, keeping each page where `pages` says; each page read is
    handed in by `Pages.read_elsewhere`."""
    return ReadAsFetched(
        read_ahead.workers_to_use(pages.jobs),
        sources,
        keep_at=pages.kept_by_worker,
        on_close=pages.drop_unstored,
    )


class ReadAsFetched:
    """Worker processes reading the texts of fetched answers as they arrive, in any
    order, while the run waits on the network for the others.

    `read` hands back the kept-page JSON of a text, or None: the text is then read in
    place, by the gate. The first `READ_IN_PLACE_FIRST` texts are, so that a night in
    which a few pages changed starts no worker; a fetch of fewer than `READ_AHEAD_MIN`
    sources starts none, and a worker's failure (or death) leaves its text, and every
    later one, to be read in place.
    """

    def __init__(
        self,
        workers: int,
        sources: int,
        *,
        keep_at: Callable[[Key], str | None] | None = None,
        on_close: Callable[[], None] | None = None,
    ) -> None:
        self._workers = workers if sources >= read_ahead.READ_AHEAD_MIN else 0
        self._keep_at = keep_at  # where a worker keeps the page it starts to read
        self._on_close = on_close  # told once the workers have stopped
        self._in_place = READ_IN_PLACE_FIRST
        self._pool: ProcessPoolExecutor | None = None
        self._reading: dict[Key, asyncio.Future[bytes]] = {}
        """The texts a worker is reading now, by key: the same body arriving for another
        source meanwhile waits for that reading rather than starting its own."""

    async def read(self, text: str, key: Key) -> bytes | None:
        """The page of `text` (its digest and medium: `key`) read by a worker, awaited;
        None: read it in place. The worker keeps the page too, where `keep_at` says."""
        if self._workers == 0:
            return None
        if self._in_place > 0:
            self._in_place -= 1
            return None
        reading = self._reading.get(key)
        if reading is None:
            reading = self._start(text, key)
            if reading is None:
                return None
        try:
            # Shielded: a source's task cancelled while it waits must not cancel the
            # reading another source with the same body waits for too.
            return await asyncio.shield(reading)
        except Exception:  # a worker's failure (or its process's death) is no verdict
            return None

    def _start(self, text: str, key: Key) -> asyncio.Future[bytes] | None:
        """A worker's reading of `text`, begun; None when no worker can take it."""
        media = key[1]
        if self._pool is None:  # `spawn`, as `ReadAhead` says why
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                self._workers, mp_context=context, initializer=_yield_to_the_run
            )
        keep = self._keep_at(key) if self._keep_at is not None else None
        try:
            future = self._pool.submit(read_document, text, media, keep)
        except (BrokenProcessPool, RuntimeError):  # a worker died: no more reading here
            self._workers = 0
            return None
        reading = asyncio.wrap_future(future)
        self._reading[key] = reading
        reading.add_done_callback(lambda _: self._reading.pop(key, None))
        return reading

    def close(self) -> None:
        """Stop the workers, if any started, and then tell `on_close`."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._on_close is not None:
            self._on_close()


def _yield_to_the_run() -> None:
    """Run a worker below the run's own priority: the run's process drives the network
    and the store, and a worker that takes its core slows every answer behind it."""
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
