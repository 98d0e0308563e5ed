"""What `claimcheck blame` does: name the upstream commit that changed a stale claim's quote."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.text import Text

from claimcheck.cli.project import build_config
from claimcheck.cli.selection import find_claim, one_source, read_claims
from claimcheck.cli.terminal import use_color
from claimcheck.cli.verbosity import err
from claimcheck.cli.work.one_claim import console, judge
from claimcheck.models import ExitCode
from claimcheck.untrusted import clean_text


def blame(
    *,
    claim_id: str,
    paths: list[Path] | None,
    part: str | None,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
    """The work of `claimcheck blame`, given its parsed options: its exit code."""

    config = build_config(config_path, snapshots)
    claim = one_source(find_claim(read_claims(paths, config), claim_id), "blame", part)
    result = judge(claim, config, fetch=True, blame=True)
    out = console(use_color(sys.stdout))
    out.print(Text(f"{claim.id}: {result.verdict.value} — {clean_text(result.reason)}"))
    if not result.verdict.is_stale:
        return int(ExitCode.OK)
    if result.blame is None:
        err(
            "the commit that changed the quote was not found (not a GitHub or Hugging "
            "Face source, no baseline, or history unavailable)"
        )
        return int(ExitCode.UNCHECKED)
    blame = result.blame
    out.print(Text(f"commit {blame.sha}"))
    out.print(Text(f"date   {blame.date.isoformat()}"))
    out.print(Text(f"author {clean_text(blame.author)}"))
    out.print(Text(f"title  {clean_text(blame.title)}"))
    out.print(Text(f"link   {clean_text(blame.url)}"))
    return int(ExitCode.OK)
