"""An HTTP/1.1 keep-alive server on 127.0.0.1 that counts the connections it accepts.

For the tests of connection reuse (`tests/net/test_fetch_connections.py`) and of the
connection pool (`tests/net/test_pool.py`): routes are plain functions of the
request handler, set per test.
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

Route = Callable[[BaseHTTPRequestHandler], None]


class CountingServer(ThreadingHTTPServer):
    """An HTTP/1.1 keep-alive server that counts the connections it accepts."""

    daemon_threads = True
    # A real server's listen backlog, not socketserver's 5: with 32 connections opened at
    # once on a loaded machine, the kernel dropped the connects beyond it, and the client
    # waited out SYN retransmissions (1, 3, 7, 15 s) into its timeout.
    request_queue_size = 128

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.routes: dict[str, Route] = {}
        self.connections = 0
        self.requests = 0
        self.errors: list[str] = []
        self.release = threading.Event()  # stalled routes wait on this; teardown sets it
        self._lock = threading.Lock()

    def get_request(self) -> tuple[socket.socket, Any]:
        accepted = super().get_request()
        with self._lock:
            self.connections += 1
        return accepted

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client hanging up is what some tests intend; anything else fails the test."""
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError):
            self.errors.append(repr(error))

    def count_request(self) -> None:
        with self._lock:
            self.requests += 1

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{path}"


class _Handler(BaseHTTPRequestHandler):
    server: CountingServer
    protocol_version = "HTTP/1.1"  # keep-alive unless the client says otherwise

    def do_GET(self) -> None:
        self.server.count_request()
        self.server.routes[urlsplit(self.path).path](self)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def answer(status: int, body: bytes = b"", *, length: bool = True, **headers: str) -> Route:
    def route(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name.replace("_", "-"), value)
        if length:
            handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return route


@contextmanager
def counting_server() -> Iterator[CountingServer]:
    """A running server, shut down after; handler errors fail the test."""
    running = CountingServer()
    thread = threading.Thread(target=running.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield running
    finally:
        running.release.set()
        running.shutdown()
        running.server_close()
        thread.join()
    assert running.errors == []
