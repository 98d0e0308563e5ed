"""Tests of fetch.py: outcomes, retries, waits, limits and token safety, mocked and on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import email.utils
import gzip
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from claimcheck.models import Ending
from claimcheck.net.fetch import (
    Fetched,
    FetchFailed,
    FetchOutcome,
    FetchRequest,
    Gone,
    NotModified,
    Redirect,
)
from claimcheck.net.fetcher import Fetcher, FetchSettings, fetch_all_sync

NOW = 1_700_000_000.0  # 2023-11-14 22:13:20 UTC
TOKEN = "ghp_SECRET0123456789"  # a fake token the tests hunt for


# --- fixtures and helpers -----------------------------------------------------------


@pytest.fixture(autouse=True)
def no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep proxy settings from the environment out of the way of mock and local requests.

    The network guard itself is conftest's autouse fixture; the last test here shows
    that it holds for httpx too.
    """
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


class FakeTime:
    """An epoch clock that only moves when the fetcher sleeps; records every wait."""

    def __init__(self, now: float = NOW) -> None:
        self.now = now
        self.waits: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


@dataclass
class Reply:
    """What a mock URL answers; built into a fresh httpx.Response on every request."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


class Script:
    """A MockTransport handler: each URL answers its replies in turn, repeating the last."""

    def __init__(self, replies: dict[str, Reply | Sequence[Reply]]) -> None:
        self.replies = {url: [r] if isinstance(r, Reply) else list(r) for url, r in replies.items()}
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        queue = self.replies[str(request.url)]
        reply = queue.pop(0) if len(queue) > 1 else queue[0]
        return httpx.Response(reply.status, headers=reply.headers, content=reply.body)

    def auth_by_url(self) -> list[tuple[str, str | None]]:
        return [(str(r.url), r.headers.get("authorization")) for r in self.requests]


def quick(**changes: Any) -> FetchSettings:
    """Settings with no per-host spacing, so recorded waits are only retry waits."""
    return FetchSettings(**{"per_host_interval": 0.0, **changes})


def run_mock(
    handler: Callable[[httpx.Request], Any],
    *requests: FetchRequest,
    settings: FetchSettings | None = None,
    fake: FakeTime | None = None,
) -> tuple[list[FetchOutcome], int]:
    """Fetch `requests` one after another through a mock transport; outcomes and count."""
    fake = fake or FakeTime()

    async def main() -> tuple[list[FetchOutcome], int]:
        async with Fetcher(
            settings or quick(),
            transport=httpx.MockTransport(handler),
            sleep=fake.sleep,
            clock=fake.clock,
        ) as fetcher:
            outcomes = [await fetcher.fetch(r) for r in requests]
        return outcomes, fetcher.requests_made

    return asyncio.run(main())


def fetch_one(
    handler: Callable[[httpx.Request], Any],
    request: FetchRequest | str,
    settings: FetchSettings | None = None,
    fake: FakeTime | None = None,
) -> tuple[FetchOutcome, int]:
    if isinstance(request, str):
        request = FetchRequest(request)
    outcomes, count = run_mock(handler, request, settings=settings, fake=fake)
    return outcomes[0], count


def http_date(epoch: float) -> str:
    return email.utils.format_datetime(dt.datetime.fromtimestamp(epoch, dt.UTC), usegmt=True)


def utc(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


# --- a real HTTP server on 127.0.0.1 ------------------------------------------------

Route = Callable[[BaseHTTPRequestHandler], None]


class LocalServer(ThreadingHTTPServer):
    """A threaded test server: routes by path, records each request's path and headers."""

    daemon_threads = False  # server_close() joins every handler thread
    block_on_close = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.routes: dict[str, Route] = {}
        self.seen: list[tuple[str, dict[str, str]]] = []
        self.release = threading.Event()  # slow routes wait on this; teardown sets it

    @property
    def netloc(self) -> str:
        return f"127.0.0.1:{self.server_address[1]}"

    def url(self, path: str) -> str:
        return f"http://{self.netloc}{path}"


