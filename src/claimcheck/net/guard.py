"""The connection guard: an httpx transport that connects only to addresses the policy allows.

Checking a URL's host name before the request is not enough: the name may resolve to
127.0.0.1, or resolve to a public address when checked and to 169.254.169.254 a moment
later, when httpcore looks it up again to connect (DNS rebinding). So the check sits
where the socket is opened. `GuardedBackend` wraps httpcore's own network backend: its
`connect_tcp` resolves the host itself, asks `addresses.refuse_address` about every
address the name has (one internal address refuses the name: an attacker controls
which one a client picks), and then connects to an address it checked, never to the
name. TLS still verifies the certificate against the name, since httpcore takes the
server name from the request's origin, not from the address connected to.

`withheld_url` resolves the same way to answer another question: whether a source's
URL may be shown to a third party (the Wayback Machine), which no allow-list opens.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

from claimcheck._compat.httpcore_pool import rebuilt_pool, socket_check
from claimcheck._compat.httpx_transport import replace_pool
from claimcheck.config.allowances import normalize_host
from claimcheck.net.addresses import (
    AddressPolicy,
    IPAddress,
    classify_name,
    internal_host,
    parse_ip_literal,
    refuse_address,
)

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""Host and port in, the IP addresses to try out (injected by tests to play DNS tricks)."""


class AddressRefusedError(httpcore.ConnectError):
    """A connection the policy refused; `reason` is the sentence the fetch outcome shows.

    It is an httpcore.ConnectError so httpx maps it like any failed connect, and the
    fetcher finds it among the causes to report it and not retry it.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


async def resolve_host(host: str, port: int) -> Sequence[str]:
    """The system resolver's addresses for a host, in its order of preference."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found: list[str] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        address = str(sockaddr[0])
        if address not in found:
            found.append(address)
    return found


async def checked_addresses(
    host: str, port: int, policy: AddressPolicy, resolver: Resolver = resolve_host
) -> list[str]:
    """The addresses a connection to `host` may go to, every one checked by the policy.

    An IP literal is its own one address; a name is resolved, and one internal address
    the policy does not allow refuses the whole name (`AddressRefusedError`), since an
    attacker controls which of them a client picks. The one decision every transport's
    connect takes: the caller connects to these addresses, never to the name again.
    """
    literal = parse_ip_literal(host)
    if literal is not None:
        addresses = [str(literal)]
    else:
        try:
            addresses = list(await resolver(normalize_host(host), port))
        except OSError as exc:
            raise httpcore.ConnectError(f"cannot resolve {host}") from exc
        if not addresses:
            raise httpcore.ConnectError(f"{host} has no addresses")
    for address in addresses:
        reason = refuse_address(host, parse_ip(address), policy, port)
        if reason is not None:
            raise AddressRefusedError(reason)
    return addresses


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, but every TCP connect goes to a checked address only."""

    def __init__(
        self,
        policy: AddressPolicy,
        *,
        resolver: Resolver = resolve_host,
        inner: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self._policy = policy
        self._resolver = resolver
        self._inner = inner or httpcore.AnyIOBackend()
        self._readable = socket_check()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Resolve, refuse if any address is internal and not allowed, connect to the first
        address that answers."""
        addresses = await checked_addresses(host, port, self._policy, self._resolver)
        last: Exception | None = None
        for address in addresses:
            try:
                stream = await self._inner.connect_tcp(
                    address,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
                return _KeptSocket(stream, self._readable)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last = exc
        assert last is not None  # checked_addresses never returns an empty list
        raise last

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:  # pragma: no cover - the fetcher never sets uds
        """Refused: a Unix socket is local by definition and no source names one."""
        raise AddressRefusedError(f"refused: the Unix socket {path}")

    async def sleep(self, seconds: float) -> None:  # pragma: no cover - httpcore retries only
        await self._inner.sleep(seconds)


class _KeptSocket(httpcore.AsyncNetworkStream):
    """A network stream that looks its socket up once.

    httpcore asks every idle connection of its pool whether the server closed it
    (`is_readable`) each time it hands out a connection, and anyio's stream builds
    its whole table of socket attributes for each such question: at 32 connections
    in flight that was a third of a warm run's time. The answer is the same socket's
    readability, checked directly.
    """

    def __init__(
        self,
        inner: httpcore.AsyncNetworkStream,
        readable: Callable[[socket.socket], bool] | None,
    ) -> None:
        self._inner = inner
        self._readable = readable
        self._socket: socket.socket | None = inner.get_extra_info("socket")

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._inner.read(max_bytes, timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        tls = await self._inner.start_tls(ssl_context, server_hostname, timeout)
        return _KeptSocket(tls, self._readable)

    def get_extra_info(self, info: str) -> Any:
        if info == "socket":
            return self._socket
        if info == "is_readable" and self._readable is not None:
            return self._socket is not None and self._readable(self._socket)
        return self._inner.get_extra_info(info)


async def withheld_url(url: str, resolver: Resolver = resolve_host) -> str | None:
    """Why `url` may not be shown to a third party (asked about at another host than its
    own, as the Wayback Machine is), or None when it may: the one decision every such
    request takes.

    A URL whose host is internal (`addresses.internal_host`: an internal address or
    name, or a name that resolves to one, allowed to be fetched or not) stays on this
    machine; so does one whose host cannot be resolved now, or that is no http(s) URL
    with a host, since then nothing says it is public.
    """
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return "the URL cannot be read"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "the URL names no http(s) host"
    host = parts.hostname
    resolved: list[IPAddress] | None = None  # an address, or an internal name: no DNS
    if parse_ip_literal(host) is None and classify_name(host) is None:
        try:
            resolved = [parse_ip(a) for a in await resolver(normalize_host(host), port)]
        except (OSError, UnicodeError, ValueError, AddressRefusedError):
            resolved = None  # not resolved: `internal_host` keeps it in
    return internal_host(host, resolved or None)  # no address at all: not resolved


def parse_ip(address: str) -> IPAddress:
    """An address as the resolver returns it (IPv6 possibly with a zone id) as an IP value."""
    ip = parse_ip_literal(address)
    if ip is None:  # pragma: no cover - getaddrinfo returns numeric addresses only
        raise AddressRefusedError(f"refused: the resolver returned {address!r}, not an address")
    return ip


def guarded_transport(
    policy: AddressPolicy, *, resolver: Resolver = resolve_host, connections: int = 64
) -> httpx.AsyncHTTPTransport:
    """httpx's own transport (TLS, keep-alive, HTTP/1.1) over the guarded backend.

    httpx builds its connection pool without a network-backend argument, so the pool's
    backend is swapped after construction; a test that fetches through this transport
    proves the swap took. A transport passed to a client disables the environment's
    proxies, which is what the guard needs: through a proxy, the proxy would resolve
    the name and no check here could see the address.

    The pool holds as many connections as requests may be in flight (`connections`,
    the fetcher's concurrency) and keeps them all alive: httpcore 1.0 closes idle
    connections whenever the pool holds more than `max_keepalive_connections` in all
    (20 by default), so above 20 in flight nearly every request opened a connection;
    and its assignment pass grows with the square of the pool, so the pool is
    `LinearPool` (`_compat/httpcore_pool.py`), built with the settings httpx gave its own.
    """
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    transport = httpx.AsyncHTTPTransport(limits=limits)
    replace_pool(
        transport,
        lambda built: rebuilt_pool(
            built,
            limits=(connections, connections, limits.keepalive_expiry),
            backend=lambda inner: GuardedBackend(policy, resolver=resolver, inner=inner),
        ),
    )
    return transport
