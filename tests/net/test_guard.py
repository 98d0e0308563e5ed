"""Internal addresses end to end: refused by default at every fetch path, reachable when allowed.

Each test starts its own server on 127.0.0.1 and reads its request log to show that a
refused fetch never reached it. Other internal addresses are never contacted at all:
they are refused before any look-up, or an injected resolver makes a public-looking
name resolve to loopback or a private address, so no packet leaves 127.0.0.0/8.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import socket
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from claimcheck.cli.app import app
from claimcheck.config import load_config
from claimcheck.errors import ConfigError
from claimcheck.forges.forge import Withheld
from claimcheck.forges.history import History
from claimcheck.forges.wayback import WAYBACK_OFF
from claimcheck.net.addresses import AddressPolicy
from claimcheck.net.fetch import Fetched, FetchFailed, FetchOutcome, FetchRequest, Redirect
from claimcheck.net.fetcher import Fetcher, FetchSettings
from claimcheck.net.guard import AddressRefusedError, Resolver, resolve_host, withheld_url
from claimcheck.net.transport import guarded_transport
from support.claim_files import claim, write_claims, write_fast_config
from support.public_names import resolving_publicly
from support.replay_server import ReplayServer

SECRET = "AKIA-FAKE-CREDENTIAL-0123456789"  # what an internal page must never leak
PAGE = f"<html><body><p>Supports CUDA and Metal.</p><p>{SECRET}</p></body></html>"
OPERATOR_VARS = ("CLAIMCHECK_ALLOW_ADDRESSES", "GITHUB_API_URL", "WAYBACK_URL")


@pytest.fixture
def server() -> Iterator[ReplayServer]:
    """A page server on 127.0.0.1 whose request log shows what reached it."""
    with ReplayServer(None) as started:
        started.set_page("/page", PAGE)
        yield started


@pytest.fixture
def by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a user gets: nothing allowed (the suite's loopback allowance removed)."""
    for name in OPERATOR_VARS:
        monkeypatch.delenv(name, raising=False)


def settings(allow: Sequence[str] | None = None) -> FetchSettings:
    return FetchSettings(
        per_host_interval=0.0,
        retries=2,
        allow_addresses=None if allow is None else tuple(allow),
    )


def fetch(
    url: str, allow: Sequence[str] | None = None, resolver: Resolver | None = None
) -> FetchOutcome:
    async def main() -> FetchOutcome:
        async with Fetcher(settings(allow), resolver=resolver or resolve_host) as fetcher:
            return await fetcher.fetch(FetchRequest(url))

    return asyncio.run(main())


def resolving_to(*addresses: str) -> Resolver:
    """A resolver that answers `addresses` for any name: DNS as an attacker runs it."""

    async def resolve(host: str, port: int) -> Sequence[str]:
        return addresses

    return resolve


def assert_refused(outcome: FetchOutcome, words: str) -> None:
    assert isinstance(outcome, FetchFailed), outcome
    assert outcome.reason.startswith("refused: ")
    assert words in outcome.reason
    assert "allow_addresses" in outcome.reason
    assert "allow_addresses" in outcome.hint
    assert SECRET not in repr(outcome)


# --- the local server: refused by default, reachable when allowed ---------------------


def loopback_forms(port: int) -> dict[str, str]:
    """URLs of the server on 127.0.0.1, spelt every way a resolver reads it."""
    return {
        "dotted": f"http://127.0.0.1:{port}/page",
        "decimal": f"http://2130706433:{port}/page",
        "hex": f"http://0x7f000001:{port}/page",
        "short": f"http://127.1:{port}/page",
        "localhost": f"http://localhost:{port}/page",
    }


FORMS = list(loopback_forms(0))


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.usefixtures("by_default")
def test_a_loopback_source_is_refused_by_default_and_never_contacted(
    server: ReplayServer, form: str
) -> None:
    outcome = fetch(loopback_forms(server.port)[form])
    assert_refused(outcome, "loopback")
    assert isinstance(outcome, FetchFailed)
    assert outcome.attempts == 0
    assert server.requests == []