class _Handler(BaseHTTPRequestHandler):
    server: LocalServer

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        self.server.seen.append((path, {k.lower(): v for k, v in self.headers.items()}))
        route = self.server.routes.get(path, _not_found)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            route(self)  # the client may hang up early, as some tests intend

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _not_found(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(404)
    handler.send_header("Content-Length", "0")
    handler.end_headers()


def respond(status: int, body: bytes = b"", **headers: str) -> Route:
    def route(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name.replace("_", "-"), value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return route


@pytest.fixture
def serve() -> Iterator[Callable[[], LocalServer]]:
    """Start as many local servers as a test asks for; stop and join them all after it."""
    started: list[tuple[LocalServer, threading.Thread]] = []

    def start() -> LocalServer:
        server = LocalServer()
        thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        started.append((server, thread))
        return server

    yield start
    for server, thread in started:
        server.release.set()
        server.shutdown()
        server.server_close()
        thread.join()


def run_real(
    *requests: FetchRequest, settings: FetchSettings, fake: FakeTime | None = None
) -> tuple[list[FetchOutcome], int]:
    """Fetch over real sockets; a fake sleep keeps retries instant, the clock stays real."""
    fake_sleep = fake.sleep if fake else asyncio.sleep

    async def main() -> tuple[list[FetchOutcome], int]:
        async with Fetcher(settings, sleep=fake_sleep) as fetcher:
            outcomes = await fetcher.fetch_all(requests)
        return outcomes, fetcher.requests_made

    return asyncio.run(main())


# --- outcomes -----------------------------------------------------------------------


def test_success_returns_body_validators_and_sends_our_headers() -> None:
    script = Script(
        {
            "https://api.example.test/readme": Reply(
                200,
                {"Content-Type": "text/markdown", "ETag": '"abc"', "Last-Modified": "Tue, 1 x"},
                b"# Hello",
            )
        }
    )
    request = FetchRequest(
        "https://api.example.test/readme", accept="application/vnd.github.raw", api_version="v1"
    )
    outcome, count = fetch_one(script, request)

    assert outcome == Fetched(
        url="https://api.example.test/readme",
        final_url="https://api.example.test/readme",
        status=200,
        body=b"# Hello",
        content_type="text/markdown",
        etag='"abc"',
        last_modified="Tue, 1 x",
    )
    assert count == 1
    sent = script.requests[0].headers
    assert sent["user-agent"] == FetchSettings().user_agent
    assert sent["accept"] == "application/vnd.github.raw"
    assert sent["x-github-api-version"] == "v1"
    assert "authorization" not in sent
    assert "if-none-match" not in sent


def test_conditional_request_answered_304_is_not_modified() -> None:
    script = Script({"https://example.test/page": Reply(304)})
    request = FetchRequest(
        "https://example.test/page", etag='"v1"', last_modified="Mon, 01 Jan 2024 00:00:00 GMT"
    )
    outcome, _ = fetch_one(script, request)

    assert outcome == NotModified("https://example.test/page", "https://example.test/page")
    sent = script.requests[0].headers
    assert sent["if-none-match"] == '"v1"'
    assert sent["if-modified-since"] == "Mon, 01 Jan 2024 00:00:00 GMT"


def test_304_to_an_unconditional_request_is_a_failure() -> None:
    outcome, _ = fetch_one(Script({"https://example.test/": Reply(304)}), "https://example.test/")
    assert isinstance(outcome, FetchFailed)
    assert outcome.reason == "HTTP 304"


@pytest.mark.parametrize("status", [404, 410], ids=["404-not-found", "410-gone"])
def test_missing_page_is_gone_and_not_retried(status: int) -> None:
    fake = FakeTime()
    outcome, count = fetch_one(
        Script({"https://example.test/x": Reply(status)}), "https://example.test/x", fake=fake
    )
    assert outcome == Gone("https://example.test/x", "https://example.test/x", status)
    assert count == 1
    assert fake.waits == []


@pytest.mark.parametrize(
    ("status", "permanent"),
    [(301, True), (308, True), (302, False), (303, False), (307, False)],
    ids=["301-moved", "308-permanent", "302-found", "303-see-other", "307-temporary"],
)
def test_redirect_is_recorded_and_only_permanent_ones_set_moved_to(
    status: int, permanent: bool
) -> None:
    script = Script(
        {
            "https://example.test/docs/old": Reply(status, {"Location": "../new/page"}),
            "https://example.test/new/page": Reply(200, body=b"here"),
        }
    )
    outcome, count = fetch_one(script, "https://example.test/docs/old")

    assert isinstance(outcome, Fetched)
    assert outcome.final_url == "https://example.test/new/page"
    assert outcome.redirects == (
        Redirect(status, "https://example.test/docs/old", "https://example.test/new/page"),
    )
    assert outcome.moved_to == ("https://example.test/new/page" if permanent else None)
    assert count == 2


def test_permanent_redirect_then_304_keeps_moved_to() -> None:
    script = Script(
        {
            "https://example.test/a": Reply(301, {"Location": "https://example.test/b"}),
            "https://example.test/b": Reply(304),
        }
    )
    outcome, _ = fetch_one(script, FetchRequest("https://example.test/a", etag='"e"'))
    assert isinstance(outcome, NotModified)
    assert outcome.moved_to == "https://example.test/b"
    assert [r.headers.get("if-none-match") for r in script.requests] == ['"e"', '"e"']


def test_redirect_loop_fails() -> None:
    script = Script(
        {
            "https://example.test/a": Reply(302, {"Location": "/b"}),
            "https://example.test/b": Reply(302, {"Location": "/a"}),
        }
    )
    outcome, count = fetch_one(script, "https://example.test/a")
    assert isinstance(outcome, FetchFailed)
    assert outcome.reason == "redirect loop back to https://example.test/a"
    assert count == 2


def test_too_many_redirects_fails() -> None:
    script = Script(
        {f"https://example.test/{n}": Reply(302, {"Location": f"/{n + 1}"}) for n in range(10)}
    )
    outcome, count = fetch_one(script, "https://example.test/0", settings=quick(max_redirects=3))
    assert isinstance(outcome, FetchFailed)
    assert outcome.reason == "more than 3 redirects"
    assert count == 4


def test_redirect_without_location_fails() -> None:
    outcome, _ = fetch_one(Script({"https://example.test/": Reply(302)}), "https://example.test/")
    assert isinstance(outcome, FetchFailed)
    assert "Location" in outcome.reason


@pytest.mark.parametrize(
    "url",
    ["not a url", "ftp://example.test/file", "https://", "http://[::1/"],
    ids=["no-scheme", "ftp-scheme", "no-host", "broken-ipv6-host"],
)
def test_invalid_url_fails_without_sending_anything(url: str) -> None:
    outcome, count = fetch_one(Script({}), url)
    assert isinstance(outcome, FetchFailed)
    assert outcome.attempts == 0
    assert outcome.hint == "fix the source URL"
    assert count == 0


@pytest.mark.parametrize("status", [400, 401, 403, 418], ids=lambda s: f"http-{s}")
def test_other_client_errors_fail_without_retry(status: int) -> None:
    fake = FakeTime()
    outcome, count = fetch_one(
        Script({"https://example.test/": Reply(status)}), "https://example.test/", fake=fake
    )
    assert isinstance(outcome, FetchFailed)
    assert (outcome.reason, outcome.attempts, count) == (f"HTTP {status}", 1, 1)
    assert fake.waits == []


GITHUB_API = "https://api.github.test/repos/a/b/readme"
GITHUB_REQUEST = FetchRequest(GITHUB_API, token_host="api.github.test", api_version="2022-11-28")
FORGE_REQUEST = FetchRequest("https://gitlab.test/api/v4/projects/1", token_host="gitlab.test")
WEB_REQUEST = FetchRequest("https://example.test/")


@pytest.mark.parametrize(
    ("request_", "says", "never"),
    [
        (GITHUB_REQUEST, "set GITHUB_TOKEN", "refuses"),
        (FORGE_REQUEST, "GITLAB_TOKEN", "GITHUB_TOKEN"),
        (WEB_REQUEST, "the site refuses claimcheck's request", "TOKEN"),
    ],
    ids=["github-api", "another-forge", "a-web-page"],
)
def test_a_refusal_names_the_token_that_could_open_it_and_only_that(
    request_: FetchRequest, says: str, never: str
) -> None:
    outcome, _ = fetch_one(Script({request_.url: Reply(403)}), request_)
    assert isinstance(outcome, FetchFailed)
    assert outcome.reason == "HTTP 403"
    assert says in outcome.hint
    assert never not in outcome.hint


@pytest.mark.parametrize(
    ("request_", "headers", "says"),
    [
        (GITHUB_REQUEST, {"Retry-After": "7"}, "GitHub's secondary rate limit"),
        (WEB_REQUEST, {"Retry-After": "7"}, "the server is throttling us"),
        (GITHUB_REQUEST, {}, "GitHub's secondary rate limit"),  # said in its message
    ],
    ids=["github-retry-after", "web-retry-after", "github-message"],
)
def test_a_403_that_keeps_asking_to_wait_is_a_rate_limit_not_a_refusal(
    request_: FetchRequest, headers: dict[str, str], says: str
) -> None:
    body = b'{"message": "You have exceeded a secondary rate limit."}' if not headers else b""
    script = Script({request_.url: Reply(403, headers, body)})
    outcome, count = fetch_one(script, request_, settings=quick(retries=1))
    assert isinstance(outcome, FetchFailed)
    assert count == 2  # asked to wait, it waited and asked once more
    assert outcome.reason.startswith("HTTP 403, rate limited")
    assert says in outcome.hint
    assert "access denied" not in outcome.hint


# --- retries and waits --------------------------------------------------------------


def test_500_then_success_is_retried_with_jittered_backoff() -> None:
    fake = FakeTime()
    script = Script({"https://example.test/": [Reply(500), Reply(200, body=b"ok")]})
    outcome, count = fetch_one(script, "https://example.test/", fake=fake)
    assert isinstance(outcome, Fetched)
    assert count == 2
    assert len(fake.waits) == 1
    assert 0 <= fake.waits[0] <= 0.5


def test_persistent_500_gives_up_after_all_attempts_with_capped_backoff() -> None:
    fake = FakeTime()
    settings = quick(retries=4, backoff=10.0, max_backoff=15.0)
    outcome, count = fetch_one(
        Script({"https://example.test/": Reply(500)}), "https://example.test/", settings, fake
    )
    assert isinstance(outcome, FetchFailed)
    assert (outcome.reason, outcome.attempts, count) == ("HTTP 500 after 5 attempts", 5, 5)
    assert len(fake.waits) == 4
    for wait, ceiling in zip(fake.waits, [10, 15, 15, 15], strict=True):
        assert 0 <= wait <= ceiling


@pytest.mark.parametrize(
    "error",
    [httpx.ConnectError, httpx.ReadTimeout, httpx.RemoteProtocolError, httpx.ReadError],
    ids=["connect-error", "read-timeout", "remote-protocol-error", "read-error"],
)
def test_transport_errors_are_retried(error: type[httpx.TransportError]) -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise error("boom", request=request)
        return httpx.Response(200, content=b"ok")

    outcome, count = fetch_one(handler, "https://example.test/")
    assert isinstance(outcome, Fetched)
    assert count == 2


def test_unsupported_protocol_error_is_not_retried() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.UnsupportedProtocol("nope", request=request)

    outcome, count = fetch_one(handler, "https://example.test/")
    assert isinstance(outcome, FetchFailed)
    assert (outcome.reason, count) == ("unsupported URL scheme", 1)


@pytest.mark.parametrize(
    ("status", "retry_after"),
    [(429, "7"), (429, http_date(NOW + 7)), (503, "7"), (403, "7")],
    ids=[
        "429-retry-after-seconds",
        "429-retry-after-http-date",
        "503-retry-after-seconds",
        "403-secondary-limit",
    ],
)
def test_retry_after_is_honoured(status: int, retry_after: str) -> None:
    fake = FakeTime()
    script = Script(
        {"https://example.test/": [Reply(status, {"Retry-After": retry_after}), Reply(200)]}
    )
    outcome, count = fetch_one(script, "https://example.test/", fake=fake)
    assert isinstance(outcome, Fetched)
    assert fake.waits == [7.0]
    assert count == 2


@pytest.mark.parametrize("status", [403, 429], ids=["403-rate-limited", "429-rate-limited"])
def test_github_rate_limit_waits_until_reset(status: int) -> None:
    fake = FakeTime()
    limited = Reply(status, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(NOW + 60)})
    script = Script({"https://api.github.test/repos/a/b": [limited, Reply(200)]})
    outcome, count = fetch_one(script, "https://api.github.test/repos/a/b", fake=fake)
    assert isinstance(outcome, Fetched)
    assert fake.waits == [60.0]
    assert count == 2


def test_rate_limit_reset_beyond_max_wait_gives_up_at_once() -> None:
    fake = FakeTime()
    reset = NOW + 3600
    limited = Reply(403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(reset))})
    outcome, count = fetch_one(
        Script({"https://api.github.test/x": limited}), "https://api.github.test/x", fake=fake
    )
    assert isinstance(outcome, FetchFailed)
    assert outcome.reason == f"rate limited until {utc(reset)}"
    assert outcome.reason == "rate limited until 2023-11-14 23:13:20 UTC"
    assert "GITHUB_TOKEN" in outcome.hint
    assert (outcome.attempts, count) == (1, 1)
    assert fake.waits == []


