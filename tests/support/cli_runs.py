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
