"""Files of the snapshots folder, opened so that nothing outside it is read or written.

Claim files, and so the snapshots folder, come from pull requests: a contributor can
commit a symlink as `index.json`, a body file or the lock file. Every store file is
opened without following a symlink (`O_NOFOLLOW`, plus an `lstat` check where the OS
has no such flag, as on Windows) and must be a regular file; writes create a new
temporary file and rename it into place, which replaces a link rather than writing
through it. This module imports nothing heavy, so the lock can use it anywhere.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import hashlib
import itertools
import os
import re
import stat
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from claimcheck.errors import StoreError

TEMP_PREFIX = ".tmp-"
RESTORE_HINT = "restore it from version control (git checkout -- snapshots/)"
_TEMP_PID = re.compile(re.escape(TEMP_PREFIX) + r"(\d+)-")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO planted as a store file must not hang
_BINARY = getattr(os, "O_BINARY", 0)
_REPARSE_POINT = getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0x400)
_CREATE_NEW = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY | getattr(os, "O_CLOEXEC", 0)
)
SYNC_THREADS = 16
"""Threads that issue a batch's fsyncs together (`sync_files`)."""
_TEMP_TRIES = 10_000  # as many names as `tempfile.mkstemp` tries before it gives up
_temp_numbers = itertools.count()  # this process's temporary files, numbered


def refuse_link(path: Path) -> None:
    """Raise `StoreError` when `path` is a symlink (or a Windows reparse point).

    A missing path passes: the caller's open says so. `O_NOFOLLOW` refuses the same
    where the OS has it; this check also covers systems without it.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror}") from exc
    if stat.S_ISLNK(info.st_mode) or getattr(info, "st_file_attributes", 0) & _REPARSE_POINT:
        raise StoreError(
            f"{path} is a symbolic link; claimcheck reads and writes only the files "
            "inside its snapshots folder",
            hint=f"replace the link by a regular file, or {RESTORE_HINT}",
        )


def open_store_file(path: Path, flags: int, mode: int = 0o644) -> int:
    """`os.open` a file of the store without following a symlink; a regular file only.

    Raises `StoreError` for a symlink or anything but a regular file (a FIFO, a device,
    a folder), and lets the OS's other errors (`FileNotFoundError`, …) through. Where
    the OS has `O_NOFOLLOW` the open itself refuses a link, and its `ELOOP` is told
    as `refuse_link` tells it; elsewhere the `lstat` check comes first.
    """
    if not _NOFOLLOW:
        refuse_link(path)
    try:
        fd = os.open(path, flags | _NOFOLLOW | _NONBLOCK | _BINARY, mode)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            refuse_link(path)  # FreeBSD says EMLINK; both mean "a link was refused"
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StoreError(f"{path} is not a regular file", hint=RESTORE_HINT)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_store_file(path: Path) -> bytes:
    """The bytes of a regular file of the store, never of what a symlink points to."""
    fd = open_store_file(path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def atomic_write(path: Path, data: bytes, *, durable: bool = True, keep_mode: bool = False) -> None:
    """Write a file so that readers see the old content or the new, never a part.

    The temporary file is new (`_temp_file_beside` opens with `O_EXCL`) and the rename
    replaces a symlink at `path` rather than writing through it. `durable=False` skips the
    fsync, for derived files whose loss in a crash costs only their recomputation.
    The file is 0644 (snapshots are shared files, not private temp files); with
    `keep_mode`, a file a person owns (a claim file, an article) keeps the mode it has,
    and its owner and group where the OS lets us set them.
    """
    kept = _stat_of(path) if keep_mode else None
    try:
        try:  # the folder is there but for a source's first write: make it only then
            fd, tmp = _temp_file_beside(path)
        except FileNotFoundError:
            os.makedirs(path.parent, exist_ok=True)
            fd, tmp = _temp_file_beside(path)
    except OSError as exc:
        raise StoreError(
            f"cannot write into {path.parent}: {exc.strerror}", hint=_writable_hint(path)
        ) from exc
    try:
        try:
            if kept is not None:
                _keep_owner(fd, kept)
            os.fchmod(fd, 0o644 if kept is None else stat.S_IMODE(kept.st_mode))
            _write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise StoreError(
                f"cannot write {path}: {exc.strerror}", hint=_writable_hint(path)
            ) from exc
        raise


def _write_all(fd: int, data: bytes) -> None:
    """Write all of `data` to `fd`, however many writes the OS takes."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _stat_of(path: Path) -> os.stat_result | None:
    """The file's status, when it is there to be replaced."""
    try:
        return os.stat(path)
    except OSError:
        return None


def _keep_owner(fd: int, kept: os.stat_result) -> None:
    """Give the new file the replaced one's owner and group, as far as we may.

    Only root may give a file away; an owner may still give it one of their groups.
    Set before the mode, since a change of owner clears the set-id bits.
    """
    fchown = getattr(os, "fchown", None)  # not on Windows
    new = os.fstat(fd)
    if fchown is None or (new.st_uid, new.st_gid) == (kept.st_uid, kept.st_gid):
        return
    for uid, gid in ((kept.st_uid, kept.st_gid), (-1, kept.st_gid)):
        try:
            fchown(fd, uid, gid)
        except OSError:
            continue
        return