@pytest.mark.parametrize(
    ("status", "reason"),
    [(429, "rate limited until"), (503, "HTTP 503, unavailable until")],
    ids=["429-long-retry-after", "503-long-retry-after"],
)
def test_retry_after_beyond_max_wait_gives_up(status: int, reason: str) -> None:
    fake = FakeTime()
    script = Script({"https://example.test/": Reply(status, {"Retry-After": "600"})})
    outcome, count = fetch_one(script, "https://example.test/", quick(max_wait=120), fake)
    assert isinstance(outcome, FetchFailed)
    assert outcome.reason == f"{reason} {utc(NOW + 600)}"
    assert "GITHUB_TOKEN" not in outcome.hint  # not GitHub's quota: no X-RateLimit headers
    assert count == 1
    assert fake.waits == []


def test_rate_limit_on_the_last_attempt_reports_the_reset_time() -> None:
    reset = NOW + 60
    limited = Reply(429, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)})
    outcome, count = fetch_one(
        Script({"https://api.github.test/x": limited}),
        "https://api.github.test/x",
        quick(retries=0),
    )
    assert isinstance(outcome, FetchFailed)
    assert (outcome.reason, count) == (f"rate limited until {utc(reset)}", 1)


def test_spent_quota_on_any_response_delays_later_requests_to_that_host_only() -> None:
    fake = FakeTime()
    spent = Reply(200, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(NOW + 30)})
    script = Script(
        {
            "https://api.github.test/a": spent,
            "https://api.github.test/b": Reply(200),
            "https://other.test/c": Reply(200),
        }
    )
    outcomes, count = run_mock(
        script,
        FetchRequest("https://other.test/c"),
        FetchRequest("https://api.github.test/a"),
        FetchRequest("https://other.test/c"),
        FetchRequest("https://api.github.test/b"),
        fake=fake,
    )
    assert all(isinstance(o, Fetched) for o in outcomes)
    assert fake.waits == [30.0]  # only before /b, not before the other host
    assert count == 4


