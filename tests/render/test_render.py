"""Rendering in real headless Chromium behind the guarded proxy, and the proxy on its own.

The browser tests launch Chromium a few times only (each launch costs about a second):
a Docusaurus-shaped page whose article a script writes, and a page whose script tries
to reach a loopback port that is not allowed, 169.254.169.254 and a name that resolves
to loopback. The oracle for "nothing reached" is a listener that counts the
connections it accepts, not the proxy's own word.

A missing browser is a `RenderFailed` naming what to install; in CI (`CI` set) a
missing Chromium fails the browser tests instead of skipping them, as for the HTML
report's browser test (`.ci/run` installs it).
"""

from __future__ import annotations

import base64
import gc
import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from hypothesis import given
from hypothesis import strategies as st

from claimcheck.config import Config
from claimcheck.judge.answer import Answer, Expect, Suspect
from claimcheck.judge.plausible import judge_answer
from claimcheck.models import Anchor, Claim, MediaType, SourceKind, SourceRef
from claimcheck.net.addresses import AddressPolicy
from claimcheck.net.fetch import Fetched
from claimcheck.observe import rendering
from claimcheck.render import render as render_module
from claimcheck.render.netns import Isolation
from claimcheck.render.proxy import PROXY_USER, GuardedProxy
from claimcheck.render.render import (
    MAX_BROWSERS,
    RENDERED_TYPE,
    Rendered,
    Renderer,
    RenderFailed,
    browsers_to_use,
    judge_rendered,
    render_page,
    rendered_sources,
)
from support.render_site import (
    Forbidden,
    RenderSite,
    count_launches,
    kill_render_processes,
    render_folders,
    render_processes,
    render_site,
    require_browser,
)
from support.webrtc_probe import probe


@pytest.fixture
def browser() -> str:
    return require_browser()


@pytest.fixture
def site() -> Iterator[tuple[RenderSite, Forbidden]]:
    with render_site() as served:
        yield served


async def internal_name(host: str, port: int) -> Sequence[str]:
    """DNS as an attacker would set it: a public-looking name that points at loopback."""
    assert host == "internal.example", host
    return ["127.0.0.1"]


@pytest.mark.slow  # headless Chromium
@pytest.mark.parametrize("isolate", [True, False], ids=["own-network", "machine-network"])
def test_a_script_rendered_article_is_in_the_dom(
    browser: str, site: tuple[RenderSite, Forbidden], isolate: bool
) -> None:
    """In the browsers' own network namespace where the machine allows one, and without
    (as where it does not): the proxy's credential is given, the page loads through it."""
    pages, _ = site
    url = pages.url("docusaurus-client.html")
    policy = AddressPolicy.parse([pages.origin])

    page = render_page(
        url, policy=policy, timeout=60, max_bytes=5_000_000, browser=browser, isolate=isolate
    )

    assert isinstance(page, Rendered), page
    soup = BeautifulSoup(page.dom, "html.parser")
    article = soup.find("article")
    assert article is not None
    assert "Tidewater routes each request to the least loaded inference worker." in (
        article.get_text()
    )
    served = (
        pages.browser_requests("/docusaurus-client.html"),
        pages.browser_requests("/assets/js/runtime~main.js"),
    )
    assert [len(s) for s in served] == [1, 1]  # the browser loaded both, through the proxy
    assert page.refused == ()
    assert render_processes() == []
    assert render_folders() == []


