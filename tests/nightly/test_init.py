"""`claimcheck init`: a working set-up in a new repository, and no file overwritten unasked."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from claimcheck.claims.load import load_claims
from claimcheck.claims.schema import MODELINE
from claimcheck.claims.yaml_read import read_document
from claimcheck.cli.app import app
from claimcheck.config import load_config
from claimcheck.nightly.init import WORKFLOWS, template
from claimcheck.store.lock import LOCK_FILE
from support.replay_server import ReplayServer

EXPECTED = [
    "claims/example.yaml",
    "snapshots/.gitkeep",
    "snapshots/.gitignore",
    "claimcheck.toml",
    *WORKFLOWS,
]
MIT = (
    "MIT License\n\nCopyright (c) 2023-2026 The ggml authors\n\n"
    "Permission is hereby granted, free of charge, to any person obtaining a copy\n"
    'of this software and associated documentation files (the "Software"), to deal\n'
)

runner = CliRunner()


def today() -> str:
    """What the example's `$today` becomes."""
    return dt.datetime.now(dt.UTC).date().isoformat()


def init(*args: str) -> Result:
    return runner.invoke(app, ["init", *args], catch_exceptions=False)


def written(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_init_writes_claims_snapshots_config_and_both_workflows(tmp_path: Path) -> None:
    result = init(str(tmp_path))

    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [f"created {(tmp_path / p).as_posix()}" for p in EXPECTED]
    assert sorted(written(tmp_path)) == sorted(EXPECTED)
    assert (tmp_path / "snapshots/.gitkeep").read_bytes() == b""
    for path in WORKFLOWS:
        assert (tmp_path / path).read_text() == template(Path(path).name)
    assert "next:" in result.stderr


def test_the_written_claims_and_config_load(tmp_path: Path) -> None:
    init(str(tmp_path))

    config = load_config(tmp_path / "claimcheck.toml", env={})
    claims = load_claims(config.claim_paths, read=read_document)

    assert config.snapshots_dir == tmp_path / "snapshots"
    assert [c.id for c in claims] == ["llamacpp-license", "example-citation-needed"]
    assert {c.checked for c in claims} == {dt.datetime.now(dt.UTC).date()}


def test_the_example_claim_file_starts_with_the_schema_modeline_once(tmp_path: Path) -> None:
    init(str(tmp_path))
    forced = init(str(tmp_path), "--force")

    assert forced.exit_code == 0, forced.stderr
    lines = (tmp_path / "claims" / "example.yaml").read_text().splitlines()
    assert lines[0] == MODELINE
    assert [line for line in lines if "yaml-language-server" in line] == [MODELINE]
    assert lines[1:] == template("example.yaml").replace("$today", today()).splitlines()


def test_the_example_claim_is_verified_against_its_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer
) -> None:
    """The example is a real claim: llama.cpp's LICENSE grants the MIT License."""
    replay.set_file("ggml-org/llama.cpp", "LICENSE", MIT)
    init(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)

    result = runner.invoke(app, ["verify", "--format", "json"], catch_exceptions=False)

    assert result.exit_code == 0, result.stderr
    assert '"verified": 1' in result.stdout
    assert '"unverified": 1' in result.stdout  # the citation-needed example


def test_the_example_claim_passes_lint_without_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["lint"], catch_exceptions=False)
    assert "short-quote" not in result.output
    assert "0 warnings" in result.output


def test_init_refuses_to_overwrite_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "claimcheck.toml").write_text("# mine\n")

    result = init(str(tmp_path))

    assert result.exit_code == 2
    assert "already there" in result.stderr
    assert "claimcheck.toml" in result.stderr
    assert "--force" in result.stderr
    assert written(tmp_path) == {"claimcheck.toml": b"# mine\n"}


def test_a_second_init_is_refused_and_force_restores_the_templates(tmp_path: Path) -> None:
    init(str(tmp_path))
    nightly = tmp_path / WORKFLOWS[0]
    nightly.write_text("edited\n")

    again = init(str(tmp_path))
    forced = init(str(tmp_path), "--force")

    assert again.exit_code == 2
    for path in EXPECTED:
        assert path in again.stderr
    assert forced.exit_code == 0, forced.stderr
    assert nightly.read_text() == template(Path(WORKFLOWS[0]).name)