def test_spent_quota_with_far_reset_fails_later_requests_without_sending() -> None:
    spent = Reply(200, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(NOW + 3600)})
    script = Script({"https://api.github.test/a": spent, "https://api.github.test/b": Reply(200)})
    outcomes, count = run_mock(
        script, FetchRequest("https://api.github.test/a"), FetchRequest("https://api.github.test/b")
    )
    assert isinstance(outcomes[0], Fetched)
    assert isinstance(outcomes[1], FetchFailed)
    assert outcomes[1].attempts == 0
    assert outcomes[1].reason.startswith("rate limited until")
    assert count == 1


def test_requests_made_counts_every_attempt_and_every_hop() -> None:
    script = Script(
        {
            "https://example.test/old": Reply(301, {"Location": "/new"}),
            "https://example.test/new": [Reply(502), Reply(503), Reply(200)],
        }
    )
    outcome, count = fetch_one(script, "https://example.test/old")
    assert isinstance(outcome, Fetched)
    assert count == 4 == len(script.requests)


# --- size cap -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "fits"), [(1000, True), (1001, False)], ids=["at-cap", "over-cap"]
)
def test_content_length_over_cap_fails(size: int, fits: bool) -> None:
    script = Script({"https://example.test/": Reply(200, body=b"x" * size)})
    outcome, _ = fetch_one(script, "https://example.test/", quick(max_bytes=1000))
    if fits:
        assert isinstance(outcome, Fetched)
    else:
        assert isinstance(outcome, FetchFailed)
        assert outcome.reason == "response larger than 1000 bytes"


