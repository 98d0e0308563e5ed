"""`claimcheck init`: the files a repository needs to keep its claims checked nightly.

The workflow texts live once, in `claimcheck/templates/`: `init` writes them, and
claimcheck's own `.github/workflows/` are copies a test holds equal to them. The
workflows run claimcheck's action (or install claimcheck) pinned to the release tag of
the claimcheck that writes them (`pin_release`), never to a branch that moves: the
nightly job can push, so what it runs must not change under it.
"""

from __future__ import annotations

import datetime as dt
import re
from importlib.metadata import version
from importlib.resources import files
from pathlib import Path
from string import Template

from claimcheck.cache.keys import CACHE_FOLDER
from claimcheck.claims.edit import with_modeline
from claimcheck.errors import ClaimcheckError
from claimcheck.store.files import TEMP_PREFIX, atomic_write
from claimcheck.store.lock import LOCK_FILE

WORKFLOWS = (
    ".github/workflows/claimcheck-nightly.yml",
    ".github/workflows/claimcheck-verify.yml",
)
"""Where the workflow templates go, in this repository and in every initialized one."""

SNAPSHOTS_GITIGNORE = f"""\
# Written by `claimcheck init`: what a run leaves in snapshots/ that is never committed.
{LOCK_FILE}
{TEMP_PREFIX}*
{CACHE_FOLDER}/
"""
"""The run lock, the temporary files of a write (a killed run's are removed by the
next one) and the derived cache (pages read, the scheduler's last run; it carries its
own `.gitignore` too): `git add --all snapshots` in a workflow must commit none."""


_PINNED = re.compile(r"(claimcheck/claimcheck@)[^\s\"'#]+")
"""A reference to claimcheck's repository at a ref: the action (`uses:`) or a pip URL."""


def release_tag() -> str:
    """The release tag of the claimcheck that is running: `v` and its version."""
    return f"v{version('claimcheck-desk')}"


def pin_release(text: str) -> str:
    """`text` with every `claimcheck/claimcheck@REF` pinned to `release_tag()`."""
    tag = release_tag()
    return _PINNED.sub(lambda found: found[1] + tag, text)


class InitError(ClaimcheckError):
    """`init` would overwrite files that are already there."""

    hint = (
        "move them aside, pass --skip-existing to write only the missing files, "
        "or --force to overwrite them"
    )


def template(name: str) -> str:
    """A packaged template's text."""
    return files("claimcheck.nightly").joinpath("templates", name).read_text(encoding="utf-8")


def project_files(today: dt.date) -> dict[str, str]:
    """Path (relative to the repository) → content of every file `init` writes.

    The example claim file starts with the schema's modeline, so an editor completes and
    validates it from the first keystroke.
    """
    example = with_modeline(Template(template("example.yaml")).substitute(today=today.isoformat()))
    written = {
        "claims/example.yaml": example,
        "snapshots/.gitkeep": "",
        "snapshots/.gitignore": SNAPSHOTS_GITIGNORE,
        "claimcheck.toml": template("claimcheck.toml"),
    }
    for path in WORKFLOWS:
        written[path] = pin_release(template(Path(path).name))
    return written


def write_project(
    folder: Path, *, today: dt.date, force: bool = False, skip_existing: bool = False
) -> list[str]:
    """Write the files into `folder` and return those written.

    A file already there stops everything (nothing is written) unless `force`, which
    overwrites it, or `skip_existing`, which keeps it and writes only the missing
    files (a repository set up by an older claimcheck gets the new ones).
    """
    planned = project_files(today)
    existing = [path for path in planned if (folder / path).exists()]
    if existing and not (force or skip_existing):
        raise InitError(f"already there in {folder}: {', '.join(existing)}")
    kept = set(existing) if skip_existing else set()
    written = [path for path in planned if path not in kept]
    for path in written:
        atomic_write(folder / path, planned[path].encode("utf-8"))
    return written
