"""The stdlib HTTP server both test servers (GitHub replay, fake GitHub) stand on."""

from __future__ import annotations

import traceback
from http.server import ThreadingHTTPServer
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