# --- concurrency --------------------------------------------------------------------


def test_limits_bound_requests_in_flight_per_host_and_overall() -> None:
    in_flight: dict[str, int] = {}
    peak: dict[str, int] = {}

    async def handler(request: httpx.Request) -> httpx.Response:
        host = request.url.host
        in_flight[host] = in_flight.get(host, 0) + 1
        in_flight["*"] = in_flight.get("*", 0) + 1
        for key in (host, "*"):
            peak[key] = max(peak.get(key, 0), in_flight[key])
        await asyncio.sleep(0.01)
        in_flight[host] -= 1
        in_flight["*"] -= 1
        return httpx.Response(200)

    requests = [FetchRequest(f"https://h{n % 4}.test/{n}") for n in range(24)]

    async def main() -> list[FetchOutcome]:
        async with Fetcher(
            quick(concurrency=5, per_host=2), transport=httpx.MockTransport(handler)
        ) as fetcher:
            return await fetcher.fetch_all(requests)

    outcomes = asyncio.run(main())
    assert all(isinstance(o, Fetched) for o in outcomes)
    assert peak["*"] == 5
    assert max(v for k, v in peak.items() if k != "*") == 2


def test_a_host_override_changes_that_hosts_limit_only() -> None:
    in_flight: dict[str, int] = {}
    peak: dict[str, int] = {}

    async def handler(request: httpx.Request) -> httpx.Response:
        host = request.url.host
        in_flight[host] = in_flight.get(host, 0) + 1
        peak[host] = max(peak.get(host, 0), in_flight[host])
        await asyncio.sleep(0.01)
        in_flight[host] -= 1
        return httpx.Response(200)

    requests = [FetchRequest(f"https://{h}.test/{n}") for n in range(8) for h in ("a", "b")]

    async def main() -> list[FetchOutcome]:
        settings = quick(concurrency=16, per_host=2, hosts={"a.test": 4})
        async with Fetcher(settings, transport=httpx.MockTransport(handler)) as fetcher:
            return await fetcher.fetch_all(requests)

    assert all(isinstance(o, Fetched) for o in asyncio.run(main()))
    assert peak == {"a.test": 4, "b.test": 2}


def test_starts_to_one_host_are_spaced_by_the_interval() -> None:
    fake = FakeTime()
    starts: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        starts.append(fake.now)
        return httpx.Response(200)

    requests = [FetchRequest(f"https://example.test/{n}") for n in range(3)]
    requests.append(FetchRequest("https://elsewhere.test/"))
    outcomes, _ = run_mock(
        handler, *requests, settings=FetchSettings(per_host_interval=0.25), fake=fake
    )
    assert all(isinstance(o, Fetched) for o in outcomes)
    assert starts == [NOW, NOW + 0.25, NOW + 0.5, NOW + 0.5]  # the other host does not wait


