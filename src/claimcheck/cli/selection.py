"""Which claims a command works on: those of PATHS (or the config's), one by its id, one
part of a claim on several sources.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from claimcheck.claims.load import load_claims
from claimcheck.cli.guard import once_accepted
from claimcheck.cli.lazy import read_yaml
from claimcheck.cli.project import claim_inputs
from claimcheck.errors import UsageError
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.models import Claim


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
        read=read_yaml,
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
