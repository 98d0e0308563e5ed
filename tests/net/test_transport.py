"""The transport over aiohttp (`net/transport.py`): the guard holds, cookies and proxies
stay out, the size limit counts decoded bytes, and aiohttp's errors read as the fetcher
expects.

Every server is a real one on 127.0.0.1; names that look public resolve to it through
an injected resolver, so no packet leaves loopback.
"""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Awaitable, Iterator, Sequence

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimcheck.net.addresses import AddressPolicy
from claimcheck.net.fetch import Fetched, FetchFailed, FetchOutcome, FetchRequest
from claimcheck.net.fetcher import Fetcher, FetchSettings
from claimcheck.net.guard import AddressRefusedError, Resolver, checked_addresses, resolve_host
from claimcheck.net.transport import GuardedResolver, guarded_transport
from support.replay_server import ReplayServer

PAGE = "<html><body><p>Supports CUDA and Metal.</p></body></html>"


def resolving_to(*addresses: str) -> Resolver:
    """A resolver that answers `addresses` for any name."""

    async def resolve(host: str, port: int) -> Sequence[str]:
        return addresses

    return resolve


def fetch(
    urls: Sequence[str],
    *,
    allow: Sequence[str] = (),
    resolver: Resolver = resolve_host,
    max_bytes: int = 5_000_000,
) -> list[FetchOutcome]:
    """Fetch `urls` one after another, as `claimcheck` would."""
    fetch_settings = FetchSettings(
        per_host_interval=0.0, retries=0, allow_addresses=tuple(allow), max_bytes=max_bytes
    )

    async def main() -> list[FetchOutcome]:
        async with Fetcher(fetch_settings, resolver=resolver) as fetcher:
            return [await fetcher.fetch(FetchRequest(url)) for url in urls]

    return asyncio.run(main())


@pytest.fixture
def server() -> Iterator[ReplayServer]:
    with ReplayServer(None) as started:
        started.set_page("/page", PAGE)
        yield started


def test_a_name_resolving_to_loopback_is_refused_and_never_contacted(server: ReplayServer) -> None:
    url = f"http://docs.rebind.example:{server.port}/page"
    [outcome] = fetch([url], resolver=resolving_to("127.0.0.1"))
    assert isinstance(outcome, FetchFailed), outcome
    assert outcome.reason.startswith("refused: docs.rebind.example resolves to 127.0.0.1")
    assert server.requests == []


def test_one_internal_address_among_public_ones_refuses_the_name(server: ReplayServer) -> None:
    url = f"http://mixed.example:{server.port}/page"
    resolver = resolving_to("93.184.215.14", "127.0.0.1")
    [outcome] = fetch([url], resolver=resolver)
    assert isinstance(outcome, FetchFailed), outcome
    assert outcome.reason.startswith("refused: mixed.example resolves to 127.0.0.1")
    assert server.requests == []


def test_the_transport_itself_refuses_an_ip_literal_aiohttp_resolves_without_asking(
    server: ReplayServer,
) -> None:
    # Straight to the transport, past the fetcher's own check of a URL's host.
    async def main() -> BaseException:
        transport = guarded_transport(AddressPolicy.parse(()))
        try:
            await transport.handle_async_request(httpx.Request("GET", server.url("/page")))
        except httpx.ConnectError as exc:
            return exc
        finally:
            await transport.aclose()
        raise AssertionError("the request went through")

    error = asyncio.run(main())
    assert isinstance(error.__cause__, AddressRefusedError)
    assert "127.0.0.1" in error.__cause__.reason
    assert server.requests == []


def test_an_allowed_name_reaches_the_checked_address_with_its_own_host_header(
    server: ReplayServer,
) -> None:
    url = f"http://docs.rebind.example:{server.port}/page"
    [outcome] = fetch([url], allow=["127.0.0.0/8"], resolver=resolving_to("127.0.0.1"))
    assert isinstance(outcome, Fetched), outcome
    assert outcome.body == PAGE.encode()
    assert server.requests[0].headers["host"] == f"docs.rebind.example:{server.port}"


def test_no_cookie_goes_from_one_source_to_the_next(server: ReplayServer) -> None:
    server.set_page("/consent", PAGE, headers={"Set-Cookie": "consent=yes; Path=/"})
    urls = [server.url("/consent"), server.url("/page")]
    outcomes = fetch(urls, allow=["127.0.0.0/8"])
    assert all(isinstance(o, Fetched) for o in outcomes), outcomes
    assert [r.path for r in server.requests] == ["/consent", "/page"]
    assert "cookie" not in server.requests[1].headers