def test_fetch_all_keeps_order_and_reports_each_outcome_once() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(0.02 if request.url.path == "/slow" else 0)
        return httpx.Response(404 if request.url.path == "/missing" else 200)

    requests = [
        FetchRequest("https://a.test/slow"),
        FetchRequest("https://b.test/missing"),
        FetchRequest("https://c.test/fast"),
    ]
    done: list[tuple[str, str]] = []

    async def main() -> list[FetchOutcome]:
        async with Fetcher(
            quick(),
            transport=httpx.MockTransport(handler),
            on_done=lambda r, o: done.append((r.url, type(o).__name__)),
        ) as fetcher:
            return await fetcher.fetch_all(requests)

    outcomes = asyncio.run(main())
    assert [o.url for o in outcomes] == [r.url for r in requests]
    assert [type(o) for o in outcomes] == [Fetched, Gone, Fetched]
    assert sorted(done) == sorted(
        [
            ("https://a.test/slow", "Fetched"),
            ("https://b.test/missing", "Gone"),
            ("https://c.test/fast", "Fetched"),
        ]
    )
    assert done[-1][0] == "https://a.test/slow"  # reported when done, not in input order


# --- the token ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "token_expected"),
    [
        ("https://api.github.test/v2", True),
        ("https://elsewhere.test/v2", False),
        ("https://api.github.test:8443/v2", False),
        ("http://api.github.test/v2", False),
    ],
    ids=["same-host-keeps-token", "other-host", "other-port", "scheme-downgrade"],
)
def test_token_is_sent_only_to_its_host(target: str, token_expected: bool) -> None:
    script = Script(
        {"https://api.github.test/v1": Reply(301, {"Location": target}), target: Reply(200)}
    )
    request = FetchRequest("https://api.github.test/v1", token=TOKEN, token_host="api.github.test")
    outcome, _ = fetch_one(script, request)
    assert isinstance(outcome, Fetched)
    assert script.auth_by_url() == [
        ("https://api.github.test/v1", f"Bearer {TOKEN}"),
        (target, f"Bearer {TOKEN}" if token_expected else None),
    ]


def test_token_is_not_sent_without_token_host_or_to_a_request_elsewhere() -> None:
    script = Script({"https://example.test/": Reply(200)})
    run_mock(
        script,
        FetchRequest("https://example.test/", token=TOKEN),
        FetchRequest("https://example.test/", token=TOKEN, token_host="api.github.test"),
    )
    assert script.auth_by_url() == [("https://example.test/", None)] * 2


def test_token_never_appears_in_any_outcome_or_request_text() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/boom":
            raise httpx.ConnectError(f"failed with {request.headers}", request=request)
        if path == "/loop":
            return httpx.Response(302, headers={"Location": "/loop"})
        if path == "/limited":
            return httpx.Response(
                403, headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(NOW + 1e6)}
            )
        if path == "/big":
            return httpx.Response(200, content=b"x" * 100)
        status = int(path.strip("/"))
        return httpx.Response(status, headers={"Location": "/200"})

    # /limited last: its spent quota would hold back every later request to the host.
    paths = ["/boom", "/loop", "/big", "/200", "/301", "/401", "/404", "/500", "/limited"]
    requests = [
        FetchRequest(f"https://api.github.test{p}", token=TOKEN, token_host="api.github.test")
        for p in paths
    ]
    outcomes, _ = run_mock(handler, *requests, settings=quick(max_bytes=50, retries=1))
    assert {type(o) for o in outcomes} == {Fetched, Gone, FetchFailed}
    for item in (*outcomes, *requests):
        assert TOKEN not in repr(item)
        assert TOKEN not in str(item)
    for outcome in outcomes:
        if isinstance(outcome, FetchFailed):
            assert TOKEN not in outcome.reason + outcome.hint


def test_settings_that_would_deadlock_are_rejected() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        FetchSettings(per_host=0)


# --- a real server on 127.0.0.1 -----------------------------------------------------


def test_real_redirect_across_ports_drops_the_token(serve: Callable[[], LocalServer]) -> None:
    first, second = serve(), serve()
    first.routes["/start"] = respond(302, Location=second.url("/landing"))
    second.routes["/landing"] = respond(200, b"landed", Content_Type="text/plain")
    request = FetchRequest(first.url("/start"), token=TOKEN, token_host=first.netloc)

    outcomes, count = run_real(request, settings=quick())

    assert outcomes == [
        Fetched(
            url=first.url("/start"),
            final_url=second.url("/landing"),
            status=200,
            body=b"landed",
            content_type="text/plain",
            redirects=(Redirect(302, first.url("/start"), second.url("/landing")),),
        )
    ]
    assert count == 2
    assert first.seen[0][1]["authorization"] == f"Bearer {TOKEN}"
    assert "authorization" not in second.seen[0][1]


