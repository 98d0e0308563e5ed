"""The stdlib HTTP server both test servers (GitHub replay, fake GitHub) stand on."""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class RecordingServer(ThreadingHTTPServer):
    """A threading server that records handler crashes for the test to fail on.

    Client disconnects are normal in tests (timeouts, dropped connections) and stay
    quiet; anything else lands in `errors`, which the owning fixture checks.
    """

    daemon_threads = True
    request_queue_size = 128  # a real server's listen backlog (see counting_server.py)

    def __init__(self, address: tuple[str, int], handler: Any, errors: list[str]) -> None:
        super().__init__(address, handler)
        self.errors = errors

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Keep client disconnects quiet; record anything else."""
        error = traceback.format_exc()
        if "ConnectionResetError" not in error and "BrokenPipeError" not in error:
            self.errors.append(error)


def send_answer(
    handler: BaseHTTPRequestHandler, status: int, headers: Mapping[str, str], body: bytes
) -> None:
    """Answer a request: the status, the headers, a Content-Length and the body."""
    handler.send_response(status)
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@contextmanager
def running(server: RecordingServer) -> Iterator[RecordingServer]:
    """Serve on a thread while the block runs; then stop, join, and fail on any
    handler crash the server recorded."""
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert server.errors == []


@contextmanager
def serving(handler: Any) -> Iterator[str]:
    """A `RecordingServer` of `handler` on 127.0.0.1, for the block: its base URL."""
    with running(RecordingServer(("127.0.0.1", 0), handler, errors=[])) as server:
        yield f"http://127.0.0.1:{server.server_address[1]}"


@contextmanager
def serving_pages(body_of: Callable[[int], bytes]) -> Iterator[str]:
    """`/pages/N.md` on 127.0.0.1 for the block, the Markdown `body_of(N)`: its base URL."""

    class Pages(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            number = int(self.path.removeprefix("/pages/").removesuffix(".md"))
            headers = {"Content-Type": "text/markdown; charset=utf-8"}
            send_answer(self, 200, headers, body_of(number))

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests read the reports and the store, not the log."""

    with serving(Pages) as url:
        yield url
