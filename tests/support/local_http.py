"""The stdlib HTTP server both test servers (GitHub replay, fake GitHub) stand on."""

from __future__ import annotations

import traceback
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class RecordingServer(ThreadingHTTPServer):
    """A threading server that records handler crashes for the test to fail on.

    Client disconnects are normal in tests (timeouts, dropped connections) and stay
    quiet; anything else lands in `errors`, which the owning fixture checks.
    """

    daemon_threads = True

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
