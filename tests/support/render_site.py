"""A site on 127.0.0.1 serving the script-rendered fixture pages, and a forbidden listener.

`RenderSite` serves `tests/data/rendered` (see its README) at `/<name>`, plus what the
pages load: the Docusaurus bundle, a late image (`/slow.png`), an image that never
finishes (`/stall.png`). It records every request with the Cookie header and the user
agent it came with; a page has an ETag, and a request that names it gets a 304.
`Forbidden` is a bare TCP listener that only counts the connections it accepts: a
render must leave it at zero.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from claimcheck.render.browser import Browser
from claimcheck.render.render import TEMP_PREFIX, find_browser
from support import paths
from support.local_http import RecordingServer, send_answer

PAGES = paths.ROOT / "tests" / "data" / "rendered"
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
    b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x03\x00\x08\xfc\x02\xfe\xa7"
    b"\x9a\xa0\xa0\x00\x00\x00\x00IEND\xaeB`\x82"
)


@dataclass(frozen=True)
class Seen:
    """One request the site answered: its path, Cookie header and User-Agent."""

    path: str
    cookie: str | None
    agent: str


class Forbidden:
    """A TCP listener on 127.0.0.1 that counts the connections it accepts (and closes them)."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._socket.getsockname()[1]
        self.accepted = 0
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            self.accepted += 1
            connection.close()

    def close(self) -> None:
        self._socket.close()


class RenderSite(RecordingServer):
    """The fixture pages, with `{FORBIDDEN}` replaced by the forbidden listener's port."""

    def __init__(self, forbidden: int) -> None:
        super().__init__(("127.0.0.1", 0), _Handler, [])
        self.forbidden = forbidden
        self.seen: list[Seen] = []
        self.release = threading.Event()  # the stalled image waits on this

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    @property
    def origin(self) -> str:
        """The allowance that opens this site, and no other port of the host."""
        return f"127.0.0.1:{self.server_address[1]}"

    def url(self, name: str) -> str:
        return f"{self.base_url}/{name}"

    def browser_requests(self, path: str) -> list[Seen]:
        """The requests for `path` that came from the browser, not from the plain fetch."""
        return [s for s in self.seen if s.path == path and "Chrome" in s.agent]


class _Handler(BaseHTTPRequestHandler):
    server: RenderSite

    def log_message(self, *_args: Any) -> None:
        pass

    def do_GET(self) -> None:
        site = self.server
        path = self.path.split("?", 1)[0]
        site.seen.append(Seen(path, self.headers.get("Cookie"), self.headers.get("User-Agent", "")))
        if path == "/assets/js/runtime~main.js":
            self._send(200, "application/javascript", (PAGES / "docusaurus-client.js").read_bytes())
        elif path == "/slow.png":
            time.sleep(1.0)
            self._send(200, "image/png", PNG)
        elif path == "/stall.png":
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.write(PNG[:8])
            self.wfile.flush()
            site.release.wait(60)  # never finishes until the test ends
        elif path.endswith(".html") and (PAGES / path.lstrip("/")).is_file():
            text = (PAGES / path.lstrip("/")).read_text(encoding="utf-8")
            body = text.replace("{FORBIDDEN}", str(site.forbidden)).encode("utf-8")
            tag = f'"{hashlib.sha256(body).hexdigest()[:16]}"'
            if self.headers.get("If-None-Match") == tag:
                self._send(304, "text/html; charset=utf-8", b"", {"ETag": tag})
                return
            extra = {"ETag": tag}
            if "set-" in path:
                extra["Set-Cookie"] = "server_cookie=from-set-state; Path=/; Max-Age=86400"
            self._send(200, "text/html; charset=utf-8", body, extra)
        else:
            self._send(404, "text/plain", b"not found")

    def do_POST(self) -> None:
        """Echo the request's body: the proxy must pass it on before any answer comes."""
        size = int(self.headers.get("Content-Length", "0"))
        self._send(200, "text/plain", b"echo: " + self.rfile.read(size))

    def _send(
        self, status: int, media: str, body: bytes, extra: dict[str, str] | None = None
    ) -> None:
        send_answer(self, status, {"Content-Type": media, **(extra or {})}, body)


@contextmanager
def render_site() -> Iterator[tuple[RenderSite, Forbidden]]:
    """The site and its forbidden neighbour, both running for a `with` block."""
    forbidden = Forbidden()
    site = RenderSite(forbidden.port)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield site, forbidden
    finally:
        site.release.set()
        site.shutdown()
        site.server_close()
        forbidden.close()
        assert site.errors == [], site.errors


def require_browser() -> str:
    """Headless Chromium's path; a skip without it, but a failure in CI (`CI` set), where
    `.ci/run` installs it."""
    found = find_browser()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs it (apt-get install chromium)")
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    return found


def count_launches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that gets a 1 each time a browser starts (the real start runs)."""
    started: list[int] = []
    real = Browser._start

    def counted(self: Browser) -> None:
        real(self)
        started.append(1)

    monkeypatch.setattr(Browser, "_start", counted)
    return started


def render_processes() -> list[str]:
    """Command lines of running processes that belong to a render (by its temp folder)."""
    return list(_render_processes().values())


def kill_render_processes() -> None:
    """Kill every process `render_processes` lists, as a crash would.

    A browser's helper processes exit when it does, so one listed a moment ago
    may be gone by the time it is killed; that is the crash this simulates, not
    an error."""
    for pid in _render_processes():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _render_processes() -> dict[int, str]:
    """The processes whose command line names a render folder under this process's
    temporary folder (each test worker has its own: tests/conftest.py)."""
    mark = str(Path(tempfile.gettempdir()) / TEMP_PREFIX)
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if mark in command:
            found[int(entry.name)] = command
    return found


def render_folders() -> list[Path]:
    """Render folders left in the system's temporary folder (there should be none)."""
    return sorted(Path(tempfile.gettempdir()).glob(f"{TEMP_PREFIX}*"))
