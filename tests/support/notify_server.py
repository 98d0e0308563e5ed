"""A web server on 127.0.0.1 that takes Apprise's `json://` notifications: it keeps
each POST's JSON by path, and answers 500 on the paths a test makes fail."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from support.local_http import RecordingServer, running, send_answer


@dataclass
class Inbox:
    """What the server took: each path's messages (Apprise's JSON: title, message,
    type), and the paths that answer 500."""

    port: int = 0
    received: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    failing: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, path: str) -> str:
        """The Apprise URL that posts to `path` here (`json://` is plain HTTP)."""
        return f"json://127.0.0.1:{self.port}/{path.lstrip('/')}"

    def messages(self, path: str) -> list[dict[str, Any]]:
        """The messages `path` took, oldest first."""
        with self.lock:
            return list(self.received.get("/" + path.lstrip("/"), []))

    def take_all(self) -> dict[str, list[dict[str, Any]]]:
        """Every path's messages since the last call, and forget them."""
        with self.lock:
            taken, self.received = self.received, {}
        return taken


@contextmanager
def notify_inbox() -> Iterator[Inbox]:
    """The inbox server for the block."""
    inbox = Inbox()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            with inbox.lock:
                if self.path in inbox.failing:
                    status = 500
                else:
                    inbox.received.setdefault(self.path, []).append(json.loads(body))
                    status = 200
            send_answer(self, status, {"Content-Type": "application/json"}, b"{}")

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests read the inbox."""

    with running(RecordingServer(("127.0.0.1", 0), Handler, errors=[])) as server:
        inbox.port = server.server_address[1]
        yield inbox
