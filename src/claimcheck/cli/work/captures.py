"""What became of each capture `archive` asked for, said; and the captures `add`,
`accept` and `verify` ask for when `[archive] on` names them (`cli.lazy.archive_hook`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from claimcheck.cli.verbosity import err, say
from claimcheck.config import ArchiveMoment, Config
from claimcheck.errors import ClaimcheckError
from claimcheck.models import Claim, ExitCode
from claimcheck.observe.archive import Archived, archive_sources, sources_of
from claimcheck.untrusted import clean_text


def tell(done: Sequence[Archived], *, aside: bool = False) -> int:
    """Say what became of each source (stdout: captures, or stderr when `aside`, beside
    another command's output; stderr: the rest); the exit code: 3 when a capture that
    was asked for is missing."""
    failed = 0
    for one in done:
        source = clean_text(one.source)
        if one.copy is not None:
            kept = "" if one.recorded else " (not recorded: no snapshot of it is stored yet)"
            line = f"captured {source}: {clean_text(str(one.copy))}{kept}"
            err(line) if aside else sys.stdout.write(line + "\n")
        else:
            failed += one.failed
            label = "not captured" if one.sent else "not sent"
            err(f"{label} {source}: {clean_text(one.reason or '')}")
    captured = sum(1 for one in done if one.copy is not None)
    say(f"{captured} of {len(done)} source(s) captured")
    return int(ExitCode.UNCHECKED if failed else ExitCode.OK)


def archive_on(moment: ArchiveMoment, claims: Sequence[Claim], config: Config) -> None:
    """Capture the sources of `claims` when `[archive] on` names `moment` (the caller
    holds the store's lock). A failure is said and changes nothing else: the claim is
    written, the verdicts and the exit code are what they were."""
    if moment not in config.archive.on or not claims:
        return
    try:
        done, _ = archive_sources(sources_of(claims), config)
    except ClaimcheckError as exc:
        err(f"warning: no capture was asked for ([archive] on = {moment}): {exc}")
        return
    tell(done, aside=True)
