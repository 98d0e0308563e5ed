"""What `claimcheck snapshot` does: fetch every source and store what changed."""

from __future__ import annotations

from pathlib import Path

from claimcheck.cli.project import build_config
from claimcheck.cli.selection import read_claims
from claimcheck.cli.shards import parse_shard_option, select_shard, shard_line
from claimcheck.cli.terminal import progress_bar
from claimcheck.cli.verbosity import err, say
from claimcheck.cli.work.fetched import fetch_line
from claimcheck.models import ExitCode
from claimcheck.observe.online import run_snapshot
from claimcheck.store.lock import writing


def snapshot(
    *,
    paths: list[Path] | None,
    config_path: Path | None,
    snapshots: Path | None,
    concurrency: int | None,
    jobs: int | None,
    progress: bool,
    shard: str | None,
) -> int:
    """The work of `claimcheck snapshot`, given its parsed options: its exit code."""
    part = parse_shard_option(shard)
    config = build_config(config_path, snapshots, concurrency, jobs)
    every = read_claims(paths, config, makes_store=True)
    claims = select_shard(every, part, config)
    if part is not None:
        say(shard_line(part, claims, every))
    with writing(config, "snapshot"), progress_bar(progress) as on_progress:
        stats = run_snapshot(claims, config, on_progress=on_progress)
    say(f"{fetch_line(stats)}, {len(stats.failed)} failed")
    for url in stats.failed:
        err(f"  could not fetch {url}")
    return int(ExitCode.UNCHECKED if stats.failed else ExitCode.OK)
