"""The patches of dependencies' internals (`claimcheck._compat`) and their version checks.

Each patch is written for a range of releases of its dependency. These tests make the
installed version read as one outside that range (the metadata lookup, which is the
dependency's, not ours) and hold each module to its decision: the public path where one
gives the same result, a clear error naming the dependency and the range where going on
would change what claimcheck does.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path

import httpcore
import httpx
import pytest
from cmarkgfm import cmark as public_cmark
from hypothesis import given, settings
from hypothesis import strategies as st

from claimcheck._compat import cmark, httpcore_pool, httpx_cli
from claimcheck._compat.versions import UnsupportedVersionError, installed, require, supported
from claimcheck.net.addresses import AddressPolicy
from claimcheck.net.guard import AddressRefusedError, guarded_transport
from support.claim_files import claim, write_claims, write_fast_config
from support.cli_runs import run, show
from support.counting_server import CountingServer, answer, counting_server

LOOPBACK = AddressPolicy.parse(["127.0.0.1"])
NOTHING_INTERNAL = AddressPolicy.parse([])

FakeVersions = Callable[..., None]


@pytest.fixture
def versions(monkeypatch: pytest.MonkeyPatch) -> FakeVersions:
    """Make `importlib.metadata.version` answer the given versions for the given names."""
    real = metadata.version

    def fake(**answers: str) -> None:
        def version(distribution: str) -> str:
            for name, answer_ in answers.items():
                if name.lower() == distribution.lower():
                    if answer_ == "absent":
                        raise metadata.PackageNotFoundError(distribution)
                    return answer_
            return real(distribution)

        monkeypatch.setattr(metadata, "version", version)

    return fake


@pytest.fixture
def server() -> Iterator[CountingServer]:
    with counting_server() as running:
        running.routes["/ok"] = answer(200, b"hello")
        yield running


def test_the_installed_version_is_read_from_the_metadata(versions: FakeVersions) -> None:
    versions(httpcore="1.0.9", httpx="0.28.1rc1", PyYAML="absent", cmarkgfm="dev")
    assert installed("httpcore") == (1, 0, 9)
    assert installed("httpx") == (0, 28, 1)
    assert installed("PyYAML") is None
    assert installed("cmarkgfm") is None
    assert supported("httpcore", (1, 0, 5), (1, 1))
    assert not supported("httpcore", (1, 0, 10), (1, 1))
    assert not supported("httpcore", (0, 9), (1, 0, 9))  # the upper end is left out


def test_an_unsupported_version_is_an_error_naming_the_dependency_and_the_range(
    versions: FakeVersions,
) -> None:
    versions(httpcore="1.1.0", PyYAML="absent")
    with pytest.raises(UnsupportedVersionError) as raised:
        require("httpcore", (1, 0), (1, 1), "the pool")
    assert str(raised.value) == "the pool needs httpcore>=1.0,<1.1; httpcore 1.1.0 is installed"
    assert raised.value.hint == "install a supported release: pip install 'httpcore>=1.0,<1.1'"
    with pytest.raises(UnsupportedVersionError, match="PyYAML not installed"):
        require("PyYAML", (6, 0), (7,), "reading")


# httpcore: the linear pool falls back to httpcore's own, which keeps the guard.


def test_the_pool_and_the_socket_check_are_httpcores_own_outside_the_range(
    versions: FakeVersions,
) -> None:
    assert httpcore_pool.pool_class() is httpcore_pool.LinearPool
    assert httpcore_pool.socket_check() is not None
    versions(httpcore="1.1.0")
    assert httpcore_pool.pool_class() is httpcore.AsyncConnectionPool
    assert httpcore_pool.socket_check() is None


def test_with_httpcores_own_pool_the_transport_still_fetches_and_still_guards(
    versions: FakeVersions, server: CountingServer
) -> None:
    versions(httpcore="1.1.0")
    allowed = guarded_transport(LOOPBACK, connections=4)
    assert type(allowed._pool) is httpcore.AsyncConnectionPool
    assert allowed._pool._max_connections == 4
    assert allowed._pool._max_keepalive_connections == 4

    async def get(transport: httpx.AsyncHTTPTransport, times: int) -> list[int]:
        async with httpx.AsyncClient(transport=transport) as client:
            return [(await client.get(server.url("/ok"))).status_code for _ in range(times)]

    assert asyncio.run(get(allowed, 3)) == [200, 200, 200]
    assert server.connections == 1  # kept alive: the stream answers `is_readable` itself
    with pytest.raises(httpx.ConnectError) as refused:
        asyncio.run(get(guarded_transport(NOTHING_INTERNAL, connections=4), 1))
    assert isinstance(refused.value.__context__, AddressRefusedError)


def test_a_pool_that_cannot_be_rebuilt_over_the_guard_is_an_error(
    versions: FakeVersions,
) -> None:
    versions(httpcore="2.0")
    with pytest.raises(UnsupportedVersionError, match=r"httpcore>=1\.0,<2"):
        guarded_transport(LOOPBACK, connections=4)


# httpx: the pool swap is needed by the guard; the command line is only start-up time.


def test_an_httpx_whose_pool_cannot_be_swapped_is_an_error(versions: FakeVersions) -> None:
    versions(httpx="1.0.0")
    with pytest.raises(UnsupportedVersionError) as raised:
        guarded_transport(LOOPBACK, connections=4)
    assert (
        str(raised.value) == "the connection guard needs httpx>=0.27,<1; httpx 1.0.0 is installed"
    )


def test_verify_with_an_unsupported_httpx_exits_2_naming_it(
    versions: FakeVersions,
    server: CountingServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    write_fast_config(tmp_path)
    write_claims(tmp_path / "claims", [claim(source=server.url("/ok"), quote="hello")])
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", "127.0.0.1")
    versions(httpx="1.0.0")

    result = run("verify", "claims")

    assert result.exit_code == 2, show(result)
    assert "the connection guard needs httpx>=0.27,<1; httpx 1.0.0 is installed" in result.stderr
    assert "pip install 'httpx>=0.27,<1'" in result.stderr
    assert "Traceback" not in result.stderr
    assert server.connections == 0


@pytest.mark.parametrize(("version", "left_out"), [("0.28.1", True), ("1.0.0", False)])
def test_httpxs_command_line_is_left_out_only_for_the_releases_it_was_written_for(
    versions: FakeVersions, monkeypatch: pytest.MonkeyPatch, version: str, left_out: bool
) -> None:
    versions(httpx=version)
    monkeypatch.delitem(sys.modules, "httpx")
    monkeypatch.setitem(sys.modules, "httpx._main", sys.modules.get("httpx._main"))
    del sys.modules["httpx._main"]
    assert httpx_cli.leave_out_httpx_command_line() is left_out
    assert ("httpx._main" in sys.modules) is left_out
    if left_out:
        assert sys.modules["httpx._main"] is None


def test_httpxs_command_line_is_left_alone_once_httpx_is_imported(
    versions: FakeVersions,
) -> None:
    versions(httpx="0.28.1")
    assert "httpx" in sys.modules
    assert httpx_cli.leave_out_httpx_command_line() is False


# cmarkgfm: the public renderer gives the same HTML, only its memory is not freed.

MARKDOWN = "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n~~gone~~ www.example.com\n"


def test_outside_the_range_the_renderer_is_cmarkgfms_public_one(versions: FakeVersions) -> None:
    freeing = cmark.choose_renderer()
    versions(cmarkgfm="2026.1.1")
    public = cmark.choose_renderer()
    assert public is not freeing
    expected = public_cmark.github_flavored_markdown_to_html(
        MARKDOWN, public_cmark.Options.CMARK_OPT_UNSAFE
    )
    assert "<table>" in expected
    assert "<del>gone</del>" in expected
    assert public(MARKDOWN, public_cmark.Options.CMARK_OPT_UNSAFE) == expected
    assert freeing(MARKDOWN, public_cmark.Options.CMARK_OPT_UNSAFE) == expected


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("ab1 \n#-*|`~[]()<>:!_.x")), max_size=200),
    st.sampled_from(
        [0, public_cmark.Options.CMARK_OPT_UNSAFE, public_cmark.Options.CMARK_OPT_SOURCEPOS]
    ),
)
def test_the_freeing_renderer_and_the_public_one_agree(markdown: str, options: int) -> None:
    assert cmark.render_gfm(markdown, options) == (
        public_cmark.github_flavored_markdown_to_html(markdown, options)
    )
