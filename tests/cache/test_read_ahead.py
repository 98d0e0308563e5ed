"""Pages read ahead by worker processes are the pages read in place, kept the same way.

Real worker processes (spawned, as a run starts them) read real README versions of the
corpus the suite carries; the oracle is the same reading done in place, in this
process, with no workers, and for the CLI run the quotes come from the old html5lib
reader (`support.html5lib_reader`), which shares no reading code with the workers.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from claimcheck.cache import pages as pages_module
from claimcheck.cache import read_ahead
from claimcheck.cache import read_as_fetched as fetched
from claimcheck.cache.pages import Pages, page_document
from claimcheck.cache.read_as_fetched import read_as_fetched
from claimcheck.errors import StoreError
from claimcheck.judge.units import read_page
from claimcheck.models import MediaType
from claimcheck.page import Page
from claimcheck.store.files import TEMP_PREFIX, StoredBody
from support import html5lib_reader, paths
from support.claim_files import claim, write_claims, write_fast_config
from support.cli_runs import run, show
from support.local_http import serving_pages
from support.stored_readme import store_readme

# Slow: whole runs with worker processes reading pages ahead.
pytestmark = pytest.mark.slow

VERSIONS = sorted(paths.CORPUS.glob("*/*.md"))[:72]
Wanted = list[tuple[str, MediaType, Callable[[], str]]]


def _bodies() -> dict[str, str]:
    bodies = {}
    for path in VERSIONS:
        text = path.read_text(encoding="utf-8")
        bodies[hashlib.sha256(text.encode()).hexdigest()] = text
    return bodies


def _key_of(text: str) -> read_ahead.Key:
    """A Markdown text's key, as `Pages.to_read` gives it: its UTF-8's SHA-256."""
    return hashlib.sha256(text.encode()).hexdigest(), MediaType.MARKDOWN


def _wanted(bodies: dict[str, str]) -> Wanted:
    return [
        (digest, MediaType.MARKDOWN, (lambda text=text: text)) for digest, text in bodies.items()
    ]


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[read_ahead.ReadAhead]:
    """Every ReadAhead a run starts, recorded."""
    found: list[read_ahead.ReadAhead] = []
    real = read_ahead.ReadAhead

    class Recorded(real):  # type: ignore[misc, valid-type]  # a subclass of a patched name
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)
            found.append(self)

    monkeypatch.setattr(read_ahead, "ReadAhead", Recorded)
    return found


@pytest.fixture
def two_workers(
    monkeypatch: pytest.MonkeyPatch, started: list[read_ahead.ReadAhead]
) -> list[read_ahead.ReadAhead]:
    """Two workers on any machine (unless `jobs` says otherwise), every ReadAhead recorded."""
    monkeypatch.setattr(read_ahead, "workers_to_use", lambda jobs=None: 2 if jobs is None else jobs)
    return started


@pytest.fixture
def in_place(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts read in place (not by a worker), in the order they were."""
    read: list[str] = []
    real = pages_module.read_page_cached

    def counted(text: str, media: MediaType) -> Page:
        read.append(text)
        return real(text, media)

    monkeypatch.setattr(pages_module, "read_page_cached", counted)
    return read


async def hand_in(pages: Pages, reader: fetched.ReadAsFetched, text: str) -> bool:
    """A fetched text handed in as the fetch hands it (`observe.fetch`): read by a
    worker unless the pages have its page already; whether a worker's page came back."""
    key = pages.to_read(text, MediaType.MARKDOWN)
    if key is None:
        return False
    document = await reader.read(text, key)
    if document is not None:
        pages.read_elsewhere(key, document)
    return document is not None


def test_pages_read_ahead_are_the_pages_read_in_place_and_kept_alike(
    tmp_path: Path, two_workers: list[read_ahead.ReadAhead]
) -> None:
    bodies = _bodies()
    pages = Pages(tmp_path)
    pages.read_ahead(_wanted(bodies))
    assert two_workers == []  # started by the first page to read, not before
    try:
        # Asked in order, but the last one first: read in place, and not read again.
        digests = list(bodies)
        for digest in [digests[-1], *digests[:-1]]:
            page = pages.stored(digest, MediaType.MARKDOWN, lambda d=digest: bodies[d])
            assert len(two_workers) == 1
            in_place = read_page(bodies[digest], MediaType.MARKDOWN)
            assert page_document(page) == page_document(in_place)  # lines included
            pages.forget(digest, MediaType.MARKDOWN)
    finally:
        pages.stop_reading_ahead()
    assert pages.read == len(bodies)
    kept = sorted((tmp_path / ".cache" / "pages").rglob("*.json"))
    assert len(kept) == len(bodies)
    for path in kept:
        digest = path.name.split(".")[0]
        in_place = read_page(bodies[digest], MediaType.MARKDOWN)
        assert path.read_bytes() == orjson.dumps(page_document(in_place))


