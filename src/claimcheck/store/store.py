"""The snapshot store: stored versions of each source under `snapshots/`, on disk.

Layout, one folder per source (its key, see `forges.resolve`):

    snapshots/github.com/ggml-org/llama.cpp/README/
        index.json                          URL and one entry per stored version
        2026-10-20T113000Z-1a2b3c4d.md      the body as received, readable and diffable
    snapshots/docs.example.org/vllm/@3f9c0a1b2d4e5f60/
        index.json, …                       a web page: its readable path, then the
                                            digest of its normalized URL

A new body file is written only when the content changed, so a run where nothing
changed writes nothing. Every write goes to a temporary file (`.tmp-PID-…`) in the
same folder and is renamed into place, body first and index last: a crash or kill at
any point leaves either the old index or the new one, never a half-written snapshot.
The next run that holds the lock removes the temporary files a killed run left.

The store stays inside its folder whatever the repository holds: its files are opened
without following symlinks and must be regular files, an index entry names a plain
file in its own folder, and an index must belong to the URL its folder is named
after. Anything else is a `StoreError` naming the file, never a silent read.

Web folders named before the digest was added (`snapshots/HOST/PATH/`, shared by
`/a` and `/a/`) are still read: when a source's folder has no index yet, the folder
one level up is used if its index records this very URL, and the first write moves it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from claimcheck.cache.pages import Pages
from claimcheck.errors import RunStopped, StoreError
from claimcheck.forges.resolve import legacy_key, url_digest, url_digest_of_key
from claimcheck.json_text import indented
from claimcheck.models import MediaType, Snapshot
from claimcheck.page import Page
from claimcheck.store.files import (
    RESTORE_HINT,
    StoredBody,
    atomic_write,
    sync_files,
)
from claimcheck.store.index import INDEX, index_document, is_plain_file_name, read_index

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.forges.history import Asked

FETCHED = "fetch"
"""The origin of a version fetched live (others: a commit, a Wayback capture, a render)."""
HISTORY_ORIGINS = ("commit ", "wayback ")
"""How the origin of a version taken from history begins: `commit SHA` (a forge's file at
that commit), `wayback URL` (that capture). Any other (`fetch`, `render`) was fetched live."""

_SUFFIX = {
    MediaType.MARKDOWN: ".md",
    MediaType.CARD: ".md",
    MediaType.HTML: ".html",
    MediaType.TEXT: ".txt",
    MediaType.JSON: ".json",
    MediaType.PDF: ".pdf",
}


class Store:
    """Reads and writes the snapshots of every source below one root folder."""

    def __init__(self, root: Path, *, jobs: int | None = None) -> None:
        self.root = root
        self._versions: dict[str, list[Snapshot]] = {}
        self._days: dict[str, dict[dt.date, list[Snapshot]]] = {}  # `in_force_on`
        self._history: dict[str, dict[str, str]] = {}
        self._origins: dict[str, dict[str, str]] = {}
        self._edits: dict[str, int] = {}  # `edits`
        self._unsynced: list[Path] | None = None
        self._unwritten: dict[str, str] | None = None  # in a batch: key -> URL of its index
        self._new_bodies: dict[str, list[Path]] | None = None  # in a batch: bodies it wrote
        self._changed: dict[Path, None] = {}  # every file written or removed, in order
        self._folders: dict[str, Path] = {}
        self._resolved_root: Path | None = None  # the root, symlinks resolved, once
        self._prefixes: dict[str, tuple[Path, bool]] = {}  # leading components, resolved
        self.pages = Pages(root, jobs=jobs)  # the units of stored bodies, read once
        self.history_asked: Asked | None = None
        """What history answered in this run (`forges.history.Asked`, made by the first
        step that asks): a store lives one run, and each history or blame request is
        sent once in it, whichever step or claim asks."""

    @classmethod
    def of(cls, config: Config) -> Store:
        """The store of a config's snapshots folder, reading pages ahead with as many
        worker processes as its `jobs` says."""
        return cls(config.snapshots_dir, jobs=config.jobs)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Write many snapshots, made durable together when the batch ends.

        Each file is still written to a temporary file and renamed into place, so a
        kill at any moment leaves every source's old version or its new one. Two things
        wait for the batch's end. The indexes: a source's index changes several times
        in a run (its new version, its baseline from history, what history taught) and
        each write costs a file creation and a rename, so each index is written once,
        after every body it names. And the fsync: the batch's files are synced all at
        once (see `sync_files`). A kill before the end leaves the old indexes (bodies
        written meanwhile are named by none and read by nothing); a power loss before
        the sync can lose the batch's writes, and a body that did not reach the disk is
        then refused by its digest when read, never judged.

        A batch left because the run was stopped (`RunStopped`, Ctrl-C) keeps none of
        its new versions: their indexes are left as they were and the bodies written
        for them removed, so a stopped night stores nothing, however many answers had
        come. A batch left by a failure keeps what it stored.
        """
        if self._unsynced is not None:
            yield
            return
        self._unsynced = []
        self._unwritten = {}
        self._new_bodies = {}
        try:
            yield
        except (RunStopped, KeyboardInterrupt):
            self._abandon_unwritten()
            raise
        finally:
            try:
                self._write_indexes()
            finally:
                written, self._unsynced = self._unsynced, None
                self._new_bodies = None
                sync_files(written)

    def _abandon_unwritten(self) -> None:
        """Undo a batch's new versions whose indexes wait for its end: their bodies are
        removed and the versions read again from the indexes on disk."""
        unwritten, self._unwritten = self._unwritten or {}, None
        for key in unwritten:
            for body in (self._new_bodies or {}).get(key, []):
                with contextlib.suppress(OSError):
                    os.unlink(body)
                self._changed.pop(body, None)  # it was new: as if never written
            for kept in (self._versions, self._days, self._history, self._origins):
                kept.pop(key, None)

    def changed_files(self) -> list[Path]:
        """Every file of the store this run wrote or removed (bodies, indexes, an
        old-style folder's files it moved), each once, in the order it did so: what a
        commit of the run's snapshots names, and nothing else in the folder."""
        return list(self._changed)

    def _write(self, path: Path, data: bytes) -> None:
        self._changed[path] = None
        if self._unsynced is None:
            atomic_write(path, data)
        else:
            atomic_write(path, data, durable=False)
            self._unsynced.append(path)

    def folder(self, key: str) -> Path:
        """The folder of a source key; refuses any key that would leave the root.

        Resolved once per key and run, as `Path.resolve` would: symlinks followed, so a
        linked folder that leads out of the root is refused (see `_resolved`).
        """
        found = self._folders.get(key)
        if found is None:
            root = self._resolved_root
            if root is None:
                root = self._resolved_root = self.root.resolve()
            found, plain = self._resolved(key)
            # A plain path is the root and one or more plain names below it, none a
            # link: inside the root, and not the root, without comparing the two.
            if not plain and (found == root or not found.is_relative_to(root)):
                raise StoreError(f"snapshot key {key!r} escapes the snapshots folder")
            self._folders[key] = found
        return found

    def _resolved(self, key: str) -> tuple[Path, bool]:
        """`(resolved root / key).resolve()`, a component at a time on its resolved parent,
        and whether it is plain: the root joined with plain names, none of them a link.

        `Path.resolve` walks every component of the absolute path (a dozen `lstat`s a
        key); the keys of a store share their first components (`github.com/<owner>`),
        so each prefix is resolved once (`_prefixes`) and a key costs the `lstat` of its
        last component. An absolute key, a link, or a `.`/`..` is resolved whole.
        """
        root = self._resolved_root
        assert root is not None
        if os.path.isabs(key) or key.startswith("/"):
            return (root / key).resolve(), False
        parent_key, _, name = key.rpartition("/")
        parent, plain = root, True
        if parent_key:
            known = self._prefixes.get(parent_key)
            if known is None:
                known = self._prefixes[parent_key] = self._resolved(parent_key)
            parent, plain = known
        if name in ("", ".", "..") or os.sep in name or os.path.splitdrive(name)[0]:
            return (root / key).resolve(), False  # `\` or a drive (`C:x`) on Windows
        candidate = parent / name
        try:
            is_link = stat.S_ISLNK(os.lstat(candidate).st_mode)
        except OSError:
            is_link = False  # not there (yet): taken as written, as `resolve` does
        return (candidate.resolve(), False) if is_link else (candidate, plain)

    def versions(self, key: str) -> list[Snapshot]:
        """Every stored version of a source, oldest first."""
        if key not in self._versions:
            self._versions[key] = self._load(key)
        return list(self._versions[key])

    def latest(self, key: str) -> Snapshot | None:
        """The newest stored version of a source, if any."""
        versions = self.versions(key)
        return versions[-1] if versions else None

    def in_force_during(self, key: str, start: dt.datetime, end: dt.datetime) -> list[Snapshot]:
        """The versions a reader could have seen at some moment from `start` to `end`.

        That is the version already in force at `start` (stored at or before it), when
        it is known to be (`known_in_force`: a version from history only as far as
        history vouched for it), and every version stored after it up to `end`, oldest
        first. An empty list says nothing stored is known for that time: history is to
        be asked.
        """
        versions = self.versions(key)
        first = next((i for i, s in enumerate(versions) if s.fetched_at > start), len(versions))
        opening = [s for s in versions[max(first - 1, 0) : first] if known_in_force(s, start)]
        return opening + [s for s in versions[first:] if s.fetched_at <= end]

    def in_force_on(self, key: str, day: dt.date) -> list[Snapshot]:
        """The versions a reader could have seen on the UTC day `day` (`in_force_during`
        its first moment to its last), worked out once per source and day until the
        source's versions change: a desk's claims share a few check dates per source,
        and every claim asks for its baseline every run."""
        of_source = self._days.setdefault(key, {})
        found = of_source.get(day)
        if found is None:
            start = dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC)
            end = dt.datetime.combine(day, dt.time.max, tzinfo=dt.UTC)
            found = of_source[day] = self.in_force_during(key, start, end)
        return list(found)

    def history_notes(self, key: str) -> dict[str, str]:
        """What history taught about a source, kept in its index so it is asked once:
        `readme_path` (the README's path in its repository), `none_until` (the last
        check date for which history had no version at all) and `docs_version` (the
        version URL a docs alias last led to, `forges.docs_versions`)."""
        self.versions(key)
        return dict(self._history.get(key, {}))

    def edits(self, key: str) -> int:
        """How many times this store changed a source's record (its versions, history
        notes or origins): equal counts mean nothing was learnt of it in between."""
        return self._edits.get(key, 0)

    def note_history(self, key: str, url: str, **notes: str) -> None:
        """Add to a source's history notes; its index is written only when they change."""
        versions = self.versions(key)
        merged = {**self._history.get(key, {}), **notes}
        if merged != self._history.get(key, {}):
            self._history[key] = merged
            self._write_index(key, url, versions)

    def origin_of(self, snapshot: Snapshot) -> str | None:
        """The fixed version a stored body is known to be, or None: `commit SHA` (the
        file at that commit, GitHub or Hugging Face) or `wayback URL` (that capture).

        A body fetched today is often the file of an older commit: history or `cite`
        learns which, and it is kept in the index by the body's SHA-256 (`origins`), so
        every later run can cite that version without asking again.
        """
        if snapshot.origin != FETCHED:
            return snapshot.origin
        versions = self.versions(snapshot.key)
        known = self._origins.get(snapshot.key, {}).get(snapshot.sha256)
        if known:
            return known
        same = (s.origin for s in versions if s.sha256 == snapshot.sha256)
        return next((origin for origin in same if origin != FETCHED), None)

    def note_origin(self, key: str, url: str, sha256: str, origin: str) -> None:
        """Remember which fixed version a stored body is (see `origin_of`); the index is
        written only when this is new."""
        versions = self.versions(key)
        if origin == FETCHED or self._origins.get(key, {}).get(sha256) == origin:
            return
        self._origins[key] = {**self._origins.get(key, {}), sha256: origin}
        self._write_index(key, url, versions)

    def page(self, snapshot: Snapshot, *, fresh: bool = False) -> Page:
        """The units of a stored version, read from its body at most once (see `Pages`)."""
        return self.pages.stored(
            snapshot.sha256, snapshot.media, lambda: self.read_body(snapshot), fresh=fresh
        )

    def visible_text(self, text: str, media: MediaType) -> str:
        """The visible text of a body not stored yet, read once in the run (`Pages.of_text`).

        The page is held until the body is judged, without its text (`text_unkept`).
        """
        return self.pages.of_text(text, media).text_unkept()

    def read_body(self, snapshot: Snapshot) -> str:
        """The stored body of a version, as text (a PDF's bytes one character a byte,
        `judge.pdf.body_text`)."""
        return self.body_file(snapshot)()

    def save(
        self,
        *,
        key: str,
        url: str,
        final_url: str,
        status: int,
        body: bytes | StoredBody,
        media: MediaType,
        fetched_at: dt.datetime,
        etag: str | None = None,
        last_modified: str | None = None,
        origin: str = FETCHED,
        vouched_until: dt.date | None = None,
    ) -> Snapshot:
        """Store a body as the version in force from `fetched_at` on.

        `vouched_until`, for a version from history (its `origin` a commit or a
        capture): the day history was asked about. The version stands from
        `fetched_at` to that day's end (`known_in_force`); without it, on its own date.

        Content equal to the version known to be in force at that time writes nothing
        (when only the validators or final URL of the latest changed, its index entry
        is updated in place; when history vouches again for a version it gave, the
        version stands to the later day). An older version found later (a backfilled
        baseline) is slotted in by date. The same content is stored as a version of its
        own where the one stored is not known to stand for it: after the days history
        vouched for it (the source may have changed in between), and for a live fetch
        after any version from history, so that the fetched one stands from then on. A
        body already stored under another date is shared, not written twice. Versions
        still in a source's old-style folder move first.

        `body` may be a body the store holds already (`body_file`): its digest is known,
        and it is read only if it must be copied into another folder.
        """
        digest = body.sha256 if isinstance(body, StoredBody) else hashlib.sha256(body).hexdigest()
        fetched_at = fetched_at.astimezone(dt.UTC)
        historical = origin.startswith(HISTORY_ORIGINS)
        if historical:
            vouched_until = max(vouched_until or fetched_at.date(), fetched_at.date())
        else:
            vouched_until = None  # a live version stands until the next one
        versions = self._move_legacy(key, url, self.versions(key))
        # Which fixed version this body is, kept whether the body is stored anew or not.
        learnt = origin != FETCHED and self._origins.get(key, {}).get(digest) != origin
        if learnt:
            self._origins[key] = {**self._origins.get(key, {}), digest: origin}
        earlier = [s for s in versions if s.fetched_at <= fetched_at]
        current = earlier[-1] if earlier else None
        if (
            current is not None
            and current.sha256 == digest
            and (known_in_force(current, fetched_at) if historical else not from_history(current))
        ):
            if vouched_until is not None:  # history again: the version stands longer
                updated = vouched_to(current, vouched_until)
            elif current is versions[-1]:
                updated = current.model_copy(
                    update={"etag": etag, "last_modified": last_modified, "final_url": final_url}
                )
            else:
                updated = current  # an older copy of what was already in force then
            if updated != current or learnt:
                self._write_index(key, url, [updated if s is current else s for s in versions])
            return updated
        same = next((s for s in versions if s.sha256 == digest), None)
        stamp = fetched_at.strftime("%Y-%m-%dT%H%M%SZ")
        snapshot = Snapshot(
            key=key,
            url=url,
            final_url=final_url,
            fetched_at=fetched_at,
            status=status,
            etag=etag,
            last_modified=last_modified,
            sha256=digest,
            media=media,
            file=same.file if same else f"{stamp}-{digest[:8]}{_SUFFIX[media]}",
            origin=origin,
            vouched_until=vouched_until,
        )
        if same is None:
            path = self.folder(key) / snapshot.file
            self._write(path, body.read_bytes() if isinstance(body, StoredBody) else body)
            if self._new_bodies is not None:
                self._new_bodies.setdefault(key, []).append(path)
        merged = sorted([*versions, snapshot], key=lambda s: s.fetched_at)
        self._write_index(key, url, merged)
        return snapshot

    def body_file(self, snapshot: Snapshot) -> StoredBody:
        """The file of a stored version's body, to be read (and checked) later, maybe by
        another process (`cache.read_ahead`)."""
        folder = self.folder(snapshot.key)
        if not is_plain_file_name(snapshot.file):
            raise StoreError(
                f"snapshot {snapshot.file!r} of {folder} is not a file name in its folder",
                hint=RESTORE_HINT,
            )
        return StoredBody(
            str(folder / snapshot.file), snapshot.sha256, binary=snapshot.media is MediaType.PDF
        )

    def _move_legacy(self, key: str, url: str, versions: list[Snapshot]) -> list[Snapshot]:
        """Move a source's versions out of its old-style folder before the first write.

        Bodies are copied, then the new index written, then the old files removed: a
        kill in between leaves both, and the new folder (complete once its index is
        there) is the one read from then on.
        """
        old = {s.key for s in versions if s.key != key}
        if not old:
            return versions
        moved = [s.model_copy(update={"key": key}) for s in versions]
        for snapshot in {s.file: s for s in versions}.values():
            self._write(self.folder(key) / snapshot.file, self.body_file(snapshot).read_bytes())
        self._write_index(key, url, moved, at_once=True)  # before the old files go
        for legacy in old:
            folder = self.folder(legacy)
            for name in [INDEX, *sorted({s.file for s in versions})]:
                with contextlib.suppress(OSError):
                    os.unlink(folder / name)
                self._changed[folder / name] = None
            self._versions.pop(legacy, None)
            self._days.pop(legacy, None)
        return moved

    def _write_index(
        self, key: str, url: str, versions: list[Snapshot], *, at_once: bool = False
    ) -> None:
        """Make `versions` the source's versions; its index is written now, or in a
        batch at the batch's end (`at_once`: now in any case). Every change of a source's
        record (versions, history notes, origins) comes through here (`edits`)."""
        self._edits[key] = self._edits.get(key, 0) + 1
        self._versions[key] = versions
        self._days.pop(key, None)
        if self._unwritten is not None and not at_once:
            self._unwritten[key] = url
            return
        if self._unwritten is not None:
            self._unwritten.pop(key, None)
        text = indented(
            index_document(url, versions, self._history.get(key), self._origins.get(key))
        )
        self._write(self.folder(key) / INDEX, text.encode("utf-8"))

    def _write_indexes(self) -> None:
        """Write the indexes a batch changed, each once (see `batch`)."""
        unwritten, self._unwritten = self._unwritten or {}, None
        for key, url in unwritten.items():
            text = indented(
                index_document(
                    url, self._versions[key], self._history.get(key), self._origins.get(key)
                )
            )
            self._write(self.folder(key) / INDEX, text.encode("utf-8"))

    def _load(self, key: str) -> list[Snapshot]:
        """The versions in the key's folder; for a web key, its old folder's if it has none."""
        digest = url_digest_of_key(key)
        found = read_index(self.folder(key) / INDEX, key)
        if found is None:
            old = legacy_key(key)
            if old is None:
                return []
            found = read_index(self.folder(old) / INDEX, old)
            if found is None or url_digest(found[0]) != digest:
                return []  # no old folder, or it holds another URL's snapshots (a collision)
            return found[1]
        if digest is not None and url_digest(found[0]) != digest:
            raise StoreError(
                f"{self.folder(key) / INDEX} holds the snapshots of {found[0]!r}, "
                "not of the source its folder is named after",
                hint=RESTORE_HINT,
            )
        if found[2]:
            self._history[key] = found[2]
        if found[3]:
            self._origins[key] = found[3]
        return found[1]


