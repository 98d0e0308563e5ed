"""httpcore's connection pool with an assignment pass that does not grow with its square.

httpcore 1.0 runs `_assign_requests_to_connections` at every request and every answer.
For each connection it counts every connection again (meaning to count the idle ones,
it counts all), and for each queued request it filters every connection twice; an idle
HTTP/1.1 connection stays "available" after it is handed out, so one pass can hand it
to several queued requests, each of which wakes, fails and queues again. At 32
requests in flight that pass was two thirds of the client's CPU: 1,000 conditional
requests took ~5 s of CPU where the same client with the pass below takes ~2 s.

`LinearPool` keeps the pool's rules and replaces only that pass, in one walk over the
connections and one over the requests:

- closed connections leave the pool; expired ones (keep-alive over, or the server
  closed the socket) are closed, an idle one when it is about to be handed out (the
  check polls its socket);
- idle connections beyond `max_keepalive_connections` are closed, oldest first,
  counting idle ones (as httpcore meant);
- each queued request gets a connection that can take it and is not spoken for by
  another request, else a new one while there is room, else an idle unclaimed one is
  closed to make room; a connection handed out in this pass or waiting for its request
  to start is never handed out again or closed under it.

The pass also runs each time an answer is closed. With no request waiting for a
connection it has nothing to hand out, and when the pool may keep every connection
alive (`max_keepalive_connections` at least `max_connections`, as the transport builds
it) nothing is surplus either, so it returns at once: a closed connection leaves the
pool, and an expired one is closed, at the next pass that hands one out, as above. The
fetcher never has more requests in flight than the pool has connections, so every
answer's pass was a walk over the whole pool for nothing: half the passes of a run.

The transport speaks HTTP/1.1 only (one request per connection at a time), which is
what "spoken for" relies on. It overrides a private method of httpcore's pool and reads
its private state, written for httpcore 1.0 (`pyproject.toml` pins httpcore below 1.1);
`tests/net/test_pool.py` drives it through real connections. With another httpcore
installed `pool_class` gives httpcore's own pool: the same rules, only slower, so the
fallback is safe and no error is needed.

`socket_check` gives httpcore's own check of whether a socket is readable (the server
closed it), a private function; outside the same range it gives None and the caller
asks the stream, as httpcore's public stream interface answers it (slower).

`rebuilt_pool` reads the TLS context and network backend of a pool httpx built (private
attributes, stable through httpcore 1.x); outside 1.x it raises
`UnsupportedVersionError`, because the caller needs the pool over its own backend (the
connection guard) and going on without it would connect unguarded.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

import httpcore

from claimcheck._compat.versions import Release, require, supported

_readable: Callable[[socket.socket], bool] | None
try:  # private: httpcore's own readability check, in the releases named below
    from httpcore._utils import is_socket_readable as _readable
except ImportError:  # pragma: no cover - another httpcore: the stream is asked instead
    _readable = None

if TYPE_CHECKING:
    from httpcore._async.interfaces import AsyncConnectionInterface

LINEAR_POOL_RANGE: tuple[Release, Release] = ((1, 0, 5), (1, 1))
"""The httpcore releases `LinearPool` and `socket_check` were written for."""

REBUILD_RANGE: tuple[Release, Release] = ((1, 0), (2,))
"""The httpcore releases whose pool keeps `_ssl_context` and `_network_backend`."""


def pool_class() -> type[httpcore.AsyncConnectionPool]:
    """`LinearPool` for the httpcore it was written for, else httpcore's own pool."""
    if supported("httpcore", *LINEAR_POOL_RANGE):
        return LinearPool
    return httpcore.AsyncConnectionPool


def socket_check() -> Callable[[socket.socket], bool] | None:
    """httpcore's readability check of a socket, or None outside the range it was read from."""
    if not supported("httpcore", *LINEAR_POOL_RANGE):
        return None
    return _readable


def rebuilt_pool(
    built: httpcore.AsyncConnectionPool,
    *,
    limits: tuple[int, int, float | None],
    backend: Callable[[httpcore.AsyncNetworkBackend], httpcore.AsyncNetworkBackend],
) -> httpcore.AsyncConnectionPool:
    """A pool like `built` (its TLS context), of `pool_class`, with `limits`
    (max connections, max keep-alive, keep-alive expiry), over `backend` applied to
    `built`'s network backend."""
    require("httpcore", *REBUILD_RANGE, "the connection guard")
    connections, keepalive, expiry = limits
    return pool_class()(
        ssl_context=built._ssl_context,
        max_connections=connections,
        max_keepalive_connections=keepalive,
        keepalive_expiry=expiry,
        network_backend=backend(built._network_backend),
    )


class LinearPool(httpcore.AsyncConnectionPool):
    """An `httpcore.AsyncConnectionPool` whose assignment pass is linear (see module)."""

    def _assign_requests_to_connections(self) -> list[AsyncConnectionInterface]:
        if self._max_keepalive_connections >= self._max_connections and not any(
            request.is_queued() for request in self._requests
        ):
            return []  # nothing waits and nothing is surplus (see module)
        closing: list[AsyncConnectionInterface] = []
        spoken_for = {
            id(request.connection) for request in self._requests if request.connection is not None
        }
        kept: list[AsyncConnectionInterface] = []
        for connection in self._connections:
            if connection.is_closed():
                continue
            if not connection.is_idle() and connection.has_expired():
                closing.append(connection)
                continue
            kept.append(connection)
        idle = [c for c in kept if c.is_idle() and id(c) not in spoken_for]
        surplus = len(idle) - self._max_keepalive_connections
        if surplus > 0:
            dropped = {id(c) for c in idle[:surplus]}
            closing.extend(idle[:surplus])
            kept = [c for c in kept if id(c) not in dropped]
            idle = idle[surplus:]
        self._connections = kept

        for request in self._requests:
            if not request.is_queued():
                continue
            origin = request.request.url.origin
            chosen = self._usable(origin, spoken_for, idle, closing)
            if chosen is None:
                if len(self._connections) >= self._max_connections:
                    spare = next((c for c in idle if id(c) not in spoken_for), None)
                    if spare is None:
                        break  # nothing to close for room: the rest wait for an answer
                    idle.remove(spare)
                    self._connections.remove(spare)
                    closing.append(spare)
                chosen = self.create_connection(origin)
                self._connections.append(chosen)
            request.assign_to_connection(chosen)
            spoken_for.add(id(chosen))
        return closing

    def _usable(
        self,
        origin: httpcore.Origin,
        spoken_for: set[int],
        idle: list[AsyncConnectionInterface],
        closing: list[AsyncConnectionInterface],
    ) -> AsyncConnectionInterface | None:
        """A connection that can take a request for `origin` now, or None.

        An idle connection is checked for expiry (its keep-alive over, or its socket
        readable: the server closed it) only here, when it would be handed out: that
        check is a `poll` of its socket, and making it for every idle connection at
        every pass was tens of thousands of system calls a run. One found expired
        leaves the pool as the first walk would have taken it out.
        """
        for connection in list(self._connections):
            if id(connection) in spoken_for or not connection.can_handle_request(origin):
                continue
            if not connection.is_available():
                continue
            if connection.is_idle() and connection.has_expired():
                self._connections.remove(connection)
                if connection in idle:
                    idle.remove(connection)
                closing.append(connection)
                continue
            return connection
        return None
