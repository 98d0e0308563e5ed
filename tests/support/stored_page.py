"""Storing a web page's snapshot as a run would have stored it, for tests whose source
cannot be fetched here (a public host: the suite reaches loopback only)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from claimcheck.forges.resolve import resolve_source
from claimcheck.models import MediaType, Snapshot
from claimcheck.store.store import Store


def store_body(
    snapshots: Path, source: str, body: str, media: MediaType, fetched_at: dt.datetime
) -> Snapshot:
    """Store `body` as what `source` answered at `fetched_at`, read as `media`."""
    ref = resolve_source(source)
    return Store(snapshots).save(
        key=ref.key,
        url=ref.url,
        final_url=ref.fetch_url,
        status=200,
        body=body.encode(),
        media=media,
        fetched_at=fetched_at,
    )


def store_page(snapshots: Path, source: str, html: str, fetched_at: dt.datetime) -> Snapshot:
    """Store `html` as the page at `source`, fetched at `fetched_at`."""
    return store_body(snapshots, source, html, MediaType.HTML, fetched_at)
