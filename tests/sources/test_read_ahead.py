"""Pages read ahead by worker processes are the pages read in place, kept the same way.

Real worker processes (spawned, as a run starts them) read real README versions of the
corpus the suite carries; the oracle is the same reading done in place, in this
process, with no workers, and for the CLI run the quotes come from the old html5lib
reader (`support.html5lib_reader`), which shares no reading code with the workers.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from claimcheck.errors import StoreError
from claimcheck.judge.units import read_page
from claimcheck.models import MediaType
from claimcheck.sources import read_ahead
from claimcheck.sources.pages import Pages, page_document
from support import html5lib_reader, paths
from support.claim_files import claim, write_claims, write_fast_config
from support.cli_runs import run, show
from support.stored_readme import store_readme

VERSIONS = sorted(paths.CORPUS.glob("*/*.md"))[:72]
Wanted = list[tuple[str, MediaType, Callable[[], str]]]


def _bodies() -> dict[str, str]:
    bodies = {}
    for path in VERSIONS:
        text = path.read_text(encoding="utf-8")
        bodies[hashlib.sha256(text.encode()).hexdigest()] = text
    return bodies


def _wanted(bodies: dict[str, str]) -> Wanted:
    return [
        (digest, MediaType.MARKDOWN, (lambda text=text: text)) for digest, text in bodies.items()
    ]


@pytest.fixture
def two_workers(monkeypatch: pytest.MonkeyPatch) -> list[read_ahead.ReadAhead]:
    """Two workers on any machine, and every ReadAhead a run starts, recorded."""
    started: list[read_ahead.ReadAhead] = []
    real = read_ahead.ReadAhead

    class Recorded(real):  # type: ignore[misc, valid-type]  # a subclass of a patched name
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(read_ahead, "workers_to_use", lambda: 2)
    monkeypatch.setattr(read_ahead, "ReadAhead", Recorded)
    return started


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


def test_an_offline_run_with_workers_reports_what_one_without_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, two_workers: list[read_ahead.ReadAhead]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_fast_config(tmp_path)
    claims = []
    for n, path in enumerate(VERSIONS):
        text = path.read_text(encoding="utf-8")
        source = f"https://github.com/engines/e{n}"
        store_readme(tmp_path / "snapshots", text, source=source, day=dt.date(2026, 10, 1))
        oracle = html5lib_reader.read_page(text, MediaType.MARKDOWN)
        quote = next(u.text for u in oracle.units if u.kind == "paragraph" and len(u.text) > 20)
        claims.append(claim(f"c{n}", quote=quote, source=source))
    write_claims(tmp_path / "claims", claims, checked="2026-10-02")

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
