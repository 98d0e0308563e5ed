"""The store stays inside `snapshots/`: no symlink followed, no entry leaving its folder,
no two URLs in one folder, no temp file of a killed run left behind.

Every case plants something in a real snapshots folder and checks a file outside it
(`outside/secret.txt`) is neither read into any output nor changed; an audit hook
records every file the process opens below the test folder, so "nothing outside the
snapshots folder was opened" is checked, not assumed.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from claimcheck.cli.app import app
from claimcheck.errors import StoreError
from claimcheck.forges.resolve import legacy_key, normalize_url, resolve_source
from claimcheck.models import MediaType, Snapshot
from claimcheck.store import files as files_module
from claimcheck.store import store as store_module
from claimcheck.store.files import atomic_write, remove_stale_temp_files
from claimcheck.store.index import INDEX
from claimcheck.store.lock import LOCK_FILE, acquire_lock
from claimcheck.store.state import STATE_FILE, RunState, load_state, save_state
from claimcheck.store.store import Store
from support.claim_files import claim, write_claims
from support.killed_writer import kill_a_writer

SECRET = "TOP-SECRET-OUTSIDE-THE-STORE"
WHEN = dt.datetime(2026, 10, 20, 11, 30, tzinfo=dt.UTC)
PAGE = "https://docs.example.org/engine"
runner = CliRunner()

# -- the audit: which files below the test folder were opened, and how ------------------

_OPENED: list[tuple[str, int]] = []
_WATCHING: list[str] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and _WATCHING and isinstance(args[0], str | bytes | os.PathLike):
        path = os.fsdecode(args[0])
        if os.path.abspath(path).startswith(_WATCHING[0]):
            flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
            _OPENED.append((os.path.abspath(path), flags))


sys.addaudithook(_audit)  # an audit hook stays for the process; it only records when watching


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    """`outside/secret.txt`, which nothing may read or change; checked after the test.

    Every file opened below tmp_path must be inside snapshots/ or claims/ (or the
    config), or opened with O_NOFOLLOW (refused by the kernel when it is a link), or
    created new (O_EXCL): a read that followed a link to `outside/` fails the test.
    """
    folder = tmp_path / "outside"
    folder.mkdir()
    secret = folder / "secret.txt"
    secret.write_text(SECRET + "\n")
    before = (secret.read_bytes(), secret.stat().st_mtime_ns)
    _OPENED.clear()
    _WATCHING[:] = [str(tmp_path)]
    try:
        yield secret
    finally:
        _WATCHING.clear()
    assert (secret.read_bytes(), secret.stat().st_mtime_ns) == before
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    for path, flags in _OPENED:
        if flags & (nofollow | os.O_EXCL):
            continue
        real = os.path.realpath(path)
        assert not real.startswith(str(folder)), f"{path} was opened and led outside: {real}"


def seed(root: Path, url: str, body: bytes, media: MediaType = MediaType.HTML) -> Snapshot:
    ref = resolve_source(url)
    return Store(root).save(
        key=ref.key,
        url=ref.url,
        final_url=ref.fetch_url,
        status=200,
        body=body,
        media=media,
        fetched_at=WHEN,
    )


def page(text: str) -> bytes:
    return f"<html><body><p>{text}</p></body></html>".encode()


def verify_offline(project: Path, *claims: dict[str, str]) -> Result:
    write_claims(project / "claims", list(claims))
    return runner.invoke(
        app,
        ["verify", "--offline", "--format", "json", "--snapshots", str(project / "snapshots")],
    )


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / "claimcheck.toml").write_text("[verdict]\nmax_age_days = 0\n")
    return tmp_path


def assert_refused(result: Result, secret: Path, *words: str) -> None:
    """Exit 2 with an error naming the problem; the secret nowhere in the output."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert SECRET not in result.stdout + result.stderr
    assert str(secret) not in result.stdout
    for word in words:
        assert word in result.stderr, result.stderr


# -- symlinks and entries that leave their folder ---------------------------------------


def test_a_symlinked_lock_is_refused_and_its_target_untouched(project: Path, outside: Path) -> None:
    snapshots = project / "snapshots"
    snapshots.mkdir()
    (snapshots / LOCK_FILE).symlink_to(outside)

    with pytest.raises(StoreError, match="symbolic link"):
        acquire_lock(snapshots, "test")
    write_claims(project / "claims", [claim(source="http://127.0.0.1:9/never-fetched")])
    result = runner.invoke(app, ["verify", "--snapshots", str(snapshots)])

    assert_refused(result, outside, LOCK_FILE, "symbolic link")
    assert (snapshots / LOCK_FILE).is_symlink()  # left for a person to look at