@pytest.mark.parametrize("form", [f for f in FORMS if f != "localhost"])
def test_a_loopback_source_is_reachable_when_allowed(server: ReplayServer, form: str) -> None:
    outcome = fetch(loopback_forms(server.port)[form], allow=["127.0.0.0/8"])
    assert isinstance(outcome, Fetched), outcome
    assert SECRET.encode() in outcome.body
    assert [r.path for r in server.requests] == ["/page"]


@pytest.mark.usefixtures("by_default")
def test_an_octal_spelling_is_no_url_to_httpx_so_it_is_never_fetched(
    server: ReplayServer,
) -> None:
    # The resolver would read 0177.0.0.1 as 127.0.0.1; httpx refuses the URL first.
    outcome = fetch(f"http://0177.0.0.1:{server.port}/page", allow=["127.0.0.0/8"])
    assert isinstance(outcome, FetchFailed)
    assert outcome.reason == "invalid URL"
    assert server.requests == []


def test_an_allowed_name_reaches_the_server(server: ReplayServer) -> None:
    outcome = fetch(f"http://localhost:{server.port}/page", allow=["localhost"])
    assert isinstance(outcome, Fetched), outcome


@pytest.mark.usefixtures("by_default")
def test_the_environment_variable_opens_loopback(
    server: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_refused(fetch(server.url("/page")), "127.0.0.1 is a loopback address")
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", "10.0.0.0/8, 127.0.0.1")
    assert isinstance(fetch(server.url("/page")), Fetched)


@pytest.mark.usefixtures("by_default")
def test_the_operators_own_server_is_trusted_and_only_that_port(
    server: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ReplayServer(None) as other:
        other.set_page("/page", PAGE)
        monkeypatch.setenv("GITHUB_API_URL", server.base_url)
        assert isinstance(fetch(server.url("/page")), Fetched)
        assert_refused(fetch(other.url("/page")), "loopback")
        assert other.requests == []


# --- DNS rebinding: the check is on the address connected to ---------------------------


@pytest.mark.usefixtures("by_default")
def test_a_public_name_that_resolves_to_loopback_is_refused_at_connect_time(
    server: ReplayServer,
) -> None:
    url = f"http://docs.rebind.example:{server.port}/page"
    outcome = fetch(url, resolver=resolving_to("127.0.0.1"))
    assert_refused(outcome, "docs.rebind.example resolves to 127.0.0.1, a loopback address")
    assert isinstance(outcome, FetchFailed)
    assert outcome.attempts == 1
    assert server.requests == []


@pytest.mark.usefixtures("by_default")
def test_one_internal_address_among_public_ones_refuses_the_name(server: ReplayServer) -> None:
    # Checked before any connect, so the public address is never tried either.
    outcome = fetch(
        f"http://mixed.example:{server.port}/page", resolver=resolving_to("93.184.215.14", "::1")
    )
    assert_refused(outcome, "mixed.example resolves to ::1")
    assert server.requests == []


def test_a_rebound_name_connects_to_the_checked_address_not_to_the_name(
    server: ReplayServer,
) -> None:
    # Allowed, the name reaches the server: the connection went to the address the guard
    # resolved, since conftest's guard makes a second look-up of this name fail.
    outcome = fetch(
        f"http://docs.rebind.example:{server.port}/page",
        allow=["127.0.0.0/8"],
        resolver=resolving_to("127.0.0.1"),
    )
    assert isinstance(outcome, Fetched), outcome
    assert server.requests[0].headers["host"] == f"docs.rebind.example:{server.port}"


class RecordingLoop(asyncio.SelectorEventLoop):
    """An event loop that records every socket connect and makes none: no packet is sent."""

    def __init__(self) -> None:
        super().__init__()
        self.connects: list[tuple[str, int]] = []

    async def sock_connect(self, sock: socket.socket, address: Any) -> None:
        self.connects.append((address[0], address[1]))
        raise ConnectionRefusedError("recorded, not connected")


@pytest.mark.parametrize(
    ("host", "addresses", "allow"),
    [
        ("169.254.169.254", (), "169.254.169.254"),
        ("::ffff:169.254.169.254", (), "169.254.169.254"),
        ("internal.example", ("10.0.0.5",), "10.0.0.0/8"),
        ("internal.example", ("10.0.0.5",), "internal.example"),
        ("metadata.google.internal", ("169.254.169.254",), "metadata.google.internal"),
        ("cgnat.example", ("100.64.1.2",), "100.64.0.0/10"),
        ("ula.example", ("fd00:ec2::254",), "fc00::/7"),
    ],
)
def test_the_guard_connects_to_an_allowed_internal_address_and_to_nothing_refused(
    host: str, addresses: tuple[str, ...], allow: str
) -> None:
    # Straight to the transport, past the fetcher's own check of a URL's host.
    url = f"http://[{host}]/" if ":" in host else f"http://{host}/"

    def attempt(policy: AddressPolicy) -> tuple[BaseException, list[tuple[str, int]]]:
        async def main() -> BaseException:
            transport = guarded_transport(policy, resolver=resolving_to(*addresses))
            try:
                await transport.handle_async_request(httpx.Request("GET", url))
            except httpx.ConnectError as exc:
                return exc
            finally:
                await transport.aclose()
            raise AssertionError("the request went through")

        with asyncio.Runner(loop_factory=RecordingLoop) as runner:
            error = runner.run(main())
            loop = runner.get_loop()
            assert isinstance(loop, RecordingLoop)
            return error, loop.connects

    refused, none = attempt(AddressPolicy())
    assert isinstance(refused.__cause__, AddressRefusedError), refused
    assert refused.__cause__.reason.startswith("refused: ")
    assert none == []
    _, connects = attempt(AddressPolicy.parse([allow]))
    assert len(connects) == 1
    assert connects[0][1] == 80
    if addresses:
        assert connects[0][0] == addresses[0]  # the checked address, not the name


# --- redirects and Wayback ------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local (cloud"),
        ("http://[fd00:ec2::254]/latest/", "fd00:ec2::254 is a private (cloud metadata)"),
        ("http://192.168.0.1/admin", "192.168.0.1 is a private address"),
        ("http://metadata.google.internal/computeMetadata/v1/", "a cloud metadata name"),
        ("http://127.0.0.2:{port}/page", "127.0.0.2 is a loopback address"),  # not listened on
    ],
)
def test_a_redirect_from_an_allowed_page_to_an_internal_address_is_refused(
    server: ReplayServer, target: str, words: str
) -> None:
    server.redirect("/moved", target.format(port=server.port), status=302)
    outcome = fetch(server.url("/moved"), allow=["127.0.0.1/32"])
    assert_refused(outcome, words)
    assert [r.path for r in server.requests] == ["/moved"]  # the target was never asked


