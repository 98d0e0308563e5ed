"""Render a page in headless Chromium, every request of it through the guarded proxy.

Some documentation sites build their text with a script: the HTML a plain fetch gets
holds a navigation bar and an empty `<div id="__docusaurus">`, and a quote of the
article is `missing` from it although every reader sees it. For a source set to
`render = "browser"`, the run fetches the page as usual (status, ETag/304, the
plausibility gate), and only a plausible 200 is then loaded here, its rendered DOM
(the document as serialised after the load event, as `--dump-dom` writes it) judged
by the same gate and stored as the snapshot's HTML, so an offline run needs no browser.
What the browser itself got decides: a document answered with anything but a 200, or
answered by the proxy's refusal, is not the page (`Rendered.status`, `.refused_page`).

Chromium is started so that it cannot reach anything on its own:

* every request goes through a `proxy.GuardedProxy` on 127.0.0.1 (the page's own,
  and `--proxy-server` for the browser's), loopback included (the bypass list
  `<-loopback>`: Chromium otherwise skips the proxy for loopback), so internal
  addresses are refused by the same guard and allowances as a plain fetch;
* where the machine allows it (`CAP_SYS_ADMIN`), the browsers run in a network
  namespace of their own holding only loopback, where the proxies listen: no packet of
  a page goes anywhere but to them, and no other local process reaches the proxies
  (`netns`). Where it does not, `Renderer.isolation.refusal` says why, and the rest of
  this list holds alone;
* WebRTC, which goes around any HTTP proxy (STUN and TURN over UDP to servers a page
  names), is removed from every document before its scripts run
  (`browser.NO_WEBRTC`), may use proxied UDP only (none), and hides no address behind
  mDNS; frames stay in the page's process, so the removal reaches them;
* no name resolves in the browser (`--host-resolver-rules`), so nothing it might do
  without the proxy (prefetching, a direct connection) finds an address; QUIC is off;
* no first run, background networking, sync or component updates;
* each page in a browser context of its own, disposed of after it (Chromium's
  incognito profile): no cookie, storage, cache or service worker passes from one
  source to the next; a browser is kept from page to page (`Renderer`, one per
  rendering thread), since its launch was most of a render's cost;
* each browser's profile and home in a temporary folder, removed when it stops (or, if
  the run was killed, by the next run's first browser); the environment holds nothing
  but that home and PATH (no token reaches the browser);
* a hard timeout (the fetch timeout), after which the browser is killed with its
  whole process group; the next page starts another.

A missing browser, a crash, a timeout or a page over the byte budget is a
`RenderFailed`, which the run reports as a failed fetch: never stale.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from claimcheck.judge.answer import Answer, Expect, Plausibility, Previous, Suspect, Suspicion
from claimcheck.judge.plausible import judge_answer
from claimcheck.models import Claim, MediaType, SourceKind, SourceRef
from claimcheck.net.addresses import AddressPolicy
from claimcheck.net.guard import Resolver, resolve_host
from claimcheck.render.browser import (
    Browser,
    BrowserError,
    LoadTimeoutError,
    PageTooLargeError,
)
from claimcheck.render.netns import Isolation
from claimcheck.render.proxy import GuardedProxy

_log = logging.getLogger("claimcheck.render")
"""Whether the browsers got a network namespace of their own, and why not (`-v`)."""

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
"""The start of every browser's temporary folder (its profile and home)."""

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
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--enforce-webrtc-ip-permission-check",
    "--disable-features=WebRtcHideLocalIpsWithMdns,IsolateOrigins,site-per-process,"
    "MediaRouter,DialMediaRouteProvider",
    "--disable-site-isolation-trials",
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--mute-audio",
)


@dataclass(frozen=True)
class Rendered:
    """The DOM Chromium serialised after the page loaded, what its proxy refused, the
    HTTP status the browser got for the page's document (None: it told none), and the
    proxy's reason when that document was the proxy's own refusal."""

    url: str
    dom: bytes
    refused: tuple[str, ...]
    seconds: float
    status: int | None = 200
    refused_page: str | None = None


@dataclass(frozen=True)
class RenderFailed:
    """No rendered page: `reason` says what happened, `hint` what to do."""

    url: str
    reason: str
    hint: str


RenderOutcome = Rendered | RenderFailed