def test_real_streamed_body_over_cap_fails(serve: Callable[[], LocalServer]) -> None:
    server = serve()

    def endless(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)  # no Content-Length: the cap must stop the stream
        handler.end_headers()
        for _ in range(64):
            handler.wfile.write(b"x" * 16_384)

    server.routes["/big"] = endless
    outcomes, count = run_real(FetchRequest(server.url("/big")), settings=quick(max_bytes=100_000))
    assert outcomes == [
        FetchFailed(
            server.url("/big"),
            "response larger than 100000 bytes",
            "check that the URL is a page, not a download, or raise max_bytes",
            attempts=1,
        )
    ]
    assert count == 1


def test_real_slow_response_times_out_and_is_retried(serve: Callable[[], LocalServer]) -> None:
    server = serve()

    def stall(handler: BaseHTTPRequestHandler) -> None:
        server.release.wait(10)
        respond(200)(handler)

    server.routes["/slow"] = stall
    fake = FakeTime()
    started = time.monotonic()
    outcomes, count = run_real(
        FetchRequest(server.url("/slow")), settings=quick(timeout=0.2, retries=1), fake=fake
    )
    assert time.monotonic() - started < 5
    [outcome] = outcomes
    assert isinstance(outcome, FetchFailed)
    assert (outcome.reason, outcome.attempts, count) == ("timed out after 2 attempts", 2, 2)
    assert len(fake.waits) == 1


def until_close(*bodies: bytes) -> Route:
    """200s without a length, each body ending where the connection closes (HTTP/1.0):
    the next of `bodies` each request, the last again once they run out."""
    answers = list(bodies)

    def route(handler: BaseHTTPRequestHandler) -> None:
        body = answers.pop(0) if len(answers) > 1 else answers[0]
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        handler.end_headers()
        handler.wfile.write(body)

    return route


@pytest.mark.parametrize(
    ("bodies", "ending"),
    [
        pytest.param((b"the whole page",), Ending.AGREED, id="the-same-twice"),
        pytest.param((b"the who", b"the whole page"), Ending.UNTOLD, id="cut-then-whole"),
        pytest.param((b"the whole page", b"the who"), Ending.UNTOLD, id="whole-then-cut"),
    ],
)
def test_real_body_ended_by_a_closed_connection_is_asked_for_again(
    serve: Callable[[], LocalServer], bodies: tuple[bytes, ...], ending: Ending
) -> None:
    server = serve()
    server.routes["/page"] = until_close(*bodies)
    request = FetchRequest(server.url("/page"), etag='"v1"', last_modified="Mon, 01 Jan 2024")

    [outcome], count = run_real(request, settings=quick())

    assert isinstance(outcome, Fetched)
    assert (outcome.body, outcome.ending, count) == (bodies[0], ending, 2)
    first, again = (headers for _, headers in server.seen)
    assert first["if-none-match"] == '"v1"'
    # The second request asks for the page itself: a 304 would say nothing of its end.
    assert "if-none-match" not in again
    assert "if-modified-since" not in again


def test_real_body_with_its_length_is_asked_for_once(serve: Callable[[], LocalServer]) -> None:
    server = serve()
    server.routes["/page"] = respond(200, b"the whole page", Content_Type="text/plain")
    [outcome], count = run_real(FetchRequest(server.url("/page")), settings=quick())
    assert isinstance(outcome, Fetched)
    assert (outcome.ending, count) == (Ending.TOLD, 1)


@pytest.mark.parametrize(
    ("headers", "ending"),
    [
        ({"content-length": "4"}, Ending.TOLD),
        ({"transfer-encoding": "chunked"}, Ending.TOLD),
        ({}, Ending.AGREED),  # the mock answers the same body to the second request
    ],
)
def test_how_a_bodys_end_is_known_from_its_headers(headers: dict[str, str], ending: Ending) -> None:
    calls: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(200, headers=headers, stream=httpx.ByteStream(b"page"))

    async def main() -> FetchOutcome:
        async with Fetcher(quick(), transport=httpx.MockTransport(handler)) as fetcher:
            return await fetcher.fetch(FetchRequest("https://example.org/p"))

    outcome = asyncio.run(main())
    assert isinstance(outcome, Fetched)
    assert outcome.ending is ending
    assert len(calls) == (1 if ending is Ending.TOLD else 2)