def test_a_redirect_to_a_name_that_resolves_internal_is_refused_at_connect_time(
    server: ReplayServer,
) -> None:
    server.redirect("/moved", "http://innocent.example/page", status=301)
    outcome = fetch(server.url("/moved"), allow=["127.0.0.1/32"], resolver=resolving_to("10.1.2.3"))
    assert_refused(outcome, "innocent.example resolves to 10.1.2.3, a private address")


def test_an_allowed_redirect_still_works(server: ReplayServer) -> None:
    server.redirect("/moved", server.url("/page"), status=301)
    outcome = fetch(server.url("/moved"), allow=["127.0.0.1/32"])
    assert isinstance(outcome, Fetched)
    assert outcome.redirects == (Redirect(301, server.url("/moved"), server.url("/page")),)


@pytest.mark.usefixtures("by_default")
@pytest.mark.parametrize("capture_host", ["10.0.0.7", "127.0.0.2:{port}"])
def test_a_wayback_capture_on_an_internal_address_is_refused(
    server: ReplayServer, monkeypatch: pytest.MonkeyPatch, capture_host: str
) -> None:
    """The Wayback server is the operator's (trusted); the capture URL it answers is not."""
    monkeypatch.setenv("WAYBACK_URL", server.base_url)
    stamp = "20261015093000"
    capture = (
        f"http://{capture_host.format(port=server.port)}/web/{stamp}/https://docs.example.org/"
    )
    answer = {
        "archived_snapshots": {"closest": {"available": True, "url": capture, "timestamp": stamp}}
    }
    server.set_page("/wayback/available", json.dumps(answer), content_type="application/json")
    server.set_page(f"/web/{stamp}id_/https://docs.example.org/", PAGE)
    outcomes: list[FetchOutcome] = []

    async def main() -> object:
        async with Fetcher(settings(), on_done=lambda _r, o: outcomes.append(o)) as fetcher:
            history = History(
                fetcher,
                api_url=server.base_url,
                token=None,
                wayback_url=server.base_url,
                resolver=resolving_publicly(),  # a public page: it may be asked about
            )
            until = dt.datetime(2026, 10, 20, 23, 59, tzinfo=dt.UTC)
            return await history.wayback.version("https://docs.example.org/", until)

    assert asyncio.run(main()) is None
    assert isinstance(outcomes[0], Fetched)  # the operator's availability API answered
    assert_refused(outcomes[1], "refused: ")
    assert [r.path for r in server.requests] == ["/wayback/available"]


