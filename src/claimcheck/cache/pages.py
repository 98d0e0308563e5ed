"""Pages read once: the units of each stored body, derived once per content and kept.

Reading a page (rendering Markdown, parsing the HTML, walking it into units) is the
costly part of a run, and one body is needed many times in it: when its state is
observed, when each of its claims is judged, when a context is compared, when blame
asks whether the quote held. `Pages` reads a body once per run (kept in memory by its
SHA-256) and keeps the units on disk in `snapshots/.cache/pages/`, so that a run in
which nothing changed — every answer a 304, or offline — reads no page at all.

The cache is derived data, never a source of truth, kept under the cache's one scheme
(`cache/keys.py`):

- an entry is found by the SHA-256 of the body actually read, and by the version of
  the reader (`keys.code_version` of the reading modules and the parser libraries), so
  a changed body or a changed reader never meets a stale entry;
- a body that is new in this run (fetched and not stored before) is always read
  afresh, never taken from the cache: a cache entry planted in a pull request for the
  digest of tomorrow's page can't stand in for that page. An entry for a body that is
  already stored is as trusted as the stored body itself;
- a damaged entry (a kill while writing, a hand edit) is a miss, read again and written
  again; entries are written by rename without an fsync, since losing one only costs a
  read;
- the folder carries its own `.gitignore`, so a nightly `--commit` never commits it.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path

import orjson

from claimcheck import page as page_data
from claimcheck._compat import cmark
from claimcheck.cache import read_ahead as ahead
from claimcheck.cache.keys import (
    cache_folder,
    cache_made_here,
    code_version,
    load_entry,
    prepare_cache,
    write_entry,
)
from claimcheck.cache.page_json import page_document, page_from_document
from claimcheck.errors import StoreError
from claimcheck.judge import extract, front_matter, gfm, normalize, pdf, tokens, units
from claimcheck.judge.verdict import read_page_cached
from claimcheck.models import MediaType
from claimcheck.page import Page

PAGES_FOLDER = "pages"
_READER_MODULES = (extract, front_matter, gfm, cmark, normalize, pdf, tokens, units, page_data)
_READER_LIBRARIES = ("cmarkgfm", "selectolax", "pdfminer.six")


def reader_version() -> str:
    """A digest of what decides a page's units: the reading code and its parsers."""
    return code_version(_READER_MODULES, _READER_LIBRARIES)


_VERSION = reader_version()


