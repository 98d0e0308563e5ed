"""A token, password or secret written into claimcheck.toml is refused, never shown.

Tokens come only from the environment. The file is committed, so a token in it is
already exposed: the run stops at once (exit 2) with the file, line and key, a hint
to use the environment variable, and the value nowhere in what it prints.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.config import is_secret_key
from support.cli_runs import run, show

SECRET = "ghp_s3cretValueThatMustNeverBePrinted0000"


@pytest.mark.parametrize(
    ("toml", "line", "key", "variable"),
    [
        (f'claims = ["claims"]\ngithub_token = "{SECRET}"\n', 2, "github_token", "GITHUB_TOKEN"),
        (f'hf_token = "{SECRET}"\n', 1, "hf_token", "HF_TOKEN"),
        (f'\n\ngitlab_token = "{SECRET}"\n', 3, "gitlab_token", "GITLAB_TOKEN"),
        (f'forgejo_token = "{SECRET}"\n', 1, "forgejo_token", "FORGEJO_TOKEN"),
        (f'[issues]\nlabel = "claimcheck"\ntoken = "{SECRET}"\n', 3, "issues.token", ""),
        (f'[fetch]\napi_token = "{SECRET}"\n', 2, "fetch.api_token", ""),
        (f'password = "{SECRET}"\n', 1, "password", ""),
        (f'[fetch]\nsecret = "{SECRET}"\n', 2, "fetch.secret", ""),
        (f'fetch.proxy_password = "{SECRET}"\n', 1, "fetch.proxy_password", ""),
    ],
    ids=[
        "github",
        "hf",
        "gitlab",
        "forgejo",
        "table-token",
        "ends-in-token",
        "password",
        "secret",
        "dotted",
    ],
)
def test_a_secret_in_the_config_file_is_refused_with_its_line_and_never_shown(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    toml: str,
    line: int,
    key: str,
    variable: str,
) -> None:
    (tmp_path / "claimcheck.toml").write_text(toml, encoding="utf-8")
    (tmp_path / "claims").mkdir()
    monkeypatch.chdir(tmp_path)

    result = run("lint")

    assert result.exit_code == 2, show(result)
    assert f"claimcheck.toml:{line}: {key}: a secret is never read from claimcheck.toml" in (
        result.stderr
    ), show(result)
    if variable:
        assert f"set {variable} in the environment instead" in result.stderr
    assert "tokens come only from the environment" in result.stderr
    assert SECRET not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_every_secret_key_is_named_one_a_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "claimcheck.toml").write_text(
        f'github_token = "{SECRET}"\n[issues]\npassword = "{SECRET}"\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)

    result = run("verify", "--offline")

    assert result.exit_code == 2, show(result)
    assert "claimcheck.toml:1: github_token:" in result.stderr
    assert "claimcheck.toml:3: issues.password:" in result.stderr
    assert SECRET not in result.stdout + result.stderr


def test_the_environments_token_is_still_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keys that merely mention a token (none of claimcheck's own) pass; tokens come from
    the environment as before."""
    (tmp_path / "claimcheck.toml").write_text('claims = ["claims"]\n', encoding="utf-8")
    (tmp_path / "claims").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_TOKEN", SECRET)

    result = run("lint")

    assert result.exit_code == 0, show(result)
    assert SECRET not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("github_token", True),
        ("TOKEN", True),
        ("Password", True),
        ("client_secret", True),
        ("tokens", False),
        ("token_bucket", False),
        ("max_age_days", False),
        ("github_api_url", False),
    ],
)
def test_which_keys_are_secrets(name: str, secret: bool) -> None:
    assert is_secret_key(name) is secret
