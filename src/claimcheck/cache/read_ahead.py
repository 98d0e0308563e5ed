"""Pages read on the machine's other cores, ahead of the judge that will ask for them.

A run with no kept pages — a CI gate's `verify --offline` on a fresh checkout, whose
`snapshots/.cache` is never committed — reads every stored body into units, one after
another, on one core: the Python walk over each README's tree is most of its time.
Judging needs the pages in a known order (source by source), so worker processes can
read the next ones while the main process judges the current one: each worker reads a
body's text into units, writes the kept page (`Pages`' own file, by rename) and hands
back its JSON, from which the main process builds the page in a fraction of the time.

A run that fetches reads its new pages as the answers arrive instead
(`cache/read_as_fetched.py`), with the same workers' function (`read_document`).

Only the text the store hands over (a stored body, its digest checked) or the gate
weighs is read, so a page read ahead is the page read in place; the workers share
nothing else with the run. At most `window` pages wait to be taken at once, so the run
holds a few pages' JSON, not every one; a page the caller went past without asking for
is dropped. Workers are handed pages `BATCH` at a time: each hand-over wakes the
executor's threads in the main process, which then contend with the run for the
interpreter. A worker that fails leaves its pages to be read in place. Worth it only
for many pages: a worker process costs a start of some hundreds of milliseconds
(`READ_AHEAD_MIN`).
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import orjson

from claimcheck.cache.keys import write_entry
from claimcheck.cache.page_json import page_document
from claimcheck.errors import StoreError
from claimcheck.judge.units import read_page
from claimcheck.models import MediaType
from claimcheck.store.files import StoredBody

READ_AHEAD_MIN = 64
"""Fewer pages to read than this are read in place: starting workers would cost more."""

MAX_WORKERS = 4

BATCH = 4
"""Pages a worker is handed at once (`ReadAhead`): each hand-over wakes the executor's
threads in the main process, which then compete with the run for the interpreter."""

Key = tuple[str, MediaType]
"""A body's SHA-256 and how it is read."""

Job = tuple[Key, Callable[[], str], Path | None]
"""A page to read ahead: its key, how to get its body's text, where to keep it."""

Wanted = Iterable[tuple[str, MediaType, Callable[[], str]]]
"""The pages a run will ask for, in order: each body's digest, medium and text."""


def workers_to_use(jobs: int | None = None) -> int:
    """The workers a run may start: `jobs` when the config or `--jobs` set it (0: none);
    else one for each core it may use, up to `MAX_WORKERS`, and none on a single core
    (the main process would only wait for them)."""
    if jobs is not None:
        return jobs
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    return min(cores, MAX_WORKERS) if cores > 1 else 0


def read_document(body: str | StoredBody, media: MediaType, path: str | None) -> bytes:
    """A body (its text, or its file in the store) read into units, as the kept page's
    JSON; kept at `path` when given.

    Run in a worker process. The JSON is what `Pages` would write for the page, byte
    for byte (`page_json.page_document` through orjson). A stored body that is not what its
    index recorded raises, here as in the store: its page is then read in place.
    """
    text = body if isinstance(body, str) else body()
    document = orjson.dumps(page_document(read_page(text, media)))
    if path is not None:  # a read-only checkout: the page is still handed back, not kept
        write_entry(Path(path), document)
    return document


def read_documents(
    batch: list[tuple[str | StoredBody, MediaType, str | None]],
) -> list[bytes | None]:
    """`read_document` of each of a batch of bodies, in order; None for one that failed
    (its page is read in place), so that one body does not cost the others theirs."""
    found: list[bytes | None] = []
    for body, media, path in batch:
        try:
            found.append(read_document(body, media, path))
        except Exception:  # read in place, where a failure is the run's to report
            found.append(None)
    return found


class ReadAhead:
    """Worker processes reading `jobs` in order, at most `window` pages ahead, handed
    out `BATCH` pages at a time."""

    def __init__(self, jobs: list[Job], workers: int, window: int | None = None) -> None:
        self._jobs = deque(jobs)
        self._window = window or 2 * BATCH * workers
        # Each page's batch and its place in it, in the order of `jobs`.
        self._pending: dict[Key, tuple[Future[list[bytes | None]], int]] = {}
        self._skipped: set[Key] = set()  # read in place before their turn came
        self._place = {key: n for n, (key, _body, _path) in reversed(list(enumerate(jobs)))}
        # `spawn`: a fresh interpreter, never a fork of a process that may hold threads
        # and locks (the store's writers, the HTTP client's).
        context = multiprocessing.get_context("spawn")
        self._pool = ProcessPoolExecutor(workers, mp_context=context)
        self._fill()

    def take(self, key: Key) -> bytes | None:
        """The kept-page JSON of `key`, waiting for its worker; None when it is not being
        read ahead (then it is not read ahead later either) or its worker failed. The
        pages before it that were not taken are dropped."""
        pending = self._pending.pop(key, None)
        if pending is None:
            self._skipped.add(key)
            return None
        future, index = pending
        # The caller goes through the pages in order: one it has gone past without asking
        # (a kept verdict needs no page; the gate turns some answers away before reading
        # them) will not be asked for, and would hold a place in the window for good.
        place = self._place[key]
        passed = {self._pending.pop(k)[0] for k in list(self._pending) if self._place[k] < place}
        for batch in passed - {f for f, _ in self._pending.values()} - {future}:
            batch.cancel()  # no page of it will be asked for
        try:
            document = future.result()[index]
        except Exception:  # a worker's failure (or its process's death) is no verdict
            document = None
        self._fill()
        return document

    def close(self) -> None:
        """Stop the workers; pages not taken yet are dropped (their kept files stay)."""
        self._jobs.clear()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _fill(self) -> None:
        size = min(BATCH, self._window)
        while self._jobs and len(self._pending) + size <= self._window:  # whole batches
            keys: list[Key] = []
            batch: list[tuple[str | StoredBody, MediaType, str | None]] = []
            while self._jobs and len(keys) < size:
                key, body, path = self._jobs.popleft()
                if key in self._pending or key in self._skipped or key in keys:
                    continue
                try:  # a stored body's file is read by the worker; any other text here
                    text: str | StoredBody = body if isinstance(body, StoredBody) else body()
                except StoreError:
                    continue  # read in place, where the error is the run's to report
                keys.append(key)
                batch.append((text, key[1], str(path) if path is not None else None))
            if not keys:
                return
            try:
                future = self._pool.submit(read_documents, batch)
            except BrokenProcessPool:  # a worker died (killed, out of memory): no more
                self._jobs.clear()  # reading ahead; every page left is read in place
                return
            for index, key in enumerate(keys):
                self._pending[key] = (future, index)