def test_the_environment_proxy_is_not_used(
    monkeypatch: pytest.MonkeyPatch, server: ReplayServer
) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")  # nothing listens on the discard port
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    [outcome] = fetch([server.url("/page")], allow=["127.0.0.0/8"])
    assert isinstance(outcome, Fetched), outcome
    assert len(server.requests) == 1


def test_a_compressed_body_is_limited_by_its_decoded_size(server: ReplayServer) -> None:
    # 200 KB of text in about 200 bytes: the limit of 100 KB is passed only once decoded.
    bomb = gzip.compress(b"a" * 200_000)
    server.set_page("/bomb", bomb, headers={"Content-Encoding": "gzip"})
    [outcome] = fetch([server.url("/bomb")], allow=["127.0.0.0/8"], max_bytes=100_000)
    assert isinstance(outcome, FetchFailed), outcome
    assert outcome.reason == "response larger than 100000 bytes"


def _outcome_shape(outcome: FetchOutcome) -> tuple[object, ...]:
    """What a run reads of an outcome: its kind, status, body, reason and hint."""
    if isinstance(outcome, FetchFailed):
        return ("failed", outcome.reason, outcome.hint, outcome.attempts)
    fields = ("status", "body", "final_url")
    return (type(outcome).__name__, *(getattr(outcome, name, None) for name in fields))


def test_each_kind_of_answer_and_failure_is_the_outcome_the_fetcher_reads(
    server: ReplayServer,
) -> None:
    server.set_page("/gone", "not here", status=404)
    server.set_page("/zipped", gzip.compress(PAGE.encode()), headers={"Content-Encoding": "gzip"})
    server.redirect("/old", "/page")
    server.drop("/dropped")
    server.set_page("/long-header", PAGE, headers={"Content-Security-Policy": "a" * 20_000})
    paths = ["/page", "/gone", "/zipped", "/old", "/dropped", "/long-header"]
    urls = [server.url(p) for p in paths] + ["http://127.0.0.1:9/closed"]
    shapes = [_outcome_shape(o) for o in fetch(urls, allow=["127.0.0.0/8"])]
    # the page (three times more: through a gzip body, after a redirect, behind a 20 KB
    # header line), a 404, a dropped connection and a closed port
    by_path = dict(zip([*paths, "/closed"], shapes, strict=True))
    assert by_path["/page"] == ("Fetched", 200, PAGE.encode(), server.url("/page"))
    assert by_path["/zipped"][:3] == by_path["/old"][:3] == by_path["/page"][:3]
    assert by_path["/long-header"][:3] == by_path["/page"][:3]
    assert by_path["/gone"] == ("Gone", 404, None, server.url("/gone"))
    assert by_path["/dropped"][:2] == ("failed", "connection broke off")
    assert by_path["/closed"][:2] == ("failed", "connection refused")


ADDRESSES = ["93.184.215.14", "140.82.112.3", "127.0.0.1", "10.0.0.7", "::1", "169.254.169.254"]


@settings(max_examples=60, deadline=None)
@given(
    answer=st.lists(st.sampled_from(ADDRESSES), min_size=1, max_size=4, unique=True),
    allowed=st.lists(st.sampled_from(["127.0.0.0/8", "10.0.0.0/8", "::1"]), unique=True),
)
def test_the_resolver_answers_the_guards_decision(answer: list[str], allowed: list[str]) -> None:
    policy = AddressPolicy.parse(allowed)
    resolver = resolving_to(*answer)

    async def decision(ask: Awaitable[object]) -> object:
        try:
            return await ask
        except AddressRefusedError as exc:
            return ("refused", exc.reason)

    async def main() -> tuple[object, object]:
        guard = await decision(checked_addresses("docs.example.com", 443, policy, resolver))
        guarded = GuardedResolver(policy, resolver)
        found = await decision(guarded.resolve("docs.example.com", 443))
        if isinstance(found, list):
            found = [result["host"] for result in found]
        return guard, found

    guard, answered = asyncio.run(main())
    assert answered == guard
    internal = {"127.0.0.1", "10.0.0.7", "::1", "169.254.169.254"}
    opened = {"127.0.0.0/8": {"127.0.0.1"}, "10.0.0.0/8": {"10.0.0.7"}, "::1": {"::1"}}
    allowed_addresses = set().union(*(opened[a] for a in allowed))
    refused_by_hand = any(a in internal and a not in allowed_addresses for a in answer)
    assert isinstance(guard, tuple) == refused_by_hand
