"""The snapshots folder is a folder of its own, and a night commits only what it wrote.

Through the real CLI (`schedule --once --commit`) in a real git repository holding what
a desk keeps beside its claims and never commits: `.env.local`, a private key, a draft
article. A `snapshots` that would take them in (the project's folder, one above it, one
outside the project, the claims' folder) is refused before anything is fetched or
written; a good one gets a commit of exactly the files the run wrote or removed, never
a file someone else left in the folder.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from claimcheck.cli.app import app
from claimcheck.forges.resolve import legacy_key, resolve_source
from claimcheck.store.index import INDEX
from claimcheck.store.lock import LOCK_FILE
from support.claim_files import PAGE_HTML, claim, write_claims
from support.replay_server import ReplayServer

SECRETS = {
    ".env.local": "API_KEY=not-for-git\n",
    "private/key.pem": "-----BEGIN PRIVATE KEY-----\nnot-for-git\n-----END PRIVATE KEY-----\n",
    "drafts/unpublished-article.md": "# Not out yet\n\nThe embargoed draft.\n",
}
"""Untracked files of the desk that no commit of claimcheck's may take."""


def git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def desk(tmp_path: Path, replay: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A desk's repository as the current folder: claims on two pages of the replay
    server (checked today, so no history is asked), committed; its secrets and a draft
    beside them, untracked; git with an identity and no user config."""
    project = tmp_path / "desk"
    project.mkdir()
    monkeypatch.chdir(project)
    for name in [n for n in os.environ if n.startswith("GITHUB_") or n.upper().endswith("_PROXY")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Night Desk")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "desk@example.org")
    replay.set_page("/docs/page.html", PAGE_HTML)
    replay.set_page("/docs/other.html", PAGE_HTML)
    today = dt.datetime.now(dt.UTC).date().isoformat()
    entries = [
        claim("page", source=f"{replay.base_url}/docs/page.html"),
        claim("other", source=f"{replay.base_url}/docs/other.html"),
    ]
    write_claims(project / "claims", entries, checked=today)
    (project / "claimcheck.toml").write_text("[fetch]\nper_host_interval = 0\n")
    git(project, "init", "--quiet", "--initial-branch=main")
    git(project, "add", "claims", "claimcheck.toml")
    git(project, "commit", "--quiet", "-m", "claims")
    for name, text in SECRETS.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text)
    return project


def schedule_once(*args: str) -> Result:
    return CliRunner().invoke(
        app, ["schedule", "--once", "--commit", "--no-issues", *args], catch_exceptions=False
    )


def files_below(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` (`.git` aside) and its bytes: what a refused run leaves."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(folder).parts
    }


# -- refused at load -------------------------------------------------------------------

REFUSED = {
    "project-folder": ('snapshots = "."', "is the project's folder"),
    "claims-parent": ('snapshots = "claims/.."', "is the project's folder"),
    "above-the-project": ('snapshots = ".."', "holds the project's folder"),
    "absolute-outside": ("snapshots = {outside!r}", "is outside the project's folder"),
    "claims-folder": ('snapshots = "claims"', "is where the claims are"),
    "inside-the-claims": ('snapshots = "claims/kept"', "is inside the claims"),
}


@pytest.mark.parametrize(("line", "problem"), REFUSED.values(), ids=REFUSED)
def test_a_store_folder_that_is_not_its_own_is_refused_before_the_night(
    desk: Path, replay: ReplayServer, line: str, problem: str
) -> None:
    """The key on line 3 of claimcheck.toml: exit 2 naming its file, line and key; no
    request, no file written anywhere (above the project either), no commit."""
    outside = desk.parent / "elsewhere"
    key = line.format(outside=str(outside))
    (desk / "claimcheck.toml").write_text(
        f"# the desk's settings\n\n{key}\n\n[fetch]\nper_host_interval = 0\n"
    )
    before, commits = files_below(desk.parent), git(desk, "rev-list", "--all")

    result = schedule_once()

    assert result.exit_code == 2, result.stderr
    (said,) = [row for row in result.stderr.splitlines() if "claimcheck.toml:" in row]
    assert "claimcheck.toml:3: snapshots: " in said
    assert problem in said
    assert "a folder of its own" in result.stderr  # the hint
    assert "Traceback" not in result.stdout + result.stderr
    assert replay.requests == []
    assert files_below(desk.parent) == before
    assert git(desk, "rev-list", "--all") == commits
    assert not outside.exists()


def test_a_folder_holding_the_config_named_by_config_is_refused(
    desk: Path, replay: ReplayServer
) -> None:
    """--config site/claimcheck.toml with `snapshots = "."`: the store would be the folder
    that holds the config (and the claims below it)."""
    site = desk / "site"
    site.mkdir()
    (site / "claimcheck.toml").write_text(
        '# the site\'s config\nclaims = ["../claims"]\nsnapshots = "."\n'
    )
    before = files_below(desk.parent)

    result = schedule_once("--config", "site/claimcheck.toml")

    assert result.exit_code == 2, result.stderr
    assert "site/claimcheck.toml:3: snapshots: '.' is the project's folder" in result.stderr
    assert replay.requests == []
    assert files_below(desk.parent) == before


FLAGS = {
    "project-folder": (".", "is the project's folder"),
    "above-the-project": ("..", "holds the project's folder"),
    "claims-folder": ("claims", "is where the claims are"),
    "inside-the-claims": ("claims/kept", "is inside the claims"),
}


@pytest.mark.parametrize(("folder", "problem"), FLAGS.values(), ids=FLAGS)
def test_a_snapshots_flag_that_is_not_a_folder_of_its_own_is_refused(
    desk: Path, replay: ReplayServer, folder: str, problem: str
) -> None:
    before = files_below(desk.parent)

    result = schedule_once("--snapshots", folder)

    assert result.exit_code == 2, result.stderr
    assert f"error: --snapshots {folder}: {problem}" in result.stderr
    assert replay.requests == []
    assert files_below(desk.parent) == before


# -- the commit ------------------------------------------------------------------------


def write_legacy(snapshots: Path, url: str, body: bytes) -> list[str]:
    """A web source's versions as stored before keys carried the URL digest, which the
    next write moves: the files the run removes, from the repository's root."""
    folder = snapshots / str(legacy_key(resolve_source(url).key))
    folder.mkdir(parents=True)
    name = "2026-10-20T113000Z-0badc0de.html"
    (folder / name).write_bytes(body)
    entry = {
        "final_url": url,
        "fetched_at": "2026-10-20T11:30:00+00:00",
        "status": 200,
        "sha256": hashlib.sha256(body).hexdigest(),
        "media": "html",
        "file": name,
    }
    (folder / INDEX).write_text(json.dumps({"url": url, "versions": [entry]}))
    root = snapshots.parent
    return [
        (folder / INDEX).relative_to(root).as_posix(),
        (folder / name).relative_to(root).as_posix(),
    ]


def test_a_night_commits_exactly_the_files_it_wrote_or_removed(
    desk: Path, replay: ReplayServer
) -> None:
    """Before the night the folder holds an old-style folder of one page (committed; the
    run moves it), a file of the desk's own (committed, then edited) and a stray
    untracked file. The night's commit holds the new snapshots, their indexes and the
    state, and the old folder's removal; the edited note, the stray file, the secrets
    and the draft stay as they were."""
    snapshots = desk / "snapshots"
    page = f"{replay.base_url}/docs/page.html"
    removed = write_legacy(snapshots, page, b"<html><body><p>An older page.</p></body></html>")
    (snapshots / "NOTES.md").write_text("What we keep here.\n")
    git(desk, "add", "snapshots")
    git(desk, "commit", "--quiet", "-m", "an old store and a note")
    (snapshots / "NOTES.md").write_text("What we keep here, edited tonight.\n")
    (snapshots / "stray.txt").write_text("left here by another program\n")
    (desk / "notes.txt").write_text("the desk's own staged work\n")
    git(desk, "add", "notes.txt")
    others = {"snapshots/NOTES.md", "snapshots/stray.txt"}

    result = schedule_once()

    assert result.exit_code == 0, result.stderr
    assert "committed 'claimcheck: 2 new snapshots of 2 sources'" in result.stderr
    on_disk = {
        f"snapshots/{name}"
        for name in files_below(snapshots)
        if not name.startswith(".cache/") and name != LOCK_FILE
    }
    written = on_disk - others  # the folder held nothing else before the night
    assert written  # two bodies, two indexes and the state
    changes = git(desk, "show", "--no-renames", "--name-status", "--format=", "HEAD").splitlines()
    assert sorted(changes) == sorted(
        [f"A\t{name}" for name in written] + [f"D\t{name}" for name in removed]
    )
    assert git(desk, "show", "--no-renames", "--name-only", "--format=", "HEAD").split() == sorted(
        [*written, *removed]
    )
    status = git(desk, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert sorted(status) == sorted(
        [
            "A  notes.txt",  # still staged, and out of claimcheck's commit
            " M snapshots/NOTES.md",
            "?? snapshots/stray.txt",
            *(f"?? {name}" for name in SECRETS),
        ]
    )
