"""The transport's connection pool (aiohttp's, `net/transport.py`) over real connections
to a server on 127.0.0.1.

These tests hold it to the pool's contract from outside: every request is answered,
also with more requests in flight than the pool has connections (none stalls),
connections are reused up to the pool's size and never beyond it, a connection the
server closed is not handed out again, and a cancelled request gives its connection
back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler

import httpx
import pytest

from claimcheck.net.addresses import AddressPolicy
from claimcheck.net.transport import guarded_transport
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