@pytest.mark.slow  # headless Chromium
def test_a_page_cannot_make_the_browser_reach_internal_addresses(
    browser: str, site: tuple[RenderSite, Forbidden]
) -> None:
    pages, forbidden = site
    policy = AddressPolicy.parse([pages.origin])  # this port only, not the forbidden one

    page = render_page(
        pages.url("probe.html"),
        policy=policy,
        timeout=60,
        max_bytes=5_000_000,
        resolver=internal_name,
        browser=browser,
    )

    assert isinstance(page, Rendered), page
    assert forbidden.accepted == 0
    refused = set(page.refused)
    assert "refused: 127.0.0.1 is a loopback address; allow it with [fetch] allow_addresses" in (
        refused
    )
    assert (
        "refused: 169.254.169.254 is a link-local (cloud metadata) address; allow it with "
        "[fetch] allow_addresses" in refused
    )
    assert (
        "refused: internal.example resolves to 127.0.0.1, a loopback address; allow it with "
        "[fetch] allow_addresses" in refused
    )
    assert len(page.refused) >= 5, page.refused  # img, fetch (http, https), WebSocket, ...
    assert pages.browser_requests("/slow.png")  # the page loaded to its end


def test_a_missing_browser_is_a_render_failure_that_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))

    page = render_page(
        "http://127.0.0.1:9/", policy=AddressPolicy(), timeout=5, max_bytes=1_000_000
    )

    assert isinstance(page, RenderFailed)
    assert page.reason == "no headless Chromium to render the page with"
    assert "apt-get install chromium" in page.hint


@pytest.fixture
def launches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every browser start, counted (the real start runs)."""
    return count_launches(monkeypatch)


@pytest.mark.slow  # headless Chromium
def test_a_kept_browser_loads_each_page_in_a_context_of_its_own(
    browser: str,
    site: tuple[RenderSite, Forbidden],
    launches: list[int],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """One browser for three pages: the second sees none of the cookies and storage the
    first set, the third is the article; nothing is left once the renderer closes, and
    stopping the pages' proxies logs no error."""
    pages, _ = site
    policy = AddressPolicy.parse([pages.origin])
    caplog.set_level(logging.ERROR)

    with Renderer(policy=policy, timeout=60, max_bytes=5_000_000, binary=browser) as renderer:
        found = [
            renderer.render(pages.url(name))
            for name in ("set-state.html", "read-state.html", "docusaurus-client.html")
        ]
        assert len(render_processes()) > 0  # kept between pages, while the renderer is open

    texts = []
    for page in found:
        assert isinstance(page, Rendered), page
        texts.append(BeautifulSoup(page.dom, "html.parser").get_text(" ", strip=True))
    assert "State set: cookie yes, storage from-set-state." in texts[0]
    assert "State seen: cookies [], storage [], session []." in texts[1]
    assert "Tidewater routes each request to the least loaded inference worker." in texts[2]
    assert [s.cookie for s in pages.browser_requests("/read-state.html")] == [None]
    assert launches == [1]
    assert render_processes() == []
    assert render_folders() == []
    assert [r.getMessage() for r in caplog.records] == []


@pytest.mark.slow  # headless Chromium
def test_a_kept_browser_is_stored_as_dump_dom_wrote_it(
    browser: str, site: tuple[RenderSite, Forbidden], tmp_path: Path
) -> None:
    """The DOM's bytes are what `--dump-dom` printed for the same page: a page stored by
    an earlier version is not taken for a changed one."""
    pages, _ = site
    url = pages.url("docusaurus-client.html")
    policy = AddressPolicy.parse([pages.origin])
    dumped = subprocess.run(
        [
            browser,
            *render_module.CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        timeout=60,
        check=True,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)},
    ).stdout

    page = render_page(url, policy=policy, timeout=60, max_bytes=5_000_000, browser=browser)

    assert isinstance(page, Rendered), page
    assert page.dom == dumped


@pytest.mark.slow  # headless Chromium
def test_a_page_cannot_disguise_its_document_from_the_render(
    browser: str, site: tuple[RenderSite, Forbidden]
) -> None:
    """The page's scripts redefine what a serialising script would call: the document is
    serialised by the browser, and says what a reader sees."""
    pages, _ = site
    policy = AddressPolicy.parse([pages.origin])

    page = render_page(
        pages.url("disguise.html"), policy=policy, timeout=60, max_bytes=5_000_000, browser=browser
    )

    assert isinstance(page, Rendered), page
    text = BeautifulSoup(page.dom, "html.parser").get_text(" ", strip=True)
    assert "Tidewater 2.0 dropped support for CUDA 11." in text
    assert "supports CUDA 11 and CUDA 12" not in text


