"""Storing a GitHub README snapshot as a run would have stored it, for tests that judge
offline against a store they set up."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from claimcheck.models import MediaType, Snapshot
from support.stored_page import store_body


def store_readme(
    snapshots: Path,
    body: str,
    *,
    source: str = "https://github.com/o/r",
    day: dt.date = dt.date(2026, 10, 20),
    at: dt.time = dt.time(12),
) -> Snapshot:
    """Store `body` as the README of `source`, fetched on `day` at `at` UTC (noon)."""
    when = dt.datetime.combine(day, at, tzinfo=dt.UTC)
    return store_body(snapshots, source, body, MediaType.MARKDOWN, when)
