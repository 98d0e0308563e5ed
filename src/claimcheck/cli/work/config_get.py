"""What `claimcheck config get` does: print one setting as the project resolves it."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from claimcheck.cli.project import build_config
from claimcheck.errors import UsageError


def config_get(*, key: str, config_path: Path | None) -> int:
    """The work of `claimcheck config get`, given its parsed options: its exit code."""
    config = build_config(config_path)
    if key == "snapshots":
        lines = [str(config.snapshots_dir)]
    elif key == "claims":
        lines = [str(path) for path in config.claim_paths]
    else:
        value: object = config.model_dump(mode="json")
        for part in key.split("."):
            if not isinstance(value, dict) or part not in value:
                raise UsageError(
                    f"config get: no setting {key!r}",
                    hint="see docs/configuration.md for the keys",
                )
            value = value[part]
        lines = [value if isinstance(value, str) else json.dumps(value)]
    for line in lines:
        typer.echo(line)
    return 0