class Pages:
    """The units of bodies, read at most once per run and kept below `snapshots/.cache`."""

    def __init__(self, snapshots: Path | None, *, jobs: int | None = None) -> None:
        self._snapshots = snapshots
        self._jobs = jobs  # worker processes to read ahead with (`read_ahead.workers_to_use`)
        cache = cache_folder(snapshots)  # None: no store, or the caches switched off
        self._folder = cache / PAGES_FOLDER / _VERSION if cache is not None else None
        self._memory: dict[tuple[str, MediaType], Page] = {}
        # Read by the gate (`of_text`) and not kept yet; with the worker's document when a
        # worker read it, which is the kept entry byte for byte (`read_ahead.read_document`).
        self._unsaved: dict[tuple[str, MediaType], bytes | None] = {}
        # Kept by a worker as it read a fetched text, before the gate weighed it: removed
        # when the fetch ends unless the body was stored meanwhile (`drop_unstored`).
        self._kept_unstored: dict[tuple[str, MediaType], Path] = {}
        self._written: set[tuple[str, MediaType]] = set()  # kept by this run: its own reading
        self._prepared = False
        self._trusted: bool | None = None  # whether the cache was made here, asked once
        self._ahead: ahead.ReadAhead | None = None
        self._plan: ahead.Wanted | None = None
        self._ahead_keeps = False  # its workers write the kept pages themselves
        self.read = 0  # bodies read into units this run (not found in memory or on disk)
        self.written = 0  # cache entries written this run

    def stored(
        self, digest: str, media: MediaType, body: Callable[[], str], *, fresh: bool = False
    ) -> Page:
        """The units of the body whose SHA-256 is `digest`, read by `body()` only when
        neither this run nor the cache holds them (a stored body's digest is its index's,
        checked whenever the body is read). `fresh`: a body new in this run, read rather
        than looked up."""
        key = (digest, media)
        page = self._memory.get(key)
        if page is None:
            page = self._from_ahead(key)
        if page is not None:
            self._keep_if_unsaved(key, page)  # read by the gate (`of_text`), stored since
            return page
        # A body new in this run is read, never looked up, unless this run kept the entry
        # itself from its own reading of that body (the gate's, freed once stored).
        page = None if fresh and key not in self._written else self._load(key)
        if page is None:
            self._start_planned(key)
            page = read_page_cached(body(), media)
            self.read += 1
            self._save(key, page)
        self._memory[key] = page
        return page

    def read_ahead(self, wanted: ahead.Wanted) -> None:
        """Have worker processes read the stored pages `wanted` (digest, medium, body), in
        that order, that neither this run nor the cache holds, while the caller works
        through them (`cache.read_ahead`): only when there are many, on a machine of
        several cores. `stop_reading_ahead` ends it.

        Nothing is looked at until the first page must be read from its body: a run
        whose verdicts and pages are kept (a night in which nothing changed) never asks
        for one, and pays nothing for the plan.
        """
        self._plan = wanted

    def _start_planned(self, first: tuple[str, MediaType]) -> None:
        """`first` must be read now: start reading the rest of the plan ahead, if any."""
        if self._plan is not None:
            plan, self._plan = self._plan, None
            self._start_reading_ahead(plan, first)

    def _start_reading_ahead(self, wanted: ahead.Wanted, first: tuple[str, MediaType]) -> None:
        """Start the workers on the pages `wanted` after `first` (read in place now)."""
        workers = ahead.workers_to_use(self._jobs)
        if self._ahead is not None or workers == 0:
            return
        jobs: list[ahead.Job] = []
        seen: set[tuple[str, MediaType]] = {first}
        for digest, media, body in wanted:
            key = (digest, media)
            if key in seen:
                continue
            seen.add(key)
            if key not in self._memory and not self._is_kept(key):
                jobs.append((key, body, self._path(key)))
        if len(jobs) < ahead.READ_AHEAD_MIN:
            return
        try:
            self._prepare()  # the workers write into a cache made here
        except (OSError, StoreError):
            jobs = [(key, body, None) for key, body, _ in jobs]
        self._ahead = ahead.ReadAhead(jobs, workers)
        self._ahead_keeps = jobs[0][2] is not None

    @property
    def jobs(self) -> int | None:
        """The worker processes this store may read with (`read_ahead.workers_to_use`)."""
        return self._jobs

    def kept_by_worker(self, key: tuple[str, MediaType]) -> str | None:
        """Where the worker starting to read a fetched text (its key from `to_read`)
        keeps its page, or None: kept there as it is read, the entry costs the run's own
        process nothing. It stands if the text is stored; the fetch's end removes it if
        not, so an answer the gate turns away leaves nothing behind."""
        path = self._path(key)
        if path is None:
            return None
        self._prepare()
        self._kept_unstored[key] = path
        return str(path)

    def to_read(self, text: str, media: MediaType) -> tuple[str, MediaType] | None:
        """The key of a fetched text whose page no one has read yet, or None when this
        run holds its page, wrote it or finds it kept: a body that many sources share,
        or that an earlier run read, is read once, not once a source."""
        key = _text_key(text, media)
        if key in self._memory or key in self._written or self._is_kept(key):
            return None
        return key

    def read_elsewhere(self, key: tuple[str, MediaType], document: bytes) -> None:
        """Take the page of a fetched text (its key from `to_read`) that a worker read
        (`read_as_fetched.ReadAsFetched`) as `of_text` would have read it: held for the gate,
        kept once the text is stored. A document that is not a page is dropped:
        `of_text` then reads the text itself."""
        if key in self._memory:
            return
        try:
            page = page_from_document(orjson.loads(document))
        except (ValueError, TypeError, KeyError, IndexError):
            return
        self.read += 1
        self._memory[key] = page
        if key in self._kept_unstored:  # kept by the worker (`kept_by_worker`)
            self.written += 1
            self._written.add(key)
        else:
            self._unsaved[key] = document

    def _from_ahead(self, key: tuple[str, MediaType]) -> Page | None:
        """The page a worker read for `key`, if one did (see `read_ahead`). Held in memory;
        marked to be kept once stored when the worker did not keep it itself."""
        if self._ahead is None:
            return None
        document = self._ahead.take(key)
        if document is None:
            return None
        page = page_from_document(orjson.loads(document))
        self.read += 1
        if self._ahead_keeps:
            self.written += 1
        else:
            self._unsaved[key] = document
        self._memory[key] = page
        return page

    def holds(self, digest: str, media: MediaType) -> bool:
        """Whether this run holds the body's units in memory (asking reads nothing)."""
        return (digest, media) in self._memory

    def stop_reading_ahead(self) -> None:
        """Stop the workers `read_ahead` started, if any."""
        self._plan = None
        if self._ahead is not None:
            self._ahead.close()
            self._ahead = None

    def _is_kept(self, key: tuple[str, MediaType]) -> bool:
        path = self._path(key)
        return path is not None and self._cache_trusted() and path.is_file()

    def _cache_trusted(self) -> bool:
        """Whether the cache was made here (`cache_made_here`), asked once a run."""
        if self._trusted is None:
            self._trusted = self._snapshots is not None and cache_made_here(self._snapshots)
        return self._trusted

    def of_text(self, text: str, media: MediaType) -> Page:
        """The units of a text not stored yet: a fetched answer that the plausibility gate
        weighs. Read once; when the text is then stored, `stored` finds this reading by
        its digest, and only then is it written to the cache (a login page the gate
        turns away leaves nothing behind)."""
        key = _text_key(text, media)
        page = self._memory.get(key)
        if page is None and key in self._written:  # another source's body, kept this run
            page = self._load(key)
            if page is not None:
                self._memory[key] = page
                return page
        if page is None:
            page = self._from_ahead(key)
        if page is None:
            self._start_planned(key)
            page = read_page_cached(text, media)
            self.read += 1
            self._memory[key] = page
            self._unsaved[key] = None
        return page

    def forget(self, digest: str, media: MediaType) -> None:
        """Free a body's units from memory (the cache on disk keeps them)."""
        page = self._memory.pop((digest, media), None)
        if page is not None:
            self._keep_if_unsaved((digest, media), page)

    def _keep_if_unsaved(self, key: tuple[str, MediaType], page: Page) -> None:
        """Keep a page the gate read (`of_text`) once its body is stored, and only once:
        the worker's document as it came, else the page made into one. A page a worker
        kept already stands from now on."""
        self._kept_unstored.pop(key, None)
        if key in self._unsaved:
            self._save(key, page, self._unsaved.pop(key))

    def drop_unstored(self) -> None:
        """Remove the pages workers kept of fetched texts never stored (the gate turned
        them away): called once the fetch's workers have stopped."""
        for key, path in self._kept_unstored.items():
            self._written.discard(key)
            with contextlib.suppress(OSError):
                path.unlink()
            if key in self._memory:  # stored after all, later: kept from the page then
                self._unsaved[key] = None
        self._kept_unstored.clear()

    def _path(self, key: tuple[str, MediaType]) -> Path | None:
        if self._folder is None:
            return None
        digest, media = key
        return self._folder / digest[:2] / f"{digest}.{media.value}.json"

    def _load(self, key: tuple[str, MediaType]) -> Page | None:
        path = self._path(key)
        if path is None:
            return None
        if not self._cache_trusted():
            return None  # a cache not made here (committed, copied): read the body
        return load_entry(path, _page_of)  # absent or damaged: read the body instead

    def _save(self, key: tuple[str, MediaType], page: Page, document: bytes | None = None) -> None:
        path = self._path(key)
        if path is None:
            return
        try:
            self._prepare()
        except (OSError, StoreError):
            return  # a read-only checkout still judges; it only reads pages again next time
        # orjson: the bytes json.dumps(ensure_ascii=False, separators=(",", ":")) gives,
        # in a quarter of the time (a cold run keeps a page for every new body)
        if document is None:
            document = orjson.dumps(page_document(page))
        if write_entry(path, document):
            self.written += 1
            self._written.add(key)

    def _prepare(self) -> None:
        """Create the cache folder with its `.gitignore`, and drop other readers' entries."""
        if self._prepared or self._folder is None:
            return
        self._prepared = True
        prepare_cache(self._folder.parent.parent.parent)
        # Made here now (a cache that was not is cleared): what this run writes in it,
        # it may read back, as a citation does of a page judging has freed.
        self._trusted = True
        for old in (self._folder.parent).glob("*"):
            if old.name != self._folder.name and old.is_dir() and not old.is_symlink():
                shutil.rmtree(old, ignore_errors=True)


def _page_of(entry: bytes) -> Page:
    """A kept entry's page; raises on one that is not a page (`keys.DAMAGED`)."""
    return page_from_document(orjson.loads(entry))


def _text_key(text: str, media: MediaType) -> tuple[str, MediaType]:
    """A text's key as the store will know its body: the SHA-256 of its UTF-8 (of a PDF's
    bytes, carried as text one character a byte)."""
    if media is MediaType.PDF:
        return hashlib.sha256(pdf.body_bytes(text)).hexdigest(), media
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(), media
