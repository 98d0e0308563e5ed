"""The snapshot store: writes only on change, atomic writes, as-of lookups, bad indexes."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from claimcheck.errors import RunStopped, StoreError
from claimcheck.models import MediaType, Snapshot
from claimcheck.store.index import INDEX
from claimcheck.store.store import Store
from support.stored_versions import as_of

KEY = "github.com/o/r/README"
DAY1 = dt.datetime(2026, 10, 20, 11, 30, tzinfo=dt.UTC)
DAY2 = dt.datetime(2026, 11, 2, 3, 17, tzinfo=dt.UTC)


def save(
    store: Store, body: bytes, when: dt.datetime, etag: str | None = '"a"', key: str = KEY
) -> Snapshot:
    return store.save(
        key=key,
        url="https://github.com/o/r",
        final_url="https://api/repos/o/r/readme",
        status=200,
        body=body,
        media=MediaType.MARKDOWN,
        fetched_at=when,
        etag=etag,
    )


def tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_first_save_writes_body_and_index(tmp_path: Path) -> None:
    store = Store(tmp_path)
    snap = save(store, b"# Hello\n", DAY1)
    folder = tmp_path / KEY
    assert sorted(p.name for p in folder.iterdir()) == [snap.file, INDEX]
    assert (folder / snap.file).read_bytes() == b"# Hello\n"
    index = json.loads((folder / INDEX).read_text())
    assert index["url"] == "https://github.com/o/r"
    assert index["versions"][0]["sha256"] == snap.sha256
    assert index["versions"][0]["etag"] == '"a"'


def test_unchanged_content_writes_nothing(tmp_path: Path) -> None:
    save(Store(tmp_path), b"same", DAY1)
    before = tree(tmp_path)
    mtimes = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    again = Store(tmp_path)
    snap = save(again, b"same", DAY2)
    assert tree(tmp_path) == before
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == mtimes
    assert snap.fetched_at == DAY1


def test_new_validators_only_update_the_index(tmp_path: Path) -> None:
    save(Store(tmp_path), b"same", DAY1)
    save(Store(tmp_path), b"same", DAY2, etag='"b"')
    files = [p.name for p in (tmp_path / KEY).iterdir()]
    assert len(files) == 2
    latest = Store(tmp_path).latest(KEY)
    assert latest is not None
    assert latest.etag == '"b"'


def test_changed_content_adds_a_version_and_as_of_picks_by_date(tmp_path: Path) -> None:
    store = Store(tmp_path)
    old = save(store, b"old", DAY1)
    new = save(store, b"new", DAY2)
    reread = Store(tmp_path)
    assert [s.sha256 for s in reread.versions(KEY)] == [old.sha256, new.sha256]
    assert as_of(reread, KEY, dt.date(2026, 10, 19)) is None
    assert as_of(reread, KEY, dt.date(2026, 10, 20)) == old  # end of the check day counts
    assert as_of(reread, KEY, dt.date(2026, 11, 1)) == old
    assert as_of(reread, KEY, dt.date(2026, 11, 2)) == new
    assert reread.latest(KEY) == new
    assert reread.read_body(new) == "new"


def test_a_key_that_escapes_is_refused(tmp_path: Path) -> None:
    store = Store(tmp_path / "snapshots")
    for key in ("../outside", "a/../../outside", "/etc", ""):
        with pytest.raises(StoreError):
            store.folder(key)


def test_a_keys_folder_is_where_resolving_the_whole_path_puts_it(tmp_path: Path) -> None:
    """`Store.folder` resolves a key a component at a time; `Path.resolve` on the whole
    path is the oracle, over links in and out of the store, `..`, `.` and new folders."""
    root = tmp_path / "snapshots"
    (root / "github.com/a/b").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (root / "github.com/out").symlink_to(tmp_path / "outside", target_is_directory=True)
    (root / "github.com/alias").symlink_to(root / "github.com/a", target_is_directory=True)
    (root / "github.com/a/up").symlink_to(root, target_is_directory=True)
    keys = [
        "github.com/a/b",
        "github.com/a/new",
        "github.com/new/x/y",
        "github.com/alias/b",
        "github.com/alias",
        "github.com/a/up/github.com/a/b",
        "github.com/a/../a/b",
        "github.com/a/./b",
        "github.com//a/b",
        "github.com/out/x",
        "github.com/a/up",
        "x/../../y",
    ]
    resolved_root = root.resolve()
    store = Store(root)
    for key in keys:
        expected = (resolved_root / key).resolve()
        if expected == resolved_root or not expected.is_relative_to(resolved_root):
            with pytest.raises(StoreError, match="escapes"):
                store.folder(key)
        else:
            assert store.folder(key) == expected, key


def test_a_corrupt_index_is_a_store_error_with_a_hint(tmp_path: Path) -> None:
    folder = tmp_path / KEY
    folder.mkdir(parents=True)
    (folder / INDEX).write_text("{not json")
    with pytest.raises(StoreError) as info:
        Store(tmp_path).latest(KEY)
    assert "git checkout" in info.value.hint


@pytest.mark.parametrize(
    ("index", "words"),
    [
        ("[]", "the file holds a JSON list, not an object"),
        ('{"versions": []}', "url: missing"),
        ('{"url": "https://x.org/", "versions": "x"}', "versions is not a list of objects"),
        (
            '{"url": "https://x.org/", "versions": [{"fetched_at": "later"}]}',
            "fetched_at: Input should be a valid datetime",
        ),
    ],
    ids=["a-list", "no-url", "versions-a-string", "a-bad-date"],
)
def test_a_wrong_index_says_which_field_in_plain_words(
    tmp_path: Path, index: str, words: str
) -> None:
    folder = tmp_path / KEY
    folder.mkdir(parents=True)
    (folder / INDEX).write_text(index)
    with pytest.raises(StoreError, match="is not a valid snapshot index") as info:
        Store(tmp_path).latest(KEY)
    said = str(info.value)
    assert words in said
    assert "validation error for" not in said
    assert "pydantic" not in said


def test_an_unwritable_store_is_a_store_error(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        blocker = tmp_path / "file"
        blocker.write_text("x")
        store = Store(blocker)  # a file where the folder should be
    else:  # pragma: no cover - depends on who runs the tests
        tmp_path.chmod(0o500)
        store = Store(tmp_path)
    with pytest.raises(StoreError):
        save(store, b"x", DAY1)


def test_a_kill_mid_write_leaves_the_previous_snapshot_intact(tmp_path: Path) -> None:
    """A process killed inside the body write leaves only a temp file, never a bad index."""
    save(Store(tmp_path), b"old", DAY1)
    before = tree(tmp_path)
    script = textwrap.dedent(
        f"""
        import datetime as dt, os, signal
        from pathlib import Path
        import claimcheck.store.store as store_module
        from claimcheck.models import MediaType
        real_fsync = os.fsync
        def die(fd):
            os.kill(os.getpid(), signal.SIGKILL)
        store_module.os.fsync = die
        store_module.Store(Path({str(tmp_path)!r})).save(
            key={KEY!r}, url="u", final_url="u", status=200, body=b"new" * 1000,
            media=MediaType.MARKDOWN, fetched_at=dt.datetime(2026, 11, 2, tzinfo=dt.timezone.utc))
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], check=False)
    assert proc.returncode == -9
    after = tree(tmp_path)
    leftovers = set(after) - set(before)
    assert all(Path(name).name.startswith(".tmp-") for name in leftovers)
    assert {k: v for k, v in after.items() if k in before} == before
    latest = Store(tmp_path).latest(KEY)
    assert latest is not None
    assert Store(tmp_path).read_body(latest) == "old"


