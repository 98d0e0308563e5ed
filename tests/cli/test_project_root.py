"""The project is found from any folder, as git finds `.git`; report paths are the repository's.

`find_project` walks up from the current folder to the nearest `claimcheck.toml`, and
stops at the top of a git work tree. Relative `claims` and `snapshots` are taken from
the project's folder; the paths every report shows are relative to the repository's
root, whichever folder the command ran in, so GitHub places each annotation and alert
on its file. The end-to-end tests run the installed `claimcheck` from `claims/`.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from claimcheck.cli.app import app
from claimcheck.cli.project import build_config
from claimcheck.cli.selection import read_claims
from claimcheck.config import CONFIG_FILE, find_project, load_config, repository_path
from claimcheck.errors import ConfigError
from claimcheck.forges.resolve import resolve_source
from claimcheck.models import MediaType
from claimcheck.store.store import Store
from support.claim_files import claim, write_claims

SOURCE = "https://docs.example.org/gpu.html"
PAGE = "<html><body><h1>GPUs</h1><p>Supports CUDA on every NVIDIA card.</p></body></html>"
CLAIMS = [
    claim("cuda", quote="Supports CUDA", source=SOURCE),  # verified
    claim("rocm", quote="Supports ROCm on AMD cards", source=SOURCE),  # missing: stale
    claim("metal", quote="Supports Metal on Apple chips", source=SOURCE),  # missing: stale
]
FORMATS = ("table", "json", "markdown", "github", "sarif", "junit", "html")
runner = CliRunner()


def outside_any_project(folder: Path) -> Path:
    """`folder`, after checking that no folder above it is a project or a repository."""
    above = [p for p in folder.parents if (p / CONFIG_FILE).exists() or (p / ".git").exists()]
    assert above == [], "these tests need a temporary folder outside any project"
    return folder


def make_project(folder: Path, config: str = "[verdict]\nmax_age_days = 0\n") -> Path:
    """A project: claimcheck.toml, claims/a.yaml and a snapshot of its source."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / CONFIG_FILE).write_text(config, encoding="utf-8")
    write_claims(folder / "claims", CLAIMS, name="a.yaml")
    ref = resolve_source(SOURCE)
    Store(folder / "snapshots").save(
        key=ref.key,
        url=ref.url,
        final_url=ref.fetch_url,
        status=200,
        body=PAGE.encode("utf-8"),
        media=MediaType.HTML,
        fetched_at=dt.datetime(2026, 10, 20, 9, tzinfo=dt.UTC),
    )
    return folder


# -- finding the project ---------------------------------------------------------------


def test_the_nearest_config_above_the_current_folder_is_the_project(tmp_path: Path) -> None:
    project = outside_any_project(tmp_path) / "proj"
    deep = project / "claims" / "drafts"
    deep.mkdir(parents=True)
    (project / CONFIG_FILE).write_text("", encoding="utf-8")

    for start in (project, project / "claims", deep):
        found = find_project(start)
        assert (found.root, found.config, found.repository) == (
            project,
            project / CONFIG_FILE,
            project,
        )
        assert found.start == start
        assert found.boundary is None


def test_a_nested_config_wins_over_one_further_up(tmp_path: Path) -> None:
    outer = outside_any_project(tmp_path)
    inner = outer / "site"
    (inner / "claims").mkdir(parents=True)
    (outer / CONFIG_FILE).write_text("", encoding="utf-8")
    (inner / CONFIG_FILE).write_text("", encoding="utf-8")

    assert find_project(inner / "claims").root == inner
    assert find_project(outer).root == outer


def test_the_config_option_names_the_project_outright(tmp_path: Path) -> None:
    here = outside_any_project(tmp_path) / "here"
    here.mkdir()
    (here / CONFIG_FILE).write_text("", encoding="utf-8")
    other = tmp_path / "other" / "alt.toml"

    found = find_project(here, config=other)  # need not exist yet: load_config says so

    assert (found.root, found.config, found.repository) == (other.parent, other, other.parent)


def test_without_config_or_repository_the_current_folder_is_the_project(tmp_path: Path) -> None:
    start = outside_any_project(tmp_path) / "a" / "b"
    start.mkdir(parents=True)
    (tmp_path / "a" / "claimcheck.toml").mkdir()  # a folder of that name is no config

    found = find_project(start)

    assert (found.root, found.config, found.repository, found.boundary) == (
        start,
        None,
        start,
        None,
    )


