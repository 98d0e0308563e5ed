"""Connection reuse in fetch.py: answers without a usable body give their connection back.

httpx returns a streamed response's connection to the pool only once the body has been
read to its end; a 304 or 404 closed unread costs a new TCP connection per request. A
real HTTP/1.1 server on 127.0.0.1 counts the connections it accepts.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from claimcheck.net.fetch import Fetched, FetchFailed, FetchOutcome, FetchRequest, Gone, NotModified
from claimcheck.net.fetcher import DRAIN_SECONDS, Fetcher, FetchSettings, fetch_all_sync
from support.counting_server import CountingServer, Route, answer, counting_server

REQUESTS = 50
CONCURRENCY = 4
MOST_CONNECTIONS = 2 * CONCURRENCY
ETAG = '"v1"'
NOT_FOUND = b'{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}'


def chunked_forever(status: int) -> Route:
    """An error body that never ends (chunked, so no length says how big it is)."""

    def route(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        chunk = b"x" * 16_384
        try:
            for _ in range(10_000):
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        except OSError:  # the client hung up, as it should
            handler.close_connection = True

    return route


def cut_short(status: int, *, stall: threading.Event | None) -> Route:
    """A body shorter than its Content-Length: the rest stalls, or the connection ends."""

    def route(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        handler.send_header("Content-Length", "100")
        handler.end_headers()
        handler.wfile.write(b"x" * 10)
        handler.wfile.flush()
        if stall is not None:
            stall.wait(10)
        handler.close_connection = True

    return route


@pytest.fixture
def server() -> Iterator[CountingServer]:
    with counting_server() as running:
        yield running


def fetch_many(requests: list[FetchRequest], hops: int = 1, **changes: Any) -> list[FetchOutcome]:
    settings = FetchSettings(
        **{
            "concurrency": CONCURRENCY,
            "per_host": CONCURRENCY,
            "per_host_interval": 0.0,
            "retries": 0,
            **changes,
        }
    )
    outcomes, count = fetch_all_sync(settings, requests)
    assert count == hops * len(requests)
    return outcomes


@pytest.mark.parametrize("length", [True, False], ids=["content-length-0", "no-length"])
def test_304_answers_reuse_their_connections(server: CountingServer, length: bool) -> None:
    server.routes["/readme"] = answer(304, length=length, ETag=ETAG)
    url = server.url("/readme")
    requests = [FetchRequest(url, etag=ETAG) for _ in range(REQUESTS)]

    outcomes = fetch_many(requests)

    assert outcomes == [NotModified(url, url)] * REQUESTS
    assert server.requests == REQUESTS
    assert server.connections <= MOST_CONNECTIONS


@pytest.mark.parametrize("status", [404, 410])
def test_gone_answers_reuse_their_connections(server: CountingServer, status: int) -> None:
    server.routes["/missing"] = answer(status, NOT_FOUND, Content_Type="application/json")
    url = server.url("/missing")

    outcomes = fetch_many([FetchRequest(url) for _ in range(REQUESTS)])

    assert outcomes == [Gone(url, url, status)] * REQUESTS
    assert server.connections <= MOST_CONNECTIONS


def test_other_error_answers_reuse_their_connections(server: CountingServer) -> None:
    server.routes["/denied"] = answer(401, b'{"message": "Bad credentials"}')
    url = server.url("/denied")

    outcomes = fetch_many([FetchRequest(url) for _ in range(REQUESTS)])

    assert all(isinstance(o, FetchFailed) and o.reason == "HTTP 401" for o in outcomes)
    assert server.connections <= MOST_CONNECTIONS


def test_redirect_hops_reuse_their_connections(server: CountingServer) -> None:
    server.routes["/old"] = answer(302, b"moved", Location="/new")
    server.routes["/new"] = answer(200, b"# README\n")
    url = server.url("/old")

    outcomes = fetch_many([FetchRequest(url) for _ in range(REQUESTS)], hops=2)

    assert all(isinstance(o, Fetched) and o.body == b"# README\n" for o in outcomes)
    assert server.requests == 2 * REQUESTS
    assert server.connections <= MOST_CONNECTIONS


def test_successful_answers_reuse_their_connections(server: CountingServer) -> None:
    """The baseline the other answers are held to."""
    server.routes["/readme"] = answer(200, b"# README\n", ETag=ETAG)
    url = server.url("/readme")

    outcomes = fetch_many([FetchRequest(url) for _ in range(REQUESTS)])

    assert all(isinstance(o, Fetched) for o in outcomes)
    assert server.connections <= MOST_CONNECTIONS


def test_an_error_body_over_max_bytes_is_not_read(server: CountingServer) -> None:
    """Past max_bytes the body is left unread and its connection dropped; the status
    still decides the outcome (a huge error page is not `response larger than`)."""
    server.routes["/declared"] = answer(404, b"x" * 200_000)
    server.routes["/endless"] = chunked_forever(404)
    declared, endless = server.url("/declared"), server.url("/endless")
    started = time.monotonic()

    outcomes = fetch_many(
        [FetchRequest(declared), FetchRequest(endless)], max_bytes=100_000, timeout=10
    )

    assert outcomes == [Gone(declared, declared, 404), Gone(endless, endless, 404)]
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("stall", [True, False], ids=["stalled", "cut-off"])
def test_an_error_body_that_stalls_or_breaks_off_leaves_the_status(
    server: CountingServer, stall: bool
) -> None:
    """Draining is best effort: the status was the answer, whatever its body does."""
    server.routes["/missing"] = cut_short(404, stall=server.release if stall else None)
    url = server.url("/missing")
    started = time.monotonic()

    outcomes = fetch_many([FetchRequest(url)], timeout=10)

    assert outcomes == [Gone(url, url, 404)]
    assert time.monotonic() - started < DRAIN_SECONDS + 3


@pytest.mark.parametrize("status", [200, 304, 404])
def test_more_than_twenty_in_flight_still_reuse_their_connections(
    server: CountingServer, status: int
) -> None:
    """The pool keeps every connection it may open alive: one that closed idle
    connections beyond a keep-alive limit below the concurrency (httpcore's 20) opened a
    connection for nearly every request at 32 in flight."""
    reply = answer(status, b"# README\n" if status == 200 else b"", ETag=ETAG)

    def slow(handler: BaseHTTPRequestHandler) -> None:
        time.sleep(0.02)  # a network's latency: all 32 are in flight at once
        reply(handler)

    server.routes["/readme"] = slow
    url = server.url("/readme")
    requests = [FetchRequest(url, etag=ETAG) for _ in range(400)]

    fetch_many(requests, concurrency=32, per_host=32)

    assert server.requests == 400
    assert server.connections <= 48


def test_a_fetcher_apart_counts_its_own_requests_over_the_same_connections(
    server: CountingServer,
) -> None:
    """History's look-ups go through a view of the run's fetcher: one client to every
    host (its connections and limits), with its requests counted apart."""
    server.routes["/page"] = answer(200, b"<p>page</p>")
    server.routes["/history"] = answer(200, b"[]")
    settings = FetchSettings(concurrency=1, per_host=1, per_host_interval=0.0, retries=0)

    async def run() -> tuple[int, int]:
        async with Fetcher(settings) as fetcher:
            apart = fetcher.apart()
            for _ in range(3):
                assert isinstance(await fetcher.fetch(FetchRequest(server.url("/page"))), Fetched)
                assert isinstance(await apart.fetch(FetchRequest(server.url("/history"))), Fetched)
            return fetcher.requests_made, apart.requests_made

    assert asyncio.run(run()) == (3, 3)
    assert server.requests == 6
    assert server.connections == 1  # one keep-alive connection served both