def test_a_hard_linked_lock_is_refused_and_its_target_untouched(
    project: Path, outside: Path
) -> None:
    snapshots = project / "snapshots"
    snapshots.mkdir()
    os.link(outside, snapshots / LOCK_FILE)

    with pytest.raises(StoreError, match="hard link"):
        acquire_lock(snapshots, "test")


def test_a_symlinked_body_is_refused_not_read(project: Path, outside: Path) -> None:
    snapshot = seed(project / "snapshots", PAGE, page("supports Metal and CUDA"))
    body = project / "snapshots" / snapshot.key / snapshot.file
    body.unlink()
    body.symlink_to(outside)

    with pytest.raises(StoreError, match="symbolic link"):
        Store(project / "snapshots").read_body(snapshot)
    result = verify_offline(project, claim("docs", source=PAGE, quote="supports Metal"))

    assert_refused(result, outside, snapshot.file, "symbolic link")


def test_a_symlinked_index_is_refused(project: Path, outside: Path) -> None:
    snapshot = seed(project / "snapshots", PAGE, page("supports Metal and CUDA"))
    index = project / "snapshots" / snapshot.key / INDEX
    index.unlink()
    index.symlink_to(outside)

    result = verify_offline(project, claim("docs", source=PAGE, quote="supports Metal"))

    assert_refused(result, outside, INDEX, "symbolic link")


def test_a_symlinked_folder_that_leaves_the_store_is_refused(project: Path, outside: Path) -> None:
    key = resolve_source(PAGE).key
    folder = project / "snapshots" / key
    folder.parent.mkdir(parents=True)
    folder.symlink_to(outside.parent, target_is_directory=True)

    result = verify_offline(project, claim("docs", source=PAGE, quote="supports Metal"))

    assert_refused(result, outside, "escapes the snapshots folder")


def test_a_fifo_planted_as_a_body_is_refused_without_hanging(project: Path) -> None:
    snapshot = seed(project / "snapshots", PAGE, page("supports Metal and CUDA"))
    body = project / "snapshots" / snapshot.key / snapshot.file
    body.unlink()
    os.mkfifo(body)

    with pytest.raises(StoreError, match="not a regular file"):
        Store(project / "snapshots").read_body(snapshot)


ESCAPING_NAMES = {
    "parent": "../../../outside/secret.txt",
    "parent-backslash": "..\\..\\outside\\secret.txt",
    "absolute": "/etc/passwd",
    "absolute-secret": "{secret}",
    "windows-drive": "C:\\Windows\\win.ini",
    "windows-drive-relative": "C:secret.txt",
    "subfolder": "sub/2026-10-20T113000Z-1a2b3c4d.html",
    "dot-dot": "..",
    "dot-file": ".tmp-123-abc.html",
    "the-index": "index.json",
    "empty": "",
    "nul": "a\x00b.html",
}


@pytest.mark.parametrize("name", list(ESCAPING_NAMES.values()), ids=list(ESCAPING_NAMES))
def test_an_index_entry_whose_file_leaves_its_folder_is_refused(
    project: Path, outside: Path, name: str
) -> None:
    snapshot = seed(project / "snapshots", PAGE, page("supports Metal and CUDA"))
    index = project / "snapshots" / snapshot.key / INDEX
    document = json.loads(index.read_text())
    document["versions"][0]["file"] = name.format(secret=outside)
    index.write_text(json.dumps(document))

    with pytest.raises(StoreError, match="not a file name in its folder"):
        Store(project / "snapshots").latest(snapshot.key)
    result = verify_offline(project, claim("docs", source=PAGE, quote="supports Metal"))

    assert_refused(result, outside, str(index), "not a file name in its folder")


def test_a_snapshot_naming_an_outside_file_is_not_read(project: Path, outside: Path) -> None:
    """A Snapshot value built by a caller is checked too, not only index entries."""
    snapshot = seed(project / "snapshots", PAGE, page("x"))
    forged = snapshot.model_copy(update={"file": f"../../../outside/{outside.name}"})

    with pytest.raises(StoreError, match="not a file name"):
        Store(project / "snapshots").read_body(forged)


def test_a_symlinked_state_file_is_refused_for_reading_and_writing(
    project: Path, outside: Path
) -> None:
    snapshots = project / "snapshots"
    snapshots.mkdir()
    (snapshots / STATE_FILE).symlink_to(outside)

    with pytest.raises(StoreError, match="symbolic link"):
        load_state(snapshots)
    with pytest.raises(StoreError, match="symbolic link"):
        save_state(snapshots, RunState(last_run=WHEN))
    write_claims(project / "claims", [claim()])
    result = runner.invoke(app, ["list", "--snapshots", str(snapshots)])

    assert_refused(result, outside, STATE_FILE, "symbolic link")


