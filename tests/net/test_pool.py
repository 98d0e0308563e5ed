"""The connection pool (`_compat/httpcore_pool.py`) over real connections to a server on 127.0.0.1.

It replaces httpcore's assignment pass, so these tests hold it to the pool's contract
from outside: every request is answered, connections are reused up to the pool's size
and never beyond it, a connection the server closed is not handed out again, a
cancelled request gives its connection back, and the work per request does not grow
with the pool (httpcore 1.0's pass did, with the square of it) nor walks the pool when
an answer closes with no request waiting.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import httpcore
import httpx
import pytest

from claimcheck._compat.httpcore_pool import LinearPool
from claimcheck.net.addresses import AddressPolicy
from claimcheck.net.guard import guarded_transport
from support.counting_server import CountingServer, Route, answer, counting_server

LOOPBACK = AddressPolicy.parse(["127.0.0.1"])


@pytest.fixture
def server() -> Iterator[CountingServer]:
    with counting_server() as running:
        running.routes["/ok"] = answer(200, b"hello")
        yield running


async def _get_all(
    url: str, count: int, *, in_flight: int, connections: int, client: httpx.AsyncClient | None
) -> list[int]:
    own = client is None
    client = client or httpx.AsyncClient(
        transport=guarded_transport(LOOPBACK, connections=connections)
    )
    slots = asyncio.Semaphore(in_flight)

    async def one() -> int:
        async with slots:
            response = await client.get(url)
            return response.status_code

    try:
        return list(await asyncio.gather(*(one() for _ in range(count))))
    finally:
        if own:
            await client.aclose()


def test_the_transport_uses_the_linear_pool() -> None:
    transport = guarded_transport(LOOPBACK, connections=8)
    assert type(transport._pool) is LinearPool
    assert transport._pool._max_connections == 8
    assert transport._pool._max_keepalive_connections == 8


@pytest.mark.slow  # hundreds of requests at each pool size
@pytest.mark.parametrize(("in_flight", "pool"), [(1, 4), (8, 8), (32, 32), (40, 8)])
def test_every_request_is_answered_over_at_most_the_pools_connections(
    server: CountingServer, in_flight: int, pool: int
) -> None:
    statuses = asyncio.run(
        _get_all(server.url("/ok"), 300, in_flight=in_flight, connections=pool, client=None)
    )

    assert statuses == [200] * 300
    assert server.requests == 300
    assert server.connections <= min(in_flight, pool)


def test_a_connection_the_server_closed_is_not_handed_out_again(server: CountingServer) -> None:
    def close_after(handler: BaseHTTPRequestHandler) -> None:
        answer(200, b"bye", Connection="close")(handler)
        handler.close_connection = True

    server.routes["/close"] = close_after

    statuses = asyncio.run(
        _get_all(server.url("/close"), 60, in_flight=6, connections=6, client=None)
    )

    assert statuses == [200] * 60
    assert server.connections == 60  # one each: none was reused after the server closed it


def test_a_cancelled_request_gives_its_connection_back(server: CountingServer) -> None:
    async def scenario() -> list[int]:
        transport = guarded_transport(LOOPBACK, connections=2)
        async with httpx.AsyncClient(transport=transport) as client:
            server.routes["/slow"] = _stall(server)
            slow = [asyncio.create_task(client.get(server.url("/slow"))) for _ in range(2)]
            await asyncio.sleep(0.2)  # both connections are busy with the stalled answers
            for task in slow:
                task.cancel()
            await asyncio.gather(*slow, return_exceptions=True)
            server.release.set()
            return await _get_all(server.url("/ok"), 20, in_flight=2, connections=2, client=client)

    assert asyncio.run(scenario()) == [200] * 20


def _stall(server: CountingServer) -> Route:
    def route(handler: BaseHTTPRequestHandler) -> None:
        server.release.wait(10)
        answer(200, b"late")(handler)

    return route


def _questions_per_request(
    server: CountingServer, monkeypatch: pytest.MonkeyPatch, question: str, pool: int
) -> float:
    """How often the pool asks its connections `question` (a method of httpcore's
    connection) per request, over 320 requests with `pool` in flight on `pool`
    connections, as the fetcher sends them; every request answered, within the pool."""
    asked = {"count": 0}
    original = getattr(httpcore.AsyncHTTPConnection, question)

    def counted(self: httpcore.AsyncHTTPConnection) -> bool:
        asked["count"] += 1
        return bool(original(self))

    monkeypatch.setattr(httpcore.AsyncHTTPConnection, question, counted)
    count = 320

    statuses = asyncio.run(
        _get_all(server.url("/ok"), count, in_flight=pool, connections=pool, client=None)
    )

    assert statuses == [200] * count
    assert server.connections <= pool
    return asked["count"] / count


def test_the_work_per_request_does_not_grow_with_the_pool(
    server: CountingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Count the connection-state questions the pass asks: per request, about a
    constant times the pool's size (httpcore 1.0 asked about its square)."""
    pool = 32
    per_request = _questions_per_request(server, monkeypatch, "is_idle", pool)
    assert per_request < 8 * pool, per_request  # quadratic would be ~pool² = 1,024


def test_an_answer_closed_with_no_request_waiting_walks_no_connection(
    server: CountingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fetcher keeps no more requests in flight than the pool has connections, so
    no request waits when an answer closes: that pass has nothing to hand out and
    nothing surplus to close, and asks no connection anything. Only the pass of each
    new request walks the pool (the old code walked it twice a request)."""
    pool = 16
    walks = _questions_per_request(server, monkeypatch, "is_closed", pool)
    assert walks <= pool, walks  # one walk a request