@pytest.mark.slow  # headless Chromium
def test_a_browser_that_stopped_is_started_again_for_the_next_page(
    browser: str, site: tuple[RenderSite, Forbidden], launches: list[int]
) -> None:
    pages, _ = site
    url = pages.url("docusaurus-client.html")
    policy = AddressPolicy.parse([pages.origin])

    with Renderer(policy=policy, timeout=60, max_bytes=5_000_000, binary=browser) as renderer:
        first = renderer.render(url)
        kill_render_processes()  # the browser crashes between two pages
        second = renderer.render(url)

    assert isinstance(first, Rendered), first
    assert isinstance(second, Rendered), second
    assert launches == [1, 1]
    assert render_processes() == []
    assert render_folders() == []


@pytest.mark.slow  # headless Chromium
def test_a_page_its_script_makes_too_large_is_refused_before_it_is_read_whole(
    browser: str, site: tuple[RenderSite, Forbidden], launches: list[int]
) -> None:
    """A few hundred bytes come over the network, 5.5 MB of DOM come out: the render
    fails once the browser's answer passes twice the budget, the browser is stopped
    (its answer is not read to the end), and the next page gets another."""
    pages, _ = site
    policy = AddressPolicy.parse([pages.origin])

    with Renderer(policy=policy, timeout=60, max_bytes=1_000_000, binary=browser) as renderer:
        giant = renderer.render(pages.url("giant.html"))
        after = renderer.render(pages.url("docusaurus-client.html"))

    assert isinstance(giant, RenderFailed), giant
    assert giant.reason == "rendered page larger than 1000000 bytes"
    assert giant.hint == "check that the URL is a page, or raise max_bytes"
    assert isinstance(after, Rendered), after
    assert launches == [1, 1]
    assert render_processes() == []
    assert render_folders() == []


KILLED_RUN = """
import sys, time
from claimcheck.net.addresses import AddressPolicy
from claimcheck.render.render import Renderer

renderer = Renderer(policy=AddressPolicy.parse([sys.argv[2]]), timeout=60, max_bytes=5_000_000)
print(type(renderer.render(sys.argv[1])).__name__, flush=True)
time.sleep(120)  # killed here, its browser kept
"""


@pytest.mark.slow  # headless Chromium
def test_a_killed_run_leaves_no_browser_and_the_next_its_folder_removed(
    browser: str, site: tuple[RenderSite, Forbidden]
) -> None:
    """A run killed with its browser kept: the browser exits (its pipe closed), its
    profile folder stays until the next run's first browser clears it. A folder of a
    process still running (this one's) is left alone."""
    pages, _ = site
    own = Path(tempfile.gettempdir()) / f"{render_module.TEMP_PREFIX}{os.getpid()}-in-use"
    own.mkdir(exist_ok=True)
    with subprocess.Popen(
        [sys.executable, "-c", KILLED_RUN, pages.url("docusaurus-client.html"), pages.origin],
        stdout=subprocess.PIPE,
        text=True,
    ) as killed:
        assert killed.stdout is not None
        assert killed.stdout.readline().strip() == "Rendered"
        left = [f for f in render_folders() if f != own]
        killed.kill()
    assert len(left) == 1
    deadline = time.monotonic() + 20
    while render_processes() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert render_processes() == []
    assert left[0].exists()

    try:
        page = render_page(
            pages.url("docusaurus-client.html"),
            policy=AddressPolicy.parse([pages.origin]),
            timeout=60,
            max_bytes=5_000_000,
            browser=browser,
        )
        assert isinstance(page, Rendered), page
        assert not left[0].exists()
        assert own.exists()
    finally:
        own.rmdir()
    assert render_folders() == []