# --- what may be shown to a third party ------------------------------------------------


async def _unresolvable(host: str, port: int) -> Sequence[str]:
    raise OSError(f"cannot resolve {host}")


@pytest.mark.parametrize(
    ("url", "resolver", "words"),
    [
        ("http://127.0.0.1:8799/docs", None, "127.0.0.1 is a loopback address"),
        ("http://2130706433/docs", None, "127.0.0.1 is a loopback address"),
        ("http://[::ffff:10.0.0.1]/docs", None, "::ffff:10.0.0.1 is a private address"),
        ("http://localhost:8080/", None, "localhost is a loopback name"),
        ("http://metadata.google.internal/", None, "a cloud metadata name"),
        ("https://wiki.corp.example/p", resolving_to("10.1.2.3"), "resolves to 10.1.2.3"),
        ("https://docs.example.org/", _unresolvable, "could not be resolved"),
        ("ftp://docs.example.org/", None, "names no http(s) host"),
        ("http://docs.example.org:99999/", None, "cannot be read"),
        ("https://docs.example.org/", resolving_publicly(), None),
        ("https://93.184.215.14/", None, None),
    ],
)
def test_a_url_is_shown_to_a_third_party_only_when_its_host_is_public(
    url: str, resolver: Resolver | None, words: str | None
) -> None:
    asked: list[str] = []

    async def recorded(host: str, port: int) -> Sequence[str]:
        asked.append(host)
        return await (resolver or resolving_publicly())(host, port)

    reason = asyncio.run(withheld_url(url, recorded))

    assert reason is None if words is None else reason is not None and words in reason
    if resolver is None:
        assert asked == []  # an address, an internal name or a bad URL: no look-up


def test_the_wayback_machine_is_never_asked_about_an_internal_page_or_when_off(
    server: ReplayServer,
) -> None:
    server.set_page("/wayback/available", json.dumps({"archived_snapshots": {}}))
    until = dt.datetime(2026, 10, 20, 23, 59, tzinfo=dt.UTC)

    async def main() -> list[object]:
        async with Fetcher(settings(["127.0.0.1/32"])) as fetcher:
            on = History(fetcher, api_url=server.base_url, token=None, wayback_url=server.base_url)
            off = History(
                fetcher,
                api_url=server.base_url,
                token=None,
                wayback_url=None,
                resolver=resolving_publicly(),
            )
            return [
                await on.wayback.version(server.url("/page"), until),
                await on.wayback.version("http://[fd00:ec2::254]/", until),
                await off.wayback.version("https://docs.example.org/", until),
            ]

    internal, metadata, turned_off = asyncio.run(main())

    assert isinstance(internal, Withheld)
    assert "127.0.0.1 is a loopback address" in internal.reason
    assert isinstance(metadata, Withheld)
    assert turned_off == WAYBACK_OFF
    assert server.requests == []


