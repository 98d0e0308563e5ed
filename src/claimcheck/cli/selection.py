"""Which claims a command works on: those of PATHS (or the config's), one by its id, one
part of a claim on several sources.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING

from claimcheck.claims.load import as_reported, load_claims
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


def find_claim(claims: list[Claim], claim_id: str) -> Claim:
    """The claim with this id, or a usage error that names the closest ids and says
    where all of them are listed.

    Every command that takes a claim's id (show, explain, diff, blame, accept, cite)
    finds it here, so a typo gets the same answer everywhere.
    """
    for claim in claims:
        if claim.id == claim_id:
            return claim
    raise UsageError(
        f"no claim with id {claim_id!r}{did_you_mean(claim_id, [c.id for c in claims])}",
        hint="`claimcheck list` shows the claims' ids",
    )


def did_you_mean(given: str, known: list[str]) -> str:
    """`; did you mean 'a' or 'b'?` naming the ids closest to `given` (up to three, the
    closest first, equally close ones in alphabetical order), or nothing when none is
    close. Both are untrusted text: each is shown as its `repr`, which escapes what a
    terminal would act on."""
    candidates = sorted(set(known))
    close = difflib.get_close_matches(given, candidates, n=max(1, len(candidates)), cutoff=0.6)
    close.sort(key=lambda name: (-difflib.SequenceMatcher(None, name, given).ratio(), name))
    del close[3:]
    if not close:
        return ""
    named = [repr(clean_text(name)) for name in close]
    listed = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} or {named[-1]}"
    return f"; did you mean {listed}?"


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
