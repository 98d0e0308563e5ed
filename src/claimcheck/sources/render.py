"""Render a page in headless Chromium, every request of it through the guarded proxy.

Some documentation sites build their text with a script: the HTML a plain fetch gets
holds a navigation bar and an empty `<div id="__docusaurus">`, and a quote of the
article is `missing` from it although every reader sees it. For a source set to
`render = "browser"`, the run fetches the page as usual (status, ETag/304, the
plausibility gate), and only a plausible 200 is then loaded here, its rendered DOM
(Chromium's `--dump-dom`: the document as serialised after the load event) judged by
the same gate and stored as the snapshot's HTML, so an offline run needs no browser.

Chromium is started so that it cannot reach anything on its own:

* every request goes through `proxy.GuardedProxy` on 127.0.0.1 (`--proxy-server`),
  loopback included (`--proxy-bypass-list=<-loopback>`: Chromium otherwise skips the
  proxy for loopback), so internal addresses are refused by the same guard and
  allowances as a plain fetch;
* no name resolves in the browser (`--host-resolver-rules`), so nothing it might do
  without the proxy (prefetching, a direct connection) finds an address; WebRTC may use
  proxied UDP only, which an HTTP proxy has none of; QUIC is off;
* no first run, background networking, sync or component updates;
* a fresh profile and home in a temporary folder per source, removed afterwards: no
  cookie, storage or cache passes from one source to the next; the environment holds
  nothing but that home and PATH (no token reaches the browser);
* a hard timeout (the fetch timeout) after which the whole process group is killed.

A missing browser, a crash, a timeout or a page over the byte budget is a
`RenderFailed`, which the run reports as a failed fetch: never stale.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from claimcheck.models import Claim, SourceKind, SourceRef
from claimcheck.sources.addresses import AddressPolicy
from claimcheck.sources.guard import Resolver, resolve_host
from claimcheck.sources.proxy import GuardedProxy

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
"""The names headless Chromium goes by on PATH (Debian's first)."""
INSTALL_HINT = (
    "install headless Chromium (Debian/Ubuntu: apt-get install chromium) so that it is on"
    " PATH, or drop render = browser for this source"
)
MAX_BROWSERS = 4
"""The most headless browsers a run starts at once, whatever `jobs` says: each takes a
few hundred MB while it renders, and a launch already keeps more than one core busy."""
BUDGET_FACTOR = 4
"""A render may receive this many times `max_bytes` in all: the page, its scripts and data."""
TEMP_PREFIX = "claimcheck-render-"
"""The start of every render's temporary folder (profile, home, the dumped DOM)."""

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",  # containers and CI runners have no user namespaces for the sandbox
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-breakpad",
    "--disable-domain-reliability",
    "--metrics-recording-only",
    "--safebrowsing-disable-auto-update",
    "--disable-quic",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--mute-audio",
)


@dataclass(frozen=True)
class Rendered:
    """The DOM Chromium serialised after the page loaded, and what its proxy refused."""

    url: str
    dom: bytes
    refused: tuple[str, ...]
    seconds: float


@dataclass(frozen=True)
class RenderFailed:
    """No rendered page: `reason` says what happened, `hint` what to do."""

    url: str
    reason: str
    hint: str


RenderOutcome = Rendered | RenderFailed


def find_browser() -> str | None:
    """The first headless Chromium on PATH, or None."""
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


def render_page(
    url: str,
    *,
    policy: AddressPolicy,
    timeout: float,
    max_bytes: int,
    resolver: Resolver = resolve_host,
    browser: str | None = None,
) -> RenderOutcome:
    """Load `url` in a fresh headless Chromium behind the guarded proxy; its DOM or why not."""
    binary = browser or find_browser()
    if binary is None:
        return RenderFailed(url, "no headless Chromium to render the page with", INSTALL_HINT)
    started = time.monotonic()
    folder = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
    try:
        with GuardedProxy(policy, max_bytes=max_bytes * BUDGET_FACTOR, resolver=resolver) as proxy:
            outcome = _run_browser(binary, url, folder, proxy.port, timeout)
            log = proxy.log
        if isinstance(outcome, RenderFailed):
            return outcome
        if log.over_budget:
            return RenderFailed(
                url,
                f"the page and what it loads passed {max_bytes * BUDGET_FACTOR:,} bytes",
                "check that the URL is a page, not an application; or raise max_bytes",
            )
        dom = outcome
        if len(dom) > max_bytes:
            return RenderFailed(
                url,
                f"rendered page larger than {max_bytes} bytes",
                "check that the URL is a page, or raise max_bytes",
            )
        return Rendered(url, dom, tuple(log.refused), round(time.monotonic() - started, 3))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run_browser(
    binary: str, url: str, folder: Path, port: int, timeout: float
) -> bytes | RenderFailed:
    """Run Chromium once with `--dump-dom`, in its own process group, killed at `timeout`."""
    home = folder / "home"
    home.mkdir()
    dumped = folder / "dom.html"
    command = [
        binary,
        *CHROMIUM_FLAGS,
        f"--proxy-server=http://127.0.0.1:{port}",
        f"--user-data-dir={folder / 'profile'}",
        "--dump-dom",
        url,
    ]
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "TMPDIR": str(folder),
    }
    with dumped.open("wb") as out:
        try:
            process = subprocess.Popen(  # noqa: S603 - a fixed argument list, no shell
                command,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.DEVNULL,
                env=env,
                start_new_session=True,  # its own process group: killed as one
            )
        except OSError as exc:
            return RenderFailed(url, f"cannot start {binary}: {exc.strerror}", INSTALL_HINT)
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            return RenderFailed(
                url,
                f"the browser did not finish loading the page in {timeout:g} s",
                "the page never finishes loading; raise [fetch] timeout, or drop render = "
                "browser for this source",
            )
        finally:
            _kill_group(process)
    if code != 0:
        return RenderFailed(
            url,
            f"the browser exited with status {code} while rendering",
            "run again; if it persists, check that headless Chromium starts on this machine",
        )
    return dumped.read_bytes()


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the browser's whole process group (renderers, GPU and zygote helpers) and reap it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=10)


RENDER_MODES = ("browser", "plain")
"""How a web page is read: rendered in headless Chromium, or its HTML as served."""


def rendered_sources(
    claims: Sequence[Claim], refs: Mapping[str, SourceRef], hosts: Mapping[str, str]
) -> frozenset[str]:
    """The source URLs to render: a claim's (or part's) `render` wins over its host's
    `[fetch] render` entry (by `host:port`, then host); a source that one claim asks to
    render is rendered for all that cite it. Only web pages are: GitHub and Hugging
    Face sources are read as Markdown through their APIs.
    """
    asked: dict[str, bool] = {}
    for claim in claims:
        for view in claim.views():
            if view.source is not None and view.render is not None:
                asked[view.source] = asked.get(view.source, False) or view.render == "browser"
    wanted: set[str] = set()
    for url, ref in refs.items():
        if ref.kind is not SourceKind.WEB:
            continue
        if asked.get(url, _host_mode(ref.url, hosts) == "browser"):
            wanted.add(url)
    return frozenset(wanted)


def _host_mode(url: str, hosts: Mapping[str, str]) -> str | None:
    """The `[fetch] render` entry for a URL's `host:port` or host, if any."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    table = {name.lower(): mode for name, mode in hosts.items()}
    if port is not None and f"{host}:{port}" in table:
        return table[f"{host}:{port}"]
    return table.get(host)


RENDERED_ORIGIN = "render"
"""A rendered snapshot's `origin`: the next run asks again unconditionally when a source
switches between rendered and plain, so a 304 never keeps a body read the other way."""
