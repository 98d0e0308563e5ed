"""Archiving sources: each one sent to Save Page Now, and the capture recorded in its index.

`claimcheck archive`, and `add`, `accept` and online runs when `[archive] on` says so,
ask the Wayback Machine to capture the sources of their claims (`forges.save_page`), a
few at once, and record each capture in the source's index (the history notes `archived`
and `archived_at`), so that every later citation of the source names it beside the live
link (`history.citations`) with no request. A GitHub repository's fields are read from
its API, but the page a reader opens is what is captured (`forges.github.repository_page`).
A source the store holds no snapshot of yet is captured but not recorded (its index is
made by the run that first fetches it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from claimcheck.config import Config
from claimcheck.errors import UsageError
from claimcheck.forges.github import repository_page
from claimcheck.forges.resolve import source_ref
from claimcheck.forges.save_page import Captured, NotCaptured, SavePageNow
from claimcheck.history.citations import ARCHIVED_AT_NOTE, ARCHIVED_NOTE
from claimcheck.models import ArchivedCopy, Claim
from claimcheck.net.guard import Resolver, resolve_host
from claimcheck.net.settings import fetch_settings
from claimcheck.net.transport import guarded_transport
from claimcheck.store.store import Store


@dataclass(frozen=True)
class Archived:
    """What became of one source: its capture, or why there is none; `recorded`: the
    capture is in the source's index."""

    source: str
    copy: ArchivedCopy | None = None
    reason: str | None = None
    recorded: bool = False
    sent: bool = True
    failed: bool = False


def sources_of(claims: Sequence[Claim]) -> list[str]:
    """The distinct sources of `claims` (every part's), in their order."""
    seen: dict[str, None] = {}
    for claim in claims:
        for view in claim.views():
            if view.source:
                seen.setdefault(view.source, None)
    return list(seen)


def archive_keys(config: Config) -> str:
    """The operator's keys for Save Page Now, or a usage error saying how to give them."""
    keys = config.wayback_keys
    if keys is None:
        raise UsageError(
            "archiving needs the Internet Archive's keys: set WAYBACK_KEYS to ACCESS:SECRET",
            hint="your keys are at https://archive.org/account/s3.php; they are read from "
            "the environment only, and sent to the Wayback Machine only",
        )
    access, colon, secret = keys.partition(":")
    if not (access.strip() and colon and secret.strip()) or any(c.isspace() for c in keys):
        raise UsageError(
            "WAYBACK_KEYS is not ACCESS:SECRET (two keys joined by a colon, no spaces)",
            hint="your keys are at https://archive.org/account/s3.php",
        )
    return keys


def capture_page(source: str) -> str:
    """What is sent to be captured for a claim's source: the page a reader opens (a
    repository's, for a field read from GitHub's API), else the source itself."""
    return repository_page(source) or source


def archive_sources(
    sources: Sequence[str],
    config: Config,
    *,
    resolver: Resolver = resolve_host,
    sleep: Callable[[float], Awaitable[None]] | None = None,
) -> tuple[list[Archived], list[Path]]:
    """Ask for a capture of each source (`[archive] concurrency` at once, fewer when
    the archive says the keys may start fewer) and record each one made, in one batch
    of the store's writes; what became of each, in order, and the files written."""
    keys = archive_keys(config)
    store = Store.of(config)
    with store.batch():
        done = asyncio.run(_archive_all(sources, config, store, keys, resolver, sleep))
    return done, store.changed_files()


async def _archive_all(
    sources: Sequence[str],
    config: Config,
    store: Store,
    keys: str,
    resolver: Resolver,
    sleep: Callable[[float], Awaitable[None]] | None,
) -> list[Archived]:
    settings = fetch_settings(config)
    transport = guarded_transport(settings.address_policy, resolver=resolver, connections=4)
    async with httpx.AsyncClient(
        transport=transport,
        follow_redirects=False,  # the keys stay on the Wayback Machine's host
        trust_env=False,
        timeout=settings.timeout,
        headers={"User-Agent": settings.user_agent},
    ) as client:
        spn = SavePageNow(
            client,
            config.wayback_url,
            keys,
            poll_seconds=config.archive.poll_seconds,
            timeout=config.archive.timeout,
            resolver=resolver,
            sleep=sleep or asyncio.sleep,
        )
        room = await spn.room() if sources else None
        at_once = max(1, min(config.archive.concurrency, room or config.archive.concurrency))
        slots = asyncio.Semaphore(at_once)

        async def one(source: str) -> Archived:
            page = capture_page(source)
            async with slots:
                made = await spn.capture(page, within=config.archive.within)
            if isinstance(made, NotCaptured):
                return Archived(page, reason=made.reason, sent=made.sent, failed=made.failed)
            assert isinstance(made, Captured)
            return Archived(page, copy=made.copy, recorded=_record(store, source, made, config))

        return list(await asyncio.gather(*(one(source) for source in sources)))


def _record(store: Store, source: str, made: Captured, config: Config) -> bool:
    """Note the capture in the source's index; False when the store holds no snapshot
    of the source yet."""
    ref = source_ref(source, config)
    if not store.versions(ref.key):
        return False
    when = made.copy.captured.isoformat()
    store.note_history(ref.key, ref.url, **{ARCHIVED_NOTE: made.copy.url, ARCHIVED_AT_NOTE: when})
    return True
