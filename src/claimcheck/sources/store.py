"""The snapshot store: stored versions of each source under `snapshots/`, on disk.

Layout, one folder per source (its key, see `sources.snapshot_key`):

    snapshots/github.com/ggml-org/llama.cpp/README/
        index.json                          URL and one entry per stored version
        2026-10-20T113000Z-1a2b3c4d.md      the body as received, readable and diffable

A new body file is written only when the content changed, so a run where nothing
changed writes nothing. Every write goes to a temporary file in the same folder and
is renamed into place, body first and index last: a crash or kill at any point leaves
either the old index or the new one, never a half-written snapshot.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import tempfile
from pathlib import Path

from pydantic import ValidationError

from claimcheck.errors import StoreError
from claimcheck.models import MediaType, Snapshot

INDEX = "index.json"
_SUFFIX = {MediaType.MARKDOWN: ".md", MediaType.HTML: ".html", MediaType.TEXT: ".txt"}


class Store:
    """Reads and writes the snapshots of every source below one root folder."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._versions: dict[str, list[Snapshot]] = {}

    def folder(self, key: str) -> Path:
        """The folder of a source key; refuses any key that would leave the root."""
        root = self.root.resolve()
        path = (root / key).resolve()
        if path == root or not path.is_relative_to(root):
            raise StoreError(f"snapshot key {key!r} escapes the snapshots folder")
        return path

    def versions(self, key: str) -> list[Snapshot]:
        """Every stored version of a source, oldest first."""
        if key not in self._versions:
            self._versions[key] = self._load(key)
        return list(self._versions[key])

    def latest(self, key: str) -> Snapshot | None:
        """The newest stored version of a source, if any."""
        versions = self.versions(key)
        return versions[-1] if versions else None

    def as_of(self, key: str, when: dt.date | dt.datetime) -> Snapshot | None:
        """The version a reader saw at `when`: the newest stored at or before it.

        A date means the end of that day (UTC), so a snapshot taken on the check date
        counts as what the checker saw that day.
        """
        if not isinstance(when, dt.datetime):
            when = dt.datetime.combine(when, dt.time.max, tzinfo=dt.UTC)
        found = None
        for snapshot in self.versions(key):
            if snapshot.fetched_at <= when:
                found = snapshot
        return found

    def in_force_during(self, key: str, start: dt.datetime, end: dt.datetime) -> list[Snapshot]:
        """The versions a reader could have seen at some moment from `start` to `end`.

        That is the version already in force at `start` (stored at or before it) and
        every version stored after it up to `end`, oldest first.
        """
        versions = self.versions(key)
        first = next((i for i, s in enumerate(versions) if s.fetched_at > start), len(versions))
        return [s for s in versions[max(first - 1, 0) :] if s.fetched_at <= end]

    def read_body(self, snapshot: Snapshot) -> str:
        """The stored body of a version, as text."""
        path = self.folder(snapshot.key) / snapshot.file
        try:
            return path.read_bytes().decode("utf-8", errors="replace")
        except OSError as exc:
            raise StoreError(f"cannot read snapshot {path}: {exc.strerror}") from exc

    def save(
        self,
        *,
        key: str,
        url: str,
        final_url: str,
        status: int,
        body: bytes,
        media: MediaType,
        fetched_at: dt.datetime,
        etag: str | None = None,
        last_modified: str | None = None,
        origin: str = "fetch",
    ) -> Snapshot:
        """Store a body as the version in force from `fetched_at` on.

        Content equal to the version already in force at that time writes nothing
        (when only the validators or final URL of the latest changed, its index entry
        is updated in place). An older version found later (a backfilled baseline) is
        slotted in by date; a body already stored under another date is shared, not
        written twice.
        """
        digest = hashlib.sha256(body).hexdigest()
        fetched_at = fetched_at.astimezone(dt.UTC)
        versions = self.versions(key)
        earlier = [s for s in versions if s.fetched_at <= fetched_at]
        current = earlier[-1] if earlier else None
        if current is not None and current.sha256 == digest:
            if current is not versions[-1]:
                return current  # an older copy of what was already in force then
            updated = current.model_copy(
                update={"etag": etag, "last_modified": last_modified, "final_url": final_url}
            )
            if updated != current:
                self._write_index(key, url, [*versions[:-1], updated])
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
        )
        if same is None:
            atomic_write(self.folder(key) / snapshot.file, body)
        merged = sorted([*versions, snapshot], key=lambda s: s.fetched_at)
        self._write_index(key, url, merged)
        return snapshot

    def _write_index(self, key: str, url: str, versions: list[Snapshot]) -> None:
        document = {
            "url": url,
            "versions": [
                s.model_dump(mode="json", exclude={"key", "url"}, exclude_defaults=False)
                for s in versions
            ],
        }
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        atomic_write(self.folder(key) / INDEX, text.encode("utf-8"))
        self._versions[key] = versions

    def _load(self, key: str) -> list[Snapshot]:
        path = self.folder(key) / INDEX
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror}") from exc
        try:
            document = json.loads(raw)
            url = document["url"]
            versions = [
                Snapshot.model_validate({**entry, "key": key, "url": url})
                for entry in document["versions"]
            ]
        except (ValueError, KeyError, TypeError, ValidationError) as exc:
            raise StoreError(
                f"{path} is not a valid snapshot index: {exc}",
                hint="restore it from version control (git checkout -- snapshots/)",
            ) from exc
        return sorted(versions, key=lambda s: s.fetched_at)


def atomic_write(path: Path, data: bytes) -> None:
    """Write a file so that readers see the old content or the new, never a part."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    except OSError as exc:
        raise StoreError(f"cannot write into {path.parent}: {exc.strerror}") from exc
    try:
        os.fchmod(fd, 0o644)  # snapshots are shared files, not private temp files
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise StoreError(f"cannot write {path}: {exc.strerror}") from exc
        raise