@pytest.mark.parametrize("marker", ["folder", "file"], ids=["repository", "worktree"])
def test_the_top_of_a_repository_ends_the_search(tmp_path: Path, marker: str) -> None:
    """A claimcheck.toml above a repository is another project's; `.git` is a file in a
    worktree or submodule."""
    outer = outside_any_project(tmp_path)
    (outer / CONFIG_FILE).write_text('claims = ["elsewhere"]\n', encoding="utf-8")
    repo = outer / "repo"
    (repo / "claims").mkdir(parents=True)
    if marker == "folder":
        (repo / ".git").mkdir()
    else:
        (repo / ".git").write_text("gitdir: /somewhere/else\n", encoding="utf-8")

    found = find_project(repo / "claims")

    assert (found.root, found.config, found.repository, found.boundary) == (
        repo,
        None,
        repo,
        repo,
    )


def test_a_config_inside_a_repository_reports_paths_from_the_repositorys_top(
    tmp_path: Path,
) -> None:
    """A monorepo: claims and snapshots beside site/claimcheck.toml; GitHub places an
    annotation at site/claims/a.yaml, relative to the checkout."""
    repo = outside_any_project(tmp_path) / "repo"
    site = repo / "site"
    (site / "claims").mkdir(parents=True)
    (repo / ".git").mkdir()
    (site / CONFIG_FILE).write_text("", encoding="utf-8")
    (repo / CONFIG_FILE).write_text("", encoding="utf-8")

    found = find_project(site / "claims")

    assert (found.root, found.config, found.repository) == (site, site / CONFIG_FILE, repo)
    assert find_project(repo).root == repo  # the same folder: its own config


def test_report_paths_are_posix_from_the_repository_or_absolute_outside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = outside_any_project(tmp_path) / "repo"
    (repo / "claims").mkdir(parents=True)
    (repo / "claims" / "a.yaml").write_text("", encoding="utf-8")
    (tmp_path / "link").symlink_to(repo, target_is_directory=True)
    outside = tmp_path / "shared" / "b.yaml"
    monkeypatch.chdir(repo / "claims")

    assert repository_path("a.yaml", repo) == "claims/a.yaml"
    assert repository_path(Path("..") / "claims" / "a.yaml", repo) == "claims/a.yaml"
    assert repository_path(repo / "claims" / "a.yaml", repo) == "claims/a.yaml"
    assert repository_path(tmp_path / "link" / "claims" / "a.yaml", repo) == "claims/a.yaml"
    assert repository_path("a.yaml", tmp_path / "link") == "claims/a.yaml"
    assert repository_path(outside, repo) == outside.as_posix()
    assert repository_path("../../shared/b.yaml", repo) == outside.as_posix()


# -- the config from a subfolder -------------------------------------------------------


def test_relative_claims_and_snapshots_are_taken_from_the_projects_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(
        outside_any_project(tmp_path) / "proj",
        'claims = ["claims"]\nsnapshots = "store"\n\n[verdict]\nmax_age_days = 0\n',
    )
    monkeypatch.chdir(project / "claims")

    config = load_config(None, env={})

    assert config.root == Path("..")
    assert config.claim_paths == [Path("../claims")]
    assert config.snapshots_dir == Path("../store")
    assert config.repository == project
    assert [(c.id, c.file) for c in read_claims(None, config)] == [
        ("cuda", "claims/a.yaml"),
        ("rocm", "claims/a.yaml"),
        ("metal", "claims/a.yaml"),
    ]
    assert config.local_path("claims/a.yaml").samefile("a.yaml")


def test_command_line_paths_are_taken_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(outside_any_project(tmp_path) / "proj")
    monkeypatch.chdir(project / "claims")

    config = build_config(None, snapshots=Path("../scratch"))  # from the root: outside

    assert config.snapshots_dir == project / "scratch"
    (claimed,) = {c.file for c in read_claims([Path("a.yaml")], config)}
    assert claimed == "claims/a.yaml"


def test_a_config_error_names_the_file_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = outside_any_project(tmp_path) / "proj"
    (project / "claims").mkdir(parents=True)
    (project / CONFIG_FILE).write_text("[fetch]\n\ntimeout = -1\n", encoding="utf-8")
    monkeypatch.chdir(project / "claims")

    with pytest.raises(ConfigError) as caught:
        load_config(None, env={})

    assert str(caught.value) == (
        f"..{os.sep}{CONFIG_FILE}:3: fetch.timeout: Input should be greater than 0"
    )