STAND_INS = {
    # Reads the first command, answers what is not the protocol.
    "garbled": "os.read(3, 65536)\nos.write(4, b'<html>not the protocol</html>\\0')\n"
    "time.sleep(60)\n",
    # Exits at once, as a browser that crashes on start.
    "crashing": "sys.exit(1)\n",
    # Reads and never answers.
    "silent": "os.read(3, 65536)\ntime.sleep(60)\n",
    # Starts a helper in its process group, as Chromium starts its zygote, and never
    # answers: the helper is not claimcheck's child, and is gone all the same once the
    # render has failed (the stop waits for the whole group, not only the browser).
    "forking": "if os.fork() == 0:\n    time.sleep(60)\nos.read(3, 65536)\ntime.sleep(60)\n",
    # Starts a helper in a session of its own with a path in the browser's folder on its
    # command line, as Chromium starts its crash handlers, and never answers: the
    # group's kill misses the helper, which is gone all the same (found by the folder).
    "escaping": "folder = next(a for a in sys.argv if a.startswith('--user-data-dir='))\n"
    "folder = folder.split('=', 1)[1].rsplit('/', 1)[0]\n"
    "if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
    "        os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(60)',\n"
    "                 '--database=' + folder + '/home/Crash Reports'])\n    os._exit(0)\n"
    "os.read(3, 65536)\ntime.sleep(60)\n",
    # Answers the first command, then stops reading: the next command finds the pipe
    # broken, where "crashing" is mostly seen as the end of the answers.
    "deaf": "import json\nfirst = json.loads(os.read(3, 65536).split(b'\\0')[0])\n"
    "os.close(3)\nresult = {'browserContextId': 'c', 'targetId': 't', 'sessionId': 's'}\n"
    "os.write(4, json.dumps({'id': first['id'], 'result': result}).encode() + b'\\0')\n"
    "time.sleep(60)\n",
}


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        ("garbled", "the browser answered what is not the protocol"),
        ("crashing", "the browser stopped while rendering"),
        ("deaf", "the browser stopped while rendering"),
        ("silent", "the browser did not finish loading the page in 2 s"),
        ("forking", "the browser did not finish loading the page in 2 s"),
        ("escaping", "the browser did not finish loading the page in 2 s"),
    ],
)
def test_a_browser_that_does_not_speak_the_protocol_is_a_failed_render(
    tmp_path: Path, behaviour: str, reason: str
) -> None:
    """A stand-in for Chromium on the same pipe: whatever it does, the render fails with
    a reason (never a traceback), and nothing of it is left running."""
    stand_in = tmp_path / "chromium"
    stand_in.write_text(
        f"#!{sys.executable}\nimport os, sys, time\n{STAND_INS[behaviour]}", encoding="utf-8"
    )
    stand_in.chmod(0o755)

    page = render_page(
        "http://127.0.0.1:9/",
        policy=AddressPolicy(),
        timeout=2,
        max_bytes=1_000_000,
        browser=str(stand_in),
    )

    assert isinstance(page, RenderFailed), page
    assert page.reason == reason
    assert render_processes() == []
    assert render_folders() == []


@pytest.mark.parametrize(
    ("workers", "browsers"),
    [(0, 1), (1, 1), (2, 1), (3, 1), (4, 2), (6, 3), (8, MAX_BROWSERS), (16, MAX_BROWSERS)],
)
def test_one_browser_renders_for_every_two_workers(workers: int, browsers: int) -> None:
    assert browsers_to_use(workers) == browsers


def signed(proxy: GuardedProxy, request: bytes, credential: str | None = None) -> bytes:
    """A raw request with the proxy's credential (or `credential`) after its first line."""
    token = base64.b64encode(f"{PROXY_USER}:{credential or proxy.credential}".encode())
    line, _, rest = request.partition(b"\r\n")
    return line + b"\r\nProxy-Authorization: Basic " + token + b"\r\n" + rest


