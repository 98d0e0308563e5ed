"""The run lock across real processes: refused while held, named holder, stale lock taken over."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from claimcheck.store.lock import LOCK_FILE, LockedError, acquire_lock
from support.claim_files import claim, write_claims

HOLD = """
import sys, time
from pathlib import Path
from claimcheck.store.lock import acquire_lock
lock = acquire_lock(Path(sys.argv[1]), "holder for a test")
print("held", flush=True)
time.sleep(60)
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the lock of tmp_path/snapshots until the test ends."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path / "snapshots")],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "held\n"
    yield process
    process.kill()
    process.wait(timeout=10)
    process.stdout.close()


def test_the_lock_records_its_holder_and_is_gone_after_release(tmp_path: Path) -> None:
    snapshots = tmp_path / "snapshots"

    with acquire_lock(snapshots, "claimcheck schedule") as lock:
        record = json.loads((snapshots / LOCK_FILE).read_text())
        assert record["pid"] == os.getpid()
        assert record["command"] == "claimcheck schedule"
        assert lock.previous is None

    assert not (snapshots / LOCK_FILE).exists()
    with acquire_lock(snapshots, "again"):  # free again
        pass


def test_a_second_holder_in_the_same_process_is_refused(tmp_path: Path) -> None:
    with acquire_lock(tmp_path, "first"), pytest.raises(LockedError, match=f"pid {os.getpid()} "):
        acquire_lock(tmp_path, "second")


def test_a_lock_held_by_another_process_is_refused_naming_it(
    tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    with pytest.raises(LockedError) as refused:
        acquire_lock(tmp_path / "snapshots", "test")

    assert refused.value.holder is not None
    assert refused.value.holder.pid == holder.pid
    assert f"pid {holder.pid} on " in str(refused.value)
    assert "(holder for a test)" in str(refused.value)


def test_a_lock_left_by_a_process_that_died_is_taken_over(
    tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    holder.send_signal(signal.SIGKILL)  # dies holding it: no chance to remove the file
    holder.wait(timeout=10)
    assert (tmp_path / "snapshots" / LOCK_FILE).exists()

    with acquire_lock(tmp_path / "snapshots", "test") as lock:
        assert lock.previous is not None
        assert lock.previous.pid == holder.pid
        assert json.loads(lock.path.read_text())["pid"] == os.getpid()


def test_a_stale_lock_file_with_a_dead_pid_is_taken_over(tmp_path: Path) -> None:
    """A lock file nobody holds (its writer is gone), with a pid no process has."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                          capture_output=True, text=True)  # fmt: skip
    dead = int(done.stdout)
    stale = {"pid": dead, "host": "elsewhere", "started": "2026-11-29T03:17:00+00:00",
             "command": "claimcheck schedule"}  # fmt: skip
    (tmp_path / LOCK_FILE).write_text(json.dumps(stale))

    with acquire_lock(tmp_path, "test") as lock:
        assert lock.previous is not None
        assert (lock.previous.pid, lock.previous.host) == (dead, "elsewhere")


def test_the_schedule_command_of_a_second_process_is_refused_with_exit_2(tmp_path: Path) -> None:
    """This test holds the lock; a real `claimcheck schedule --once` process is refused."""
    write_claims(tmp_path / "claims", [claim(source="http://127.0.0.1:9/never-fetched")])
    env = {**os.environ, "NO_COLOR": "1"}

    with acquire_lock(tmp_path / "snapshots", "claimcheck schedule"):
        second = subprocess.run(
            [sys.executable, "-m", "claimcheck", "schedule", "--once", "--no-issues"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    assert second.returncode == 2, second.stderr
    assert f"holds {Path('snapshots') / LOCK_FILE}: pid {os.getpid()} on " in second.stderr
    assert "(claimcheck schedule)" in second.stderr
    assert "hint:" in second.stderr
    assert not any((tmp_path / "snapshots").glob("*/**"))  # nothing fetched or stored


# A stand-in for Windows' msvcrt, so the Windows path of the lock runs on POSIX too:
# `locking(fd, LK_NBLCK, n)` locks n bytes from the current position or raises OSError,
# as the real one does; POSIX record locks (lockf) have the same per-range meaning.
WINDOWS = """
import fcntl, os, sys, types
fake = types.ModuleType("msvcrt")
fake.LK_NBLCK = 2
def locking(fd, mode, nbytes):
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, nbytes, 0, os.SEEK_CUR)
    except OSError as exc:
        raise OSError(36, "Resource deadlock avoided") from exc
fake.locking = locking
sys.modules["msvcrt"] = fake
sys.platform = "win32"
from pathlib import Path
from claimcheck.store.lock import LockedError, acquire_lock
"""


def test_the_windows_lock_refuses_a_second_process_and_names_the_holder(tmp_path: Path) -> None:
    hold = WINDOWS + (
        "lock = acquire_lock(Path(sys.argv[1]), 'windows holder')\n"
        "print('held', flush=True)\nimport time; time.sleep(60)\n"
    )
    try_it = WINDOWS + (
        "try:\n    acquire_lock(Path(sys.argv[1]), 'second')\nexcept LockedError as e:\n"
        "    print('refused', e.holder.command if e.holder else None)\nelse:\n    print('taken')\n"
    )
    folder = str(tmp_path / "snapshots")
    holder = subprocess.Popen(
        [sys.executable, "-c", hold, folder], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        second = subprocess.run(
            [sys.executable, "-c", try_it, folder], capture_output=True, text=True, check=True
        )
        assert second.stdout == "refused windows holder\n", second.stderr
    finally:
        holder.kill()
        holder.wait(timeout=10)
        assert holder.stdout is not None
        holder.stdout.close()
    # It died holding the lock: the next process takes it over.
    again = subprocess.run(
        [sys.executable, "-c", try_it, folder], capture_output=True, text=True, check=True
    )
    assert again.stdout == "taken\n", again.stderr


def test_the_cli_imports_where_fcntl_does_not_exist() -> None:
    """`import claimcheck.cli.app` must not need POSIX-only modules (Windows has no fcntl)."""
    code = "import sys; sys.modules['fcntl'] = None; import claimcheck.cli.app; print('ok')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout == "ok\n", done.stderr