def test_init_defaults_to_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    result = init()

    assert result.exit_code == 0, result.stderr
    assert sorted(written(tmp_path)) == sorted(EXPECTED)


def test_the_snapshots_gitignore_keeps_the_lock_and_temp_files_out_of_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The nightly workflow runs `git add --all -- snapshots`: neither may be staged."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    init(str(tmp_path))
    subprocess.run(["git", "-C", str(tmp_path), "init", "--quiet"], check=True)
    folder = tmp_path / "snapshots/docs.example.org/engine/@0123456789abcdef"
    folder.mkdir(parents=True)
    (folder / "index.json").write_text("{}")
    (folder / ".tmp-123-abcdefgh.html").write_text("half a body")
    (tmp_path / "snapshots/.tmp-123-abcdefgh.json").write_text("{")
    (tmp_path / f"snapshots/{LOCK_FILE}").write_text("{}")

    subprocess.run(["git", "-C", str(tmp_path), "add", "--all", "--", "snapshots"], check=True)

    staged = subprocess.run(
        ["git", "-C", str(tmp_path), "diff", "--cached", "--name-only"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert sorted(staged) == [
        "snapshots/.gitignore",
        "snapshots/.gitkeep",
        "snapshots/docs.example.org/engine/@0123456789abcdef/index.json",
    ]


def test_skip_existing_writes_only_the_missing_files_and_names_those_kept(
    tmp_path: Path,
) -> None:
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "example.yaml").write_text("# my own claims\n")
    (tmp_path / "claimcheck.toml").write_text("# mine\n")

    result = init(str(tmp_path), "--skip-existing")

    assert result.exit_code == 0, result.stderr
    root = tmp_path.as_posix()
    assert result.stdout.splitlines() == [
        f"kept {root}/claims/example.yaml",
        f"created {root}/snapshots/.gitkeep",
        f"created {root}/snapshots/.gitignore",
        f"kept {root}/claimcheck.toml",
        f"created {root}/.github/workflows/claimcheck-nightly.yml",
        f"created {root}/.github/workflows/claimcheck-verify.yml",
    ]
    assert (tmp_path / "claims" / "example.yaml").read_text() == "# my own claims\n"
    assert (tmp_path / "claimcheck.toml").read_text() == "# mine\n"
    assert (tmp_path / WORKFLOWS[0]).read_text() == template(Path(WORKFLOWS[0]).name)
    assert sorted(written(tmp_path)) == sorted(EXPECTED)


def test_skip_existing_with_nothing_missing_writes_nothing_and_says_so(tmp_path: Path) -> None:
    assert init(str(tmp_path)).exit_code == 0
    nightly = tmp_path / WORKFLOWS[0]
    nightly.write_text("edited\n")
    before = written(tmp_path)

    again = init(str(tmp_path), "--skip-existing")

    assert again.exit_code == 0, again.stderr
    assert [line.split()[0] for line in again.stdout.splitlines()] == ["kept"] * len(EXPECTED)
    assert "nothing to write" in again.stderr
    assert written(tmp_path) == before
    assert nightly.read_text() == "edited\n"


def test_skip_existing_and_force_together_are_refused(tmp_path: Path) -> None:
    (tmp_path / "claimcheck.toml").write_text("# mine\n")

    result = init(str(tmp_path), "--skip-existing", "--force")

    assert result.exit_code == 2
    assert "--force" in result.stderr
    assert "--skip-existing" in result.stderr
    assert "Traceback" not in result.stderr
    assert written(tmp_path) == {"claimcheck.toml": b"# mine\n"}


def test_the_refusal_offers_skip_existing(tmp_path: Path) -> None:
    (tmp_path / "claimcheck.toml").write_text("# mine\n")

    result = init(str(tmp_path))

    assert result.exit_code == 2
    assert "--skip-existing" in result.stderr