def test_a_folder_holding_another_urls_index_is_refused(project: Path, outside: Path) -> None:
    """An index copied into another source's folder is never judged as that source."""
    a = seed(project / "snapshots", "https://e.org/a", page("page a"))
    b_key = resolve_source("https://e.org/b").key
    (project / "snapshots" / b_key).mkdir(parents=True)
    for name in (INDEX, a.file):
        source = project / "snapshots" / a.key / name
        (project / "snapshots" / b_key / name).write_bytes(source.read_bytes())

    with pytest.raises(StoreError, match="not of the source its folder is named after"):
        Store(project / "snapshots").latest(b_key)


# -- keys: one folder per page -------------------------------------------------------------

DISTINCT = {
    "root-vs-index": ("https://e.org/", "https://e.org/index"),
    "a-vs-a-slash": ("https://e.org/a", "https://e.org/a/"),
    "a-b-vs-a-double-slash-b": ("https://e.org/a/b", "https://e.org/a//b"),
    "query-1-vs-2": ("https://e.org/p?q=1", "https://e.org/p?q=2"),
    "query-vs-none": ("https://e.org/p?q=1", "https://e.org/p"),
    "http-vs-https": ("http://e.org/a", "https://e.org/a"),
    "path-case": ("https://e.org/A", "https://e.org/a"),
    "port-vs-underscore": ("https://a:8080/x", "https://a_8080/x"),
    "escaped-slash": ("https://e.org/a%2Fb", "https://e.org/a/b"),
    "dot-segment": ("https://e.org/a/./b", "https://e.org/a/b"),
    "web-vs-github-readme": ("https://github.com/o/r/README", "https://github.com/o/r"),
    "other-port": ("https://e.org:8443/a", "https://e.org/a"),
}

SAME = {
    "fragment": ("https://e.org/a#one", "https://e.org/a#two"),
    "host-case": ("https://E.Org/a", "https://e.org/a"),
    "scheme-case": ("HTTPS://e.org/a", "https://e.org/a"),
    "default-https-port": ("https://e.org:443/a", "https://e.org/a"),
    "default-http-port": ("http://e.org:80/a", "http://e.org/a"),
    "escape-case": ("https://e.org/caf%c3%a9", "https://e.org/caf%C3%A9"),
    "escaped-unreserved": ("https://e.org/%7Euser", "https://e.org/~user"),
    "empty-path": ("https://e.org", "https://e.org/"),
    "text-fragment": ("https://e.org/a#:~:text=x", "https://e.org/a"),
}


@pytest.mark.parametrize(("one", "other"), list(DISTINCT.values()), ids=list(DISTINCT))
def test_different_pages_get_different_folders(one: str, other: str) -> None:
    assert normalize_url(one) != normalize_url(other)
    assert resolve_source(one).key != resolve_source(other).key


@pytest.mark.parametrize(("one", "other"), list(SAME.values()), ids=list(SAME))
def test_spellings_of_one_address_share_a_folder(one: str, other: str) -> None:
    assert resolve_source(one).key == resolve_source(other).key


def test_a_web_key_is_its_readable_path_and_a_digest() -> None:
    key = resolve_source("https://docs.example.org/en/latest/index.html").key
    head, _, digest = key.rpartition("/")
    assert head == "docs.example.org/en/latest/index.html"
    assert digest.startswith("@")
    assert len(digest) == 17
    assert legacy_key(key) == head
    assert legacy_key("github.com/o/r/README") is None


def test_github_keys_are_unchanged() -> None:
    assert resolve_source("https://github.com/o/r").key == "github.com/o/r/README"
    assert resolve_source("https://github.com/o/r/blob/main/LICENSE").key == (
        "github.com/o/r/blob/main/LICENSE"
    )


def test_colliding_pages_are_each_judged_against_their_own_snapshot(project: Path) -> None:
    """Every URL of the collision table stored with its own text; offline verify holds
    each claim against its own page (before, half of them judged another page)."""
    urls = sorted({url for pair in DISTINCT.values() for url in pair if "github" not in url})
    for number, url in enumerate(urls):
        seed(project / "snapshots", url, page(f"page number {number} says hello"))
    claims = [
        claim(f"c{number}", source=url, quote=f"page number {number} says hello")
        for number, url in enumerate(urls)
    ]

    result = verify_offline(project, *claims)

    doc = json.loads(result.stdout)
    assert {r["id"]: r["verdict"] for r in doc["results"]} == {
        f"c{number}": "verified" for number in range(len(urls))
    }
    folders = {p.parent for p in (project / "snapshots").rglob(INDEX)}
    assert len(folders) == len(urls)