def test_few_pages_or_kept_pages_start_no_worker(
    tmp_path: Path, two_workers: list[read_ahead.ReadAhead]
) -> None:
    bodies = _bodies()
    few = dict(list(bodies.items())[: read_ahead.READ_AHEAD_MIN])  # the first read in place
    pages = Pages(tmp_path)
    pages.read_ahead(_wanted(few))
    for digest, text in few.items():
        pages.stored(digest, MediaType.MARKDOWN, lambda text=text: text)
    assert two_workers == []
    assert pages.read == len(few)

    pages = Pages(tmp_path)  # the same cache, every page of `few` kept
    pages.read_ahead(_wanted(few))
    for digest, text in few.items():
        pages.stored(digest, MediaType.MARKDOWN, lambda text=text: text)
    assert (two_workers, pages.read) == ([], 0)


def test_workers_killed_mid_run_leave_the_rest_to_be_read_in_place(
    tmp_path: Path, two_workers: list[read_ahead.ReadAhead]
) -> None:
    """What the out-of-memory killer does to a worker: the run goes on, every page the
    same, read in place from then on."""
    bodies = _bodies()
    pages = Pages(tmp_path)
    pages.read_ahead(_wanted(bodies))
    kept_by_dead_workers: set[str] = set()
    try:
        for n, (digest, text) in enumerate(bodies.items()):
            if n == 10:
                (ahead,) = two_workers
                for process in list(ahead._pool._processes.values()):
                    process.kill()
                    process.join()
                # A worker may have kept a page (by rename, whole) before it died while
                # its answer was lost: the run finds that page kept rather than read.
                later = list(bodies)[n:]
                kept_by_dead_workers = {d for d in later if _kept(tmp_path, d)}
            page = pages.stored(digest, MediaType.MARKDOWN, lambda text=text: text)
            assert page_document(page) == page_document(read_page(text, MediaType.MARKDOWN))
            pages.forget(digest, MediaType.MARKDOWN)
    finally:
        pages.stop_reading_ahead()
    assert len(bodies) - len(kept_by_dead_workers) <= pages.read <= len(bodies)
    assert {path.name.split(".")[0] for path in _kept_pages(tmp_path)} == set(bodies)


def _kept_pages(snapshots: Path) -> list[Path]:
    """The kept pages, not the temporary file of a worker killed mid-write (the next run
    that holds the lock removes it; no reader takes it for a page)."""
    pages = (snapshots / ".cache" / "pages").rglob("*.json")
    return sorted(path for path in pages if not path.name.startswith(TEMP_PREFIX))


def _kept(snapshots: Path, digest: str) -> bool:
    return any(path.name.split(".")[0] == digest for path in _kept_pages(snapshots))


def test_a_body_the_store_refuses_is_read_in_place_where_the_error_is_the_runs(
    tmp_path: Path, two_workers: list[read_ahead.ReadAhead]
) -> None:
    bodies = _bodies()
    damaged = next(iter(bodies))

    def refused() -> str:
        raise StoreError("snapshot does not match its index")

    wanted = [(d, m, refused if d == damaged else body) for d, m, body in _wanted(bodies)]
    pages = Pages(tmp_path)
    pages.read_ahead(wanted)
    try:
        with pytest.raises(StoreError, match="does not match"):
            pages.stored(damaged, MediaType.MARKDOWN, refused)
        last = list(bodies)[-1]
        page = pages.stored(last, MediaType.MARKDOWN, lambda: bodies[last])
        assert page == read_page(bodies[last], MediaType.MARKDOWN)
    finally:
        pages.stop_reading_ahead()


