"""The fetcher: many sources at once within global and per-host limits, over one client,
each request retried as the one HTTP policy says and ended in one outcome (`fetch.py`).

This module, its transport (`transport.py`) and what reads the client's replies and
errors (`reply.py`, `failures.py`) are the only ones of net/ that import httpx. Every
connection goes through the connection guard (`guard.py`), which refuses internal
addresses the operator has not allowed (`addresses.py` says which are internal).
Redirects are followed by hand, each hop recorded and the token decided per hop; a body
whose end the server did not tell is asked for once more (`models.Ending`).
"""

from __future__ import annotations

import asyncio
import copy
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import TracebackType

import httpx

from claimcheck.config import environment_allowances
from claimcheck.models import Ending
from claimcheck.net.addresses import AddressPolicy, refuse_host
from claimcheck.net.failures import (
    RAISE_QUOTA_HINT,
    REFUSED_HINT,
    after,
    describe_failure,
    guard_refusal,
    is_retryable,
    status_problem,
    utc,
)
from claimcheck.net.fetch import (
    REDIRECT_STATUSES,
    FetchFailed,
    FetchOutcome,
    FetchRequest,
    Redirect,
)
from claimcheck.net.guard import Resolver, resolve_host
from claimcheck.net.http_policy import RetryPolicy, header_number, retry_delay
from claimcheck.net.reply import Reply, conclude, is_github
from claimcheck.net.transport import guarded_transport
from claimcheck.untrusted import clean_text

_log = logging.getLogger("claimcheck.fetch")
"""What was fetched, from where, how long it took, what was retried (`claimcheck -v`).

Never a header: the token travels in one. URLs are shown without user info and with
control characters removed (a redirect's Location is the server's text)."""

DRAIN_SECONDS = 1.0
"""How long an unused body (a 304's, a 404's, a redirect's) may take to be read and
dropped so its connection is kept; a slower one is closed instead."""
ACCEPT_ENCODING = "gzip, deflate"
"""The encodings httpx decodes with the standard library alone, whatever else is installed
(its client also offers br and zstd when their packages happen to be there): what a
server may send is the same on every machine."""

NO_BODY_STATUSES = frozenset({204, 304})
"""Answers that never have a body (RFC 9110, 15.3.5 and 15.4.5): nothing to drain."""

MESSAGE_BYTES = 16_384
"""The longest refusal (403, 429) whose body is read for its message; a longer one is a
page, not a message."""


@dataclass(frozen=True)
class FetchSettings:
    """How hard and how politely to fetch; the defaults suit GitHub's API and ordinary sites.

    `timeout` bounds one attempt as a whole, from connecting to the last body byte,
    so a server that trickles bytes cannot hold a run for ever.

    `allow_addresses` opens internal addresses (CIDRs, host names, `host:port`); None
    means what the environment allows (`CLAIMCHECK_ALLOW_ADDRESSES` and the servers of
    the operator's `GITHUB_API_URL` and `WAYBACK_URL`), read when a Fetcher starts, so
    a caller that builds settings without it still reaches the operator's own servers.
    """

    concurrency: int = 8
    per_host: int = 2
    per_host_interval: float = 0.25
    hosts: Mapping[str, int] = field(default_factory=dict)  # per-host overrides of per_host
    timeout: float = 20.0
    retries: int = 3
    backoff: float = 0.5
    max_backoff: float = 30.0
    max_wait: float = 120.0
    max_bytes: int = 5_000_000
    max_redirects: int = 10
    user_agent: str = "claimcheck/0.1 (+https://github.com/claimcheck/claimcheck)"
    allow_addresses: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        """Reject settings that would deadlock (no slots), loop backwards in time, or allow
        an address by a misspelt entry (which would silently allow nothing)."""
        if self.allow_addresses is not None:
            AddressPolicy.parse(self.allow_addresses)
        if self.concurrency < 1 or min([self.per_host, *self.hosts.values()]) < 1:
            raise ValueError("concurrency and per_host must be at least 1")
        if min(self.retries, self.max_redirects, self.max_bytes) < 0:
            raise ValueError("retries, max_redirects and max_bytes cannot be negative")
        if min(self.per_host_interval, self.timeout, self.backoff, self.max_wait) < 0:
            raise ValueError("intervals, timeouts and waits cannot be negative")

    @property
    def address_policy(self) -> AddressPolicy:
        """The internal addresses these settings open, from the environment when unset."""
        allowed = self.allow_addresses
        return AddressPolicy.parse(environment_allowances() if allowed is None else allowed)

    @property
    def retry_policy(self) -> RetryPolicy:
        """The retry and wait limits of these settings, as the one HTTP policy takes them."""
        return RetryPolicy(
            retries=self.retries,
            backoff=self.backoff,
            max_backoff=self.max_backoff,
            max_wait=self.max_wait,
        )