def _writable_hint(path: Path) -> str:
    """What to check, about the file written: a report, a claim file or a snapshot
    (`StoreError`'s own hint speaks of the snapshots folder only)."""
    folder = "the current folder" if str(path.parent) == "." else str(path.parent)
    return f"check that {folder} exists and is writable, and that {path.name} is not a folder"


def _temp_file_beside(path: Path) -> tuple[int, str]:
    """A new temporary file in `path`'s folder, opened for writing, and its path.

    Named `.tmp-PID-N` plus `path`'s suffix, `N` counting this process's temporary
    files: the pid is what `remove_stale_temp_files` reads, and unique among running
    processes. Created with `O_EXCL` (and without following a link), so a file or link
    already there under that name (a killed process's with the same pid) is never
    opened: the next number is tried. Private (0600) until `atomic_write` sets its mode.
    """
    folder = os.fspath(path.parent)
    prefix = f"{TEMP_PREFIX}{os.getpid()}-"
    for _ in range(_TEMP_TRIES):
        tmp = os.path.join(folder, f"{prefix}{next(_temp_numbers)}{path.suffix}")
        try:
            return os.open(tmp, _CREATE_NEW, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free name for a temporary file", folder)


def sync_files(paths: list[Path]) -> None:
    """Make written files and their folders durable, many at once.

    One fsync costs a journal commit (milliseconds on a VM disk): a run that writes a
    thousand snapshots one fsync at a time spends most of its time waiting. Issued
    together from a few threads, the file system commits them in a handful of
    journal transactions. Each thread takes an equal share of the paths (every
    `threads`-th) and syncs them in turn, rather than a task per path, whose
    bookkeeping in the pool costs CPU on the scale of the fsyncs themselves.
    """
    if not paths:
        return
    targets = list(dict.fromkeys([*paths, *(p.parent for p in paths)]))
    threads = min(SYNC_THREADS, len(targets))
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(_fsync_paths, [targets[i::threads] for i in range(threads)]))


def _fsync_paths(paths: list[Path]) -> None:
    for path in paths:
        _fsync_path(path)


def _fsync_path(path: Path) -> None:
    with contextlib.suppress(OSError):  # gone (replaced by a later write) or not syncable
        fd = os.open(path, os.O_RDONLY | _BINARY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_stale_temp_files(root: Path, before: dt.datetime) -> list[Path]:
    """Remove the temporary files a killed run left below `root`; the paths removed.

    Called by the run that holds the lock, so no other writer is at work: a temp file
    last changed before `before` (the run's start) and not named with this process's
    pid is debris. Links are removed as links; hidden folders (`.git`) are not
    entered, but for the store's own `.cache`.
    """
    cutoff = before.timestamp()
    own = os.getpid()
    removed: list[Path] = []
    for path in _temp_files(root):
        pid = _TEMP_PID.match(path.name)
        if pid is not None and int(pid.group(1)) == own:
            continue
        try:
            info = os.lstat(path)
            if stat.S_ISDIR(info.st_mode) or info.st_mtime >= cutoff:
                continue
            os.unlink(path)
        except OSError:
            continue
        removed.append(path)
    return removed


def _temp_files(root: Path) -> Iterator[Path]:
    for folder, dirs, names in os.walk(root):  # never follows links to folders
        # Hidden folders (`.git`) are not entered, but for the store's own derived cache.
        dirs[:] = [d for d in dirs if not d.startswith(".") or d == ".cache"]
        for name in names:
            if name.startswith(TEMP_PREFIX):
                yield Path(folder) / name


@dataclass(frozen=True)
class StoredBody:
    """A stored body's file and the SHA-256 its index records: called, its text.

    Plain values, so that a worker process can be handed one and read the body itself.
    `binary`: a PDF, whose bytes are stored as served and carried as text one character
    a byte (Latin-1, as `judge.pdf.body_text` does), every byte kept.
    """

    path: str
    sha256: str
    binary: bool = False

    def read_bytes(self) -> bytes:
        """The body, refused unless it is what its index recorded."""
        path = Path(self.path)
        try:
            body = read_store_file(path)
        except OSError as exc:
            raise StoreError(f"cannot read snapshot {path}: {exc.strerror}") from exc
        if hashlib.sha256(body).hexdigest() != self.sha256:
            # A body that is not what its index recorded (a write lost in a power cut,
            # a hand edit) would be judged as the source: refuse it instead.
            raise StoreError(
                f"{path} does not hold the body its index recorded (SHA-256 {self.sha256[:12]}…)",
                hint=RESTORE_HINT,
            )
        return body

    def __call__(self) -> str:
        if self.binary:
            return self.read_bytes().decode("latin-1")
        return self.read_bytes().decode("utf-8", errors="replace")
