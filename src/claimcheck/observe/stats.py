"""What a run did, told to the summary line, the scheduler's log and a progress bar."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ProgressCallback = Callable[[str, int, int], None]
"""Told the phase a run is in ("fetching", "fetching and reading history" when the fetch
asks history as each answer arrives, "reading history", "blaming", "judging"), how many
of its steps are done and how many there are."""


@dataclass
class RunStats:
    """What a run did, for the one-line summary and the scheduler's log.

    `requests` are those sent for the sources themselves (their pages, a forge's file,
    a renamed repository's new name); `history_requests` those sent to read history
    (baselines, blame, citations: a forge's commits, the Wayback Machine), counted
    apart so that neither is taken for the other.
    """

    sources: int = 0
    requests: int = 0
    history_requests: int = 0
    new_snapshots: int = 0
    not_modified: int = 0
    failed: list[str] = field(default_factory=list)
    suspects: dict[str, int] = field(default_factory=dict)  # source → suspicious runs in a row
    stored_files: list[Path] = field(default_factory=list)
    """The files of the snapshots folder this run wrote or removed (`Store.changed_files`)
    and the state file it recorded: what a commit of the run names, and nothing else."""


def in_source_order(stats: RunStats, urls: list[str]) -> None:
    """The failed and suspect sources in the order of the claims, not of their answers'
    arrival: the summary and the scheduler's log read the same from run to run."""
    place = {url: n for n, url in enumerate(urls)}
    stats.failed.sort(key=lambda url: place.get(url, len(place)))
    suspects = sorted(stats.suspects.items(), key=lambda item: place.get(item[0], len(place)))
    stats.suspects = dict(suspects)
