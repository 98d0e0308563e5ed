"""The line a run that fetched says on stderr: sources, requests, snapshots."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claimcheck.wording import counted

if TYPE_CHECKING:
    from claimcheck.observe.stats import RunStats


def fetch_line(stats: RunStats) -> str:
    """What a run fetched, for stderr: sources, the requests sent for them and those sent
    to read history (apart: a history look-up is no request of a source), new and
    unchanged snapshots."""
    return (
        f"{counted(stats.sources, 'source')}, {counted(stats.requests, 'request')}, "
        f"{counted(stats.history_requests, 'history look-up')}, "
        f"{counted(stats.new_snapshots, 'new snapshot')}, {stats.not_modified} not modified"
    )