def browsers_to_use(workers: int) -> int:
    """Browsers to render with side by side when a run may start `workers` workers: one
    for every two, at least one, at most `MAX_BROWSERS`. A kept browser loads a page in
    three processes or more (browser, renderer, GPU): on two cores, two browsers made
    eight pages ×1.4–1.6 slower than one (`bench/bench_render.py --run`)."""
    return max(1, min(MAX_BROWSERS, workers // 2))


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
    using: Browser | None = None,
    isolation: Isolation | None = None,
    isolate: bool = True,
) -> RenderOutcome:
    """Load `url` in headless Chromium, behind a guarded proxy of its own; its DOM or why not.

    `using`: a browser kept for many pages (`Renderer`), the page loaded in a fresh
    context of it, its proxy listening in the browser's `isolation`; without, a browser
    (`browser`, else the first on PATH) is started for this page alone and stopped
    after it, in a network namespace of its own unless `isolate` is False.
    """
    if using is None:
        with Renderer(
            policy=policy,
            timeout=timeout,
            max_bytes=max_bytes,
            resolver=resolver,
            binary=browser,
            isolate=isolate,
        ) as alone:
            return alone.render(url)
    started = time.monotonic()
    budget = max_bytes * BUDGET_FACTOR
    listener = isolation.listener() if isolation is not None else None
    with GuardedProxy(policy, max_bytes=budget, resolver=resolver, listener=listener) as proxy:
        try:
            loaded = using.load(url, proxy.port, timeout, max_bytes, proxy.credential)
        except LoadTimeoutError:
            return RenderFailed(
                url,
                f"the browser did not finish loading the page in {timeout:g} s",
                "the page never finishes loading; raise [fetch] timeout, or drop render = "
                "browser for this source",
            )
        except PageTooLargeError:
            return _too_large(url, max_bytes)
        except BrowserError as exc:
            return RenderFailed(url, str(exc), exc.hint or _AGAIN_HINT)
        log = proxy.log
    if log.over_budget:
        return RenderFailed(
            url,
            f"the page and what it loads passed {budget:,} bytes",
            "check that the URL is a page, not an application; or raise max_bytes",
        )
    if len(loaded.dom) > max_bytes:
        return _too_large(url, max_bytes)
    return Rendered(
        url,
        loaded.dom,
        tuple(log.refused),
        round(time.monotonic() - started, 3),
        status=loaded.status,
        refused_page=loaded.refused,
    )


RENDERED_TYPE = "text/html; charset=utf-8"
"""The media type of a rendered page: Chromium serialises its DOM as UTF-8 HTML."""


def judge_rendered(
    page: Rendered, url: str, final_url: str, previous: Previous | None
) -> Plausibility:
    """The plausibility gate on what the browser got: the page's DOM judged with the
    status the browser itself got for the document, as a fetched answer is. A document
    the proxy answered for (a refusal of the page's address or of a redirect's), or
    one the browser told no status of, is not the page whatever its DOM says.

    `url` and `final_url` are the plain fetch's; `previous` the stored rendered version.
    """
    if page.refused_page is not None:
        return Suspect(
            Suspicion.STATUS,
            f"the render proxy refused the page's own address in the browser: {page.refused_page}",
        )
    if page.status is None:
        return Suspect(Suspicion.STATUS, "the browser got no HTTP answer for the page")
    answer = Answer(page.status, {"content-type": RENDERED_TYPE}, page.dom, url, final_url)
    return judge_answer(answer, Expect.PAGE, MediaType.HTML, previous)


def _too_large(url: str, max_bytes: int) -> RenderFailed:
    """A rendered page past `max_bytes`, whether the browser's answer was cut off as it
    came (far past it) or read whole."""
    return RenderFailed(
        url,
        f"rendered page larger than {max_bytes} bytes",
        "check that the URL is a page, or raise max_bytes",
    )


_AGAIN_HINT = "run again; if it persists, check that headless Chromium starts on this machine"


class Renderer:
    """Renders pages with one browser per thread that renders, kept from page to page.

    Each thread's browser is started at its first page and every page is loaded in a
    context of its own (`render.browser`), so a run of many pages pays one launch a
    thread, not one a page. The browsers' own guarded proxy is the renderer's; each
    page has its own too, with the page's budget. Unless `isolate` is False, the
    browsers and their proxies share a network namespace of their own where the machine
    allows one (`isolation`). `close` (or leaving the `with` block) stops every browser
    and removes its folder.
    """

    def __init__(
        self,
        *,
        policy: AddressPolicy,
        timeout: float,
        max_bytes: int,
        resolver: Resolver = resolve_host,
        binary: str | None = None,
        isolate: bool = True,
    ) -> None:
        self.isolation = Isolation()
        self._isolate = isolate
        self._policy = policy
        self._timeout = timeout
        self._max_bytes = max_bytes
        self._resolver = resolver
        self._binary = binary or find_browser()
        self._local = threading.local()
        self._lock = threading.Lock()
        self._browsers: list[Browser] = []
        self._proxy: GuardedProxy | None = None
        self._closing = contextlib.ExitStack()  # the browsers' proxy, once started

    def __enter__(self) -> Renderer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def render(self, url: str) -> RenderOutcome:
        """`render_page` of `url` in this thread's browser."""
        return render_page(
            url,
            policy=self._policy,
            timeout=self._timeout,
            max_bytes=self._max_bytes,
            resolver=self._resolver,
            using=self._browser(),
            isolation=self.isolation,
        )

    def close(self) -> None:
        with self._lock:
            browsers, self._browsers = self._browsers, []
            self._proxy = None
        for browser in browsers:
            browser.close()
        self._closing.close()
        self.isolation.close()

    def _browser(self) -> Browser:
        found: Browser | None = getattr(self._local, "browser", None)
        if found is not None:
            return found
        with self._lock:
            if self._proxy is None:
                if self._isolate and not self.isolation.start():
                    _log.info(
                        "rendering in the machine's network, without a namespace of its"
                        " own (%s): the proxy's credential, the flags and the removal of"
                        " WebRTC hold alone",
                        self.isolation.refusal,
                    )
                self._proxy = self._closing.enter_context(
                    GuardedProxy(
                        self._policy,
                        max_bytes=self._max_bytes * BUDGET_FACTOR,
                        resolver=self._resolver,
                        listener=self.isolation.listener(),
                    )
                )
            found = Browser(
                self._binary,
                flags=CHROMIUM_FLAGS,
                proxy_port=self._proxy.port,
                temp_prefix=TEMP_PREFIX,
                missing_hint=INSTALL_HINT,
                isolation=self.isolation,
            )
            self._browsers.append(found)
        self._local.browser = found
        return found


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