class _TooLargeError(Exception):
    """The body passed max_bytes; never leaves this module (it becomes a FetchFailed)."""


class Fetcher:
    """Fetches many sources at once within global and per-host limits, over one client.

    `sleep` and `clock` are injected so tests run every retry and rate-limit wait
    instantly and can assert each one; `clock` is epoch seconds because GitHub's
    X-RateLimit-Reset is. `resolver` replaces DNS for the connection guard, so tests
    can make a public-looking name resolve to loopback. A `transport` given by a test
    bypasses the guard; each URL's literal host is still checked.
    """

    def __init__(
        self,
        settings: FetchSettings,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.time,
        on_done: Callable[[FetchRequest, FetchOutcome], None] | None = None,
        resolver: Resolver = resolve_host,
    ) -> None:
        self._settings = settings
        self._addresses = settings.address_policy
        if transport is None:
            transport = guarded_transport(
                self._addresses, resolver=resolver, connections=settings.concurrency
            )
        self._sleep = sleep
        self._clock = clock
        self._on_done = on_done
        # Each request goes to the transport directly, with the headers and timeout an
        # httpx client would give it (`_request`): the fetcher follows redirects by hand
        # (each hop recorded, the token decided per hop) and keeps no cookies (each
        # source is fetched as a first visit, as a reader arriving from a link sees
        # it: one source's session or consent cookie must not go with the next), so
        # it needs none of the client's layers, which cost a warm run of 304s a tenth
        # of its time (merging a cookie jar into every request, reading every answer
        # for Set-Cookie).
        self._transport = transport
        self._defaults = httpx.Headers(
            {
                "Accept": "*/*",
                "Accept-Encoding": ACCEPT_ENCODING,
                "Connection": "keep-alive",
                "User-Agent": settings.user_agent,
            }
        )
        self._extensions = {"timeout": httpx.Timeout(settings.timeout).as_dict()}
        self._slots = asyncio.Semaphore(settings.concurrency)
        self._host_slots: dict[str, asyncio.Semaphore] = {}
        self._next_start: dict[str, float] = {}
        self._reset_at: dict[str, float] = {}
        self._jitter = random.Random()  # noqa: S311 - backoff jitter, not cryptography
        self._policy = settings.retry_policy
        self.requests_made = 0

    def apart(self) -> Fetcher:
        """This fetcher, counting its own requests (`requests_made`) apart from it.

        The same connections, limits, spacing and rate-limit waits (shared, not copied),
        so requests made through either are one client to every host; only the count is
        the view's, so that a run tells history's look-ups from its sources' requests.
        The fetcher it came from closes the connections: the view is never closed.
        """
        view = copy.copy(self)  # every attribute but the count is the same object
        view.requests_made = 0
        return view

    async def __aenter__(self) -> Fetcher:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool; open sockets would otherwise outlive the run."""
        await self._transport.aclose()

    async def fetch_all(self, requests: Sequence[FetchRequest]) -> list[FetchOutcome]:
        """Fetch all requests concurrently; outcomes come back in the order of `requests`."""
        return list(await asyncio.gather(*(self.fetch(request) for request in requests)))

    async def fetch(self, request: FetchRequest) -> FetchOutcome:
        """Fetch one source, following redirects, and report its outcome to `on_done`."""
        outcome = await self._fetch(request)
        if self._on_done is not None:
            self._on_done(request, outcome)
        return outcome

    async def _fetch(self, request: FetchRequest) -> FetchOutcome:
        try:
            url = httpx.URL(request.url)
        except httpx.InvalidURL:
            return FetchFailed(request.url, "invalid URL", "fix the source URL", attempts=0)
        if url.scheme not in ("http", "https") or not url.host:
            return FetchFailed(request.url, "not an http(s) URL", "fix the source URL", attempts=0)
        first_scheme = url.scheme
        redirects: list[Redirect] = []
        seen = {str(url)}
        while True:
            refusal = refuse_host(url.host, self._addresses, _port(url))
            if refusal is not None:  # before any look-up: the target is never contacted
                return FetchFailed(request.url, refusal, REFUSED_HINT, attempts=0)
            headers = _headers(request, url, first_scheme)
            result = await self._fetch_hop(request, url, headers)
            if isinstance(result, FetchFailed):
                return result
            if result.status not in REDIRECT_STATUSES:
                if result.ending is Ending.UNTOLD and result.body and 200 <= result.status < 300:
                    # (an empty body is no page, however it ended: nothing to agree on)
                    result = await self._agreed(request, url, headers, result)
                return conclude(request, result, tuple(redirects))
            location = result.headers.get("location")
            try:
                target = url.join(location) if location else None
            except httpx.InvalidURL:
                target = None
            if target is None or target.scheme not in ("http", "https"):
                return FetchFailed(
                    request.url,
                    f"HTTP {result.status} to a missing or invalid Location",
                    "the server's redirect is broken; check the URL in a browser",
                    result.attempts,
                )
            redirects.append(Redirect(result.status, str(url), str(target)))
            if str(target) in seen:
                return FetchFailed(
                    request.url,
                    f"redirect loop back to {target}",
                    "the site redirects in a circle; check the URL in a browser",
                    result.attempts,
                )
            if len(redirects) > self._settings.max_redirects:
                return FetchFailed(
                    request.url,
                    f"more than {self._settings.max_redirects} redirects",
                    "point the claim at the page the redirects end on",
                    result.attempts,
                )
            seen.add(str(target))
            url = target

    async def _agreed(
        self, request: FetchRequest, url: httpx.URL, headers: dict[str, str], first: Reply
    ) -> Reply:
        """A body whose end the server did not tell, asked for once more: AGREED when the
        second answer is the same body, else left UNTOLD (see `models.Ending`)."""
        plain = {k: v for k, v in headers.items() if k not in _CONDITIONAL_HEADERS}
        again = await self._fetch_hop(request, url, plain)
        if isinstance(again, Reply) and 200 <= again.status < 300 and again.body == first.body:
            return replace(first, ending=Ending.AGREED)
        return first

    async def _fetch_hop(
        self, request: FetchRequest, url: httpx.URL, headers: dict[str, str]
    ) -> Reply | FetchFailed:
        """Send one hop, retrying what may pass (network trouble, 429, 5xx, rate limits)."""
        settings = self._settings
        host = _netloc(url)
        attempt = 0
        while True:
            attempt += 1
            reset = self._reset_at.get(host, 0.0)
            if reset - self._clock() > settings.max_wait:
                return _rate_limited(request.url, reset, attempt - 1, github=True)
            await self._pause(reset - self._clock())
            if _log.isEnabledFor(logging.DEBUG):
                asked = [n for n in headers if n.lower() in ("if-none-match", "if-modified-since")]
                _log.debug(
                    "GET %s: attempt %d%s",
                    _shown(url),
                    attempt,
                    f", conditional ({', '.join(asked)})" if asked else "",
                )
            started = time.monotonic()
            try:
                reply = await self._send(url, headers)
            except _TooLargeError:
                return FetchFailed(
                    request.url,
                    f"response larger than {settings.max_bytes} bytes",
                    "check that the URL is a page, not a download, or raise max_bytes",
                    attempt,
                )
            except (TimeoutError, httpx.TransportError) as exc:
                refusal = guard_refusal(exc)
                if refusal is not None:  # what an address is does not pass with a retry
                    return FetchFailed(request.url, refusal, REFUSED_HINT, attempt)
                reason, hint = describe_failure(exc)
                if not is_retryable(exc) or attempt > settings.retries:
                    _log.info("GET %s failed: %s (attempt %d)", _shown(url), reason, attempt)
                    return FetchFailed(request.url, after(reason, attempt), hint, attempt)
                wait = self._policy.backoff_delay(attempt, self._jitter)
                _log.info("GET %s failed: %s; retrying in %.1f s", _shown(url), reason, wait)
                await self._pause(wait)
                continue
            except httpx.HTTPError as exc:
                reason, hint = describe_failure(exc)
                return FetchFailed(request.url, reason, hint, attempt)
            delay = self._retry_delay(reply, attempt)
            if _log.isEnabledFor(logging.INFO):
                took = (time.monotonic() - started) * 1000
                again = "" if delay is None else f"; retrying in {delay:.1f} s"
                _log.info(
                    "GET %s: %d, %d bytes, %.0f ms%s",
                    _shown(url),
                    reply.status,
                    len(reply.body),
                    took,
                    again,
                )
            if delay is None:
                return replace(reply, attempts=attempt)
            github = "x-ratelimit-remaining" in reply.headers
            if delay > settings.max_wait:
                until = self._clock() + delay
                if reply.status in (403, 429):
                    return _rate_limited(request.url, until, attempt, github=github)
                return FetchFailed(
                    request.url,
                    f"HTTP {reply.status}, unavailable until {utc(until)}",
                    f"the server is down for maintenance; run again after {utc(until)}",
                    attempt,
                )
            if attempt > settings.retries:
                if reply.status in (403, 429) and self._reset_at.get(host, 0.0) > self._clock():
                    return _rate_limited(request.url, self._reset_at[host], attempt, github=True)
                # A delay was asked for (Retry-After, a spent quota, GitHub's secondary
                # limit): a 403 that throttles, not one that refuses.
                reason, hint = status_problem(
                    reply.status, github=is_github(request, reply.headers), throttled=True
                )
                return FetchFailed(request.url, after(reason, attempt), hint, attempt)
            await self._pause(delay)

    async def _send(self, url: httpx.URL, headers: dict[str, str]) -> Reply:
        """Send one GET inside the concurrency limits and read at most max_bytes of body."""
        host = _netloc(url)
        # Take the host's slot first so requests queued for a busy host do not sit
        # on global slots that other hosts could use.
        async with self._host_slot(host), self._slots:
            await self._keep_spacing(host)
            self.requests_made += 1
            async with asyncio.timeout(self._settings.timeout):
                request = self._request(url, headers)
                response = await self._transport.handle_async_request(request)
                response.request = request
                try:
                    self._note_rate_limit(host, response.headers)
                    if response.is_success:
                        body = await self._read_body(response)
                    elif response.status_code in (403, 429):
                        # Its message may say why: GitHub names its secondary rate
                        # limit only there ("You have exceeded a secondary rate limit").
                        body = await self._read_message(response)
                    else:
                        body = b""
                        await self._drain(response)
                finally:
                    await response.aclose()
        return Reply(
            response.url, response.status_code, response.headers, body, ending=_ending(response)
        )

    def _request(self, url: httpx.URL, headers: dict[str, str]) -> httpx.Request:
        """A GET as httpx's client builds it: its default headers, then the hop's."""
        merged = self._defaults.copy()
        merged.update(headers)
        return httpx.Request("GET", url, headers=merged, extensions=self._extensions)

    async def _read_body(self, response: httpx.Response) -> bytes:
        """Read the body, stopping once it passes max_bytes (decoded size: gzip bombs stop too)."""
        limit = self._settings.max_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise _TooLargeError
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise _TooLargeError
            chunks.append(chunk)
        return b"".join(chunks)

    async def _read_message(self, response: httpx.Response) -> bytes:
        """The body of a refusal when it is short enough to be a message, else b"" (and
        the rest drained or left, as `_drain` does)."""
        declared = response.headers.get("content-length", "")
        if not declared.isdigit() or int(declared) > MESSAGE_BYTES:
            await self._drain(response)
            return b""
        try:
            return await self._read_body(response)
        except (httpx.HTTPError, _TooLargeError):
            return b""

    async def _drain(self, response: httpx.Response) -> None:
        """Read and drop the body of an answer whose body is not used (304, 404, a
        redirect, an error), so its connection goes back to the pool for the next request.

        httpx keeps a connection only once its response was read to the end; closed
        unread, it is dropped, and a warm run of 304s would open a connection each.
        A body over max_bytes (declared or as it comes), one still coming after
        DRAIN_SECONDS, or a broken one is left unread: closing that connection is
        cheaper than reading it, and the status alone decides the outcome. An answer
        that has no body (a 304 or 204 never has one, RFC 9110; nor has one of
        Content-Length 0) has nothing to read: its connection is free already.
        """
        if response.status_code in NO_BODY_STATUSES:
            return
        limit = self._settings.max_bytes
        declared = response.headers.get("content-length", "")
        if declared == "0":
            return
        if response.is_stream_consumed or (declared.isdigit() and int(declared) > limit):
            return  # already in memory (a test's mock transport), or too big to be worth it
        size = 0
        deadline = asyncio.timeout(DRAIN_SECONDS)
        try:
            async with deadline:
                async for chunk in response.aiter_raw():
                    size += len(chunk)
                    if size > limit:
                        return
        except httpx.HTTPError:
            return
        except TimeoutError:
            if not deadline.expired():  # pragma: no cover - not ours: the attempt's own
                raise

    def _host_slot(self, host: str) -> asyncio.Semaphore:
        if host not in self._host_slots:
            limits = self._settings.hosts
            name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
            limit = limits.get(host, limits.get(name, self._settings.per_host))
            self._host_slots[host] = asyncio.Semaphore(limit)
        return self._host_slots[host]

    async def _keep_spacing(self, host: str) -> None:
        """Reserve the host's next start time, at least per_host_interval after the last."""
        now = self._clock()
        start = max(now, self._next_start.get(host, now))
        self._next_start[host] = start + self._settings.per_host_interval
        await self._pause(start - now)

    def _note_rate_limit(self, host: str, headers: httpx.Headers) -> None:
        """Remember a spent GitHub quota so no request to that host is wasted before reset."""
        if headers.get("x-ratelimit-remaining", "").strip() != "0":
            return
        reset = header_number(headers.get("x-ratelimit-reset"))
        if reset is not None:
            self._reset_at[host] = max(reset, self._reset_at.get(host, 0.0))

    def _retry_delay(self, reply: Reply, attempt: int) -> float | None:
        """Seconds to wait before retrying this reply, or None when the reply is final."""
        message = reply.body.decode("utf-8", "replace") if reply.status in (403, 429) else ""
        return retry_delay(
            self._policy,
            reply.status,
            reply.headers,
            attempt,
            now=self._clock(),
            rng=self._jitter,
            message=message,
        )

    async def _pause(self, seconds: float) -> None:
        if seconds > 0:
            await self._sleep(seconds)