def from_history(snapshot: Snapshot) -> bool:
    """Whether a stored version was taken from history (a commit, a capture), not
    fetched live."""
    return snapshot.origin.startswith(HISTORY_ORIGINS)


def vouched_day(snapshot: Snapshot) -> dt.date:
    """The last day history vouched for a version from history: the day it was asked
    about, or, in an index written before that was kept, the version's own date (so
    history is asked again for any later day)."""
    return snapshot.vouched_until or snapshot.fetched_at.date()


def known_in_force(snapshot: Snapshot, when: dt.datetime) -> bool:
    """Whether a stored version is known to be the source at `when`, a moment at or
    after its date and before the next stored version.

    A version fetched live stands until the next one. A version from history stands
    only for the days history vouched for it, from its date to the end of the day it
    was asked about: for a later day the source may have changed in between, and
    nothing stored says it did not, so history is asked. A claim's baseline is then
    the same whatever other claims asked history about the same source.
    """
    if not from_history(snapshot):
        return True
    return when <= dt.datetime.combine(vouched_day(snapshot), dt.time.max, tzinfo=dt.UTC)


def vouched_to(snapshot: Snapshot, day: dt.date) -> Snapshot:
    """A version from history that history answered again for `day`: it stands to
    that day's end too (a version fetched live is returned as it is)."""
    if not from_history(snapshot) or (
        snapshot.vouched_until is not None and snapshot.vouched_until >= day
    ):
        return snapshot
    return snapshot.model_copy(update={"vouched_until": max(day, vouched_day(snapshot))})
