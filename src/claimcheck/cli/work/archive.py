"""What `claimcheck archive` does: capture the claims' sources, record and say each capture."""

from __future__ import annotations

import sys
from pathlib import Path

from claimcheck.cli.project import build_config
from claimcheck.cli.selection import find_claim, read_claims
from claimcheck.cli.verbosity import say
from claimcheck.cli.work.captures import tell
from claimcheck.models import ExitCode
from claimcheck.observe.archive import archive_keys, archive_sources, capture_page, sources_of
from claimcheck.store.lock import writing
from claimcheck.untrusted import clean_text


def archive(
    *,
    claim_ids: list[str] | None,
    claim_paths: list[Path] | None,
    dry_run: bool,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
    """The work of `claimcheck archive`, given its parsed options: its exit code."""
    config = build_config(config_path, snapshots)
    claims = read_claims(claim_paths, config)
    if claim_ids:
        claims = [find_claim(claims, claim_id) for claim_id in dict.fromkeys(claim_ids)]
    sources = sources_of(claims)
    if dry_run:
        for source in sources:
            sys.stdout.write(f"would capture {clean_text(capture_page(source))}\n")
        say(f"{len(sources)} source(s); nothing sent (--dry-run)")
        return int(ExitCode.OK)
    archive_keys(config)  # no keys: said before the lock is taken
    with writing(config, "archive"):
        done, _ = archive_sources(sources, config)
    return tell(done)
