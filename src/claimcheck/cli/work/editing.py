"""What add, accept and show share: the anchor's keys and a snapshot described in one line."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.models import Snapshot


ANCHOR_KEYS = ("quote", "quote_end", "prefix", "suffix")


def describe_snapshot(snapshot: Snapshot, config: Config) -> str:
    path = config.snapshots_dir / snapshot.key / snapshot.file
    return f"snapshot of {snapshot.fetched_at.date()} ({path.as_posix()})"
