"""Shared fixtures: the real network is unreachable in every test; a replay server on demand."""

from __future__ import annotations

import ipaddress
import os
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from support.replay_server import ReplayServer, require_corpus

# Property tests judge what they generate, not how fast: on a loaded 2-core machine (CI
# runs the suite beside real servers and Chromium) a timing health check or deadline
# fails a correct test. Every other health check stays on.
settings.register_profile("claimcheck", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("claimcheck")

_WORKER_TEMP = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist, each worker gets a temporary folder of its own (TMPDIR), so
    what one worker's tests leave there or run from there (a render's browser, its
    folder) is never counted by another's checks."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        return
    # Short: a browser makes Unix sockets under it, whose paths fit in 107 bytes.
    folder = tempfile.mkdtemp(prefix=f"t{worker}-")
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = None  # read TMPDIR again
    config.stash[_WORKER_TEMP] = folder


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_WORKER_TEMP, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
INET_FAMILIES = frozenset({socket.AF_INET, socket.AF_INET6})


class NetworkDisabledError(OSError):
    """Raised instead of reaching a non-loopback address from a test."""


def is_loopback(host: object) -> bool:
    """Whether `host` (an IP literal or name) stays on this machine; None counts as local."""
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    name = host.strip("[]").split("%", 1)[0].lower().rstrip(".")
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def _refuse(what: str, target: object) -> NetworkDisabledError:
    return NetworkDisabledError(f"network disabled in tests: {what} {target!r}")


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every non-loopback address unreachable: name look-ups and connects raise.

    Loopback (127.0.0.0/8, ::1, localhost) and non-IP sockets (Unix, socketpair) still
    work, so local servers, asyncio's event loop and httpx over 127.0.0.1 are unaffected.
    """
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo
    real_create_connection = socket.create_connection

    def check_address(sock: socket.socket, address: Any, what: str) -> None:
        if sock.family in INET_FAMILIES and not (
            isinstance(address, tuple) and address and is_loopback(address[0])
        ):
            raise _refuse(what, address)

    def connect(self: socket.socket, address: Any) -> None:
        check_address(self, address, "connect to")
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        check_address(self, address, "connect to")
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not is_loopback(host):
            raise _refuse("look up", host)
        return real_getaddrinfo(host, *args, **kwargs)

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        if not (isinstance(address, tuple) and address and is_loopback(address[0])):
            raise _refuse("connect to", address)
        return real_create_connection(address, *args, **kwargs)

    patches: dict[str, Callable[..., Any]] = {
        "getaddrinfo": getaddrinfo,
        "create_connection": create_connection,
    }
    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    for name, replacement in patches.items():
        monkeypatch.setattr(socket, name, replacement)


TEST_ALLOW_ADDRESSES = "127.0.0.0/8,::1"
"""What every test's fetcher may reach: the loopback servers the tests start, nothing else."""


@pytest.fixture(autouse=True)
def _allow_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Open loopback to the fetcher's address guard, which refuses it by default.

    Every test server listens on 127.0.0.1, so this is the one place tests opt in, the
    way an operator would (CLAIMCHECK_ALLOW_ADDRESSES; CLI subprocesses inherit it).
    Tests of the default refusal delete the variable.
    """
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", TEST_ALLOW_ADDRESSES)


@pytest.fixture
def corpus_root() -> Path:
    """The README-history corpus carried in tests/data."""
    return require_corpus()


@pytest.fixture
def replay(corpus_root: Path) -> Iterator[ReplayServer]:
    """A started GitHub-shaped replay server over the corpus, one per test."""
    with ReplayServer(corpus_root) as server:
        yield server
    if server.errors:
        pytest.fail("replay server errors:\n" + "\n".join(server.errors), pytrace=False)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """In CI (CI=true), a skipped test fails the run: nothing may go untested for want
    of data or a tool, since `.ci/run` installs every tool the suite needs."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter is not None else 0
    if skipped and os.environ.get("CI", "").lower() == "true" and exitstatus == 0:
        if reporter is not None:
            reporter.write_line(f"CI: {skipped} test(s) skipped; every test must run here")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
