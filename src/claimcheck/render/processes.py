"""A headless browser's processes and folders after it: waiting for its process group
to exit, killing the processes that left the group but name its folder, and removing the
folders a killed run left behind. Where there is no `/proc`, what it cannot tell is
taken as done."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path


def remove_left_folders(prefix: str) -> None:
    """Remove the browser folders (profile, home) that a killed run left in the
    temporary folder: those named `PREFIX<pid>-…` whose process is gone, ours, and real
    folders. A kill leaves its browser's folder behind (Chromium exits when its pipe
    closes, but its profile, a page's cookies and storage, stays); the next run clears
    it. Another running claimcheck's folders are left alone, as is anything else."""
    for found in Path(tempfile.gettempdir()).glob(f"{prefix}*-*"):
        pid = found.name[len(prefix) :].split("-", 1)[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        try:
            status = found.lstat()
        except OSError:
            continue
        if stat.S_ISDIR(status.st_mode) and status.st_uid == os.getuid():
            shutil.rmtree(found, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive
    return True


def reap_group(pid: int, end: float) -> None:
    """Wait for a killed browser and every process of its group to exit (until the
    monotonic time `end`).

    The browser is reaped here; its helpers (renderer, GPU, zygote) are not our
    children and die on their own time after the group's kill, under load a moment
    after the browser. Its folder is removed only once they are gone, so that none
    of them still holds or writes a file in it.
    """
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            break
        if done or time.monotonic() > end:
            break
        time.sleep(0.01)
    while _group_running(pid) and time.monotonic() <= end:
        time.sleep(0.01)


def kill_naming(folder: Path, end: float) -> None:
    """Kill every process whose command line names the browser's folder, and wait
    (until `end`) for them to exit.

    Not every process a browser starts stays in its group: Chromium's crash handlers
    (`chrome_crashpad_handler`) start sessions of their own, so the group's kill
    misses them and they would outlive the browser, holding its folder. Each is
    started with a path inside the folder (`--database`, `--user-data-dir`), a name
    made for this browser alone (`mkdtemp`), so the folder finds them all, whatever
    group they went to. Another user's process is not ours to kill and is left.
    """
    name = os.fsencode(folder) + b"/"  # a path inside it, not a longer name beside it
    while True:
        found = _naming(name)
        if not found or time.monotonic() > end:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def _naming(name: bytes) -> list[int]:
    """The processes, zombies aside (they have no command line), whose command line
    holds `name`; none where there is no `/proc` to tell."""
    return [pid for pid, command in _processes("cmdline") if name in command]


def _group_running(group: int) -> bool:
    """Whether a process of `group` still runs (a zombie does not: it has no code or
    files left, and where nothing reaps orphans it stays for good). Where there is no
    `/proc` to tell, the group's kill is taken as done."""
    wanted = str(group).encode()
    for _pid, status in _processes("stat"):
        # After the command's closing parenthesis: state, parent, process group, ...
        fields = status[status.rfind(b")") + 2 :].split()
        if len(fields) > 2 and fields[2] == wanted and fields[0] not in b"ZX":
            return True
    return False


def _processes(name: str) -> Iterator[tuple[int, bytes]]:
    """Each process's id and its `/proc/PID/<name>` file; none where there is no `/proc`
    (a process gone while it is read is skipped)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/{name}", "rb") as file:
                found = file.read()
        except OSError:
            continue
        yield int(entry), found
