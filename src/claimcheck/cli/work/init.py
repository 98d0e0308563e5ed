"""What `claimcheck init` does: write a project's claims/, config and workflows."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

from claimcheck.cli.verbosity import say
from claimcheck.nightly.init import write_project


def init(*, folder: Path, force: bool) -> int:
    """The work of `claimcheck init`, given its parsed options: its exit code."""
    for path in write_project(folder, today=dt.datetime.now(dt.UTC).date(), force=force):
        sys.stdout.write(f"created {(folder / path).as_posix()}\n")
    say(
        "next: replace claims/example.yaml with your claims, run `claimcheck verify`, "
        "and commit claims/, snapshots/ and .github/"
    )
    return 0
