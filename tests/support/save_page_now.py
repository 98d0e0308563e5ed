"""A Save Page Now server on 127.0.0.1, written from the Internet Archive's published
description of its SPN2 API ("Save Page Now 2 Public API Docs"), for `claimcheck archive`.

Reproduced:

- `POST /save`, a form (`url`, and options such as `skip_first_archive`,
  `if_not_archived_within`), `Accept: application/json`, keys as
  `Authorization: LOW ACCESS:SECRET`. Answers `{"url": ..., "job_id": "spn2-..."}`. Wrong
  or missing keys: 401 with `{"status": "error", "status_ext": "error:unauthorized",
  "message": ...}`.
- `GET /save/status/{job_id}`: `{"status": "pending", "job_id": ..., "resources": [...]}`
  for the first `pending_polls` looks, then `{"status": "success", "job_id": ...,
  "original_url": ..., "timestamp": "YYYYMMDDhhmmss", "duration_sec": ...}`; or
  `{"status": "error", "status_ext": ..., "message": ...}` for a URL told to fail.
- `GET /save/status/user`: `{"available": N, "processing": M}`.
- 429 "You have already reached the limit of active sessions" with `Retry-After`, for
  the first `busy` submissions; the daily limit as `status_ext`
  `error:too-many-daily-captures` once `daily_left` captures were made.

Every request is recorded (method, path, form, headers) for the test to read.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs

from support.local_http import RecordingServer, running, send_answer

KEYS = "test-access:test-secret"
"""The keys the server accepts (WAYBACK_KEYS)."""
STAMP = "20261206101500"
"""The timestamp of every capture it makes."""


@dataclass
class Seen:
    """One request the server answered."""

    method: str
    path: str
    form: dict[str, str]
    headers: dict[str, str]
    """Lower-cased names."""


@dataclass
class SavePageNowState:
    """What the server does, set by the test, and what it saw."""

    pending_polls: int = 1
    available: int | None = 5
    busy: int = 0
    retry_after: str = "0"
    daily_left: int | None = None
    failing: dict[str, tuple[str, str]] = field(default_factory=dict)
    """URL → (status_ext, message) of a capture that ends in an error."""
    recent: set[str] = field(default_factory=set)
    """URLs captured recently: the submission starts no job, with a message."""
    seen: list[Seen] = field(default_factory=list)
    jobs: dict[str, tuple[str, int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def submitted(self) -> list[str]:
        """The URLs submitted for capture, in order."""
        return [s.form.get("url", "") for s in self.seen if s.method == "POST"]


def _handler(state: SavePageNowState) -> type[BaseHTTPRequestHandler]:
    counter = itertools.count(1)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _json(self, status: int, document: object, **headers: str) -> None:
            body = json.dumps(document).encode()
            send_answer(self, status, {"Content-Type": "application/json", **headers}, body)

        def _record(self, form: dict[str, str]) -> None:
            with state.lock:
                headers = {name.lower(): value for name, value in self.headers.items()}
                state.seen.append(Seen(self.command, self.path, form, headers))

        def _authorized(self) -> bool:
            if self.headers.get("Authorization") == f"LOW {KEYS}":
                return True
            self._json(
                401,
                {
                    "status": "error",
                    "status_ext": "error:unauthorized",
                    "message": "You need to be logged in to use Save Page Now.",
                },
            )
            return False

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode()
            form = {k: v[0] for k, v in parse_qs(raw).items()}
            self._record(form)
            if self.path != "/save":
                self._json(404, {"message": "Not Found"})
                return
            if not self._authorized():
                return
            url = form.get("url", "")
            with state.lock:
                if state.busy > 0:
                    state.busy -= 1
                    self._json(
                        429,
                        {
                            "status": "error",
                            "status_ext": "error:user-session-limit",
                            "message": "You have already reached the limit of active sessions.",
                        },
                        **{"Retry-After": state.retry_after},
                    )
                    return
                if state.daily_left is not None:
                    if state.daily_left <= 0:
                        self._json(
                            429,
                            {
                                "status": "error",
                                "status_ext": "error:too-many-daily-captures",
                                "message": "This URL has been captured 10 times today.",
                            },
                        )
                        return
                    state.daily_left -= 1
                if url in state.recent:
                    self._json(
                        200,
                        {
                            "url": url,
                            "job_id": None,
                            "message": "The same snapshot had been made 12 minutes ago.",
                        },
                    )
                    return
                job = f"spn2-{next(counter):040x}"
                state.jobs[job] = (url, 0)
            self._json(200, {"url": url, "job_id": job})

        def do_GET(self) -> None:
            self._record({})
            if self.path == "/save/status/user":
                if not self._authorized():
                    return
                if state.available is None:
                    self._json(404, {"message": "Not Found"})
                else:
                    self._json(200, {"available": state.available, "processing": 0})
                return
            if not self.path.startswith("/save/status/"):
                self._json(404, {"message": "Not Found"})
                return
            job = self.path.removeprefix("/save/status/")
            with state.lock:
                known = state.jobs.get(job)
                if known is None:
                    self._json(404, {"status": "error", "message": "Job not found."})
                    return
                url, looks = known
                state.jobs[job] = (url, looks + 1)
            if looks < state.pending_polls:
                self._json(200, {"status": "pending", "job_id": job, "resources": [url]})
            elif url in state.failing:
                status_ext, message = state.failing[url]
                self._json(
                    200,
                    {
                        "status": "error",
                        "status_ext": status_ext,
                        "job_id": job,
                        "message": message,
                    },
                )
            else:
                self._json(
                    200,
                    {
                        "status": "success",
                        "job_id": job,
                        "original_url": url,
                        "timestamp": STAMP,
                        "duration_sec": 3.2,
                        "resources": [url],
                    },
                )

    return Handler


@contextmanager
def save_page_now() -> Iterator[tuple[str, SavePageNowState]]:
    """A Save Page Now server on 127.0.0.1: its base URL (as `wayback_url`) and state."""
    state = SavePageNowState()
    server = RecordingServer(("127.0.0.1", 0), _handler(state), [])
    with running(server):
        yield f"http://127.0.0.1:{server.server_address[1]}", state
