"""The patches of dependencies' internals (`claimcheck._compat`) and their version checks.

Each patch is written for a range of releases of its dependency. These tests make the
installed version read as one outside that range (the metadata lookup, which is the
dependency's, not ours) and hold each module to its decision: outside the range, the
public path, which gives the same result.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path

import pytest
from cmarkgfm import cmark as public_cmark
from hypothesis import given, settings
from hypothesis import strategies as st

from claimcheck._compat import cmark, httpx_cli
from claimcheck._compat.versions import installed, supported
from support.claim_files import claim, write_claims, write_fast_config
from support.cli_runs import run, show
from support.counting_server import CountingServer, answer, counting_server

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


# httpx: only its command line is patched, and that is only start-up time.


def test_verify_with_another_httpx_release_fetches_as_with_the_one_it_was_written_for(
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

    assert result.exit_code == 0, show(result)
    assert "verified" in result.stdout
    assert server.requests == 1


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
