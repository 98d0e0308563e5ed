"""End to end: the real `claimcheck` CLI against GitLab- and Forgejo-shaped servers.

GITLAB_URL / FORGEJO_URL point at a fake forge on 127.0.0.1 that serves one
repository's history (four commits, three of them changing the README); GitHub's API,
the Hub and the Wayback Machine point at a second server, so that any request meant
for another host is seen. Every test runs against both forges: the adapters are two
files with one shape, and the expected answers (commits, dates, lines) are written by
hand from the history below.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.claim_files import claim, write_claims, write_fast_config
from support.cli_runs import PROXY_VARS, run, today, tree
from support.cli_runs import show as _show
from support.cli_runs import verify_by_id as verify_json
from support.fake_forges import FakeForgejo, FakeGitLab, ForgeCommit, blob_sha

ALWAYS = "Serve Kit is a small model server for one machine."
MACOS = "It runs on Linux and macOS."
WINDOWS = "Windows is supported since version 0.4."
README_V1 = f"# Serve Kit\n\n{ALWAYS}\n\n## Platforms\n\n{MACOS}\n"
README_V2 = f"{README_V1}\n{WINDOWS}\n"
README_V3 = f"# Serve Kit\n\n{ALWAYS}\n\n## Platforms\n\nIt runs on Linux only.\n\n{WINDOWS}\n"
WINDOWS_LINE_V3 = 9
"""The line WINDOWS stands on in README_V3 (counted by hand: title, blank, ALWAYS,
blank, heading, blank, Linux, blank, WINDOWS)."""


@dataclass(frozen=True)
class Forge:
    """One forge as the tests see it: its fake, its settings and its URLs."""

    name: str
    server: type[FakeGitLab] | type[FakeForgejo]
    url_env: str
    token_env: str
    repo: str
    source: str
    token: str

    def raw_path(self, ref: str) -> str:
        """The path (as sent) of the README raw at a ref."""
        if self.name == "gitlab":
            project = self.repo.replace("/", "%2F")
            return f"/api/v4/projects/{project}/repository/files/README.md/raw"
        return f"/api/v1/repos/{self.repo}/raw/README.md"

    @property
    def commits_path(self) -> str:
        if self.name == "gitlab":
            return f"/api/v4/projects/{self.repo.replace('/', '%2F')}/repository/commits"
        return f"/api/v1/repos/{self.repo}/commits"

    def permalink(self, sha: str, line: int) -> str:
        if self.name == "gitlab":
            return f"https://gitlab.com/{self.repo}/-/blob/{sha}/README.md#L{line}"
        return f"https://codeberg.org/{self.repo}/src/commit/{sha}/README.md#L{line}"


FORGES = [
    Forge(
        name="gitlab",
        server=FakeGitLab,
        url_env="GITLAB_URL",
        token_env="GITLAB_TOKEN",
        repo="acme/tools/serve-kit",
        source="https://gitlab.com/acme/tools/serve-kit",
        token="glpat-e2eTestToken0123456789SECRET",
    ),
    Forge(
        name="forgejo",
        server=FakeForgejo,
        url_env="FORGEJO_URL",
        token_env="FORGEJO_TOKEN",
        repo="acme/serve-kit",
        source="https://codeberg.org/acme/serve-kit",
        token="forgejo-e2eTestToken0123456789SECRET",
    ),
]


@dataclass(frozen=True)
class Commits:
    initial: ForgeCommit
    license: ForgeCommit
    windows: ForgeCommit
    drop_macos: ForgeCommit


@pytest.fixture(params=FORGES, ids=[f.name for f in FORGES])
def forge(request: pytest.FixtureRequest) -> Forge:
    chosen: Forge = request.param
    return chosen


@pytest.fixture
def server(forge: Forge) -> Iterator[FakeGitLab | FakeForgejo]:
    with forge.server() as fake:
        yield fake
    assert fake.errors == []


@pytest.fixture
def elsewhere() -> Iterator[FakeGitLab]:
    """Every other server claimcheck knows of (GitHub's API, the Hub, the Wayback Machine)."""
    with FakeGitLab() as fake:
        yield fake


def at(day: str, hour: int = 12) -> dt.datetime:
    return dt.datetime.fromisoformat(day).replace(hour=hour, tzinfo=dt.UTC)


@pytest.fixture
def history(forge: Forge, server: FakeGitLab | FakeForgejo) -> Commits:
    repo = forge.repo
    return Commits(
        initial=server.commit(
            repo, {"README.md": README_V1}, title="Initial README", date=at("2025-01-10")
        ),
        license=server.commit(repo, {"LICENSE": "MIT"}, title="Add LICENSE", date=at("2025-02-01")),
        windows=server.commit(
            repo, {"README.md": README_V2}, title="Document Windows support", date=at("2025-03-05")
        ),
        drop_macos=server.commit(
            repo,
            {"README.md": README_V3},
            title="Drop macOS",
            author="maintainer-b",
            date=at("2025-06-01", hour=9),
        ),
    )


@pytest.fixture
def project(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    forge: Forge,
    server: FakeGitLab | FakeForgejo,
    elsewhere: FakeGitLab,
) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(forge.url_env, server.base_url)
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", "127.0.0.1")
    for name in ("GITHUB_API_URL", "WAYBACK_URL", "HF_ENDPOINT"):
        monkeypatch.setenv(name, elsewhere.base_url)
    other = {"GITLAB_URL", "FORGEJO_URL"} - {forge.url_env}
    for name in other:
        monkeypatch.setenv(name, elsewhere.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    for name in ("GITLAB_TOKEN", "FORGEJO_TOKEN", "HF_TOKEN", "GITHUB_TOKEN", *PROXY_VARS):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    write_fast_config(tmp_path)
    return tmp_path


# -- resolve, fetch, then a 304 -------------------------------------------------------------


def test_a_readme_claim_is_verified_then_answered_304_with_nothing_written(
    project: Path,
    forge: Forge,
    server: FakeGitLab | FakeForgejo,
    history: Commits,
    elsewhere: FakeGitLab,
) -> None:
    write_claims(
        project / "claims", [claim("windows", quote=WINDOWS, source=forge.source)], checked=today()
    )

    first, results = verify_json()
    after_first = tree(project / "snapshots")
    server.requests.clear()
    second, again = verify_json()

    assert first.exit_code == second.exit_code == 0, _show(second)
    assert results["windows"]["verdict"] == again["windows"]["verdict"] == "verified"
    assert tree(project / "snapshots") == after_first  # not one file written or rewritten
    etag = f'"{blob_sha(README_V3.encode())}"'
    raw = server.requests_to(forge.raw_path("main"))
    assert [(r.status, r.headers.get("if-none-match")) for r in raw] == [(304, etag)]
    stored = [
        body
        for path, (body, _) in after_first.items()
        if path.endswith(".md") and "/README/" in path
    ]
    assert stored == [README_V3.encode()]
    host = "gitlab.com" if forge.name == "gitlab" else "codeberg.org"
    index = project / "snapshots" / host / Path(forge.repo) / "README" / "index.json"
    assert json.loads(index.read_text())["history"]["readme_path"] == "README.md"
    assert elsewhere.requests == []  # nothing went to any other host


# -- backfill from the forge's commits ---------------------------------------------------------


def test_an_older_check_date_is_backfilled_from_the_readme_commit_in_force(
    project: Path, forge: Forge, server: FakeGitLab | FakeForgejo, history: Commits
) -> None:
    # The LICENSE commit (2025-02-01) left the README alone: the README in force on
    # 2025-02-15 is the initial one, dated by its own commit.
    write_claims(
        project / "claims",
        [claim("always", quote=ALWAYS, source=forge.source)],
        checked="2025-02-15",
    )

    result, results = verify_json()

    assert result.exit_code == 0, _show(result)
    entry = results["always"]
    assert entry["verdict"] == "verified"
    assert entry["baseline_origin"] == f"commit {history.initial.sha}"
    assert entry["baseline"] == "2025-01-10"
    listed = server.requests_to(forge.commits_path)
    assert listed
    assert all(r.query["path"] == "README.md" for r in listed)


def test_a_self_hosted_forge_source_is_judged_against_its_baseline(
    project: Path, forge: Forge, server: FakeGitLab | FakeForgejo, history: Commits
) -> None:
    # The source is written on the configured server's own host (a self-hosted forge).
    # Every step must resolve it as the fetch did, with the config's servers: the
    # baseline stored by backfill is found, so the changed block around a quote that
    # still holds is reported. Resolved without them, the source looked like a web page
    # with no stored version, and the claim passed as verified without a baseline.
    source = f"{server.base_url}/{forge.repo}"
    linux = "It runs on Linux"  # "… and macOS." on 2025-02-15, "… only." now
    write_claims(
        project / "claims", [claim("linux", quote=linux, source=source)], checked="2025-02-15"
    )

    result, results = verify_json()
    _, again = verify_json("--offline")
    diff = run("diff", "linux")

    assert result.exit_code == 0, _show(result)
    for entry in (results["linux"], again["linux"]):
        assert entry["verdict"] == "context-changed", entry["reason"]
        assert entry["baseline"] == "2025-01-10"
        assert entry["baseline_origin"] == f"commit {history.initial.sha}"
        assert entry["block_before"] == "§ Serve Kit › Platforms\nIt runs on Linux and macOS."
        assert entry["block_after"] == "§ Serve Kit › Platforms\nIt runs on Linux only."
    assert diff.exit_code == 0, _show(diff)
    assert "It runs on Linux and macOS." in diff.stdout


# -- a quote the latest commit removed: stale, and blamed ---------------------------------------


def test_a_quote_removed_by_a_later_commit_is_stale_and_blamed(
    project: Path, forge: Forge, server: FakeGitLab | FakeForgejo, history: Commits
) -> None:
    write_claims(
        project / "claims", [claim("macos", quote=MACOS, source=forge.source)], checked="2025-03-10"
    )

    result, results = verify_json()
    blamed = run("blame", "macos")

    assert result.exit_code == 1, _show(result)
    entry = results["macos"]
    assert entry["verdict"] in ("drifted", "missing")
    assert entry["baseline_origin"] == f"commit {history.windows.sha}"
    assert entry["blame"]["sha"] == history.drop_macos.sha
    assert entry["blame"]["author"] == "maintainer-b"
    assert entry["blame"]["title"] == "Drop macOS"
    assert entry["blame"]["date"] == "2025-06-01T09:00:00Z"
    assert blamed.exit_code == 0, _show(blamed)
    assert f"commit {history.drop_macos.sha}" in blamed.stdout.splitlines()


# -- cite: the README at the checked commit, with the quote's line ---------------------------


def test_cite_gives_the_readme_at_its_commit_with_the_quotes_line(
    project: Path, forge: Forge, server: FakeGitLab | FakeForgejo, history: Commits
) -> None:
    write_claims(
        project / "claims", [claim("windows", quote=WINDOWS, source=forge.source)], checked=today()
    )
    verified, _ = verify_json()

    result = run("cite", "windows", "--style", "json")

    assert verified.exit_code == 0, _show(verified)
    assert result.exit_code == 0, _show(result)
    found = json.loads(result.stdout)
    assert found["commit"] == history.drop_macos.sha
    assert found["permalink"] == forge.permalink(history.drop_macos.sha, WINDOWS_LINE_V3)


# -- gone ------------------------------------------------------------------------------------


def test_a_repository_the_forge_does_not_know_is_source_gone(
    project: Path, forge: Forge, history: Commits
) -> None:
    missing = forge.source.rsplit("/", 1)[0] + "/deleted-kit"
    write_claims(
        project / "claims", [claim("vanished", quote=ALWAYS, source=missing)], checked=today()
    )

    result, results = verify_json()

    assert result.exit_code == 1, _show(result)
    assert results["vanished"]["verdict"] == "source-gone"
    assert "404" in results["vanished"]["reason"]


# -- tokens -------------------------------------------------------------------------------------


def test_the_token_goes_to_its_forge_only_and_never_into_output_or_snapshots(
    project: Path,
    forge: Forge,
    server: FakeGitLab | FakeForgejo,
    history: Commits,
    elsewhere: FakeGitLab,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(forge.token_env, forge.token)
    write_claims(
        project / "claims", [claim("macos", quote=MACOS, source=forge.source)], checked="2025-03-10"
    )

    outputs = [run("verify"), run("verify", "--format", "json"), run("blame", "macos")]

    assert server.requests
    assert all(r.headers.get("authorization") == f"Bearer {forge.token}" for r in server.requests)
    assert elsewhere.requests == []
    for result in outputs:
        assert forge.token not in result.stdout
        assert forge.token not in result.stderr
    for path, (body, _) in tree(project).items():
        assert forge.token.encode() not in body, path