def test_fetched_texts_are_read_as_they_arrive_for_the_gate_and_kept_only_once_stored(
    tmp_path: Path,
    in_place: list[str],
    two_workers: list[read_ahead.ReadAhead],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Answers arrive in any order: the workers read them as they come, the first few
    are left to be read in place, and the gate finds each worker's page as its own
    reading. Some it turns away (a 404, a login page); only the ones it lets through
    are stored and kept. A worker keeps the page it reads at once (this process makes
    no document of it); the fetch's end removes those of texts never stored."""
    made: list[Page] = []
    real_document = pages_module.page_document

    def counted_document(page: Page) -> dict[str, Any]:
        made.append(page)
        return real_document(page)

    monkeypatch.setattr(pages_module, "page_document", counted_document)
    bodies = _bodies()
    arrived = list(reversed(bodies.items()))  # not the order they were asked in
    pages = Pages(tmp_path)
    reader = read_as_fetched(pages, len(bodies))

    async def all_arrive() -> list[bool]:
        return list(await asyncio.gather(*(hand_in(pages, reader, text) for _, text in arrived)))

    def kept() -> list[Path]:
        return sorted((tmp_path / ".cache" / "pages").rglob("*.json"))

    first = fetched.READ_IN_PLACE_FIRST
    try:
        by_worker = asyncio.run(all_arrive())
        assert by_worker == [False] * first + [True] * (len(bodies) - first)
        # Each worker kept the page it read as it read it, before the gate weighed it.
        by_workers = {digest for digest, _ in arrived[first:]}
        assert {path.name.split(".")[0] for path in kept()} == by_workers
        stored: set[str] = set()
        for n, (digest, text) in enumerate(arrived):
            if n % 3 == 2:
                continue  # turned away before its text is read
            page = pages.of_text(text, MediaType.MARKDOWN)
            assert page_document(page) == page_document(read_page(text, MediaType.MARKDOWN))
            if n % 3 == 0:  # let through: stored, then freed (kept), as a cold run does
                pages.stored(digest, MediaType.MARKDOWN, lambda text=text: text, fresh=True)
                pages.forget(digest, MediaType.MARKDOWN)
                stored.add(digest)
    finally:
        reader.close()  # the fetch's end: the pages of texts never stored go
    # Only the first few, and only those the gate weighed, were read here, and only
    # those read here and stored were made into a document here.
    assert in_place == [text for n, (_, text) in enumerate(arrived[:first]) if n % 3 != 2]
    assert len(made) == len([n for n in range(first) if n % 3 == 0])
    assert two_workers == []  # no ordered reading ahead: the answers' own order
    assert {path.name.split(".")[0] for path in kept()} == stored
    for path in kept():
        digest = path.name.split(".")[0]
        assert path.read_bytes() == orjson.dumps(
            page_document(read_page(bodies[digest], MediaType.MARKDOWN))
        )


def test_a_body_that_many_sources_share_is_read_once(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    in_place: list[str],
    two_workers: list[read_ahead.ReadAhead],
) -> None:
    """Three sources with each body, their answers all arriving at once: one reading a
    body, by a worker or in place, and every source finds the page. (A worker used to
    read the body again for every source that served it.)"""
    by_worker: list[str] = []
    real = fetched.ReadAsFetched._start

    def counted(self: fetched.ReadAsFetched, text: str, key: read_ahead.Key) -> Any:
        by_worker.append(text)
        return real(self, text, key)

    monkeypatch.setattr(fetched.ReadAsFetched, "_start", counted)
    texts = list(_bodies().values())
    arrived = [text for text in texts for _ in range(3)]
    pages = Pages(tmp_path)
    reader = read_as_fetched(pages, len(arrived))

    async def all_arrive() -> None:
        await asyncio.gather(*(hand_in(pages, reader, text) for text in arrived))

    try:
        asyncio.run(all_arrive())
    finally:
        reader.close()
    for text in arrived:
        page = pages.of_text(text, MediaType.MARKDOWN)
        assert page_document(page) == page_document(read_page(text, MediaType.MARKDOWN))
    assert by_worker  # the workers did read
    assert sorted(by_worker + in_place) == sorted(texts)  # each body once, all told


def test_a_fetch_of_few_sources_or_with_no_jobs_starts_no_worker(tmp_path: Path) -> None:
    texts = list(_bodies().values())

    async def read_all(reader: fetched.ReadAsFetched) -> list[bytes | None]:
        try:
            return [await reader.read(text, _key_of(text)) for text in texts]
        finally:
            reader.close()

    few = read_as_fetched(Pages(tmp_path), read_ahead.READ_AHEAD_MIN - 1)
    assert asyncio.run(read_all(few)) == [None] * len(texts)
    assert few._pool is None
    none = read_as_fetched(Pages(tmp_path, jobs=0), len(texts))
    assert asyncio.run(read_all(none)) == [None] * len(texts)
    assert none._pool is None


def test_a_worker_that_dies_leaves_the_rest_to_be_read_in_place(
    tmp_path: Path, two_workers: list[read_ahead.ReadAhead]
) -> None:
    texts = list(_bodies().values())
    reader = read_as_fetched(Pages(tmp_path), len(texts))

    async def read_all() -> list[bytes | None]:
        found = []
        for n, text in enumerate(texts):
            if n == fetched.READ_IN_PLACE_FIRST + 2:
                assert reader._pool is not None
                for process in list(reader._pool._processes.values()):
                    process.kill()
                    process.join()
            found.append(await reader.read(text, _key_of(text)))
        return found

    try:
        found = asyncio.run(read_all())
    finally:
        reader.close()
    first = fetched.READ_IN_PLACE_FIRST
    assert found[:first] == [None] * first
    for text, document in zip(texts[first : first + 2], found[first : first + 2], strict=True):
        assert document == orjson.dumps(page_document(read_page(text, MediaType.MARKDOWN)))
    assert found[first + 2 :] == [None] * (len(texts) - first - 2)


@pytest.fixture
def readme_server() -> Iterator[str]:
    """`/pages/N.md`: corpus README version N, as Markdown."""
    with serving_pages(lambda number: VERSIONS[number].read_bytes()) as url:
        yield url


def test_a_cold_run_with_workers_reports_and_keeps_what_one_without_does(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    readme_server: str,
    two_workers: list[read_ahead.ReadAhead],
) -> None:
    """The gate's pages are read by the workers: the same verdicts, the same kept pages."""
    as_fetched: list[Any] = []
    real = fetched.ReadAsFetched

    class Recorded(real):  # type: ignore[misc, valid-type]  # a subclass of a patched name
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._pool_started = False
            as_fetched.append(self)

        async def read(self, text: str, key: read_ahead.Key) -> bytes | None:
            document = await super().read(text, key)
            self._pool_started |= document is not None
            return document

    monkeypatch.setattr(fetched, "ReadAsFetched", Recorded)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claimcheck.toml").write_text(
        '[fetch]\nallow_addresses = ["127.0.0.1"]\nper_host = 8\nper_host_interval = 0\n'
    )
    claims = []
    for n, path in enumerate(VERSIONS):
        oracle = html5lib_reader.read_page(path.read_text(encoding="utf-8"), MediaType.MARKDOWN)
        quote = next(u.text for u in oracle.units if u.kind == "paragraph" and len(u.text) > 20)
        claims.append(claim(f"c{n}", quote=quote, source=f"{readme_server}/pages/{n}.md"))
    write_claims(tmp_path / "claims", claims)

    def cold_run() -> tuple[list[Any], dict[str, bytes]]:
        shutil.rmtree(tmp_path / "snapshots", ignore_errors=True)
        result = run("verify", "--format", "json", "--no-progress")
        assert result.exit_code == 0, show(result)
        kept = (tmp_path / "snapshots" / ".cache").rglob("pages/*/*/*.json")
        results = json.loads(result.stdout)["results"]
        when = ("snapshot_fetched_at", "snapshot_file")  # the run's own time
        results = [{k: v for k, v in r.items() if k not in when} for r in results]
        return results, {p.name: p.read_bytes() for p in kept}

    with_workers = cold_run()
    assert as_fetched[-1]._pool_started  # the gate's pages, read as the answers came
    assert two_workers == []  # judging finds every page kept
    monkeypatch.setattr(read_ahead, "READ_AHEAD_MIN", 10**9)
    in_place = cold_run()
    assert not as_fetched[-1]._pool_started
    assert two_workers == []
    assert with_workers == in_place
    assert {r["verdict"] for r in with_workers[0]} == {"verified"}
    assert len(with_workers[1]) == len(VERSIONS)


