"""The transport: httpx's API over aiohttp's HTTP parser and connection pool, guarded.

`guarded_transport` is an httpx transport (`httpx_aiohttp.AiohttpTransport`) over an
aiohttp session built here, so the fetcher speaks httpx while aiohttp's C-accelerated
HTTP parser and connection pool do the work, and every connection goes to an address
the connection guard checked (`guard.py`), at the one place an address is chosen:

- aiohttp asks its resolver for a name's addresses and connects to exactly the
  addresses returned (happy eyeballs over that list), with TLS verified against the
  URL's name. `guarded_resolver` answers with `guard.checked_addresses`: every address
  of the name checked, one internal address refusing the name, and nothing resolved
  twice (no DNS cache, so each connection resolves and checks anew; a rebinding answer
  is checked too).
- aiohttp does not ask its resolver about an IP-literal host, so the transport checks
  a literal host itself before the request goes on.
- The session ignores the environment's proxies (`trust_env=False`): through a proxy
  the proxy would resolve the name. It keeps no cookies (the fetcher sends each
  source as a first visit), follows no redirect (the fetcher follows them, hop by
  hop) and does not decompress: httpx decodes the body as the fetcher reads it, so
  the fetcher's size limit counts decoded bytes.
- The pool holds as many connections as requests may be in flight (the fetcher's
  concurrency) and keeps them alive as long as httpx's own default; the per-host
  limits are the fetcher's.

aiohttp's errors are told as httpx's (`_mapped`), with the original as the cause, so
`failures.py` reads them in one way: a refused address, a certificate, a name not found,
a dropped connection, a timeout.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import aiohttp
import httpx
from aiohttp.abc import AbstractResolver, ResolveResult
from httpx_aiohttp import AiohttpTransport

from claimcheck.net.addresses import AddressPolicy, parse_ip_literal
from claimcheck.net.guard import Resolver, UnconnectedError, checked_addresses, resolve_host

KEEPALIVE_SECONDS = 5.0
"""How long an idle connection is kept: httpx's own default (`httpx.Limits`)."""
HEAD_BYTES = 100 * 1024
"""The longest status or header line accepted: the whole head httpx's own transport
accepts. aiohttp's own limit is 8 KB a line, and a page behind a long header (a big
cookie, a long Content-Security-Policy) would be a dropped connection."""


def guarded_transport(
    policy: AddressPolicy, *, resolver: Resolver = resolve_host, connections: int = 64
) -> httpx.AsyncBaseTransport:
    """An httpx transport over aiohttp whose every connection goes to a checked address,
    with at most `connections` open at once."""
    return _GuardedTransport(policy, resolver, connections)


class GuardedResolver(AbstractResolver):
    """An aiohttp resolver answering `checked_addresses` (see module): the addresses the
    connector may connect to, every one checked, or the guard's refusal."""

    def __init__(self, policy: AddressPolicy, resolver: Resolver) -> None:
        self._policy = policy
        self._resolver = resolver

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        addresses = await checked_addresses(host, port, self._policy, self._resolver)
        return [
            {
                "hostname": host,
                "host": address,
                "port": port,
                "family": socket.AF_INET6 if ":" in address else socket.AF_INET,
                "proto": 0,
                "flags": socket.AI_NUMERICHOST,
            }
            for address in addresses
        ]

    async def close(self) -> None:
        return None