# -- the old key scheme ------------------------------------------------------------------


def write_legacy(root: Path, url: str, body: bytes) -> Path:
    """A web snapshot as stored before keys carried the URL digest."""
    folder = root / str(legacy_key(resolve_source(url).key))
    folder.mkdir(parents=True)
    name = "2026-10-20T113000Z-0badc0de.html"
    (folder / name).write_bytes(body)
    entry = {
        "final_url": url,
        "fetched_at": WHEN.isoformat(),
        "status": 200,
        "sha256": hashlib.sha256(body).hexdigest(),
        "media": "html",
        "file": name,
    }
    (folder / INDEX).write_text(json.dumps({"url": url, "versions": [entry]}))
    return folder


def test_an_old_folder_is_read_by_its_own_url_only(tmp_path: Path) -> None:
    old = write_legacy(tmp_path, "https://e.org/a", page("old a"))
    store = Store(tmp_path)

    latest = store.latest(resolve_source("https://e.org/a").key)
    assert latest is not None
    assert "old a" in store.read_body(latest)
    assert latest.key == old.relative_to(tmp_path).as_posix()  # where it really lies
    # `/a/` had the same old folder, but its index records `/a`: not its snapshot.
    assert store.latest(resolve_source("https://e.org/a/").key) is None


def test_an_old_folder_moves_on_the_first_write(tmp_path: Path) -> None:
    old = write_legacy(tmp_path, "https://e.org/a", page("old a"))
    before = Store(tmp_path).latest(resolve_source("https://e.org/a").key)
    assert before is not None

    new = seed(tmp_path, "https://e.org/a", page("new a"))

    store = Store(tmp_path)
    versions = store.versions(new.key)
    assert [store.read_body(v) for v in versions] == [
        page("old a").decode(),
        page("new a").decode(),
    ]
    assert all(v.key == new.key for v in versions)
    assert not (old / INDEX).exists()
    assert not (old / before.file).exists()


def test_the_repositorys_own_verdicts_are_the_same_under_the_new_keys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shipped snapshots are GitHub sources, whose keys did not change."""
    from support import paths

    monkeypatch.chdir(paths.ROOT)
    store = Store(paths.ROOT / "snapshots")
    for index in (paths.ROOT / "snapshots").rglob(INDEX):
        url = json.loads(index.read_text())["url"]
        key = resolve_source(url).key
        assert index.parent.relative_to(paths.ROOT / "snapshots").as_posix() == key
        assert store.latest(key) is not None


# -- temp files of a killed run ----------------------------------------------------------


def test_the_next_run_holding_the_lock_removes_a_killed_writers_temp_file(
    tmp_path: Path,
) -> None:
    snapshots = tmp_path / "snapshots"
    seed(snapshots, PAGE, page("the good version"))
    temp = kill_a_writer(snapshots, resolve_source(PAGE).key, PAGE)
    old_style = snapshots / ".tmp-abc123.json"  # named before temp files carried a pid
    old_style.write_text("{")
    os.utime(old_style, (0, 0))

    with acquire_lock(snapshots, "the next run"):
        assert not temp.exists()
        assert not old_style.exists()

    latest = Store(snapshots).latest(resolve_source(PAGE).key)
    assert latest is not None
    assert "the good version" in Store(snapshots).read_body(latest)


def test_temp_files_of_this_process_or_newer_than_the_run_are_kept(tmp_path: Path) -> None:
    start = dt.datetime.now(dt.UTC)
    later = start.timestamp() + 60
    mine = tmp_path / f".tmp-{os.getpid()}-abcdefgh.md"
    mine.write_text("being written")
    os.utime(mine, (0, 0))
    newer = tmp_path / "key" / ".tmp-1-abcdefgh.md"
    newer.parent.mkdir()
    newer.write_text("started after this run")
    os.utime(newer, (later, later))
    stale = tmp_path / "key" / ".tmp-1-zzzzzzzz.md"
    stale.write_text("left by a killed run")
    os.utime(stale, (0, 0))
    hidden = tmp_path / ".git" / ".tmp-1-zzzzzzzz"
    hidden.parent.mkdir()
    hidden.write_text("not ours")
    os.utime(hidden, (0, 0))

    removed = remove_stale_temp_files(tmp_path, before=start)

    assert removed == [stale]
    assert mine.exists()
    assert newer.exists()
    assert hidden.exists()


def test_a_temp_name_already_taken_is_passed_over_not_written_through(
    tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link or a killed run's file under the next temporary name (same pid) is left
    alone: the write takes the next free name."""
    monkeypatch.setattr(files_module, "_temp_numbers", itertools.count())
    folder = tmp_path / "snapshots" / "key"
    folder.mkdir(parents=True)
    link = folder / f".tmp-{os.getpid()}-0.json"
    link.symlink_to(outside)
    debris = folder / f".tmp-{os.getpid()}-1.json"
    debris.write_text("left by a killed run")

    atomic_write(folder / INDEX, b"{}")

    assert (folder / INDEX).read_bytes() == b"{}"
    assert os.readlink(link) == str(outside)
    assert debris.read_text() == "left by a killed run"
    assert sorted(p.name for p in folder.iterdir()) == sorted([INDEX, link.name, debris.name])