LOGIN_WALL = "Please sign in to continue\n\nUsername\n\nPassword\n\nForgot your password?\n"


def test_a_cold_run_keeps_the_pages_of_stored_bodies_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, two_workers: list[read_ahead.ReadAhead]
) -> None:
    """The workers keep each page as they read it, before the gate weighs its answer:
    after the run, the pages kept are those of the bodies stored, and none of the
    answers the gate turned away (a login wall served in place of every fourth README,
    each its own text), whose claims are unreachable, never stale."""
    walled = {n for n in range(len(VERSIONS)) if n % 4 == 1}

    def body_of(number: int) -> bytes:
        if number in walled:
            return f"{LOGIN_WALL}\n(request {number})\n".encode()
        return VERSIONS[number].read_bytes()

    monkeypatch.chdir(tmp_path)
    (tmp_path / "claimcheck.toml").write_text(
        '[fetch]\nallow_addresses = ["127.0.0.1"]\nper_host = 8\nper_host_interval = 0\n'
    )
    with serving_pages(body_of) as url:
        claims = []
        for n, path in enumerate(VERSIONS):
            text = path.read_text(encoding="utf-8")
            oracle = html5lib_reader.read_page(text, MediaType.MARKDOWN)
            quote = next(u.text for u in oracle.units if u.kind == "paragraph" and len(u.text) > 20)
            claims.append(claim(f"c{n}", quote=quote, source=f"{url}/pages/{n}.md"))
        write_claims(tmp_path / "claims", claims)
        result = run("verify", "--format", "json", "--no-progress")

    assert result.exit_code == 3, show(result)  # nothing stale, some sources unreachable
    verdicts = {r["id"]: r["verdict"] for r in json.loads(result.stdout)["results"]}
    assert {n for n in range(len(VERSIONS)) if verdicts[f"c{n}"] != "verified"} == walled
    assert {verdicts[f"c{n}"] for n in walled} == {"unreachable"}
    stored = {
        hashlib.sha256(body.read_bytes()).hexdigest()
        for body in (tmp_path / "snapshots").rglob("*.md")
        if body.is_file()  # a source's folder is named after its URL's path
    }
    served = {n: hashlib.sha256(path.read_bytes()).hexdigest() for n, path in enumerate(VERSIONS)}
    assert stored == {digest for n, digest in served.items() if n not in walled}
    cache = tmp_path / "snapshots" / ".cache"
    kept = {path.name.split(".")[0] for path in cache.rglob("pages/*/*/*.json")}
    assert kept == stored
    assert not list((tmp_path / "snapshots").rglob(f"{TEMP_PREFIX}*"))


