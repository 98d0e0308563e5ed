"""What a command reads before its work: the config, the claims, --output, --shard and
one claim (by id, and by part for a claim on several sources).

Every command that reads the config or the claims comes here, so each finds the
project the same way and reports claims' files the same way.
"""

from __future__ import annotations

import os
import shlex
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from claimcheck.claims.shard import parse_shard, shard_of
from claimcheck.cli.guard import once_accepted
from claimcheck.cli.verbosity import err
from claimcheck.config import CONFIG_FILE, checked_store_flag, load_config
from claimcheck.errors import UsageError
from claimcheck.forges.adapters import servers_of
from claimcheck.report.formats import OutputFormat
from claimcheck.run import load_claims
from claimcheck.store.lock import acquire_lock
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.models import Claim


def parse_outputs(values: list[str]) -> list[tuple[OutputFormat, Path]]:
    """`FORMAT=PATH` pairs, checked before any work is done."""
    targets = []
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not path or name not in OutputFormat.__members__.values():
            raise UsageError(
                f"--output {value!r}: expected FORMAT=PATH with FORMAT one of "
                f"{', '.join(OutputFormat)}"
            )
        targets.append((OutputFormat(name), Path(path)))
    return targets


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


def read_claims(
    paths: list[Path] | None, config: Config, *, makes_store: bool = False
) -> list[Claim]:
    """The claims of the given paths, or of the config's claim paths.

    This is where claims' file paths enter every report and message: each claim's
    `file` becomes its path from the repository's root (POSIX; absolute outside it),
    whatever the current folder, so an annotation or an alert lands on its file.
    Open one with `config.local_path(claim.file)`. An unchanged claim file's claims are
    taken as its last read gave them (`load_claims`, kept in the snapshots' `.cache`);
    `makes_store`: the command creates the snapshots folder anyway (an online run), so
    its first run keeps them too.
    """
    claims = load_claims(
        claim_inputs(paths, config),
        kept_in=config.snapshots_dir,
        create=makes_store,
        defer=once_accepted,
    )
    return as_reported(claims, config)


def as_reported(claims: list[Claim], config: Config) -> list[Claim]:
    """The claims with each `file` as reports show it (`Config.report_path`)."""
    shown = {file: config.report_path(file) for file in {c.file for c in claims}}
    return [
        c if shown[c.file] == c.file else c.model_copy(update={"file": shown[c.file]})
        for c in claims
    ]


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


def parse_shard_option(value: str | None) -> tuple[int, int] | None:
    """K and N of --shard, checked before any work is done; None without the option."""
    if value is None:
        return None
    return parse_shard(value)


def select_shard(claims: list[Claim], shard: tuple[int, int] | None, config: Config) -> list[Claim]:
    """The claims of the shard (all of them without --shard), their sources resolved
    with the config's servers, as the run resolves them."""
    if shard is None:
        return claims
    return shard_of(claims, *shard, servers=servers_of(config))


def shard_line(shard: tuple[int, int], claims: list[Claim], every: list[Claim]) -> str:
    """What the shard holds, for stderr: its sources and claims out of all."""
    k, n = shard
    sources = len({s for c in claims for s in c.sources})
    total = len({s for c in every for s in c.sources})
    return f"shard {k} of {n}: {sources} of {total} sources, {len(claims)} of {len(every)} claims"


def writing(
    config: Config, command: str, *, offline: bool = False
) -> AbstractContextManager[object]:
    """The run lock of the snapshot folder for a command that writes it (none offline).

    `schedule` holds the same lock for its whole life, so a verify by hand never writes
    the store at the same moment as the nightly run.
    """
    if offline:
        return nullcontext()
    return acquire_lock(config.snapshots_dir, command)


def find_claim(claims: list[Claim], claim_id: str) -> Claim:
    """The claim with this id, or a usage error that says where ids are listed."""
    for claim in claims:
        if claim.id == claim_id:
            return claim
    raise UsageError(
        f"no claim with id {claim_id!r}", hint="`claimcheck list` shows the claims' ids"
    )


def one_source(claim: Claim, command: str, part: str | None = None) -> Claim:
    """The claim as a claim of one source: itself, or the part `--part` names of a claim
    on several; else a usage error (`command` works on one source's history, snapshots
    or quote)."""
    index = part_index(claim, command, part)
    return claim if index is None else claim.view(claim.parts[index])


def part_index(claim: Claim, command: str, part: str | None) -> int | None:
    """Which part (0-based) `--part` names; None for a claim of one source."""
    count = len(claim.parts)
    listed = "; ".join(f"{n}: {clean_text(p.source)}" for n, p in enumerate(claim.parts, 1))
    if not claim.parts:
        if part is not None:
            raise UsageError(
                f"claim {claim.id!r} rests on one source: --part is for a claim on several",
                hint=f"run `claimcheck {command} {claim.id}` without --part",
            )
        return None
    if part is None:
        raise UsageError(
            f"claim {claim.id!r} rests on {count} sources: `claimcheck {command}` works on "
            "a claim of one source",
            hint=f"name the part with --part K (1 to {count}) or --part URL ({listed})",
        )
    if part.isdigit() and 1 <= int(part) <= count:
        return int(part) - 1
    wanted = part.strip().rstrip("/")
    for index, each in enumerate(claim.parts):
        if each.source.rstrip("/") == wanted:
            return index
    raise UsageError(
        f"claim {claim.id!r} has no part {clean_text(part)!r}",
        hint=f"--part takes 1 to {count} or one of its sources ({listed})",
    )
