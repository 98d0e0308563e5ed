"""One headless Chromium kept for many pages, driven over its DevTools pipe.

Starting Chromium is most of what a render costs: about a second of wall and CPU time
a page, where loading the page in a browser already running takes a fraction of it.
So a run keeps one browser per rendering thread (`render.Renderer`) and loads each page
in a browser context of its own, made for that page and disposed of after it: a
context is Chromium's incognito profile, with its own cookies, storage, cache and
service workers, so no page sees what another left, as when each had its own browser.

The browser is driven over `--remote-debugging-pipe` (the DevTools protocol as
NUL-separated JSON on file descriptors 3 and 4), not a debugging port: nothing listens
on a socket another local process could connect to, and no WebSocket library is needed.
Every request of a page goes through the guarded proxy its context is given; the
browser's own (`--proxy-server`) is one more guarded proxy, for anything outside the
pages' contexts. Where the machine allows it the browser starts in a network namespace
of its own that holds only loopback and the proxies' sockets (`netns.Isolation`).
Before any script of a page runs, `NO_WEBRTC` removes WebRTC from it. The rest of
Chromium's confinement is `render.CHROMIUM_FLAGS`.

A page's `Loaded` says what the browser itself got for the page's document (its
status, and the proxy's refusal when the proxy answered for the site): a server may
answer a headless browser otherwise than the plain fetch.

Pure plumbing: what the page's DOM means is the caller's business. A browser that
does not answer in time, stops, or answers what is not the protocol is killed with its
whole process group, and with every process that names its folder (its crash handlers
leave the group), and its folder removed; the next page starts another.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from claimcheck.render.netns import Isolation
from claimcheck.render.processes import kill_naming, reap_group, remove_left_folders
from claimcheck.render.proxy import PROXY_USER, REFUSED_HEADER

_SERIALISED = (10, 1)
"""The document's children that `--dump-dom` writes: its doctype and its root element."""
QUIT_SECONDS = 5.0
"""How long a browser may take to close a page's context or to exit once told."""
_READ = 1 << 20
_MESSAGE_SLACK = 1 << 20
"""A protocol message may take twice the page's `max_bytes` (JSON escapes), plus this:
past it the page is too large, and is not read into memory to be refused after."""
_WEBRTC_NAMES = (
    "RTCPeerConnection",
    "webkitRTCPeerConnection",
    "RTCDataChannel",
    "RTCDataChannelEvent",
    "RTCIceCandidate",
    "RTCIceTransport",
    "RTCDtlsTransport",
    "RTCSctpTransport",
    "RTCSessionDescription",
    "RTCRtpSender",
    "RTCRtpReceiver",
    "RTCRtpTransceiver",
    "RTCCertificate",
    "RTCPeerConnectionIceEvent",
    "RTCPeerConnectionIceErrorEvent",
    "RTCTrackEvent",
    "RTCDTMFSender",
    "RTCRtpScriptTransform",
    "RTCEncodedAudioFrame",
    "RTCEncodedVideoFrame",
    "RTCError",
    "RTCErrorEvent",
    "RTCStatsReport",
)
NO_WEBRTC = (
    "(() => { for (const name of "
    + orjson.dumps(list(_WEBRTC_NAMES)).decode()
    + ") { try { delete globalThis[name]; } catch (e) {} } })();"
)
"""A script run in every document of a page (its frames included) before the page's
own: it removes WebRTC, whose connections (STUN, TURN, its UDP) go around any HTTP
proxy. Chromium has no switch that turns WebRTC off; its IP-handling policy
(`render.CHROMIUM_FLAGS`) does not stop a page's own ICE servers."""


@dataclass(frozen=True)
class Loaded:
    """A loaded page: its DOM as `--dump-dom` writes it, the HTTP status the browser
    got for its document (None: the browser told none, as for a page it did not ask a
    server for), and the guarded proxy's reason when that answer was the proxy's
    refusal, not the site's."""

    dom: bytes
    status: int | None
    refused: str | None


class BrowserError(Exception):
    """The browser could not be started, stopped, or did not answer in time; `hint`
    says what to do."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


class LoadTimeoutError(BrowserError):
    """The page did not finish loading (its load event did not fire) in time."""


class PageTooLargeError(BrowserError):
    """The browser's answer passed what a page within `max_bytes` can take."""