def test_a_cold_run_judges_each_page_as_the_gate_read_it_and_holds_few_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, readme_server: str
) -> None:
    """A source's page, read for the gate, is held until its claims are judged: never
    read back from the cache for them (a cold run used to, for every source), and no
    more pages are held at once than the sources the fetch may have in hand."""
    from claimcheck.observe import fetch

    loaded: list[tuple[str, MediaType]] = []
    held: list[int] = []
    real_load, real_forget = Pages._load, Pages.forget

    def counted_load(self: Pages, key: tuple[str, MediaType]) -> Page | None:
        page = real_load(self, key)
        if page is not None:
            loaded.append(key)
        return page

    def counted_forget(self: Pages, digest: str, media: MediaType) -> None:
        held.append(len(self._memory))
        real_forget(self, digest, media)

    monkeypatch.setattr(Pages, "_load", counted_load)
    monkeypatch.setattr(Pages, "forget", counted_forget)
    monkeypatch.chdir(tmp_path)
    concurrency = 4
    (tmp_path / "claimcheck.toml").write_text(
        f'[fetch]\nallow_addresses = ["127.0.0.1"]\nconcurrency = {concurrency}\n'
        "per_host_interval = 0\n"
    )
    claims = []
    for n, path in enumerate(VERSIONS):
        oracle = html5lib_reader.read_page(path.read_text(encoding="utf-8"), MediaType.MARKDOWN)
        quotes = [u.text for u in oracle.units if u.kind == "paragraph" and len(u.text) > 20]
        for m, quote in enumerate(quotes[:2]):
            claims.append(claim(f"c{n}-{m}", quote=quote, source=f"{readme_server}/pages/{n}.md"))
    write_claims(tmp_path / "claims", claims)

    result = run("verify", "--format", "json", "--no-progress")

    assert result.exit_code == 0, show(result)
    assert {r["verdict"] for r in json.loads(result.stdout)["results"]} == {"verified"}
    assert loaded == []  # every page judged as the gate read it
    kept = list((tmp_path / "snapshots" / ".cache").rglob("pages/*/*/*.json"))
    assert len(kept) == len(VERSIONS)  # and each kept on disk once judged
    assert held  # pages were freed as sources were judged
    assert max(held) <= fetch.IN_HAND_PER_REQUEST * concurrency


