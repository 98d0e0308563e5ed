"""The project a command works in: its config (with the flags on top) and the claim paths
it names.

Every command that reads the config comes here, so each finds the project from the
current folder up and says the same things when something is missing.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from claimcheck.cli.verbosity import err
from claimcheck.config import CONFIG_FILE, checked_store_flag, load_config
from claimcheck.errors import UsageError

if TYPE_CHECKING:
    from claimcheck.config import Config


def build_config(
    path: Path | None,
    snapshots: Path | None = None,
    concurrency: int | None = None,
    jobs: int | None = None,
) -> Config:
    """The run's config: the project's claimcheck.toml (or --config), then the flags on top.

    Every command that reads the config comes here: the project is found from the
    current folder up (`config.find_project`), so each works from any subfolder.
    --snapshots, like PATHS, is taken from the current folder, as typed, and must be a
    folder of its own as the file's `snapshots` must (`config.checked_store_flag`).
    """
    config = load_config(path)
    for notice in config.notices:
        err(f"warning: {notice}")
    update: dict[str, object] = {}
    if snapshots is not None:
        update["snapshots"] = str(checked_store_flag(config, snapshots))
    if concurrency is not None:
        update["fetch"] = config.fetch.model_copy(update={"concurrency": concurrency})
    if jobs is not None:
        update["jobs"] = jobs
    return config.model_copy(update=update) if update else config


def claim_inputs(paths: list[Path] | None, config: Config) -> list[Path]:
    """The claim files or folders to read: PATHS as typed, else the config's.

    A path that is not there is a usage error that says where it was looked for: a
    missing claims folder names the project that claimcheck found and suggests
    `claimcheck init`.
    """
    if paths:
        missing = [p for p in paths if not os.path.exists(p)]
        if missing:
            raise UsageError(
                "; ".join(f"{p}: no such claim file or folder" for p in missing),
                hint=f"claim paths are taken from the current folder, {Path.cwd()}",
            )
        return paths
    for path in config.claim_paths:
        if not os.path.exists(path):
            raise UsageError(
                f"{_no_claims_at(path)} ({_where_from(config)})", hint=_create_hint(config)
            )
    return config.claim_paths


def _no_claims_at(path: Path) -> str:
    what = "claim file" if path.suffix in (".yaml", ".yml") else "claims folder"
    return f"no {what} at {os.path.abspath(path)}"


def _create_hint(config: Config) -> str:
    """`claimcheck init` where the project has no config yet (init refuses to overwrite)."""
    project = config.project
    if project is not None and project.config is not None:
        return f"create it, set `claims` in {_relative(project.config)}, or pass claim files"
    folder = "" if config.root == Path() else f" {shlex.quote(config.root.as_posix())}"
    return f"run `claimcheck init{folder}` to create one, or pass claim files"


def _relative(path: Path) -> str:
    """`path` from the current folder, as a person would type it."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive
        return str(path)


def _where_from(config: Config) -> str:
    """How the project was found, for a message about what is missing in it."""
    project = config.project
    if project is None:
        return f"the project's folder is {os.path.abspath(config.root)}"
    if project.config is not None:
        how = "as set by" if "claims" in config.model_fields_set else "beside"
        return f"{how} {project.config}"
    upto = " to the repository's root" if project.boundary is not None else ""
    return f"searched from {project.start} up{upto} for {CONFIG_FILE}: none found"