@pytest.mark.parametrize("key", ["root", "project"])
def test_the_file_cannot_move_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    """The project is where claimcheck.toml is: a `root` key would be ignored, so it is
    refused like any unknown key."""
    project = outside_any_project(tmp_path)
    (project / CONFIG_FILE).write_text(f'claims = ["claims"]\n{key} = "site"\n')
    monkeypatch.chdir(project)

    with pytest.raises(ConfigError) as caught:
        load_config(None, env={})

    assert str(caught.value) == f"{CONFIG_FILE}:2: {key}: unknown key"


# -- what a missing claims folder says -------------------------------------------------


def test_a_missing_claims_folder_says_where_it_looked_and_suggests_init(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = outside_any_project(tmp_path) / "notes"
    start.mkdir()
    monkeypatch.chdir(start)

    commands = [
        ["verify", "--offline"],
        ["snapshot"],
        ["list"],
        ["show", "x"],
        ["accept", "x"],
        ["explain", "x"],
        ["backfill"],
        ["issues", "--dry-run", "--repo", "o/r"],
    ]
    for command in commands:
        result = runner.invoke(app, command)

        assert result.exit_code == 2, (command, result.output)
        assert result.stderr == (
            f"error: no claims folder at {start / 'claims'} (searched from {start} up "
            f"for {CONFIG_FILE}: none found)\n"
            "hint: run `claimcheck init` to create one, or pass claim files\n"
        ), command


def test_in_a_repository_without_config_the_claims_folder_is_at_its_top(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = outside_any_project(tmp_path) / "repo"
    (repo / "docs").mkdir(parents=True)
    (repo / ".git").mkdir()
    monkeypatch.chdir(repo / "docs")

    missing = runner.invoke(app, ["verify", "--offline"])

    assert missing.exit_code == 2
    assert missing.stderr == (
        f"error: no claims folder at {repo / 'claims'} (searched from {repo / 'docs'} up "
        f"to the repository's root for {CONFIG_FILE}: none found)\n"
        "hint: run `claimcheck init ..` to create one, or pass claim files\n"
    )

    write_claims(repo / "claims", [claim("cited", source=None, quote=None, cited="a book")])
    found = runner.invoke(app, ["verify", "--offline", "--format", "json"])

    assert found.exit_code == 0, found.output
    assert [r["file"] for r in json.loads(found.stdout)["results"]] == ["claims/page.yaml"]


def test_a_configured_claims_folder_that_is_missing_names_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`claimcheck init` would refuse to overwrite the config: the hint names the key."""
    project = outside_any_project(tmp_path) / "proj"
    (project / "sub").mkdir(parents=True)
    (project / CONFIG_FILE).write_text('claims = ["pages", "more/x.yaml"]\n')
    (project / "pages").mkdir()
    monkeypatch.chdir(project / "sub")

    result = runner.invoke(app, ["verify", "--offline"])

    assert result.exit_code == 2
    assert result.stderr == (
        f"error: no claim file at {project / 'more' / 'x.yaml'} "
        f"(as set by {project / CONFIG_FILE})\n"
        f"hint: create it, set `claims` in ..{os.sep}{CONFIG_FILE}, or pass claim files\n"
    )


def test_a_missing_command_line_path_is_taken_from_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(outside_any_project(tmp_path) / "proj")
    monkeypatch.chdir(project / "claims")

    result = runner.invoke(app, ["verify", "--offline", "claims/a.yaml", "nope.yaml"])

    assert result.exit_code == 2
    assert result.stderr == (
        "error: claims/a.yaml: no such claim file or folder; "
        "nope.yaml: no such claim file or folder\n"
        f"hint: claim paths are taken from the current folder, {project / 'claims'}\n"
    )


# -- the installed entry point, from claims/ -------------------------------------------


def installed(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed `claimcheck` in `cwd`, with no network and outside any CI job."""
    script = Path(sys.executable).parent / "claimcheck"
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "claimcheck"]
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.upper().startswith("GITHUB_") and not k.upper().endswith("_PROXY")
    }
    env.update({"NO_COLOR": "1", "HTTPS_PROXY": "http://127.0.0.1:9"})  # a dead port
    return subprocess.run(
        [*command, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


def every_format(cwd: Path, out: Path, *paths: str) -> dict[str, str]:
    """`verify --offline` in `cwd`, each format written with -o (a path from `cwd`)."""
    out.mkdir(exist_ok=True)
    relative = os.path.relpath(out, cwd)
    outputs = [a for f in FORMATS for a in ("-o", f"{f}={relative}/report.{f}")]
    done = installed(cwd, "verify", "--offline", *outputs, *paths)
    assert done.returncode == 1, done.stderr  # rocm and metal are stale
    assert "Traceback" not in done.stderr
    return {f: (out / f"report.{f}").read_text(encoding="utf-8") for f in FORMATS}


def paths_in(reports: dict[str, str]) -> dict[str, set[str]]:
    """The claim-file path of every claim in every format, each read as its reader does."""
    document = json.loads(reports["json"])
    sarif = json.loads(reports["sarif"])
    junit = ET.fromstring(reports["junit"])
    place = r"(\S+\.yaml):\d+"
    return {
        "json": {r["file"] for r in document["results"]},
        "sarif": {
            location["physicalLocation"]["artifactLocation"]["uri"]
            for run in sarif["runs"]
            for result in run["results"]
            for location in result["locations"]
        },
        "junit": {case.attrib["file"] for case in junit.iter("testcase")},
        "github": set(
            re.findall(r"^::(?:error|warning|notice) file=([^,]+),", reports["github"], re.M)
        ),
        "github-log": set(re.findall(rf"^\S+\s+\S+\s+{place}\s", reports["github"], re.M)),
        "markdown": set(re.findall(rf"`{place}`", reports["markdown"])),
        "table": set(re.findall(place, reports["table"])),
        "html": set(re.findall(rf"· {place}", reports["html"])),
    }


def test_installed_verify_from_a_subfolder_reports_repository_paths_in_every_format(
    tmp_path: Path,
) -> None:
    project = make_project(outside_any_project(tmp_path) / "proj")
    claims = project / "claims"

    from_subfolder = every_format(claims, tmp_path / "out")
    from_root = every_format(project, tmp_path / "out-root")
    absolute = every_format(claims, tmp_path / "out-abs", str(claims / "a.yaml"))
    dot = every_format(claims, tmp_path / "out-dot", ".")

    expected = {name: {"claims/a.yaml"} for name in paths_in(from_root)}
    for reports in (from_subfolder, from_root, absolute, dot):
        assert paths_in(reports) == expected
        sarif = json.loads(reports["sarif"])
        for result in sarif["runs"][0]["results"]:
            (location,) = result["locations"]
            assert location["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        for name, text in reports.items():
            assert str(tmp_path) not in text, name
            assert "../" not in text, name
    assert len(json.loads(from_subfolder["json"])["results"]) == len(CLAIMS)
    assert (tmp_path / "out" / "report.github").read_text().count("::error file=") == 2


def test_installed_verify_in_a_subproject_reports_paths_from_the_repositorys_top(
    tmp_path: Path,
) -> None:
    """claimcheck.toml in site/ of a larger repository: the checkout's root is the top."""
    repo = outside_any_project(tmp_path) / "repo"
    site = make_project(repo / "site")
    (repo / ".git").mkdir()

    reports = every_format(site / "claims", tmp_path / "out")

    assert paths_in(reports) == {name: {"site/claims/a.yaml"} for name in paths_in(reports)}
    assert list((site / "snapshots").iterdir())  # the store beside claimcheck.toml
    assert not (repo / "snapshots").exists()


def test_installed_verify_keeps_the_absolute_path_of_a_claim_file_outside_the_project(
    tmp_path: Path,
) -> None:
    project = make_project(outside_any_project(tmp_path) / "proj")
    elsewhere = claim("shared", quote="Supports ROCm on AMD cards", source=SOURCE)
    shared = write_claims(tmp_path / "shared", [elsewhere], name="b.yaml", page="shared")

    reports = every_format(project / "claims", tmp_path / "out", "a.yaml", str(shared))

    document = json.loads(reports["json"])
    files = {r["id"]: r["file"] for r in document["results"]}
    assert files == {
        "cuda": "claims/a.yaml",
        "rocm": "claims/a.yaml",
        "metal": "claims/a.yaml",
        "shared": shared.as_posix(),
    }
    assert f"::error file={shared.as_posix().replace(':', '%3A')}," in reports["github"]
    uris = paths_in(reports)["sarif"]
    assert uris == {"claims/a.yaml", shared.as_uri()}  # no uriBaseId can place it


def test_accept_and_lint_from_a_subfolder_edit_and_name_the_projects_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = make_project(outside_any_project(tmp_path) / "proj")
    monkeypatch.chdir(project / "claims")

    accepted = runner.invoke(app, ["accept", "rocm", "--quote", "Supports CUDA on every"])
    linted = runner.invoke(app, ["lint"])

    assert accepted.exit_code == 0, accepted.output
    assert "accepted rocm in claims/a.yaml" in accepted.output
    assert 'quote: "Supports CUDA on every"' in (project / "claims" / "a.yaml").read_text()
    places = set(re.findall(r"^(\S+\.yaml):\d+", linted.stdout, re.M))
    assert places == {"claims/a.yaml"}, linted.output
