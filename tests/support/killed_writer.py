"""A real process killed with SIGKILL while it writes a snapshot body: its temp file."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

KILLED_WRITER = textwrap.dedent(
    """
    import datetime as dt, os, sys, time
    from pathlib import Path
    from claimcheck.models import MediaType
    from claimcheck.store.store import Store

    def stall(fd):  # the body is written; the kill comes before it is renamed
        print("writing", flush=True)
        time.sleep(60)

    os.fsync = stall
    Store(Path(sys.argv[1])).save(
        key=sys.argv[2], url=sys.argv[3], final_url=sys.argv[3], status=200,
        body=b"<p>big</p>" * 800_000, media=MediaType.HTML,
        fetched_at=dt.datetime(2026, 11, 2, tzinfo=dt.timezone.utc))
    """
)


def kill_a_writer(snapshots: Path, key: str, url: str) -> Path:
    """Run a real process saving an 8 MB body, SIGKILL it mid-write; its temp file."""
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(snapshots), key, url],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None
    assert writer.stdout.readline() == "writing\n"
    writer.send_signal(signal.SIGKILL)
    assert writer.wait(timeout=10) == -signal.SIGKILL
    writer.stdout.close()
    (temp,) = (snapshots / key).glob(".tmp-*")
    assert temp.stat().st_size == 8_000_000
    assert temp.name.startswith(f".tmp-{writer.pid}-")
    return temp