def test_a_body_that_is_not_what_its_index_recorded_is_refused(tmp_path: Path) -> None:
    """A write lost in a power cut, or a hand edit: never judged as the source."""
    store = Store(tmp_path)
    key = resolve_source("https://e.org/a").key
    snapshot = store.save(
        key=key,
        url="https://e.org/a",
        final_url="https://e.org/a",
        status=200,
        body=page("the page"),
        media=MediaType.HTML,
        fetched_at=WHEN,
    )
    (store.folder(key) / snapshot.file).write_bytes(b"")
    with pytest.raises(StoreError, match="does not hold the body its index recorded"):
        Store(tmp_path).read_body(snapshot)


def test_a_batch_of_writes_is_synced_at_its_end_and_reads_within_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[list[Path]] = []
    real = store_module.sync_files
    monkeypatch.setattr(
        store_module, "sync_files", lambda paths: (synced.append(paths), real(paths))
    )
    store = Store(tmp_path)
    with store.batch():
        for n in range(3):
            url = f"https://e.org/{n}"
            store.save(
                key=resolve_source(url).key,
                url=url,
                final_url=url,
                status=200,
                body=page(f"page {n}"),
                media=MediaType.HTML,
                fetched_at=WHEN,
            )
        latest = store.latest(resolve_source("https://e.org/1").key)
        assert latest is not None
        assert "page 1" in store.read_body(latest)  # written files are read back at once
        assert synced == []  # nothing synced one by one within the batch
    (written,) = synced
    assert sorted(p.name for p in written).count(INDEX) == 3
    assert len(written) == 6
    assert not list(tmp_path.rglob(".tmp-*"))
    assert len(list(tmp_path.rglob("index.json"))) == 3


def test_a_batch_writes_each_index_once_after_the_bodies_it_names(tmp_path: Path) -> None:
    """A source's index changes three times in a cold run (its version, its baseline,
    its history notes); a batch writes it once, at its end, and a fresh reader sees
    the old index until then."""
    url = "https://e.org/a"
    key = resolve_source(url).key
    old = WHEN - dt.timedelta(days=30)
    store = Store(tmp_path)
    store.save(
        key=key, url=url, final_url=url, status=200, body=page("old"),
        media=MediaType.HTML, fetched_at=old,
    )  # fmt: skip
    index = store.folder(key) / INDEX
    before = index.read_bytes()
    with store.batch():
        new = store.save(
            key=key, url=url, final_url=url, status=200, body=page("new"),
            media=MediaType.HTML, fetched_at=WHEN,
        )  # fmt: skip
        store.note_history(key, url, readme_path="README.md")
        assert (store.folder(key) / new.file).is_file()  # the body is written at once
        assert index.read_bytes() == before  # the index waits for the batch's end
        assert [s.sha256 for s in Store(tmp_path).versions(key)] == [
            hashlib.sha256(page("old")).hexdigest()
        ]
        assert [s.file for s in store.versions(key)][-1] == new.file  # this store knows
    reread = Store(tmp_path)
    assert [s.file for s in reread.versions(key)][-1] == new.file
    assert reread.history_notes(key) == {"readme_path": "README.md"}


def test_a_failing_batch_still_writes_the_indexes_of_what_it_stored(tmp_path: Path) -> None:
    url = "https://e.org/b"
    key = resolve_source(url).key
    store = Store(tmp_path)

    def store_then_fail() -> None:
        with store.batch():
            store.save(
                key=key, url=url, final_url=url, status=200, body=page("kept"),
                media=MediaType.HTML, fetched_at=WHEN,
            )  # fmt: skip
            raise RuntimeError("a later step failed")

    with pytest.raises(RuntimeError, match="later step"):
        store_then_fail()
    (latest,) = Store(tmp_path).versions(key)
    assert "kept" in Store(tmp_path).read_body(latest)
