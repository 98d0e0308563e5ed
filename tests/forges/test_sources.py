"""Source URLs → fetch URL and snapshot key; keys never leave the snapshots folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimcheck.forges.github import rename_github_url, renamed_repository
from claimcheck.forges.resolve import resolve_source
from claimcheck.models import MediaType, SourceKind
from claimcheck.store.keys import snapshot_key
from claimcheck.store.store import Store

API = "http://127.0.0.1:9/api"

CASES = [
    (
        "https://github.com/ggml-org/llama.cpp",
        SourceKind.GITHUB_README,
        f"{API}/repos/ggml-org/llama.cpp/readme",
        "github.com/ggml-org/llama.cpp/README",
    ),
    (
        "https://github.com/ggml-org/llama.cpp.git",
        SourceKind.GITHUB_README,
        f"{API}/repos/ggml-org/llama.cpp/readme",
        "github.com/ggml-org/llama.cpp/README",
    ),
    (
        "https://github.com/ggml-org/llama.cpp/tree/b1234",
        SourceKind.GITHUB_README,
        f"{API}/repos/ggml-org/llama.cpp/readme?ref=b1234",
        "github.com/ggml-org/llama.cpp/README/ref-b1234",
    ),
    (
        "https://github.com/ggml-org/llama.cpp/blob/master/LICENSE",
        SourceKind.GITHUB_FILE,
        f"{API}/repos/ggml-org/llama.cpp/contents/LICENSE?ref=master",
        "github.com/ggml-org/llama.cpp/blob/master/LICENSE",
    ),
    (
        "https://raw.githubusercontent.com/ggml-org/llama.cpp/master/docs/build.md",
        SourceKind.GITHUB_FILE,
        f"{API}/repos/ggml-org/llama.cpp/contents/docs/build.md?ref=master",
        "github.com/ggml-org/llama.cpp/blob/master/docs/build.md",
    ),
    (
        "https://docs.vllm.ai/en/latest/index.html",
        SourceKind.WEB,
        "https://docs.vllm.ai/en/latest/index.html",
        "docs.vllm.ai/en/latest/index.html",
    ),
    ("https://example.org", SourceKind.WEB, "https://example.org", "example.org/index"),
    (
        "http://127.0.0.1:8080/page",
        SourceKind.WEB,
        "http://127.0.0.1:8080/page",
        "127.0.0.1_8080/page",
    ),
]


@pytest.mark.parametrize(
    ("url", "kind", "fetch", "key"),
    CASES,
    ids=["readme", "dot-git", "tree-ref", "blob", "raw", "web", "bare-host", "port"],
)
def test_resolve(url: str, kind: SourceKind, fetch: str, key: str) -> None:
    ref = resolve_source(url, API)
    assert ref.kind is kind
    assert ref.fetch_url == fetch
    assert ref.key.startswith(key)


def test_a_readme_is_asked_for_as_its_content_object_and_a_file_raw() -> None:
    """The README's object names its path too (history needs it); a file's path is
    in its URL, so the file comes raw."""
    ref = resolve_source("https://github.com/o/r", API)
    assert ref.accept == "application/vnd.github+json"
    assert ref.media is MediaType.MARKDOWN
    lic = resolve_source("https://github.com/o/r/blob/main/LICENSE", API)
    assert lic.accept == "application/vnd.github.raw+json"
    assert lic.media is MediaType.TEXT


def test_query_strings_get_their_own_folder() -> None:
    a = resolve_source("https://example.org/p?x=1").key
    b = resolve_source("https://example.org/p?x=2").key
    assert a != b
    assert a.startswith("example.org/p/query-")


@pytest.mark.parametrize(
    "url",
    [
        "https://example.org/../../etc/passwd",
        "https://example.org/%2e%2e/%2e%2e/x",
        "https://example.org/a/..%2f..%2f/x",
        "https://github.com/../..",
        "https://github.com/o/r/blob/main/../../../../x",
        "https://example.org/.git/config",
        "https://example.org/" + "a" * 500,
        "https://example.org/C:\\windows",
        "https://user:pass@example.org/x",
    ],
    ids=[
        "dotdot",
        "encoded-dotdot",
        "encoded-slash",
        "github-dotdot",
        "blob-dotdot",
        "hidden",
        "long",
        "backslash",
        "credentials",
    ],
)
def test_hostile_urls_stay_inside_snapshots(url: str, tmp_path: Path) -> None:
    key = resolve_source(url, API).key
    store = Store(tmp_path / "snapshots")
    folder = store.folder(key)
    assert folder.is_relative_to((tmp_path / "snapshots").resolve())
    assert all(part not in ("", ".", "..") and not part.startswith(".") for part in key.split("/"))
    assert "user" not in key


@given(st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=6))
def test_any_segments_make_a_safe_key(parts: list[str]) -> None:
    key = snapshot_key(parts)
    for part in key.split("/"):
        assert part not in ("", ".", "..")
        assert not part.startswith(".")
        assert all(c.isascii() and (c.isalnum() or c in "._-") for c in part)


def test_different_unsafe_segments_do_not_collide() -> None:
    assert snapshot_key(["a b"]) != snapshot_key(["a_b"])
    assert snapshot_key(["a?b"]) != snapshot_key(["a#b"])


@pytest.mark.parametrize(
    ("moved", "expected"),
    [
        (f"{API}/repositories/123/readme", f"{API}/repositories/123"),
        (f"{API}/repositories/123/contents/LICENSE?ref=main", f"{API}/repositories/123"),
        (f"{API}/repos/o/r/readme", None),
        ("https://elsewhere.example/repositories/123/readme", None),
    ],
    ids=["readme", "contents", "not-a-rename", "other-host"],
)
def test_renamed_repository_is_recognised_from_the_api_redirect(
    moved: str, expected: str | None
) -> None:
    assert renamed_repository(moved, API) == expected


def test_a_renamed_repository_keeps_the_rest_of_the_source_url() -> None:
    assert rename_github_url("https://github.com/old/r", "new/r2") == "https://github.com/new/r2"
    assert (
        rename_github_url("https://github.com/old/r/blob/main/LICENSE", "new/r2")
        == "https://github.com/new/r2/blob/main/LICENSE"
    )
