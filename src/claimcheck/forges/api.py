"""Asking a forge's API through the run's fetcher: requests, answers, paginated lists.

Every forge (GitHub, the Hub, GitLab, Forgejo) builds its requests here (`forge_request`:
its token bound to the forge's own host, its media type, API version and test for
"gone") and reads its commit lists with one walker (`read_pages`): each forge answers a
page at a time and says where the next page is in a `Link: <…>; rel="next"` header. A
next page on another host is not followed (the token goes to the forge's host only).

The requests and answers are `net.fetch`'s plain values, which load no HTTP client:
resolving a URL, which imports every forge, stays offline and light.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from claimcheck.forges.forge import MAX_PAGES, Fetches, Server
from claimcheck.models import Blame
from claimcheck.net.fetch import Fetched, FetchOutcome, FetchRequest, Gone
from claimcheck.net.http_policy import ForeignPageError, next_page_url


def forge_request(
    url: str,
    server: Server,
    *,
    accept: str | None = None,
    etag: str | None = None,
    last_modified: str | None = None,
    api_version: str | None = None,
    gone: Callable[[int, Mapping[str, str]], bool] | None = None,
) -> FetchRequest:
    """A request to a forge's API, its token bound to the forge's own host."""
    return FetchRequest(
        url=url,
        accept=accept,
        etag=etag,
        last_modified=last_modified,
        token=server.token,
        token_host=server.host,
        api_version=api_version,
        gone=gone,
    )


async def get(fetcher: Fetches, url: str, server: Server) -> FetchOutcome:
    """One GET to the forge, through the run's fetcher (its limits and retries)."""
    return await fetcher.fetch(forge_request(url, server))


def body_of(outcome: FetchOutcome) -> bytes | None:
    """The body of an answer; None when the forge did not answer with one."""
    return outcome.body if isinstance(outcome, Fetched) else None


def is_gone(outcome: FetchOutcome) -> bool:
    """Whether the forge answered "no such file" (404, 410, or its own way of saying it)."""
    return isinstance(outcome, Gone)


def gone_as(outcome: Fetched, status: int) -> Gone:
    """An answer that names no file, as the fetcher gives a 404 (`status`)."""
    return Gone(outcome.url, outcome.final_url, status)


async def read_pages(
    fetcher: Fetches,
    url: str,
    request_of: Callable[[str], FetchRequest],
    parse: Callable[[Any], Blame | None],
    *,
    max_pages: int = MAX_PAGES,
    enough: Callable[[list[Blame]], bool] | None = None,
    gone_is_empty: bool = True,
) -> tuple[list[Blame], bool] | None:
    """Every commit the pages list, newest first, from `url` on, and whether the walk
    ended by itself (no next page, or `enough` said so) rather than at `max_pages`.

    None: not answered (asked again next run). With `gone_is_empty`, a 404 or 410 for
    the first page is an answer, no commits, so a file without history there is not
    asked about again every night.
    """
    found: list[Blame] = []
    next_url: str | None = url
    for _ in range(max_pages):
        if next_url is None:
            return found, True
        outcome = await fetcher.fetch(request_of(next_url))
        if gone_is_empty and isinstance(outcome, Gone) and not found:
            return [], True  # the forge answered: no history of this path
        if not isinstance(outcome, Fetched):
            return None
        page = json_of(outcome.body)
        if not isinstance(page, list):
            return None
        found.extend(c for c in map(parse, page) if c is not None)
        if enough is not None and enough(found):
            return found, True
        try:
            next_url = next_page_url(outcome.link, next_url)
        except ForeignPageError:
            return None  # the token goes to the forge's host only: stop, unknown
    return found, next_url is None


async def read_commits(
    fetcher: Fetches,
    url: str,
    request_of: Callable[[str], FetchRequest],
    parse: Callable[[Any], Blame | None],
    *,
    max_pages: int = MAX_PAGES,
) -> list[Blame] | None:
    """Every commit the pages list, newest first, from `url` on; None: not answered."""
    listed = await read_pages(fetcher, url, request_of, parse, max_pages=max_pages)
    return None if listed is None else listed[0]


def json_of(body: bytes) -> Any:
    """The JSON document of an answer; None when it is not one.

    Read with orjson, several times faster than the standard library on the large
    answers forges give (a README's content object, a page of commits). What orjson
    refuses and the standard library reads (a byte order mark, UTF-16, NaN) is read
    by the standard library, so the documents read are the same.
    """
    try:
        return orjson.loads(body)
    except ValueError:
        pass
    try:
        return json.loads(body)
    except ValueError:
        return None


def dig(value: Any, *keys: str) -> Any:
    """The value at `keys` in nested JSON objects; None where one is missing."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


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