def proxy_exchange(proxy: GuardedProxy, request: bytes, *, sign: bool = True) -> bytes:
    """Send one raw request to the proxy (with its credential unless `sign` is False);
    its whole answer."""
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as connection:
        connection.sendall(signed(proxy, request) if sign else request)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize(
    ("request_bytes", "reason"),
    [
        (
            b"CONNECT 169.254.169.254:443 HTTP/1.1\r\nHost: 169.254.169.254:443\r\n\r\n",
            "refused: 169.254.169.254 is a link-local (cloud metadata) address",
        ),
        (
            b"GET http://internal.example/ HTTP/1.1\r\nHost: internal.example\r\n\r\n",
            "refused: internal.example resolves to 127.0.0.1, a loopback address",
        ),
        (
            b"GET http://[::ffff:127.0.0.1]:{port}/ HTTP/1.1\r\nHost: x\r\n\r\n",
            "refused: ::ffff:127.0.0.1 is a loopback address",
        ),
        (
            b"GET http://localhost:{port}/ HTTP/1.1\r\nHost: localhost\r\n\r\n",
            "refused: localhost is a loopback name",
        ),
    ],
    ids=["connect-metadata", "name-to-loopback", "mapped-ipv6", "localhost"],
)
def test_the_proxy_refuses_what_the_guard_refuses(
    site: tuple[RenderSite, Forbidden], request_bytes: bytes, reason: str
) -> None:
    _, forbidden = site
    with GuardedProxy(AddressPolicy(), max_bytes=1_000_000, resolver=internal_name) as proxy:
        answer = proxy_exchange(proxy, request_bytes.replace(b"{port}", b"%d" % forbidden.port))
    assert answer.startswith(b"HTTP/1.1 403 Forbidden\r\n")
    assert reason.encode() in answer
    assert proxy.log.connected == []
    assert forbidden.accepted == 0


def test_the_proxy_forwards_an_allowed_page_and_keeps_to_its_budget(
    site: tuple[RenderSite, Forbidden],
) -> None:
    pages, _ = site
    port = pages.server_address[1]
    policy = AddressPolicy.parse([pages.origin])
    request = (
        f"GET http://127.0.0.1:{port}/never.html HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Proxy-Connection: keep-alive\r\n\r\n"
    ).encode()
    with GuardedProxy(policy, max_bytes=1_000_000) as proxy:
        answer = proxy_exchange(proxy, request)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200 OK\r\n")
    assert b"\r\nConnection: close" in head
    assert body == (Path(__file__).parents[1] / "data/rendered/never.html").read_bytes()
    assert proxy.log.connected == [f"127.0.0.1:{port}"]

    with GuardedProxy(policy, max_bytes=100) as small:
        cut = proxy_exchange(small, request)
    assert small.log.over_budget
    assert len(cut) < len(answer)