class _GuardedTransport(httpx.AsyncBaseTransport):
    """`httpx_aiohttp.AiohttpTransport` over a guarded session, errors told as httpx's.

    The session is built at the first request: aiohttp binds it to the running loop.
    """

    def __init__(self, policy: AddressPolicy, resolver: Resolver, connections: int) -> None:
        self._policy = policy
        self._resolver = resolver
        self._connections = connections
        self._inner: httpx.AsyncBaseTransport | None = None

    def _built(self) -> httpx.AsyncBaseTransport:
        if self._inner is None:
            connector = aiohttp.TCPConnector(
                limit=self._connections,
                limit_per_host=0,
                resolver=GuardedResolver(self._policy, self._resolver),
                use_dns_cache=False,
                ssl=httpx.create_ssl_context(),
                keepalive_timeout=KEEPALIVE_SECONDS,
            )
            session = aiohttp.ClientSession(
                connector=connector,
                trust_env=False,
                cookie_jar=aiohttp.DummyCookieJar(),
                auto_decompress=False,
                max_line_size=HEAD_BYTES,
                max_field_size=HEAD_BYTES,
            )
            self._inner = AiohttpTransport(client=session)
        return self._inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        inner = self._built()
        host = request.url.host
        literal = parse_ip_literal(host)
        if literal is not None:  # aiohttp asks no resolver about it
            port = request.url.port or (443 if request.url.scheme == "https" else 80)
            try:
                await checked_addresses(host, port, self._policy, self._resolver)
            except UnconnectedError as exc:
                raise httpx.ConnectError(str(exc), request=request) from exc
            if str(literal) != host:
                # aiohttp refuses the legacy forms of an IPv4 address (2130706433, 127.1)
                # that a browser connects to: the same address, written the usual way.
                # The Host header keeps the URL's text.
                request.url = request.url.copy_with(host=str(literal))
        failure: Exception | None = None
        try:
            response = await inner.handle_async_request(request)
        except Exception as exc:
            failure = _mapped(exc, request)
            if failure is exc:
                raise
        if failure is not None:
            raise failure  # outside the handler: its cause is the one `_mapped` chose
        stream = response.stream
        assert isinstance(stream, httpx.AsyncByteStream)
        response.stream = _MappedStream(stream, request)
        return response

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()


class _MappedStream(httpx.AsyncByteStream):
    """A response body whose aiohttp errors arrive as httpx's (`_mapped`)."""

    def __init__(self, inner: httpx.AsyncByteStream, request: httpx.Request) -> None:
        self._inner = inner
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        failure: Exception | None = None
        try:
            async for chunk in self._inner:
                yield chunk
        except Exception as exc:
            failure = _mapped(exc, self._request)
            if failure is exc:
                raise
        if failure is not None:
            raise failure

    async def aclose(self) -> None:
        await self._inner.aclose()


def _mapped(exc: Exception, request: httpx.Request) -> Exception:
    """The httpx error `failures.py` expects for an error of aiohttp or of the guard,
    its cause set to the error `failures.py` looks for (`exc` itself when not aiohttp's).

    httpx_aiohttp maps some of aiohttp's errors itself, not always to the kind httpx's
    own transport raises for the same failure (a server that closed the connection
    becomes a connect timeout), so the original is looked at, from the cause when it
    was mapped. A certificate error's cause is the `ssl` error itself: aiohttp's
    wrapper is also an `ssl.CertificateError` but carries no verify code.
    """
    original: BaseException = exc
    if not isinstance(exc, aiohttp.ClientError) and isinstance(exc.__cause__, Exception):
        original = exc.__cause__
    message = str(original) or type(original).__name__
    cause: BaseException = original
    mapped: Exception
    if isinstance(original, UnconnectedError):  # the guard refused, or no address
        mapped = httpx.ConnectError(message, request=request)
    elif isinstance(original, aiohttp.ClientConnectorCertificateError):
        mapped = httpx.ConnectError(message, request=request)
        cause = original.certificate_error
    elif isinstance(original, aiohttp.ConnectionTimeoutError):
        mapped = httpx.ConnectTimeout(message, request=request)
    elif isinstance(original, aiohttp.ServerTimeoutError | asyncio.TimeoutError):
        mapped = httpx.ReadTimeout(message, request=request)
    elif isinstance(original, aiohttp.ClientConnectorError):
        mapped = httpx.ConnectError(message, request=request)
    elif isinstance(original, aiohttp.ServerDisconnectedError | aiohttp.ClientResponseError):
        mapped = httpx.RemoteProtocolError(message, request=request)
    elif isinstance(original, aiohttp.ClientPayloadError | aiohttp.ClientOSError):
        mapped = httpx.ReadError(message, request=request)
    elif isinstance(original, aiohttp.ClientError):
        mapped = httpx.RemoteProtocolError(message, request=request)
    else:
        return exc
    mapped.__cause__ = cause
    return mapped
