"""Reading a forge's paginated commit list through the run's fetcher, one policy for all.

GitLab and Forgejo (like GitHub) answer a file's commits a page at a time and say
where the next page is in a `Link: <…>; rel="next"` header. A next page on another
host is not followed (the token goes to the forge's host only), and a 404 or 410 for
the first page is an answer, no commits, so a file without history there is not asked
about again every night.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from claimcheck.forges.adapters import Server
from claimcheck.models import Blame

if TYPE_CHECKING:
    from claimcheck.forges.history import Fetches
    from claimcheck.net.fetch import FetchOutcome, FetchRequest

MAX_PAGES = 20
"""Commit pages read at most for one question; beyond them the answer is partial."""


def forge_request(
    url: str,
    server: Server,
    *,
    accept: str | None = None,
    etag: str | None = None,
    last_modified: str | None = None,
) -> FetchRequest:
    """A request to a forge's API, its token bound to the forge's own host."""
    from claimcheck.net.fetch import FetchRequest

    return FetchRequest(
        url=url,
        accept=accept,
        etag=etag,
        last_modified=last_modified,
        token=server.token,
        token_host=server.host,
    )


async def get(fetcher: Fetches, url: str, server: Server) -> FetchOutcome:
    """One GET to the forge, through the run's fetcher (its limits and retries)."""
    return await fetcher.fetch(forge_request(url, server))


async def read_commits(
    fetcher: Fetches,
    url: str,
    server: Server,
    parse: Callable[[Any], Blame | None],
    *,
    max_pages: int = MAX_PAGES,
) -> list[Blame] | None:
    """Every commit the pages list, newest first, from `url` on; None: not answered."""
    from claimcheck.net.fetch import Fetched, Gone
    from claimcheck.net.http_policy import ForeignPageError, next_page_url

    found: list[Blame] = []
    next_url: str | None = url
    for _ in range(max_pages):
        if next_url is None:
            break
        outcome = await get(fetcher, next_url, server)
        if isinstance(outcome, Gone) and not found:
            return []  # the forge answered: no history of this path
        if not isinstance(outcome, Fetched):
            return None
        page = json_of(outcome.body)
        if not isinstance(page, list):
            return None
        found.extend(c for c in map(parse, page) if c is not None)
        try:
            next_url = next_page_url(outcome.link, next_url)
        except ForeignPageError:
            return None  # the token goes to the forge's host only: stop, unknown
    return found


def json_of(body: bytes) -> Any:
    """The JSON document of an answer; None when it is not one."""
    try:
        return json.loads(body)
    except ValueError:
        return None


def parse_date(value: Any) -> dt.datetime | None:
    """An ISO 8601 timestamp of an API answer, in UTC; None when it is not one."""
    if not isinstance(value, str):
        return None
    try:
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=dt.UTC)).astimezone(dt.UTC)


def iso(when: dt.datetime) -> str:
    """A moment as the forges' `since` / `until` parameters take it."""
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