def test_an_offline_run_reads_a_page_only_to_judge_anew_and_holds_few_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, readme_server: str
) -> None:
    """Judging from the store, a run reads each page it judges anew once, frees it once
    the claims on it are judged, and so holds a page or two at a time, not every
    source's; a claim whose verdict is kept reads no page at all."""
    asked: list[tuple[str, MediaType]] = []
    held: list[int] = []
    real_stored = Pages.stored

    def counted_stored(self: Pages, digest: str, media: MediaType, *args: Any, **kw: Any) -> Page:
        page = real_stored(self, digest, media, *args, **kw)
        asked.append((digest, media))
        held.append(len(self._memory))
        return page

    monkeypatch.chdir(tmp_path)
    (tmp_path / "claimcheck.toml").write_text(
        '[fetch]\nallow_addresses = ["127.0.0.1"]\nper_host_interval = 0\n'
    )
    claims = []
    for n, path in enumerate(VERSIONS):
        oracle = html5lib_reader.read_page(path.read_text(encoding="utf-8"), MediaType.MARKDOWN)
        quotes = [u.text for u in oracle.units if u.kind == "paragraph" and len(u.text) > 20]
        for m, quote in enumerate(quotes[:2]):
            claims.append(claim(f"c{n}-{m}", quote=quote, source=f"{readme_server}/pages/{n}.md"))
    write_claims(tmp_path / "claims", claims)
    online = run("verify", "--format", "json", "--no-progress")
    assert online.exit_code == 0, show(online)
    (tmp_path / "snapshots" / ".cache" / "verdicts.json").unlink()  # every claim anew
    bodies = {hashlib.sha256(path.read_bytes()).hexdigest() for path in VERSIONS}
    monkeypatch.setattr(Pages, "stored", counted_stored)

    anew = run("verify", "--offline", "--format", "json", "--no-progress")

    assert anew.exit_code == 0, show(anew)
    assert {r["verdict"] for r in json.loads(anew.stdout)["results"]} == {"verified"}
    assert {digest for digest, _ in asked} == bodies  # every page read to judge anew
    assert max(held) <= 2  # the page judged (and its baseline's, were it another)
    asked.clear()

    kept = run("verify", "--offline", "--format", "json", "--no-progress")

    assert kept.exit_code == 0, show(kept)
    assert json.loads(kept.stdout)["results"] == json.loads(anew.stdout)["results"]
    assert asked == []  # every verdict kept: no page read


def test_workers_read_stored_files_and_refuse_one_not_its_index_body(
    tmp_path: Path, two_workers: list[read_ahead.ReadAhead]
) -> None:
    """A stored body is read, and its digest checked, by the worker; one that is not what
    its index recorded fails there and is read in place, where the store refuses it."""
    bodies = _bodies()
    files = {}
    for digest, text in bodies.items():
        path = tmp_path / "bodies" / f"{digest}.md"
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        files[digest] = StoredBody(str(path), digest)
    damaged = list(bodies)[5]
    Path(files[damaged].path).write_text("# edited by hand\n", encoding="utf-8")
    pages = Pages(tmp_path)
    pages.read_ahead([(digest, MediaType.MARKDOWN, body) for digest, body in files.items()])
    try:
        for digest, text in bodies.items():
            if digest == damaged:
                with pytest.raises(StoreError, match="does not hold the body"):
                    pages.stored(digest, MediaType.MARKDOWN, files[digest])
                continue
            page = pages.stored(digest, MediaType.MARKDOWN, files[digest])
            assert page_document(page) == page_document(read_page(text, MediaType.MARKDOWN))
    finally:
        pages.stop_reading_ahead()
    assert len(two_workers) == 1