def test_a_backfilled_older_version_is_slotted_in_by_date_sharing_its_body(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path)
    now = save(store, b"same text", DAY2)
    old = store.save(
        key=KEY,
        url="https://github.com/o/r",
        final_url="api",
        status=200,
        body=b"same text",
        media=MediaType.MARKDOWN,
        fetched_at=DAY1,
        origin="commit abc",
    )
    reread = Store(tmp_path)
    assert [v.origin for v in reread.versions(KEY)] == ["commit abc", "fetch"]
    assert old.file == now.file  # one body file for both dates
    assert len(list((tmp_path / KEY).glob("*.md"))) == 1
    assert as_of(reread, KEY, DAY1.date()) == old
    again = store.save(
        key=KEY,
        url="https://github.com/o/r",
        final_url="api",
        status=200,
        body=b"same text",
        media=MediaType.MARKDOWN,
        fetched_at=DAY1,
        origin="commit abc",
    )
    assert again == old
    assert len(Store(tmp_path).versions(KEY)) == 2


def _stopped_batch(store: Store) -> None:
    """A run's batch that stores two sources' new versions, then is stopped."""
    with store.batch():
        save(store, b"# New\n", DAY2)
        save(store, b"# Other\n", DAY2, key="github.com/o/other/README")
        assert len(store.versions(KEY)) == 2
        raise RunStopped


def test_a_batch_left_by_a_stop_keeps_none_of_its_new_versions(tmp_path: Path) -> None:
    """A stop in the middle of a run's fetch: the versions stored before it are undone,
    bodies and all, and the store reads as it did before the run; the same batch ended
    normally keeps them (and one left by a failure too: `test_store_safety`)."""
    first = save(Store(tmp_path), b"# Old\n", DAY1)
    before = tree(tmp_path)

    store = Store(tmp_path)
    with pytest.raises(RunStopped):
        _stopped_batch(store)

    assert tree(tmp_path) == before
    assert store.versions(KEY) == [first]  # read again from the index on disk
    assert store.latest("github.com/o/other/README") is None
    assert Store(tmp_path).versions(KEY) == [first]

    with store.batch():
        kept = save(store, b"# New\n", DAY2)
    assert Store(tmp_path).versions(KEY) == [first, kept]
    assert (tmp_path / KEY / kept.file).read_bytes() == b"# New\n"
