"""`claimcheck init`: the files a repository needs to keep its claims checked nightly.

The workflow texts live once, in `claimcheck/templates/`: `init` writes them, and
claimcheck's own `.github/workflows/` are copies a test holds equal to them. The
workflows run claimcheck's action (or install claimcheck) pinned to the release tag of
the claimcheck that writes them (`pin_release`), never to a branch that moves: the
nightly job can push, so what it runs must not change under it.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Sequence
from importlib.metadata import version
from importlib.resources import files
from pathlib import Path, PurePosixPath
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


VERIFY_WORKFLOW = ".github/workflows/claimcheck-verify.yml"
DEFAULT_WATCHED = ("claims/**", "snapshots/**")
"""What the verify workflow's `paths:` names of the project by default: the claims
folder and the snapshots folder (then claimcheck.toml and the workflow itself)."""
_WATCHED_LINE = '      - "{}"\n'


def watched_paths(root: Path, claims: Sequence[str], snapshots: str) -> list[str]:
    """The pull-request paths (GitHub's `paths:` globs) of a project's claims and
    snapshots, relative to `root` (the repository's): a folder's files (`dir/**`), a
    claim file or article itself, the snapshots folder's files. An entry outside the
    repository is left out: no pull request changes it."""
    watched: list[str] = []
    for entry in [*claims, snapshots]:
        path = PurePosixPath(entry.replace("\\", "/"))
        if path.is_absolute() or ".." in path.parts:
            continue
        folder = (root / path).is_dir() or (not (root / path).exists() and not path.suffix)
        shown = path.as_posix()
        watched.append(f"{'' if shown == '.' else shown + '/'}**" if folder else shown)
    return list(dict.fromkeys(watched))


def _with_watched(workflow: str, watched: Sequence[str]) -> str:
    """The verify workflow's text with `watched` in its `paths:` for the project."""
    default = "".join(_WATCHED_LINE.format(p) for p in DEFAULT_WATCHED)
    # JSON's double-quoted string is YAML's: a name with a quote or a newline in it
    # stays one list item.
    lines = "".join(f"      - {json.dumps(p)}\n" for p in watched)
    return workflow.replace(default, lines, 1)


def project_files(today: dt.date, watched: Sequence[str] | None = None) -> dict[str, str]:
    """Path (relative to the repository) → content of every file `init` writes.

    The example claim file starts with the schema's modeline, so an editor completes and
    validates it from the first keystroke. `watched`: the project's claim paths and
    snapshots folder for the verify workflow's `paths:` (`watched_paths`), when a
    claimcheck.toml names others than the defaults.
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
    if watched is not None:
        written[VERIFY_WORKFLOW] = _with_watched(written[VERIFY_WORKFLOW], watched)
    return written


def write_project(
    folder: Path,
    *,
    today: dt.date,
    force: bool = False,
    skip_existing: bool = False,
    watched: Sequence[str] | None = None,
) -> list[str]:
    """Write the files into `folder` and return those written.

    A file already there stops everything (nothing is written) unless `force`, which
    overwrites it, or `skip_existing`, which keeps it and writes only the missing
    files (a repository set up by an older claimcheck gets the new ones).
    """
    planned = project_files(today, watched)
    existing = [path for path in planned if (folder / path).exists()]
    if existing and not (force or skip_existing):
        raise InitError(f"already there in {folder}: {', '.join(existing)}")
    kept = set(existing) if skip_existing else set()
    written = [path for path in planned if path not in kept]
    for path in written:
        atomic_write(folder / path, planned[path].encode("utf-8"))
    return written
