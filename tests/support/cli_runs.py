"""Driving the real CLI in-process, as the end-to-end tests do: run it, read its JSON
report, show what it said when an assertion fails, and snapshot a folder's files."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from claimcheck.cli.app import app

runner = CliRunner()
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
"""Proxy settings a test unsets (in both cases), so loopback servers are asked directly."""


def run(*args: str) -> Result:
    """Invoke the CLI in-process, stdout and stderr kept apart."""
    return runner.invoke(app, list(args), catch_exceptions=False)


def show(result: Result) -> str:
    """What a run said, for an assertion's message."""
    return f"exit {result.exit_code}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"


def verify_by_id(*args: str) -> tuple[Result, dict[str, dict[str, Any]]]:
    """`claimcheck verify --format json ...`: the result and each claim's entry by id."""
    result = run("verify", "--format", "json", *args)
    assert result.exit_code in (0, 1, 3), show(result)
    return result, {r["id"]: r for r in json.loads(result.stdout)["results"]}


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below `root` with its bytes and mtime, to prove nothing was rewritten."""
    if not root.exists():
        return {}
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def today() -> str:
    """Today's date (UTC), as a check date."""
    return dt.datetime.now(dt.UTC).date().isoformat()


def loopback_env(api: str, allow: str = "127.0.0.0/8,::1") -> dict[str, str | None]:
    """The environment of a run against servers on loopback: `api` as GitHub's API and
    the Wayback Machine, `allow` as the addresses sources may have, no token, no proxy."""
    env: dict[str, str | None] = {
        "GITHUB_API_URL": api,
        "WAYBACK_URL": api,
        "NO_COLOR": "1",
        "GITHUB_TOKEN": None,
        "CLAIMCHECK_ALLOW_ADDRESSES": allow,
    }
    for name in PROXY_VARS:
        env[name] = env[name.lower()] = None
    return env


def verify_project(project: Path, env: dict[str, str | None]) -> tuple[Result, dict[str, Any]]:
    """`claimcheck verify --format json` over a project's config and claims, from anywhere:
    the result and its JSON report."""
    result = runner.invoke(
        app,
        [
            "verify",
            "--format",
            "json",
            "--no-progress",
            "--config",
            str(project / "claimcheck.toml"),
            str(project / "claims"),
        ],
        env=env,
        catch_exceptions=False,
    )
    assert result.exit_code in (0, 1, 3), show(result)
    return result, json.loads(result.stdout)
