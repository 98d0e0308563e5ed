"""What `claimcheck init` does: write a project's claims/, config and workflows."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

from claimcheck.cli.verbosity import say
from claimcheck.config import CONFIG_FILE, load_config
from claimcheck.errors import UsageError
from claimcheck.nightly.init import project_files, watched_paths, write_project


def init(*, folder: Path, force: bool, skip_existing: bool) -> int:
    """The work of `claimcheck init`, given its parsed options: its exit code.

    Each file written is a `created` line on stdout; with --skip-existing each file
    kept as it was is a `kept` line, so a script sees what the run did to every file.
    """
    if force and skip_existing:
        raise UsageError(
            "--force overwrites the files already there, --skip-existing keeps them: "
            "give one of the two"
        )
    today = dt.datetime.now(dt.UTC).date()
    watched = _watched(folder) if skip_existing else None  # --force: the template's
    written = write_project(
        folder, today=today, force=force, skip_existing=skip_existing, watched=watched
    )
    for path in project_files(today, watched):
        verb = "created" if path in written else "kept"
        sys.stdout.write(f"{verb} {(folder / path).as_posix()}\n")
    if written:
        say(
            "next: replace claims/example.yaml with your claims, run `claimcheck verify`, "
            "and commit claims/, snapshots/ and .github/"
        )
    else:
        say("nothing to write: every file is already there")
    return 0


def _watched(folder: Path) -> list[str] | None:
    """The claim paths and snapshots folder of the claimcheck.toml already in `folder`
    (a malformed one is an error here, as for every command), for the verify workflow's
    `paths:`; None without one (the defaults)."""
    path = folder / CONFIG_FILE
    if not path.is_file():
        return None
    config = load_config(path)
    return watched_paths(folder, config.claims, config.snapshots)
