"""Pages read once: the kept units equal a fresh read, and the cache can't stand in for a page."""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from claimcheck.cache import pages as pages_module
from claimcheck.cache.pages import Pages, page_document, page_from_document
from claimcheck.cli.app import app
from claimcheck.judge import verdict as verdict_module
from claimcheck.judge.units import read_page
from claimcheck.models import MediaType
from claimcheck.page import Page
from claimcheck.store.store import Store
from support import paths
from support.claim_files import claim, write_claims
from support.local_http import serving_pages

READMES = sorted(paths.CORPUS.glob("*/*.md"))[::40]  # one in forty: every engine, many eras


@pytest.mark.parametrize("readme", READMES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_kept_page_is_the_page_read_afresh(readme: Path) -> None:
    body = readme.read_text()
    page = read_page(body, MediaType.MARKDOWN)
    again = page_from_document(json.loads(json.dumps(page_document(page))))
    assert again == page
    assert again.text == page.text
    assert [again.notices_over(i) for i in range(len(again.units))] == [
        page.notices_over(i) for i in range(len(page.units))
    ]


@pytest.mark.parametrize(
    ("field", "value"),
    [(0, 7), (1, None), (1, ["a"]), (2, "0"), (2, 99), (3, 3.5), (4, {"a": 1}), (5, "extra")],
)
def test_a_unit_row_of_the_wrong_shape_is_refused_whole(field: int, value: object) -> None:
    """Any field of the wrong type, a heading chain that is not one, a row too long: the
    document raises (the cache then reads the body again), never a page half read."""
    page = read_page(READMES[0].read_text(), MediaType.MARKDOWN)
    document = json.loads(json.dumps(page_document(page)))
    row = document["units"][len(document["units"]) // 2]
    if field < len(row):
        row[field] = value
    else:
        row.append(value)
    with pytest.raises((TypeError, ValueError, IndexError)):
        page_from_document(document)


def read(pages: Pages, body: str, media: MediaType, *, fresh: bool = False) -> Page:
    """A body's units through `pages`, found by its SHA-256 as the store finds them."""
    digest = hashlib.sha256(body.encode()).hexdigest()
    return pages.stored(digest, media, lambda: body, fresh=fresh)


def entries(snapshots: Path) -> list[Path]:
    return sorted((snapshots / ".cache" / "pages").rglob("*.json"))


def test_a_body_is_read_once_per_run_and_not_at_all_the_next(tmp_path: Path) -> None:
    body = READMES[0].read_text()
    first = Pages(tmp_path)
    page = read(first, body, MediaType.MARKDOWN)
    assert read(first, body, MediaType.MARKDOWN) is page
    assert (first.read, first.written) == (1, 1)

    second = Pages(tmp_path)
    assert read(second, body, MediaType.MARKDOWN) == page
    assert (second.read, second.written) == (0, 0)
    assert (tmp_path / ".cache" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_damaged_entry_is_read_again_and_rewritten(tmp_path: Path) -> None:
    body = READMES[1].read_text()
    page = read(Pages(tmp_path), body, MediaType.MARKDOWN)
    (entry,) = entries(tmp_path)
    entry.write_text('{"chains": [], "units": [["paragraph"')  # a torn write
    again = Pages(tmp_path)
    assert read(again, body, MediaType.MARKDOWN) == page
    assert again.read == 1
    assert json.loads(entry.read_text())  # whole again


def test_a_planted_entry_never_stands_in_for_a_body_new_in_this_run(tmp_path: Path) -> None:
    """A pull request can add a cache entry for tomorrow's page; a fresh body is read."""
    body = "# Engine\n\nThe engine supports CUDA.\n"
    forged = read_page("# Engine\n\nThe engine supports CUDA and Metal.\n", MediaType.MARKDOWN)
    read(Pages(tmp_path), body, MediaType.MARKDOWN)
    (entry,) = entries(tmp_path)
    entry.write_text(json.dumps(page_document(forged)))

    assert "Metal" not in read(Pages(tmp_path), body, MediaType.MARKDOWN, fresh=True).text
    assert "Metal" not in read(Pages(tmp_path), body, MediaType.MARKDOWN).text  # repaired
    # An entry for a body already stored is as trusted as the stored body itself.
    entry.write_text(json.dumps(page_document(forged)))
    assert "Metal" in read(Pages(tmp_path), body, MediaType.MARKDOWN).text


def test_a_changed_reader_never_meets_an_older_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = READMES[2].read_text()
    read(Pages(tmp_path), body, MediaType.MARKDOWN)
    (old,) = entries(tmp_path)
    monkeypatch.setattr(pages_module, "_VERSION", "a-newer-reader")
    newer = Pages(tmp_path)
    read(newer, body, MediaType.MARKDOWN)
    assert newer.read == 1
    (entry,) = entries(tmp_path)  # the older reader's folder is gone
    assert entry.parent.parent.name == "a-newer-reader"
    assert not old.exists()


def test_the_reader_version_follows_the_reading_code() -> None:
    assert pages_module.reader_version() == pages_module._VERSION
    assert len(pages_module._VERSION) == 16


def test_without_a_folder_pages_are_read_once_in_memory() -> None:
    body = READMES[0].read_text()
    pages = Pages(None)
    assert read(pages, body, MediaType.MARKDOWN) is read(pages, body, MediaType.MARKDOWN)
    assert (pages.read, pages.written) == (1, 0)


def _page(number: int) -> bytes:
    """A small Markdown page, the same for N and N + `SHARED`."""
    number %= SHARED
    return f"# Engine {number}\n\nEngine {number} supports feature {number}.\n".encode()


@pytest.fixture
def page_server() -> Iterator[str]:
    with serving_pages(_page) as url:
        yield url


SHARED = 1000


@pytest.mark.parametrize(
    ("sources", "bodies"), [(150, 150), (300, 150)], ids=["distinct", "shared-by-two"]
)
def test_a_cold_run_reads_each_new_body_once_however_many_sources(
    tmp_path: Path,
    page_server: str,
    monkeypatch: pytest.MonkeyPatch,
    sources: int,
    bodies: int,
) -> None:
    """The plausibility gate reads every new body; the judge takes that read rather than
    reading the body again when its turn comes, which is long after the gate's read has
    left the small in-memory cache (here: more bodies than that cache holds). A page is
    not freed while another source with the same body is still to be judged."""
    monkeypatch.setattr(sys.modules[__name__], "SHARED", bodies)
    # Every body read in this process, where it can be counted (`jobs = 0`; workers
    # reading ahead are tested in `test_read_ahead.py`).
    reads: Counter[str] = Counter()
    real = verdict_module.read_page

    def counted(body: str, media: MediaType, scope: str | None = None) -> Page:
        reads[body] += 1
        return real(body, media, scope)

    monkeypatch.setattr(verdict_module, "read_page", counted)
    # The process's small cache of pages may still hold bodies of the same text from an
    # earlier test; a run here that took one from there would read it zero times. The
    # order the answers arrive in decides whether one is still held: under load it was.
    verdict_module.read_page_cached.cache_clear()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claimcheck.toml").write_text(
        'jobs = 0\n[fetch]\nallow_addresses = ["127.0.0.1"]\nper_host = 8\nper_host_interval = 0\n'
    )
    claims = [
        claim(f"engine-{n}", f"Engine {m} supports feature {m}.", f"{page_server}/pages/{n}.md")
        for n, m in ((n, n % bodies) for n in range(sources))
    ]
    write_claims(tmp_path / "claims", claims)
    result = CliRunner().invoke(app, ["verify", "--format", "json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert Counter(r["verdict"] for r in json.loads(result.stdout)["results"]) == {
        "verified": sources
    }
    assert len(reads) == bodies
    assert set(reads.values()) == {1}

    # The same bodies again (this server sends no validators, so every answer is a
    # 200): read by the gate, judged from that reading, and nothing kept is rewritten.
    kept = {path: path.stat().st_mtime_ns for path in entries(tmp_path / "snapshots")}
    assert len(kept) == bodies
    again = CliRunner().invoke(app, ["verify", "--format", "json"], catch_exceptions=False)
    assert again.exit_code == 0, again.output
    assert {p: p.stat().st_mtime_ns for p in entries(tmp_path / "snapshots")} == kept


def test_a_page_read_for_the_gate_is_held_without_its_text(tmp_path: Path) -> None:
    """A run holds every new body's page from its arrival until it is judged; its
    joined text (as large again as the units) is not kept meanwhile."""
    body = READMES[3].read_text() + "\n\nRuns on 🖥️ and 📱.\n"  # one emoji: 4 bytes a character
    store = Store(tmp_path / "snapshots")
    visible = store.visible_text(body, MediaType.MARKDOWN)
    (held,) = store.pages._memory.values()
    assert "text" not in held.__dict__
    assert visible == held.text == read_page(body, MediaType.MARKDOWN).text
    assert held.text_unkept() == visible  # once kept (judging), the kept text itself
    assert held.text_unkept() is held.text