def test_the_proxy_closes_a_connection_it_had_no_time_to_serve() -> None:
    """A client connects as the proxy stops (a kept browser does, after its page): the
    connection is closed, not leaked (asyncio cannot attach a connection being accepted
    to a server closed meanwhile, and its socket stayed open until collected)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(20):
            with GuardedProxy(AddressPolicy(), max_bytes=1_000) as proxy:
                client = socket.create_connection(("127.0.0.1", proxy.port), timeout=10)
            client.close()
        gc.collect()

    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_the_proxy_passes_a_request_body_on(site: tuple[RenderSite, Forbidden]) -> None:
    pages, _ = site
    port = pages.server_address[1]
    request = (
        f"POST http://127.0.0.1:{port}/echo HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Content-Length: 11\r\n\r\nhello there"
    ).encode()
    with GuardedProxy(AddressPolicy.parse([pages.origin]), max_bytes=1_000_000) as proxy:
        answer = proxy_exchange(proxy, request)
    assert answer.startswith(b"HTTP/1.0 200 OK\r\n")
    assert answer.endswith(b"\r\n\r\necho: hello there")


def claim_on(source: str, render: str | None = None) -> Claim:
    return Claim(
        id=f"c{abs(hash((source, render)))}",
        page="p",
        claim="c",
        source=source,
        anchor=Anchor(quote="q"),
        checked="2026-01-01",  # type: ignore[arg-type]
        render=render,
        file="claims/p.yaml",
        line=1,
    )


def web(url: str) -> SourceRef:
    return SourceRef(url=url, kind=SourceKind.WEB, fetch_url=url, key=url)


@pytest.mark.parametrize(
    ("renders", "hosts", "expected"),
    [
        ([None], {}, False),
        ([None], {"docs.example.org": "browser"}, True),
        ([None], {"docs.example.org:8443": "browser"}, True),
        ([None], {"docs.example.org:9999": "browser"}, False),
        ([None], {"Docs.Example.org": "browser"}, True),
        (["plain"], {"docs.example.org": "browser"}, False),
        (["browser"], {}, True),
        (["plain", "browser"], {}, True),
        (["plain", None], {"docs.example.org": "browser"}, False),
    ],
    ids=[
        "default-plain",
        "host",
        "host-and-port",
        "other-port",
        "host-case",
        "claim-wins",
        "claim-asks",
        "one-claim-asks",
        "explicit-plain",
    ],
)
def test_which_sources_are_rendered(
    renders: list[str | None], hosts: dict[str, str], expected: bool
) -> None:
    url = "https://docs.example.org:8443/guide"
    claims = [claim_on(url, render) for render in renders]
    assert rendered_sources(claims, {url: web(url)}, hosts) == (
        frozenset({url}) if expected else frozenset()
    )


def test_github_sources_are_never_rendered() -> None:
    url = "https://github.com/o/r"
    ref = SourceRef(url=url, kind=SourceKind.GITHUB_README, fetch_url=url, key="k")
    assert rendered_sources([claim_on(url, "browser")], {url: ref}, {}) == frozenset()


def test_no_more_browsers_render_at_once_than_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """`jobs = 16` and nine script shells to render: the pages are rendered side by side,
    never more than `MAX_BROWSERS` at once. (Chromium is stood in for by a render that
    counts: launching sixteen would say nothing more about the count.)"""
    lock = threading.Lock()
    running: list[int] = []
    most = 0

    def counting(url: str, **_: object) -> RenderFailed:
        nonlocal most
        with lock:
            running.append(1)
            most = max(most, len(running))
        time.sleep(0.2)
        with lock:
            running.pop()
        return RenderFailed(url, "counted", "")

    monkeypatch.setattr(render_module, "render_page", counting)
    shell = b'<html><body><div id="root"></div><script src="/app.js"></script></body></html>'
    answers = {
        f"https://docs.example.org/page-{n}": Fetched(
            url=f"https://docs.example.org/page-{n}",
            final_url=f"https://docs.example.org/page-{n}",
            status=200,
            body=shell,
            content_type="text/html; charset=utf-8",
        )
        for n in range(9)
    }

    prepared = rendering.prepare_renders(answers, Config(jobs=16))

    assert most == render_module.MAX_BROWSERS
    assert sorted(prepared) == sorted(answers)
    assert {type(found) for found in prepared.values()} == {RenderFailed}


@pytest.mark.slow  # headless Chromium
def test_a_page_finds_no_webrtc_and_its_ice_servers_get_nothing(browser: str) -> None:
    """The hostile page of `support.webrtc_probe`, rendered here (loopback alone, in the
    browsers' own namespace where the machine allows one): the API is gone from the
    page and from a frame it makes, and its loopback STUN/TURN listeners get nothing."""
    found = probe(browser, isolate=True)
    assert found.said == (
        "RTCPeerConnection=undefined webkitRTCPeerConnection=undefined "
        "RTCDataChannel=undefined RTCIceCandidate=undefined "
        "RTCSessionDescription=undefined frame=undefined connection=failed"
    )
    assert (found.datagrams, found.connections) == (0, 0)


def namespaces_possible() -> bool:
    """Whether this machine lets a test make network namespaces (`unshare -n`, as root)
    and wire them (`ip`, `nsenter`, `sysctl`)."""
    tools = ("unshare", "ip", "nsenter", "sysctl")
    if any(shutil.which(tool) is None for tool in tools):
        return False
    done = subprocess.run(["unshare", "-n", "true"], capture_output=True, check=False)
    return done.returncode == 0


@pytest.mark.slow  # headless Chromium
@pytest.mark.parametrize("isolate", ["isolate", "host"])
def test_a_page_sends_no_packet_to_its_ice_servers_where_it_could_route(
    browser: str, isolate: str
) -> None:
    """The same page where WebRTC would gather candidates: in a network namespace of the
    test's own holding loopback and a veth pair that carries the default route to
    another namespace (nothing leaves the machine). `host`: the browser runs in that
    namespace's network, not one of its own, so the flags and the script hold alone."""
    if not namespaces_possible():
        pytest.skip("no network namespaces here (unshare -n needs root or CAP_SYS_ADMIN)")
    done = subprocess.run(
        ["unshare", "-n", sys.executable, "-m", "support.webrtc_probe", browser, isolate],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=Path(__file__).parents[1],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])},
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert "RTCPeerConnection=undefined" in found["said"]
    assert "connection=failed" in found["said"]
    assert (found["datagrams"], found["connections"]) == (0, 0)
    assert found["escapes"] in (None, [])  # None: no strace here


