"""A guarded forward proxy on 127.0.0.1: the only way a rendering browser reaches anything.

Headless Chromium resolves names and opens connections by itself, so a page's script
could make it load `http://169.254.169.254/` or an internal host that the fetcher's
connection guard (`guard.py`) would have refused. The renderer therefore starts
Chromium with this proxy as its only way out (and every name resolution of its own
made to fail): each request the browser makes, plain HTTP forwarded or HTTPS tunnelled
with CONNECT, is checked here by the same rules and allowances as a plain fetch —
`refuse_host` on the name before any look-up, `refuse_address` on every address it
resolves to, and a connection only to an address that was checked, so DNS rebinding
cannot pass either. The proxy's own port is refused whatever the allowances say.

The proxy takes only its own browser. Each proxy has a credential of its own, made
when it starts (`credential`), that every request must carry in `Proxy-Authorization`
(the browser gives it when the proxy asks, `browser.Browser`); any other local process
is answered 407 and reaches nothing. Where the browser runs in a network namespace of
its own, the proxy also listens only there.

A render has one budget: `max_bytes` from upstream in all (a page and its scripts),
past which every connection is cut and the render fails; each connection lives no
longer than the proxy, which the renderer stops when its hard timeout ends.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import secrets
import socket
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from claimcheck.net.addresses import (
    AddressPolicy,
    parse_ip_literal,
    refuse_address,
    refuse_host,
)
from claimcheck.net.guard import Resolver, parse_ip, resolve_host

HEAD_LIMIT = 65_536
"""The most bytes a request's or response's head (request line and headers) may take."""
CONNECT_TIMEOUT = 10.0
"""Seconds one upstream connection may take to open."""
PROXY_USER = "claimcheck"
"""The user name of the proxy's credential (its password is made per proxy)."""
REFUSED_HEADER = "x-claimcheck-proxy-refused"
"""A header on the proxy's own refusals (its 403s and 502s), holding the reason, so that
the renderer knows a page's document was the proxy's refusal, not the site's answer.
Stripped from every answer forwarded from upstream: a site cannot forge it."""
_HOP_HEADERS = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-connection",
        b"proxy-authorization",
        b"te",
        REFUSED_HEADER.encode(),
    }
)
"""Hop-by-hop headers: they are about the connection to the proxy, not the request."""
_CHUNK = 65_536
_STOP_ROUNDS = 1000
"""A bound on the steps `_stop` waits for connections to end (a few are enough)."""


@dataclass
class ProxyLog:
    """What the proxy did during one render: the refusals (as the guard words them),
    the connections made, the bytes received from upstream, and whether the budget
    was passed."""

    refused: list[str] = field(default_factory=list)
    connected: list[str] = field(default_factory=list)
    received: int = 0
    over_budget: bool = False


