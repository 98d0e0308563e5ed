"""The run lock: one scheduled claimcheck at a time per snapshots folder, across processes.

Two runs writing the same snapshots would each be atomic, but their indexes would race
(the last writer's index wins and the other's new version is forgotten), and two
nightly schedulers would fetch everything twice. The lock is an OS lock on a file in
the snapshots folder — `flock` on POSIX, `msvcrt.locking` on Windows: the kernel
releases it when its process dies, however it dies, so a lock left behind by a crash
is simply taken over. The file records who holds it
(pid, host, start time, command) so a refused process can say whom it waits for.

The lock file is opened without following a symlink and must be a regular file with no
other name (a planted link would have the holder record written into its target).
Taking the lock is the start of a run that writes the store, so it is also where the
temporary files of a run that was killed are removed.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from claimcheck.errors import ClaimcheckError, StoreError
from claimcheck.store.files import open_store_file, remove_stale_temp_files

if TYPE_CHECKING:
    from claimcheck.config import Config

if sys.platform == "win32":  # pragma: no cover - exercised by a stand-in on POSIX
    import msvcrt
else:
    import fcntl

LOCK_FILE = ".claimcheck.lock"

_WINDOWS_LOCK_OFFSET = 1 << 30
"""Windows locks are mandatory byte ranges: lock one byte far past the holder record,
so that a refused process can still read who holds the lock."""


@dataclass(frozen=True)
class Holder:
    """Who holds (or last held) the lock, as recorded in the lock file."""

    pid: int
    host: str
    started: dt.datetime
    command: str

    def describe(self) -> str:
        """`pid 123 on host, since 2026-11-30T03:17:00Z (claimcheck schedule)`."""
        since = self.started.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return f"pid {self.pid} on {self.host}, since {since} ({self.command})"


class LockedError(ClaimcheckError):
    """Another process holds the run lock of this snapshots folder."""

    def __init__(self, path: Path, holder: Holder | None) -> None:
        who = holder.describe() if holder else "a process that has not yet said who it is"
        super().__init__(
            f"another claimcheck run holds {path}: {who}",
            hint="wait for that run to finish, or stop that process; a lock left by a "
            "process that died is taken over by itself",
        )
        self.holder = holder


class RunLock:
    """A held lock; `previous` is the holder recorded by a process that died holding it."""

    def __init__(self, path: Path, fd: int, holder: Holder, previous: Holder | None) -> None:
        self.path = path
        self.holder = holder
        self.previous = previous
        self._fd: int | None = fd

    def release(self) -> None:
        """Remove the file, then drop the lock (in that order: see `acquire_lock`).

        Windows cannot remove an open file, so there the lock is dropped first and the
        file removed after, if no waiter has it open; a file left behind is taken over.
        """
        if self._fd is None:
            return
        if sys.platform == "win32":  # pragma: no cover
            os.close(self._fd)
        with contextlib.suppress(OSError):
            self.path.unlink()
        if sys.platform != "win32":
            os.close(self._fd)
        self._fd = None

    def __enter__(self) -> RunLock:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()


def acquire_lock(folder: Path, command: str, now: dt.datetime | None = None) -> RunLock:
    """Take the lock of `folder` or raise `LockedError` naming its holder.

    A holder removes the file before unlocking it, so a process that locked a file
    just as it was removed holds a lock nobody else can see: it checks that the path
    still names the file it locked, and starts again when it does not. Once held, the
    temporary files older than this run (left by a killed one) are removed.
    """
    path = folder / LOCK_FILE
    holder = Holder(
        pid=os.getpid(),
        host=socket.gethostname(),
        started=now or dt.datetime.now(dt.UTC),
        command=command,
    )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        while True:
            fd = open_store_file(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                _refuse_other_names(path, fd)
                locked = _try_lock(fd)
                if locked and _still_named(path, fd):
                    previous = _read_holder(fd)
                    _write_holder(fd, holder)
                    remove_stale_temp_files(folder, before=holder.started)
                    return RunLock(path, fd, holder, previous)
                if not locked:
                    raise LockedError(path, _read_holder(fd))
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)  # locked a file that was just removed: open the new one
    except OSError as exc:
        raise StoreError(f"cannot lock {path}: {exc.strerror}") from exc


def _try_lock(fd: int) -> bool:
    """Take the OS lock on `fd` without waiting; False when another process holds it."""
    if sys.platform == "win32":  # pragma: no cover - exercised by a stand-in on POSIX
        os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _refuse_other_names(path: Path, fd: int) -> None:
    """A hard link is a second name for a file elsewhere: the lock never writes into one."""
    if os.fstat(fd).st_nlink > 1:
        raise StoreError(
            f"{path} has other names (a hard link); claimcheck writes only its own lock file",
            hint=f"remove {path}; claimcheck creates it afresh",
        )


def _still_named(path: Path, fd: int) -> bool:
    try:
        return os.lstat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False


def _read_holder(fd: int) -> Holder | None:
    """The recorded holder; None when the file is empty (being written) or unreadable."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        raw = json.loads(os.read(fd, 4096).decode("utf-8"))
        return Holder(
            pid=int(raw["pid"]),
            host=str(raw["host"]),
            started=dt.datetime.fromisoformat(raw["started"]),
            command=str(raw["command"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_holder(fd: int, holder: Holder) -> None:
    record = {
        "pid": holder.pid,
        "host": holder.host,
        "started": holder.started.isoformat(),
        "command": holder.command,
    }
    data = (json.dumps(record) + "\n").encode("utf-8")
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, data)


def writing(
    config: Config, command: str, *, offline: bool = False
) -> contextlib.AbstractContextManager[object]:
    """The run lock of the snapshot folder for a command that writes it (none offline).

    `schedule` holds the same lock for its whole life, so a verify by hand never writes
    the store at the same moment as the nightly run.
    """
    if offline:
        return contextlib.nullcontext()
    return acquire_lock(config.snapshots_dir, command)