def test_no_other_process_reaches_the_proxy_of_an_isolated_browser(
    site: tuple[RenderSite, Forbidden],
) -> None:
    """The proxy of a browser in its own namespace listens there alone: a process of the
    machine is refused a connection, one started in the namespace is served."""
    pages, _ = site
    isolation = Isolation()
    if not isolation.start():
        pytest.skip(f"no network namespace here: {isolation.refusal}")
    port = pages.server_address[1]
    try:
        with GuardedProxy(
            AddressPolicy.parse([pages.origin]),
            max_bytes=1_000_000,
            listener=isolation.listener(),
        ) as proxy:
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection(("127.0.0.1", proxy.port), timeout=10).close()
            request = repr(
                signed(proxy, f"GET http://127.0.0.1:{port}/never.html HTTP/1.1\r\n\r\n".encode())
            )
            ask = (
                f"import socket,sys;c=socket.create_connection(('127.0.0.1',{proxy.port}));"
                f"c.sendall({request});sys.stdout.write(c.recv(12).decode())"
            )
            inside = isolation.spawn(
                lambda: subprocess.run(
                    [sys.executable, "-c", ask], capture_output=True, text=True, timeout=30
                )
            )
    finally:
        isolation.close()
    assert inside.stdout == "HTTP/1.0 200", inside.stderr


def test_a_site_cannot_forge_the_proxy_refusal_header() -> None:
    """The header by which the renderer knows a document was the proxy's own refusal is
    stripped from what a site answers."""
    upstream = socket.create_server(("127.0.0.1", 0))
    answer = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
        b"X-Claimcheck-Proxy-Refused: forged\r\nContent-Length: 2\r\n\r\nok"
    )

    def serve() -> None:
        connection, _ = upstream.accept()
        with connection:
            connection.recv(65536)
            connection.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    port = upstream.getsockname()[1]
    request = f"GET http://127.0.0.1:{port}/ HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    try:
        with GuardedProxy(AddressPolicy.parse([f"127.0.0.1:{port}"]), max_bytes=10_000) as proxy:
            got = proxy_exchange(proxy, request)
    finally:
        upstream.close()
    assert got.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"forged" not in got.lower()
    assert got.endswith(b"\r\n\r\nok")


