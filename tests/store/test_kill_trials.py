"""A hundred SIGKILLs at random moments of real store writes: the store stays whole.

Each trial forks a writer that saves version after version of two sources (new bodies
and index rewrites, the store's whole write path) and is killed with SIGKILL after a
random few milliseconds. After every kill the store must read back consistently —
every indexed version's body exists and hashes to what the index says, the versions
only ever grew — and the next lock holder removes the killed writer's temp files,
which `git add --all` then never sees.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import random
import signal
import time
from pathlib import Path

import pytest

from claimcheck.models import MediaType
from claimcheck.store.lock import acquire_lock
from claimcheck.store.store import Store

# Slow: a hundred real processes killed mid-write.
pytestmark = pytest.mark.slow

TRIALS = 100
KEYS = ("github.com/o/a/README", "github.com/o/b/README")


def _write_forever(root: Path, seed: int) -> None:
    """The child: save ever newer versions until it is killed."""
    store = Store(root)
    at = dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(days=seed * 1000)
    n = 0
    while True:
        n += 1
        for key in KEYS:
            body = (f"# v{seed}.{n}\n\n" + "word " * random.randrange(10, 40_000)).encode()
            store.save(key=key, url=f"https://github.com/{key}", final_url="api",
                       status=200, body=body, media=MediaType.MARKDOWN,
                       fetched_at=at + dt.timedelta(minutes=n))  # fmt: skip


def _check_whole(root: Path, seen: dict[str, int]) -> None:
    store = Store(root)
    for key in KEYS:
        versions = store.versions(key)
        assert len(versions) >= seen.get(key, 0), "a kill lost a stored version"
        seen[key] = len(versions)
        for version in versions:
            body = (root / key / version.file).read_bytes()
            assert hashlib.sha256(body).hexdigest() == version.sha256


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX-only")
def test_a_hundred_kills_leave_a_whole_store_and_no_temp_files(tmp_path: Path) -> None:
    rng = random.Random(12)
    seen: dict[str, int] = {}
    kills = 0
    for trial in range(TRIALS):
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child never returns
            try:
                random.seed(trial)
                _write_forever(tmp_path, trial)
            finally:
                os._exit(1)
        time.sleep(rng.uniform(0.002, 0.06))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        kills += os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        _check_whole(tmp_path, seen)
    assert kills == TRIALS
    assert sum(seen.values()) > 0  # the writers did store versions between the kills

    debris = [p for p in tmp_path.rglob("*") if p.name.startswith(".tmp-")]
    assert debris, "no kill landed inside a write: the trials proved nothing"
    later = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1)
    time.sleep(1.1)
    with acquire_lock(tmp_path, "the next run", now=later):
        pass
    left = [p for p in tmp_path.rglob("*") if p.name.startswith(".tmp-")]
    assert left == []
