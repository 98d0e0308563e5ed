"""Where a project is (`find_project`, as git finds `.git`), the paths reports show, and
the rule for the snapshots folder: a folder of its own inside the project.

The project is the nearest folder holding `claimcheck.toml` from the current folder up,
not above the top of a git work tree (a folder holding `.git` and no `claimcheck.toml`
is the project, with the defaults). The paths reports show are relative to the
repository's root. `snapshots` names a folder of its own inside the project
(`store_folder_problem`): never the project's folder, one above it, or one holding or
inside the claims, since every run writes into it and a nightly commit commits from it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

CONFIG_FILE = "claimcheck.toml"
GIT_MARKER = ".git"
"""A git work tree's top holds `.git` (a folder, or a file in a worktree or submodule)."""


@dataclass(frozen=True)
class Project:
    """Where a run's config, claims and snapshots are, as `find_project` found them.

    Every path is absolute. `root` is the folder of `config` (claimcheck.toml), or the
    folder the search stopped at without one: the top of a git work tree (`boundary`),
    else the folder it started from. `repository` is the top of the git work tree that
    holds `root` (else `root`): the paths in reports are relative to it, as GitHub
    places annotations and code-scanning alerts relative to the checkout's root.
    """

    root: Path
    config: Path | None
    repository: Path
    start: Path
    boundary: Path | None = None


def find_project(start: Path, config: Path | None = None) -> Project:
    """The project of a command run in `start`; `config` (--config) names it outright.

    From `start` up to the filesystem's root, the first folder holding claimcheck.toml
    is the project. A folder holding `.git` and no claimcheck.toml ends the search: it
    is the project, with the defaults (a claimcheck.toml above a repository belongs to
    another project). Without either, `start` is the project.
    """
    start = Path(os.path.abspath(start))
    if config is not None:
        file = Path(os.path.abspath(config))
        return Project(file.parent, file, _work_tree(file.parent) or file.parent, start)
    for folder in (start, *start.parents):
        if os.path.isfile(folder / CONFIG_FILE):
            return Project(folder, folder / CONFIG_FILE, _work_tree(folder) or folder, start)
        if os.path.lexists(folder / GIT_MARKER):
            return Project(folder, None, folder, start, boundary=folder)
    return Project(start, None, start, start)


def _work_tree(folder: Path) -> Path | None:
    """The top of the git work tree holding `folder` (the nearest `.git`), if any."""
    return next((f for f in (folder, *folder.parents) if os.path.lexists(f / GIT_MARKER)), None)


def repository_path(file: str | Path, repository: Path) -> str:
    """`file` (as given, from the current folder) as a POSIX path from `repository`.

    A file outside the repository keeps its absolute path. Symlinks are followed only
    when the path as written is outside it (a symlinked checkout, a logical `$PWD`).
    """
    written = Path(os.path.abspath(file))
    for path in (written, _resolved(written)):
        for top in (repository, _resolved(repository)):
            if path.is_relative_to(top):
                return path.relative_to(top).as_posix()
    return written.as_posix()


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: the path as written
        return path


def from_cwd(path: Path, cwd: Path) -> Path:
    """`path` relative to the current folder when it can be (`..`, `../..`)."""
    try:
        return Path(os.path.relpath(path, cwd))
    except ValueError:  # another drive
        return path


STORE_HINT = (
    "the snapshots folder holds only what claimcheck stores, and `schedule --commit` "
    "commits from it: give it a folder of its own inside the project, such as "
    'snapshots = "snapshots"'
)
STORE_FLAG_HINT = (
    "the snapshots folder holds only what claimcheck stores: give --snapshots a folder of "
    "its own, apart from the claims and not above them"
)


def store_folder_problem(
    store: Path, root: Path, claims: Sequence[Path], *, outside: bool = False
) -> str | None:
    """Why `store` cannot be the snapshots folder; None when it is a folder of its own.

    Every run writes into the store and a nightly commit commits from it, so it holds
    nothing else: it is below the project's folder `root`, neither that folder (which
    holds claimcheck.toml and the whole work tree: `.env` files, keys, drafts) nor one
    above it, and apart from the claims (`claims`, files or folders): it neither holds
    one nor is inside one. Paths are compared as they resolve, `..` taken and symlinks
    followed, so `claims/..` or a link to `.` is the project's folder. `outside` lets a
    folder outside the project through (an operator's scratch store, `--snapshots`).
    """
    at, top = _resolved(Path(os.path.abspath(store))), _resolved(Path(os.path.abspath(root)))
    if at == top:
        return f"is the project's folder {top.as_posix()} itself"
    if top.is_relative_to(at):
        return f"holds the project's folder {top.as_posix()}: it is {at.as_posix()}"
    if not outside and not at.is_relative_to(top):
        return f"is outside the project's folder {top.as_posix()}: it is {at.as_posix()}"
    for claim_path in claims:
        held = _resolved(Path(os.path.abspath(claim_path)))
        if held == at:
            return f"is where the claims are, {held.as_posix()}"
        if held.is_relative_to(at):
            return f"holds the claims at {held.as_posix()}"
        if at.is_relative_to(held):
            return f"is inside the claims at {held.as_posix()}"
    return None