def test_real_connection_refused_is_retried_then_fails() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago has no listener
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    fake = FakeTime()
    outcomes, count = run_real(
        FetchRequest(f"http://127.0.0.1:{port}/"), settings=quick(retries=2), fake=fake
    )
    [outcome] = outcomes
    assert isinstance(outcome, FetchFailed)
    assert (outcome.reason, outcome.attempts, count) == (
        "connection refused after 3 attempts",
        3,
        3,
    )
    assert len(fake.waits) == 2


def test_real_per_host_limit_bounds_concurrent_handlers(serve: Callable[[], LocalServer]) -> None:
    server = serve()
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def counted(handler: BaseHTTPRequestHandler) -> None:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        respond(200, b"ok")(handler)

    server.routes["/count"] = counted
    requests = [FetchRequest(server.url("/count")) for _ in range(8)]
    outcomes, count = fetch_all_sync(quick(per_host=3, concurrency=8), requests)
    assert all(isinstance(o, Fetched) for o in outcomes)
    assert count == 8
    assert 1 < state["peak"] <= 3  # real threads: the bound is exact, the overlap is likely


def test_network_guard_keeps_tests_off_the_internet() -> None:
    # 192.0.2.0/24 (TEST-NET-1) is opened to the fetcher's own address guard, so what
    # stops this request is conftest's guard, as it would stop a public address.
    settings = quick(retries=0, allow_addresses=("192.0.2.0/24",))
    outcomes, _ = run_real(FetchRequest("http://192.0.2.1/"), settings=settings)
    assert outcomes == [
        FetchFailed(
            "http://192.0.2.1/",
            "could not connect",
            "check the URL and your network, then run again",
            attempts=1,
        )
    ]


@pytest.mark.parametrize(
    ("redirect", "target", "gone"),
    [
        (302, "https://login.other.test/nope", False),
        (307, "https://cdn.other.test/nope", False),
        (301, "https://new.other.test/nope", True),
        (302, "https://example.test/nope", True),
    ],
    ids=["temporary-elsewhere", "temporary-307-elsewhere", "permanent-elsewhere", "same-host"],
)
def test_a_404_is_gone_only_when_the_source_itself_led_there(
    redirect: int, target: str, gone: bool
) -> None:
    """A temporary detour to another host that answers 404 says nothing of the source."""
    script = Script({"https://example.test/x": Reply(redirect, {"Location": target}),
                     target: Reply(404)})  # fmt: skip
    outcome, _ = fetch_one(script, "https://example.test/x")
    assert isinstance(outcome, Gone) is gone
    if not gone:
        assert isinstance(outcome, FetchFailed)
        assert "temporary redirect" in outcome.reason


def test_the_log_shows_a_url_without_its_user_info() -> None:
    from claimcheck.net.fetcher import _shown

    assert (
        _shown(httpx.URL("https://user:secret@host.example/x?q=1")) == "https://host.example/x?q=1"
    )
    assert "secret" not in _shown(httpx.URL("https://:secret@host.example/"))


def test_a_cookie_one_source_sets_is_never_sent_with_the_next(
    serve: Callable[[], LocalServer],
) -> None:
    server = serve()
    server.routes["/a"] = respond(
        200, b"first", Set_Cookie="session=abc123; Path=/", Content_Type="text/html"
    )
    server.routes["/b"] = respond(200, b"second", Content_Type="text/html")
    settings = quick(concurrency=1, per_host=1)

    outcomes, _ = run_real(
        FetchRequest(server.url("/a")), FetchRequest(server.url("/b")), settings=settings
    )

    assert [type(o).__name__ for o in outcomes] == ["Fetched", "Fetched"]
    asked = dict(server.seen)
    assert "cookie" not in asked["/a"]
    assert "cookie" not in asked["/b"]  # the jar kept nothing from /a


def test_a_request_carries_the_headers_httpx_clients_send_and_no_more(
    serve: Callable[[], LocalServer],
) -> None:
    """The fetcher builds each request itself (no httpx client): on the wire it is what
    httpx's client sent, with the encodings it decodes, and a gzip answer is read as
    its text."""
    server = serve()
    page = b"<p>" + b"llama.cpp supports 1.5-bit to 8-bit quantization. " * 200 + b"</p>"
    server.routes["/zipped"] = respond(
        200, gzip.compress(page), Content_Encoding="gzip", Content_Type="text/html"
    )

    outcomes, _ = run_real(FetchRequest(server.url("/zipped")), settings=quick())

    assert isinstance(outcomes[0], Fetched)
    assert outcomes[0].body == page
    sent = dict(server.seen)["/zipped"]
    assert {name.lower(): value for name, value in sent.items()} == {
        "host": f"127.0.0.1:{server.server_port}",
        "accept": "*/*",
        "accept-encoding": "gzip, deflate",
        "connection": "keep-alive",
        "user-agent": FetchSettings().user_agent,
    }