class Browser:
    """A headless Chromium, started at the first `load` and stopped by `close`.

    `binary`: Chromium's path (None: there is none, and `load` says so, with
    `missing_hint`); `proxy_port`: the guarded proxy of the browser itself, which must
    outlive it; `temp_prefix`: the start of the name of its folder (profile, home);
    `isolation`: the network namespace to start it in (the proxies listen in it too).
    """

    def __init__(
        self,
        binary: str | None,
        *,
        flags: Sequence[str],
        proxy_port: int,
        temp_prefix: str,
        missing_hint: str,
        isolation: Isolation | None = None,
    ) -> None:
        self._binary = binary
        self._isolation = isolation or Isolation()
        self._documents: dict[tuple[str, str], tuple[int, str | None]] = {}
        self._credential: str | None = None  # the page's proxy's, while it loads
        self._flags = tuple(flags)
        self._proxy_port = proxy_port
        self._temp_prefix = temp_prefix
        self._missing_hint = missing_hint
        self._pid: int | None = None
        self._folder: Path | None = None
        self._to: int | None = None  # we write the browser's fd 3
        self._from: int | None = None  # we read the browser's fd 4
        self._buffer = bytearray()
        self._scanned = 0  # how much of the buffer holds no message's end
        self._largest = _MESSAGE_SLACK  # the most bytes a message may take
        self._last_id = 0

    @property
    def running(self) -> bool:
        return self._pid is not None

    def load(
        self,
        url: str,
        proxy_port: int,
        timeout: float,
        max_bytes: int,
        credential: str | None = None,
    ) -> Loaded:
        """The page `url` once it loaded, in a new context whose requests all go
        through the proxy on `proxy_port`, given `credential` when it asks for one.
        Raises `LoadTimeoutError` when the page does not load in `timeout` seconds,
        `BrowserError` when the browser fails or the DOM passes about twice `max_bytes`
        (`PageTooLargeError`; the caller holds it to `max_bytes`); after either the
        browser is stopped (the next `load` starts another)."""
        deadline = time.monotonic() + timeout
        self._largest = 2 * max_bytes + _MESSAGE_SLACK
        self._credential = credential
        try:
            context = self._new_context(proxy_port, deadline)
            try:
                return self._load_in(context, url, deadline)
            finally:
                self._dispose(context)
        except BrowserError:
            self.close()
            raise

    def _dispose(self, context: str) -> None:
        """Drop a page's context, whatever became of the page; a browser that cannot
        is not kept (the page, if it loaded, still is)."""
        if not self.running:
            return
        try:
            self._call(
                "Target.disposeBrowserContext",
                {"browserContextId": context},
                deadline=time.monotonic() + QUIT_SECONDS,
            )
        except BrowserError:
            self.close()

    def _new_context(self, proxy_port: int, deadline: float) -> str:
        """A new browser context behind the proxy on `proxy_port`. A kept browser that
        fails to make one (it crashed since the last page) is started again, once."""
        kept = self.running
        while True:
            try:
                if self._pid is None:
                    self._start()
                found = self._call(
                    "Target.createBrowserContext",
                    {
                        "disposeOnDetach": True,
                        "proxyServer": f"http://127.0.0.1:{proxy_port}",
                        "proxyBypassList": "<-loopback>",
                    },
                    deadline=deadline,
                )
            except LoadTimeoutError:
                raise
            except BrowserError:
                if not kept:
                    raise
                kept = False
                self.close()
                continue
            return _named(found, "browserContextId")

    def _load_in(self, context: str, url: str, deadline: float) -> Loaded:
        target = _named(
            self._call(
                "Target.createTarget",
                {"url": "about:blank", "browserContextId": context},
                deadline=deadline,
            ),
            "targetId",
        )
        session = _named(
            self._call(
                "Target.attachToTarget", {"targetId": target, "flatten": True}, deadline=deadline
            ),
            "sessionId",
        )
        self._call("Page.enable", {}, session=session, deadline=deadline)
        self._call(
            "Page.addScriptToEvaluateOnNewDocument",
            {"source": NO_WEBRTC},
            session=session,
            deadline=deadline,
        )
        self._call("Network.enable", {}, session=session, deadline=deadline)
        if self._credential is not None:
            # Every request of the page is held until `_note` lets it go, so that the
            # browser answers the proxy's 407 with its credential (`Fetch.authRequired`).
            self._call(
                "Fetch.enable",
                {"handleAuthRequests": True, "patterns": [{"urlPattern": "*"}]},
                session=session,
                deadline=deadline,
            )
        self._call(
            "Page.setLifecycleEventsEnabled", {"enabled": True}, session=session, deadline=deadline
        )
        self._documents.clear()
        navigated = self._call("Page.navigate", {"url": url}, session=session, deadline=deadline)
        if navigated.get("errorText"):
            raise BrowserError(f"the browser could not load the page: {navigated['errorText']}")
        loader = navigated.get("loaderId")
        self._loaded(session, loader, deadline)
        dom = self._document(session, deadline)
        status, refused = self._documents.get((session, str(loader)), (None, None))
        self._documents.clear()
        return Loaded(dom, status, refused)

    def _note(self, message: dict[str, Any]) -> None:
        """Act on the events that pass: let each held request go on, give the proxy its
        credential when it asks (nothing to any other asker), and keep the status (and
        the proxy's refusal) of each document's answer, by session and navigation."""
        method = message.get("method")
        event = message.get("params")
        session = message.get("sessionId")
        if method in ("Fetch.requestPaused", "Fetch.authRequired"):
            self._let_go(str(method), event, session)
            return
        if method != "Network.responseReceived":
            return
        if not isinstance(event, dict) or event.get("type") != "Document":
            return
        response = event.get("response")
        loader = event.get("loaderId")
        if not isinstance(response, dict) or not isinstance(session, str):
            return
        status = response.get("status")
        headers = response.get("headers")
        refused = None
        if isinstance(headers, dict):
            for name, value in headers.items():
                if str(name).lower() == REFUSED_HEADER:
                    refused = str(value)[:500]
        # The page's own frame's document only: a frame's document has a loader of its
        # own, and only the first answer of a navigation is kept.
        key = (session, str(loader))
        if isinstance(status, int) and key not in self._documents:
            self._documents[key] = (status, refused)

    def _document(self, session: str, deadline: float) -> bytes:
        """The loaded document as `--dump-dom` writes it: the doctype and the root
        element, each on a line of its own. Serialised by the browser itself
        (`DOM.getOuterHTML`), not by a script in the page, whose own scripts could have
        redefined what a serialising script calls."""
        found = self._call("DOM.getDocument", {"depth": 1}, session=session, deadline=deadline)
        root = found.get("root")
        children = root.get("children") if isinstance(root, dict) else None
        parts = []
        for child in children if isinstance(children, list) else []:
            if isinstance(child, dict) and child.get("nodeType") in _SERIALISED:
                node = self._call(
                    "DOM.getOuterHTML",
                    {"nodeId": child.get("nodeId")},
                    session=session,
                    deadline=deadline,
                )
                parts.append(_named(node, "outerHTML"))
        if not parts:
            raise BrowserError("the browser gave no document for the page")
        return ("\n".join(parts) + "\n").encode("utf-8", "surrogatepass")

    def close(self) -> None:
        """Kill the browser's process group and whatever it started outside the group,
        reap it and remove its folder."""
        for fd in (self._to, self._from):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._to = self._from = None
        pid, self._pid = self._pid, None
        end = time.monotonic() + QUIT_SECONDS
        if pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            reap_group(pid, end)
        if self._folder is not None:
            kill_naming(self._folder, end)
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
        self._buffer.clear()
        self._scanned = 0

    def _start(self) -> None:
        if self._binary is None:
            raise BrowserError("no headless Chromium to render the page with", self._missing_hint)
        remove_left_folders(self._temp_prefix)
        # Named with this process's id, so that a later run knows when it is left over.
        folder = Path(tempfile.mkdtemp(prefix=f"{self._temp_prefix}{os.getpid()}-"))
        self._folder = folder
        home = folder / "home"
        home.mkdir()
        command = [
            self._binary,
            *self._flags,
            f"--proxy-server=http://127.0.0.1:{self._proxy_port}",
            f"--user-data-dir={folder / 'profile'}",
            "--remote-debugging-pipe",
            "about:blank",
        ]
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "TMPDIR": str(folder),
        }
        to_read, to_write = os.pipe()
        from_read, from_write = os.pipe()
        devnull = os.open(os.devnull, os.O_RDWR)
        binary = self._binary
        try:
            self._pid = self._isolation.spawn(
                lambda: os.posix_spawn(
                    binary,
                    command,
                    env,
                    file_actions=[
                        (os.POSIX_SPAWN_DUP2, devnull, 0),
                        (os.POSIX_SPAWN_DUP2, devnull, 1),
                        (os.POSIX_SPAWN_DUP2, devnull, 2),
                        (os.POSIX_SPAWN_DUP2, to_read, 3),
                        (os.POSIX_SPAWN_DUP2, from_write, 4),
                    ],
                    setsid=True,  # its own process group: killed as one
                )
            )
        except OSError as exc:
            os.close(to_write)
            os.close(from_read)
            raise BrowserError(
                f"cannot start {self._binary}: {exc.strerror}", self._missing_hint
            ) from exc
        finally:
            for fd in (devnull, to_read, from_write):
                os.close(fd)
        self._to, self._from = to_write, from_read
        os.set_blocking(from_read, False)

    def _call(
        self,
        method: str,
        params: dict[str, Any],
        *,
        deadline: float,
        session: str | None = None,
    ) -> dict[str, Any]:
        """Send a command and return its result; events met meanwhile are dropped."""
        self._last_id += 1
        asked = self._last_id
        message: dict[str, Any] = {"id": asked, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        self._send(orjson.dumps(message) + b"\0")
        while True:
            answer = self._receive(deadline)
            if answer.get("id") != asked:
                continue
            if "error" in answer:
                raise BrowserError(f"the browser refused {method}: {_said(answer['error'])}")
            result = answer.get("result")
            return result if isinstance(result, dict) else {}

    def _loaded(self, session: str, loader: object, deadline: float) -> None:
        """Wait for the load event of the navigation `loader` (its document, not the
        blank one the page was opened on, whose own load may come after); any load of
        the session's when the navigation named none. `LoadTimeoutError` at the
        deadline."""
        while True:
            found = self._receive(deadline)
            if found.get("method") != "Page.lifecycleEvent" or found.get("sessionId") != session:
                continue
            event = found.get("params")
            if not isinstance(event, dict) or event.get("name") != "load":
                continue
            if loader is None or event.get("loaderId") == loader:
                return

    def _let_go(self, method: str, event: object, session: object) -> None:
        """Answer a held request (`Fetch` domain) without waiting for the reply: go on,
        or, asked for a credential, the proxy's own to the proxy and none to a site."""
        if not isinstance(event, dict) or not isinstance(session, str):
            return
        request = event.get("requestId")
        params: dict[str, Any] = {"requestId": request}
        if method == "Fetch.requestPaused":
            command = "Fetch.continueRequest"
        else:
            command = "Fetch.continueWithAuth"
            challenge = event.get("authChallenge")
            from_proxy = isinstance(challenge, dict) and challenge.get("source") == "Proxy"
            if from_proxy and self._credential is not None:
                params["authChallengeResponse"] = {
                    "response": "ProvideCredentials",
                    "username": PROXY_USER,
                    "password": self._credential,
                }
            else:
                params["authChallengeResponse"] = {"response": "CancelAuth"}
        self._last_id += 1
        message = {"id": self._last_id, "method": command, "params": params, "sessionId": session}
        self._send(orjson.dumps(message) + b"\0")

    def _send(self, data: bytes) -> None:
        if self._to is None:
            raise BrowserError("the browser is not running")
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._to, view) :]
        except OSError as exc:
            raise _stopped(exc) from exc

    def _receive(self, deadline: float) -> dict[str, Any]:
        """The next protocol message; `LoadTimeoutError` at the deadline."""
        while True:
            end = self._buffer.find(b"\0", self._scanned)
            if end < 0:
                self._scanned = len(self._buffer)
            else:
                raw = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                self._scanned = 0
                try:
                    message = orjson.loads(raw)
                except orjson.JSONDecodeError as exc:
                    raise BrowserError("the browser answered what is not the protocol") from exc
                if isinstance(message, dict):
                    self._note(message)
                    return message
                continue
            if self._from is None:
                raise BrowserError("the browser is not running")
            left = deadline - time.monotonic()
            if left <= 0:
                raise LoadTimeoutError("the page did not finish loading in time")
            waiting = select.poll()  # not select(): any descriptor number
            waiting.register(self._from, select.POLLIN)
            if not waiting.poll(left * 1000):
                continue
            try:
                chunk = os.read(self._from, _READ)
            except BlockingIOError:
                continue
            except OSError as exc:
                raise _stopped(exc) from exc
            if not chunk:
                raise _stopped(None)
            if len(self._buffer) + len(chunk) > self._largest:
                raise PageTooLargeError("the browser's answer passed its limit")
            self._buffer += chunk


def _stopped(exc: OSError | None) -> BrowserError:
    """The browser went away, in the same words whichever end of the pipe saw it first.

    A browser that exits at once is seen by the next write (a broken pipe) or the next
    read (end of file) depending on timing alone; what happened is the same.
    """
    if exc is None or isinstance(exc, (BrokenPipeError, ConnectionResetError)):
        return BrowserError("the browser stopped while rendering")
    return BrowserError(f"the browser stopped while rendering: {exc.strerror}")


def _named(result: dict[str, Any], name: str) -> str:
    """The text `name` of a command's result; a `BrowserError` when it has none."""
    found = result.get(name)
    if not isinstance(found, str):
        raise BrowserError(f"the browser's answer has no {name}")
    return found


def _said(error: object) -> str:
    """A protocol error's message (Chromium's own words, never the page's)."""
    if isinstance(error, dict):
        return str(error.get("message", "an error"))[:200]
    return "an error"
