"""What `claimcheck backfill` does: store each claim's baseline from history."""

from __future__ import annotations

from pathlib import Path

from claimcheck.cli.project import build_config
from claimcheck.cli.selection import read_claims
from claimcheck.cli.verbosity import say
from claimcheck.history.online import backfill as backfill_baselines
from claimcheck.models import ExitCode
from claimcheck.net.settings import fetch_settings
from claimcheck.store.lock import writing
from claimcheck.store.store import Store


def backfill(*, paths: list[Path] | None, config_path: Path | None, snapshots: Path | None) -> int:
    """The work of `claimcheck backfill`, given its parsed options: its exit code."""
    config = build_config(config_path, snapshots)
    claims = read_claims(paths, config)
    with writing(config, "backfill"):
        stats = backfill_baselines(claims, config, Store.of(config), fetch_settings(config))
    say(
        f"{stats.backfilled} baselines stored, {stats.not_found} not found, "
        f"{stats.requests} requests"
    )
    return int(ExitCode.UNCHECKED if stats.not_found else ExitCode.OK)
