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
is dropped. A worker that fails leaves its page to be read in place. Worth it only for
many pages: a worker process costs a start of some hundreds of milliseconds
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


class ReadAhead:
    """Worker processes reading `jobs` in order, at most `window` pages ahead."""

    def __init__(self, jobs: list[Job], workers: int, window: int | None = None) -> None:
        self._jobs = deque(jobs)
        self._window = window or 4 * workers
        self._pending: dict[Key, Future[bytes]] = {}  # in the order of `jobs`
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
        future = self._pending.pop(key, None)
        if future is None:
            self._skipped.add(key)
            return None
        # The caller goes through the pages in order: one it has gone past without asking
        # (a kept verdict needs no page; the gate turns some answers away before reading
        # them) will not be asked for, and would hold a place in the window for good.
        place = self._place[key]
        for passed in [k for k in self._pending if self._place[k] < place]:
            self._pending.pop(passed).cancel()
        try:
            document: bytes | None = future.result()
        except Exception:  # a worker's failure (or its process's death) is no verdict
            document = None
        self._fill()
        return document

    def close(self) -> None:
        """Stop the workers; pages not taken yet are dropped (their kept files stay)."""
        self._jobs.clear()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _fill(self) -> None:
        while self._jobs and len(self._pending) < self._window:
            key, body, path = self._jobs.popleft()
            if key in self._pending or key in self._skipped:
                continue
            try:  # a stored body's file is read by the worker; any other text here
                text: str | StoredBody = body if isinstance(body, StoredBody) else body()
            except StoreError:
                continue  # read in place, where the error is the run's to report
            where = str(path) if path is not None else None
            try:
                self._pending[key] = self._pool.submit(read_document, text, key[1], where)
            except BrokenProcessPool:  # a worker died (killed, out of memory): no more
                self._jobs.clear()  # reading ahead; every page left is read in place
                return