def fetch_all_sync(
    settings: FetchSettings,
    requests: Sequence[FetchRequest],
    *,
    on_done: Callable[[FetchRequest, FetchOutcome], None] | None = None,
) -> tuple[list[FetchOutcome], int]:
    """Fetch all requests from synchronous code; returns outcomes and requests sent."""

    async def run() -> tuple[list[FetchOutcome], int]:
        async with Fetcher(settings, on_done=on_done) as fetcher:
            outcomes = await fetcher.fetch_all(requests)
        return outcomes, fetcher.requests_made

    return asyncio.run(run())


def _rate_limited(url: str, until: float, attempts: int, *, github: bool) -> FetchFailed:
    """The wait the server asks for is longer than max_wait: give up on this request."""
    when = utc(until)
    if github:
        hint = f"GitHub's API rate limit is used up; {RAISE_QUOTA_HINT}, or run again after {when}"
    else:
        hint = f"the server asks us to wait; run again after {when}"
    return FetchFailed(url, f"rate limited until {when}", hint, attempts)


def _shown(url: httpx.URL) -> str:
    """A URL for the log: no user info (it may be a credential), no control characters."""
    return clean_text(
        str(url.copy_with(username=None, password=None)) if url.userinfo else str(url)
    )


def _ending(response: httpx.Response) -> Ending:
    """TOLD when the protocol told where the body ends, else UNTOLD (`models.Ending`)."""
    version = response.extensions.get("http_version", b"HTTP/1.1")
    if not bytes(version).upper().startswith(b"HTTP/1"):
        return Ending.TOLD  # HTTP/2 and later frame every body
    if "content-length" in response.headers:
        return Ending.TOLD
    chunked = "chunked" in response.headers.get("transfer-encoding", "").lower()
    return Ending.TOLD if chunked else Ending.UNTOLD


_CONDITIONAL_HEADERS = frozenset({"If-None-Match", "If-Modified-Since"})


def _headers(request: FetchRequest, url: httpx.URL, first_scheme: str) -> dict[str, str]:
    """Headers for one hop; the token goes only to its own host, never over a downgrade."""
    headers: dict[str, str] = {}
    if request.accept:
        headers["Accept"] = request.accept
    if request.etag:
        headers["If-None-Match"] = request.etag
    if request.last_modified:
        headers["If-Modified-Since"] = request.last_modified
    if request.api_version:
        headers["X-GitHub-Api-Version"] = request.api_version
    if (
        request.token
        and request.token_host
        and _netloc(url) == request.token_host.lower()
        and url.scheme == first_scheme
    ):
        headers["Authorization"] = f"Bearer {request.token}"
    return headers


def _port(url: httpx.URL) -> int:
    """The port a hop connects to, the scheme's default when the URL names none."""
    return url.port or (443 if url.scheme == "https" else 80)


def _netloc(url: httpx.URL) -> str:
    """The host with its port if not the default: the unit of limits, quotas and tokens."""
    return url.netloc.decode("ascii").lower()