class GuardedProxy:
    """An HTTP forward proxy (plain forwarding and CONNECT) on 127.0.0.1, in its own thread.

    Used as a context manager: entering starts it on a free port (`port`), leaving
    stops it and cuts every connection still open. `listener`: a listening socket to
    serve on instead, made in the browser's network namespace (`netns.Isolation`), where
    no other process can reach it; the proxy owns and closes it.
    """

    def __init__(
        self,
        policy: AddressPolicy,
        *,
        max_bytes: int,
        resolver: Resolver = resolve_host,
        listener: socket.socket | None = None,
    ) -> None:
        self._listener = listener
        self.credential = secrets.token_urlsafe(24)
        self._expected = b"basic " + base64.b64encode(
            f"{PROXY_USER}:{self.credential}".encode("ascii")
        )
        self._policy = policy
        self._resolver = resolver
        self._max_bytes = max_bytes
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._opened: set[asyncio.BaseTransport] = set()  # client connections not lost yet
        self.log = ProxyLog()
        self.port = 0

    def __enter__(self) -> GuardedProxy:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._start(), self._loop)
        self.port = future.result(timeout=10)
        return self

    def __exit__(self, *_exc: object) -> None:
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()
        if self._listener is not None:
            self._listener.close()

    async def _start(self) -> int:
        def connection() -> _Connection:
            return _Connection(asyncio.StreamReader(limit=HEAD_LIMIT), self._serve, self._opened)

        loop = asyncio.get_running_loop()
        if self._listener is not None:
            self._server = await loop.create_server(connection, sock=self._listener)
        else:
            self._server = await loop.create_server(connection, "127.0.0.1", 0)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def _stop(self) -> None:
        """End every connection, then stop listening.

        A kept browser may open a connection as its page's proxy stops. Its accepting
        takes the loop a few steps (the handler, even the transport, come later), and a
        server closed meanwhile leaks its socket (asyncio cannot attach the transport to
        a closed server). So, while still listening, each round closes every client
        connection made and cancels every handler started, then lets the rest take
        their next step, until the loop (the proxy's own) has no other task; the server
        is closed in that same step, before another connection can come."""
        this = asyncio.current_task()
        for _ in range(_STOP_ROUNDS):
            for transport in list(self._opened):
                transport.close()
            for task in list(self._tasks):
                task.cancel()
            if not self._opened and all(task is this for task in asyncio.all_tasks()):
                break
            await asyncio.sleep(0)
        if self._server is not None:
            self._server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._handle(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        except asyncio.CancelledError:
            # The proxy is stopping (`_stop`) with this connection still open: a kept
            # browser's request that outlived its page. Ending the task here, rather
            # than as cancelled, keeps asyncio from logging it as an error.
            pass
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One client connection: one request forwarded (or one tunnel), then closed."""
        head = await _read_head(reader)
        if head is None:
            return
        request_line, *headers = head.split(b"\r\n")
        parts = request_line.split(b" ")
        if len(parts) != 3:
            await _answer(writer, 400, "bad request line")
            return
        method, target, version = parts
        if not self._authorized(headers):
            await _answer(writer, 407, "proxy authentication required")
            return
        if method == b"CONNECT":
            host, port = _host_port(target.decode("latin-1"), 443)
            upstream = await self._open(host, port, writer)
            if upstream is None:
                return
            up_reader, up_writer = upstream
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            await writer.drain()
            await self._relay(reader, writer, up_reader, up_writer, forwarded=False)
            return
        url = urlsplit(target.decode("latin-1"))
        if url.scheme != "http" or not url.hostname:
            await _answer(writer, 400, "only http:// URLs are forwarded; https goes by CONNECT")
            return
        host, port = url.hostname, url.port or 80
        upstream = await self._open(host, port, writer)
        if upstream is None:
            return
        up_reader, up_writer = upstream
        path = url.path or "/"
        if url.query:
            path += f"?{url.query}"
        kept = [h for h in headers if _header_name(h) not in _HOP_HEADERS]
        up_writer.write(
            b"\r\n".join(
                [b" ".join([method, path.encode("latin-1"), version]), *kept, b"Connection: close"]
            )
            + b"\r\n\r\n"
        )
        await up_writer.drain()
        await self._relay(reader, writer, up_reader, up_writer, forwarded=True)

    async def _open(
        self, host: str, port: int, writer: asyncio.StreamWriter
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        """Connect to `host:port` at a checked address, or answer 403 and say why not."""
        reason = self._refusal(host, port)
        addresses: list[str] = []
        if reason is None:
            literal = parse_ip_literal(host)
            try:
                addresses = (
                    [str(literal)]
                    if literal is not None
                    else list(await self._resolver(host, port))
                )
            except OSError:
                await _answer(writer, 502, f"cannot resolve {host}")
                return None
            for address in addresses:
                reason = reason or refuse_address(host, parse_ip(address), self._policy, port)
                if reason is None and self._is_self(address, port):
                    reason = "refused: the render proxy itself"
        if reason is not None or not addresses:
            reason = reason or f"{host} has no addresses"
            self.log.refused.append(reason)
            await _answer(writer, 403, reason)
            return None
        for address in addresses:
            try:
                opened = await asyncio.wait_for(
                    asyncio.open_connection(address, port, limit=HEAD_LIMIT), CONNECT_TIMEOUT
                )
            except (OSError, TimeoutError):
                continue
            self.log.connected.append(f"{host}:{port}")
            return opened
        await _answer(writer, 502, f"could not connect to {host}:{port}")
        return None

    def _authorized(self, headers: list[bytes]) -> bool:
        """Whether the request carries this proxy's credential."""
        for line in headers:
            if _header_name(line) == b"proxy-authorization":
                given = line.split(b":", 1)[1].strip()
                scheme, _, token = given.partition(b" ")
                return hmac.compare_digest(scheme.lower() + b" " + token.strip(), self._expected)
        return False

    def _refusal(self, host: str, port: int) -> str | None:
        return refuse_host(host, self._policy, port)

    def _is_self(self, address: str, port: int) -> bool:
        ip = parse_ip_literal(address)
        return port == self.port and ip is not None and (ip.is_loopback or ip.is_unspecified)

    def _count(self, size: int) -> bool:
        """Add `size` upstream bytes to the render's budget; False once it is spent."""
        self.log.received += size
        if self.log.received > self._max_bytes:
            self.log.over_budget = True
            for task in list(self._tasks):
                task.cancel()
            return False
        return True

    async def _relay(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        up_reader: asyncio.StreamReader,
        up_writer: asyncio.StreamWriter,
        *,
        forwarded: bool,
    ) -> None:
        """Copy both ways until upstream is done; upstream's bytes count against the budget.

        The client's bytes (a request body) flow from the start, so an upstream that
        waits for a body before it answers gets it. A `forwarded` answer's head loses
        its hop-by-hop headers and says `Connection: close`: one request a connection.
        """

        async def outward() -> None:
            with contextlib.suppress(OSError):
                while chunk := await reader.read(_CHUNK):
                    up_writer.write(chunk)
                    await up_writer.drain()

        sending = asyncio.ensure_future(outward())
        try:
            if forwarded:
                response = await _read_head(up_reader)
                if response is None:
                    await _answer(writer, 502, "no answer from upstream")
                    return
                if not self._count(len(response)):
                    return
                status, *headers = response.split(b"\r\n")
                kept = [h for h in headers if _header_name(h) not in _HOP_HEADERS]
                writer.write(b"\r\n".join([status, *kept, b"Connection: close"]) + b"\r\n\r\n")
            while chunk := await up_reader.read(_CHUNK):
                if not self._count(len(chunk)):
                    return
                writer.write(chunk)
                await writer.drain()
        finally:
            sending.cancel()
            with contextlib.suppress(BaseException):
                await sending
            up_writer.close()


class _Connection(asyncio.StreamReaderProtocol):
    """A client connection, kept in `opened` from its start to its loss, so that the
    proxy can close it when it stops, whether or not its handler ever ran."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        handler: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
        opened: set[asyncio.BaseTransport],
    ) -> None:
        super().__init__(reader, handler)
        self._opened = opened
        self._made: asyncio.BaseTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._made = transport
        self._opened.add(transport)
        super().connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._made is not None:
            self._opened.discard(self._made)
        super().connection_lost(exc)


def _header_name(line: bytes) -> bytes:
    """A header line's name, lower case, to compare."""
    return line.split(b":", 1)[0].strip().lower()


async def _read_head(reader: asyncio.StreamReader) -> bytes | None:
    """A message's head up to its blank line, or None when the peer closed first."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    if len(head) > HEAD_LIMIT:
        return None
    return head[:-4]


async def _answer(writer: asyncio.StreamWriter, status: int, reason: str) -> None:
    """A short plain-text answer of the proxy's own (a refusal, a bad request)."""
    body = reason.encode("utf-8", errors="replace")
    words = {
        400: "Bad Request",
        403: "Forbidden",
        407: "Proxy Authentication Required",
        502: "Bad Gateway",
    }[status]
    challenge = b'Proxy-Authenticate: Basic realm="claimcheck"\r\n' if status == 407 else b""
    said = reason.encode("ascii", errors="replace").replace(b"\r", b" ").replace(b"\n", b" ")
    writer.write(
        f"HTTP/1.1 {status} {words}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n".encode("ascii")
        + challenge
        + f"{REFUSED_HEADER}: ".encode("ascii")
        + said[:500]
        + b"\r\n\r\n"
        + body
    )
    with contextlib.suppress(OSError):
        await writer.drain()


def _host_port(authority: str, default: int) -> tuple[str, int]:
    """`host:port`, `[v6]:port` or a bare host as a host and a port; ValueError if bad."""
    parts = urlsplit(f"//{authority}")
    if not parts.hostname:
        raise ValueError(f"no host in {authority!r}")
    return parts.hostname, parts.port or default