def test_jobs_is_the_count_of_workers_whatever_the_cores() -> None:
    assert read_ahead.workers_to_use(0) == 0
    assert read_ahead.workers_to_use(1) == 1  # asked for: even where it only waits
    assert read_ahead.workers_to_use(9) == 9  # above the default's cap of four
    assert read_ahead.workers_to_use(None) == read_ahead.workers_to_use()
    assert read_ahead.workers_to_use() <= read_ahead.MAX_WORKERS


def _offline_project(folder: Path, top: str = "") -> None:
    """The corpus READMEs stored, one claim on each, every page to be read."""
    write_fast_config(folder)
    config = folder / "claimcheck.toml"
    config.write_text(top + config.read_text())
    claims = []
    for n, path in enumerate(VERSIONS):
        text = path.read_text(encoding="utf-8")
        source = f"https://github.com/engines/e{n}"
        store_readme(folder / "snapshots", text, source=source, day=dt.date(2026, 10, 1))
        oracle = html5lib_reader.read_page(text, MediaType.MARKDOWN)
        quote = next(u.text for u in oracle.units if u.kind == "paragraph" and len(u.text) > 20)
        claims.append(claim(f"c{n}", quote=quote, source=source))
    write_claims(folder / "claims", claims, checked="2026-10-02")


@pytest.mark.parametrize(
    ("top", "args", "workers"),
    [
        ("", ["--jobs", "0"], None),
        ("jobs = 0\n", [], None),
        ("jobs = 0\n", ["--jobs", "3"], 3),  # the flag over the file
        ("jobs = 1\n", [], 1),
    ],
    ids=["flag-none", "file-none", "flag-over-file", "file-one"],
)
def test_jobs_from_the_file_or_the_flag_decide_the_workers(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    started: list[read_ahead.ReadAhead],
    top: str,
    args: list[str],
    workers: int | None,
) -> None:
    monkeypatch.chdir(tmp_path)
    _offline_project(tmp_path, top)
    result = run("verify", "--offline", "--format", "json", *args)
    assert result.exit_code == 0, show(result)
    assert {r["verdict"] for r in json.loads(result.stdout)["results"]} == {"verified"}
    assert [ahead._pool._max_workers for ahead in started] == ([workers] if workers else [])


def test_an_offline_run_with_workers_reports_what_one_without_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, two_workers: list[read_ahead.ReadAhead]
) -> None:
    monkeypatch.chdir(tmp_path)
    _offline_project(tmp_path)

    with_workers = run("verify", "--offline", "--format", "json")
    assert with_workers.exit_code == 0, show(with_workers)
    assert len(two_workers) == 1
    kept = {p.name: p.read_bytes() for p in (tmp_path / "snapshots").rglob("pages/*/*/*.json")}

    monkeypatch.setattr(read_ahead, "READ_AHEAD_MIN", 10**9)
    shutil.rmtree(tmp_path / "snapshots" / ".cache")
    in_place = run("verify", "--offline", "--format", "json")
    assert in_place.exit_code == 0, show(in_place)
    assert len(two_workers) == 1  # no workers the second time

    first, second = json.loads(with_workers.stdout), json.loads(in_place.stdout)
    assert first["results"] == second["results"]
    assert {r["verdict"] for r in first["results"]} == {"verified"}
    assert len(kept) == len(VERSIONS)
    again = {p.name: p.read_bytes() for p in (tmp_path / "snapshots").rglob("pages/*/*/*.json")}
    assert again == kept


def test_a_body_that_fails_in_a_batch_costs_the_others_in_it_nothing(tmp_path: Path) -> None:
    """Workers are handed pages a batch at a time: one body that is not what its index
    recorded comes back as None (read in place), the others in its batch as read."""
    texts = list(_bodies().values())[:3]
    damaged = tmp_path / "damaged.md"
    damaged.write_text("# edited by hand\n", encoding="utf-8")
    refused = StoredBody(str(damaged), hashlib.sha256(texts[1].encode()).hexdigest())
    found = read_ahead.read_documents(
        [
            (texts[0], MediaType.MARKDOWN, None),
            (refused, MediaType.MARKDOWN, None),
            (texts[2], MediaType.MARKDOWN, None),
        ]
    )
    assert found[1] is None
    for text, document in ((texts[0], found[0]), (texts[2], found[2])):
        assert document == orjson.dumps(page_document(read_page(text, MediaType.MARKDOWN)))
