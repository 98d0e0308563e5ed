"""The one walker of every forge's commit pages (`forges.api.read_pages`), over real HTTP.

GitHub, GitLab, Forgejo and the Hub list commits a page at a time, the next page named
in a `Link` header; all four read them through `read_pages`. A loopback server serves a
list of pages chosen by the test; what the walker should answer is worked out here from
the pages alone: the commits of the pages read, in order, and whether the walk ended by
itself (no next page, or a commit old enough) rather than at the page limit.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimcheck.forges.api import forge_request, read_commits, read_pages
from claimcheck.forges.forge import Server
from claimcheck.models import Blame
from claimcheck.net.fetcher import Fetcher, FetchSettings
from support.local_http import send_answer, serving

FAST = FetchSettings(per_host_interval=0.0, retries=0)
NEWEST = dt.datetime(2025, 6, 1, tzinfo=dt.UTC)


def commit_date(number: int) -> dt.datetime:
    """Commit `number` (0 the newest) is a day older than the one before it."""
    return NEWEST - dt.timedelta(days=number)


class Site:
    """What the server answers: `pages` of commit numbers, newest first; `first` the
    status of the first page; `next_host` where the Link header sends the next page."""

    pages: ClassVar[list[list[int]]] = []
    first = 200
    next_host: str | None = None


class Pages(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        page = int(parse_qs(urlsplit(self.path).query)["page"][0])
        if page == 0 and Site.first != 200:
            send_answer(self, Site.first, {"Content-Type": "application/json"}, b"{}")
            return
        items = [
            {"sha": f"{number:040x}", "date": commit_date(number).isoformat()}
            for number in Site.pages[page]
        ]
        headers = {"Content-Type": "application/json"}
        if page + 1 < len(Site.pages):
            host = Site.next_host or f"127.0.0.1:{self.server.server_address[1]}"
            headers["Link"] = f'<http://{host}/commits?page={page + 1}>; rel="next"'
        send_answer(self, 200, headers, json.dumps(items).encode())

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the test reads the answers."""


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serving(Pages) as url:
        yield url


def parse(item: Any) -> Blame | None:
    return Blame(
        sha=item["sha"],
        date=dt.datetime.fromisoformat(item["date"]),
        author="",
        title="",
        url="",
    )


def walk(
    base_url: str, *, max_pages: int, back_to: dt.datetime | None = None, gone_is_empty: bool
) -> tuple[list[int], bool] | None:
    server = Server(base_url)

    async def run() -> tuple[list[Blame], bool] | None:
        async with Fetcher(FAST) as fetcher:
            return await read_pages(
                fetcher,
                f"{base_url}/commits?page=0",
                lambda url: forge_request(url, server),
                parse,
                max_pages=max_pages,
                enough=None if back_to is None else lambda found: found[-1].date <= back_to,
                gone_is_empty=gone_is_empty,
            )

    listed = asyncio.run(run())
    if listed is None:
        return None
    return [int(c.sha, 16) for c in listed[0]], listed[1]


def expected(pages: list[list[int]], max_pages: int, back_to: int | None) -> tuple[list[int], bool]:
    """The commits of the pages read and whether the walk ended by itself, from the pages."""
    found: list[int] = []
    for number, page in enumerate(pages[:max_pages]):
        found += page
        if back_to is not None and any(c >= back_to for c in found):
            return found, True  # a commit at or before the date asked for
        if number == len(pages) - 1:
            return found, True  # no next page
    return found, False  # the limit came first


def numbered(sizes: list[int]) -> list[list[int]]:
    """Pages of the given sizes over commits 0, 1, 2, … (newest first)."""
    pages, start = [], 0
    for size in sizes:
        pages.append(list(range(start, start + size)))
        start += size
    return pages


@settings(max_examples=30)
@given(
    sizes=st.lists(st.integers(min_value=1, max_value=3), min_size=1, max_size=5),
    max_pages=st.integers(min_value=1, max_value=6),
    back_to=st.none() | st.integers(min_value=0, max_value=16),
)
def test_the_walker_reads_the_pages_a_forge_lists(
    base_url: str, sizes: list[int], max_pages: int, back_to: int | None
) -> None:
    Site.pages, Site.first, Site.next_host = numbered(sizes), 200, None
    until = None if back_to is None else commit_date(back_to)
    found = walk(base_url, max_pages=max_pages, back_to=until, gone_is_empty=True)
    assert found == expected(Site.pages, max_pages, back_to)


def test_the_limit_cuts_a_long_list_short(base_url: str) -> None:
    Site.pages, Site.first, Site.next_host = [[0, 1], [2], [3, 4]], 200, None
    assert walk(base_url, max_pages=2, gone_is_empty=True) == ([0, 1, 2], False)
    assert walk(base_url, max_pages=3, gone_is_empty=True) == ([0, 1, 2, 3, 4], True)


@pytest.mark.parametrize(("gone_is_empty", "answer"), [(True, ([], True)), (False, None)])
def test_a_missing_first_page_is_no_commits_only_where_the_forge_says_so(
    base_url: str, gone_is_empty: bool, answer: tuple[list[int], bool] | None
) -> None:
    """GitHub, GitLab and Forgejo answer 404 for a path without history: no commits,
    remembered; the Hub's 404 names no repository, which says nothing of the card."""
    Site.pages, Site.first, Site.next_host = [[0]], 404, None
    assert walk(base_url, max_pages=3, gone_is_empty=gone_is_empty) == answer


def test_a_next_page_on_another_host_is_not_followed(base_url: str) -> None:
    """The token goes to the forge's host only: a list that continues elsewhere is
    not known (None), not cut short."""
    Site.pages, Site.first, Site.next_host = [[0], [1]], 200, "elsewhere.example"
    assert walk(base_url, max_pages=3, gone_is_empty=True) is None


def test_read_commits_is_the_walk_without_its_flag(base_url: str) -> None:
    Site.pages, Site.first, Site.next_host = [[0, 1], [2]], 200, None
    server = Server(base_url)

    async def run() -> list[Blame] | None:
        async with Fetcher(FAST) as fetcher:
            return await read_commits(
                fetcher,
                f"{base_url}/commits?page=0",
                lambda url: forge_request(url, server),
                parse,
                max_pages=1,
            )

    listed = asyncio.run(run())
    assert listed is not None
    assert [int(c.sha, 16) for c in listed] == [0, 1]