@pytest.mark.parametrize("credential", [None, "guessed"], ids=["none", "wrong"])
def test_the_proxy_refuses_a_local_process_without_its_credential(
    site: tuple[RenderSite, Forbidden], credential: str | None
) -> None:
    """Another local process that finds the proxy's port reaches nothing through it:
    without the proxy's own credential, every request is answered 407."""
    pages, _ = site
    port = pages.server_address[1]
    request = f"GET http://127.0.0.1:{port}/never.html HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    connect = f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    with GuardedProxy(AddressPolicy.parse([pages.origin]), max_bytes=1_000_000) as proxy:
        asked = [request, connect]
        if credential is not None:
            asked = [signed(proxy, raw, credential) for raw in asked]
        answers = [proxy_exchange(proxy, raw, sign=False) for raw in asked]
    for answer in answers:
        assert answer.startswith(b"HTTP/1.1 407 Proxy Authentication Required\r\n")
        assert b'Proxy-Authenticate: Basic realm="claimcheck"' in answer
    assert proxy.log.connected == []
    assert pages.seen == []


PAGE_BODIES = st.sampled_from(
    [
        b"<html><body><main><p>Tidewater routes each request.</p></main></body></html>",
        b"<html><body><h1>404 Not Found</h1></body></html>",
        b"<html><body></body></html>",
        b"<html><head><title>Just a moment...</title></head><body>Checking</body></html>",
        b"refused: 169.254.169.254 is a link-local (cloud metadata) address",
    ]
)


@given(status=st.sampled_from([200, 203, 302, 403, 404, 429, 500, 503]), body=PAGE_BODIES)
def test_a_render_is_judged_as_a_fetched_answer_of_the_status_the_browser_got(
    status: int, body: bytes
) -> None:
    """One gate for both paths: a rendered page is judged exactly as a fetched HTML
    answer with the browser's status and the DOM as its body; the proxy's own answer
    for the document is never the page, whatever its status and body."""
    url = "https://docs.example.org/routing"
    page = Rendered(url, body, (), 0.1, status=status)
    fetched = Answer(status, {"content-type": RENDERED_TYPE}, body, url, url)
    as_fetched = judge_answer(fetched, Expect.PAGE, MediaType.HTML)
    assert judge_rendered(page, url, url, None) == as_fetched
    refused = Rendered(url, body, (), 0.1, status=status, refused_page="refused: no")
    assert isinstance(judge_rendered(refused, url, url, None), Suspect)


DROP_SYS_ADMIN = ("setpriv", "--bounding-set=-sys_admin", "--inh-caps=-sys_admin")


@pytest.mark.slow  # headless Chromium
def test_without_a_namespace_the_render_goes_on_and_says_why(
    browser: str, site: tuple[RenderSite, Forbidden]
) -> None:
    """A process that may not make network namespaces (no CAP_SYS_ADMIN, as on a CI
    runner) renders in the machine's network, behind the credential, the flags and the
    removal of WebRTC, and its log says why."""
    if shutil.which("setpriv") is None or os.geteuid() != 0:
        pytest.skip("dropping CAP_SYS_ADMIN for a child takes root and setpriv")
    pages, _ = site
    script = (
        "import logging, sys\n"
        "from claimcheck.net.addresses import AddressPolicy\n"
        "from claimcheck.render.render import Rendered, render_page\n"
        "logging.basicConfig(level=logging.INFO, stream=sys.stderr)\n"
        f"page = render_page({pages.url('docusaurus-client.html')!r},"
        f" policy=AddressPolicy.parse([{pages.origin!r}]), timeout=60,"
        f" max_bytes=5_000_000, browser={browser!r})\n"
        "ok = isinstance(page, Rendered) and b'least loaded inference worker' in page.dom\n"
        "print('rendered' if ok else repr(page))\n"
    )
    done = subprocess.run(
        [*DROP_SYS_ADMIN, sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout.strip() == "rendered", done.stderr
    assert (
        "rendering in the machine's network, without a namespace of its own"
        " (unshare(CLONE_NEWNET) refused: Operation not permitted)"
    ) in done.stderr
