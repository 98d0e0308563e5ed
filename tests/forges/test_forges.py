"""The forge adapters: which URLs each claims, their keys and requests, and history read
page by page from GitLab- and Forgejo-shaped servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest

from claimcheck.forges.forge import Servers
from claimcheck.forges.forgejo import FORGEJO
from claimcheck.forges.gitlab import GITLAB
from claimcheck.forges.history import History
from claimcheck.forges.registry import ADAPTERS, forge_of
from claimcheck.forges.resolve import resolve_source
from claimcheck.models import SourceKind
from claimcheck.net.fetch import Fetched, Gone
from claimcheck.net.fetcher import Fetcher, FetchSettings
from support.fake_forges import FakeForgejo, FakeGitLab

FAST = FetchSettings(per_host_interval=0.0, retries=0)
GITLAB_SERVER = "https://gitlab.example.org"
FORGEJO_SERVER = "http://127.0.0.1:8997"
SERVERS = Servers(urls=(("gitlab", GITLAB_SERVER), ("forgejo", FORGEJO_SERVER)))


@pytest.mark.parametrize(
    ("url", "kind", "canonical", "fetch", "key"),
    [
        (
            "https://gitlab.com/acme/serve-kit",
            SourceKind.GITLAB,
            "https://gitlab.com/acme/serve-kit",
            f"{GITLAB_SERVER}/api/v4/projects/acme%2Fserve-kit",
            "gitlab.com/acme/serve-kit/README",
        ),
        (
            "https://gitlab.com/acme/tools/serve-kit/-/tree/v1.0#install",
            SourceKind.GITLAB,
            "https://gitlab.com/acme/tools/serve-kit/-/tree/v1.0",
            f"{GITLAB_SERVER}/api/v4/projects/acme%2Ftools%2Fserve-kit",
            "gitlab.com/acme/tools/serve-kit/README/ref-v1.0",
        ),
        (
            "https://gitlab.com/acme/serve-kit/-/blob/main/docs/install.md",
            SourceKind.GITLAB,
            "https://gitlab.com/acme/serve-kit/-/blob/main/docs/install.md",
            f"{GITLAB_SERVER}/api/v4/projects/acme%2Fserve-kit/repository/files/"
            "docs%2Finstall.md/raw?ref=main",
            "gitlab.com/acme/serve-kit/blob/main/docs/install.md",
        ),
        (
            "https://gitlab.example.org/acme/serve-kit",  # the configured server's own host
            SourceKind.GITLAB,
            "https://gitlab.example.org/acme/serve-kit",
            f"{GITLAB_SERVER}/api/v4/projects/acme%2Fserve-kit",
            "gitlab.example.org/acme/serve-kit/README",
        ),
        (
            "https://codeberg.org/acme/serve-kit",
            SourceKind.FORGEJO,
            "https://codeberg.org/acme/serve-kit",
            f"{FORGEJO_SERVER}/api/v1/repos/acme/serve-kit/contents",
            "codeberg.org/acme/serve-kit/README",
        ),
        (
            "https://codeberg.org/acme/serve-kit/src/branch/next",
            SourceKind.FORGEJO,
            "https://codeberg.org/acme/serve-kit/src/branch/next",
            f"{FORGEJO_SERVER}/api/v1/repos/acme/serve-kit/contents?ref=next",
            "codeberg.org/acme/serve-kit/README/ref-next",
        ),
        (
            "https://codeberg.org/acme/serve-kit/src/tag/v2/docs/install.md",
            SourceKind.FORGEJO,
            "https://codeberg.org/acme/serve-kit/src/tag/v2/docs/install.md",
            f"{FORGEJO_SERVER}/api/v1/repos/acme/serve-kit/raw/docs/install.md?ref=v2",
            "codeberg.org/acme/serve-kit/blob/v2/docs/install.md",
        ),
    ],
    ids=[
        "gitlab-readme",
        "gitlab-subgroup-tree",
        "gitlab-blob",
        "gitlab-self-hosted",
        "codeberg-readme",
        "codeberg-branch",
        "codeberg-tag-file",
    ],
)
def test_forge_urls_resolve_to_their_api(
    url: str, kind: SourceKind, canonical: str, fetch: str, key: str
) -> None:
    ref = resolve_source(url, servers=SERVERS)

    assert (ref.kind, ref.url, ref.fetch_url, ref.key) == (kind, canonical, fetch, key)


@pytest.mark.parametrize(
    "url",
    [
        "https://gitlab.com/explore/projects",
        "https://gitlab.com/help/api/index.md",
        "https://gitlab.com/acme",
        "https://gitlab.com/acme/serve-kit/-/issues/12",
        "https://codeberg.org/user/login",
        "https://codeberg.org/acme",
        "https://codeberg.org/acme/serve-kit/issues/3",
        "https://git.example.org/acme/serve-kit",  # a forge claimcheck was not told of
    ],
)
def test_other_pages_on_forge_hosts_are_web_pages(url: str) -> None:
    assert resolve_source(url, servers=SERVERS).kind is SourceKind.WEB


def test_every_adapter_owns_what_it_resolves_and_names_itself_once() -> None:
    examples = {
        "github": "https://github.com/acme/serve-kit",
        "huggingface": "https://huggingface.co/acme/tiny-7b",
        "gitlab": "https://gitlab.com/acme/serve-kit",
        "forgejo": "https://codeberg.org/acme/serve-kit",
    }

    names = [forge.name for forge in ADAPTERS]

    assert sorted(names) == sorted(examples)
    for name, url in examples.items():
        owner = forge_of(resolve_source(url, servers=SERVERS))
        assert owner is not None
        assert owner.name == name


def test_a_gitlab_project_without_a_readme_is_gone() -> None:
    ref = resolve_source("https://gitlab.com/acme/serve-kit", servers=SERVERS)
    answer = Fetched(
        url=ref.fetch_url,
        final_url=ref.fetch_url,
        status=200,
        body=b'{"id": 1, "default_branch": "main", "readme_url": null}',
        content_type="application/json",
    )

    found = GITLAB.unwrap(ref, answer, SERVERS.server(GITLAB))

    assert isinstance(found.outcome, Gone)
    assert found.again is None


def test_a_forgejo_listing_names_the_readme_and_asks_for_it_conditionally() -> None:
    ref = resolve_source("https://codeberg.org/acme/serve-kit", servers=SERVERS)
    listing = (
        b'[{"name": "docs", "path": "docs", "type": "dir"},'
        b' {"name": "readme.rst", "path": "readme.rst", "type": "file"},'
        b' {"name": "README.md", "path": "README.md", "type": "file"}]'
    )
    answer = Fetched(ref.fetch_url, ref.fetch_url, 200, listing, "application/json")

    found = FORGEJO.unwrap(ref, answer, SERVERS.server(FORGEJO), etag='"abc"')

    assert found.path == "README.md"
    assert found.again is not None
    assert found.again.url == f"{FORGEJO_SERVER}/api/v1/repos/acme/serve-kit/raw/README.md"
    assert found.again.etag == '"abc"'


# -- history, a page at a time -------------------------------------------------------------


def _day(n: int) -> dt.datetime:
    return dt.datetime(2025, 1, 1, 12, tzinfo=dt.UTC) + dt.timedelta(days=n)


@pytest.mark.parametrize("forge_name", ["gitlab", "forgejo"])
def test_blame_reads_every_page_and_bisects_to_the_commit_that_removed_the_quote(
    forge_name: str,
) -> None:
    """Seven README commits, two a page: the commits since the first one (itself
    included, as `since` is "on or after") are read over four pages, and the file is
    read at a logarithmic number of commits."""
    server_type = FakeGitLab if forge_name == "gitlab" else FakeForgejo
    with server_type(max_per_page=2) as fake:
        repo = "acme/serve-kit"
        made = [
            fake.commit(
                repo,
                {"README.md": f"# Kit\n\nRelease {n}.\n" + ("Runs on macOS.\n" if n < 5 else "")},
                title=f"Release {n}",
                date=_day(n),
            )
            for n in range(7)
        ]
        url = (
            f"https://gitlab.com/{repo}"
            if forge_name == "gitlab"
            else f"https://codeberg.org/{repo}"
        )
        servers = Servers(urls=((forge_name, fake.base_url),))
        ref = resolve_source(url, servers=servers)
        forge = forge_of(ref)
        assert forge is not None

        async def go() -> object:
            async with Fetcher(FAST) as fetcher:
                history = History(fetcher, api_url=fake.base_url, token=None, servers=servers)
                return await forge.blame(
                    history, ref, _day(0), lambda body: b"Runs on macOS." in body
                )

        culprit = asyncio.run(go())
        pages = [r for r in fake.requests if r.path.endswith("/commits")]
        raw = [r for r in fake.requests if "/raw" in r.path and r.query.get("ref")]
    assert fake.errors == []

    assert getattr(culprit, "sha", None) == made[5].sha
    assert [r.query.get("page", "1") for r in pages] == ["1", "2", "3", "4"]
    assert len(raw) <= 3  # log2(7) rounded up