# --- the configuration and the whole run ----------------------------------------------


@pytest.mark.usefixtures("by_default")
def test_the_config_key_opens_addresses_for_the_fetcher(
    tmp_path: Path, server: ReplayServer
) -> None:
    (tmp_path / "claimcheck.toml").write_text('[fetch]\nallow_addresses = ["127.0.0.0/8"]\n')
    config = load_config(tmp_path / "claimcheck.toml", env={})
    assert config.fetch.allow_addresses == ["127.0.0.0/8"]
    assert isinstance(fetch(server.url("/page"), allow=config.allowed_addresses), Fetched)
    assert "api.github.com:443" in config.allowed_addresses  # the operator's servers


@pytest.mark.parametrize(
    ("toml", "env", "words"),
    [
        ('[fetch]\nallow_addresses = ["10.0.0.0/33"]\n', {}, "fetch.allow_addresses"),
        ('[fetch]\nallow_addresses = ["not a host"]\n', {}, "neither a CIDR"),
        ("", {"CLAIMCHECK_ALLOW_ADDRESSES": "127.0.0.0/8,bad/entry"}, "CLAIMCHECK_ALLOW_ADDRESSES"),
    ],
)
def test_a_bad_allow_list_entry_is_a_config_error(
    tmp_path: Path, toml: str, env: dict[str, str], words: str
) -> None:
    (tmp_path / "claimcheck.toml").write_text(toml)
    with pytest.raises(ConfigError, match=words):
        load_config(tmp_path / "claimcheck.toml", env=env)


def test_settings_reject_a_bad_entry() -> None:
    with pytest.raises(ValueError, match="neither"):
        FetchSettings(allow_addresses=("bad/entry",))


@pytest.fixture
def archive() -> Iterator[ReplayServer]:
    """The operator's Wayback server: another origin than the source's, and trusted."""
    with ReplayServer(None) as started:
        yield started


@pytest.fixture
def project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: ReplayServer, archive: ReplayServer
) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in OPERATOR_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WAYBACK_URL", archive.base_url)  # backfill asks it, not archive.org
    write_fast_config(tmp_path)
    write_claims(
        tmp_path / "claims",
        [claim("cuda", quote="Supports CUDA and Metal", source=server.url("/page"))],
    )
    return tmp_path


def test_verify_reports_a_refused_source_as_unreachable_and_never_its_body(
    project: Path, server: ReplayServer
) -> None:
    result = CliRunner().invoke(app, ["verify", "--format", "markdown"])
    assert result.exit_code == 3, result.output
    assert "unreachable" in result.stdout
    assert "refused: 127.0.0.1 is a loopback address" in result.stdout
    assert SECRET not in result.output
    assert server.requests_to("/page") == []
    assert not list((project / "snapshots").rglob("*.html"))


def test_verify_reaches_an_allowed_source(
    project: Path, server: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", "127.0.0.0/8")
    result = CliRunner().invoke(app, ["verify", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert [r.path for r in server.requests_to("/page")] == ["/page"]


def test_verify_honours_the_config_key(project: Path) -> None:
    (project / "claimcheck.toml").write_text(
        '[fetch]\nper_host_interval = 0\nallow_addresses = ["127.0.0.0/8"]\n'
        "[verdict]\nmax_age_days = 0\n"
    )
    result = CliRunner().invoke(app, ["verify", "--format", "json"])
    assert result.exit_code == 0, result.output


def test_requests_go_direct_whatever_the_proxy_variables_say(
    server: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Through a proxy the proxy would resolve the name, and no address could be checked.
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    outcome = fetch(server.url("/page"), allow=["127.0.0.1/32"])
    assert isinstance(outcome, Fetched), outcome
