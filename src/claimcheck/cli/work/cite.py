"""What `claimcheck cite` does: find and print a verified claim's permanent citation."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from claimcheck.cli.cite import Style
from claimcheck.cli.project import build_config
from claimcheck.cli.selection import find_claim, one_source, read_claims
from claimcheck.errors import UsageError
from claimcheck.history.citations import Citer, learn_origins, version_date
from claimcheck.models import ExitCode, Verdict
from claimcheck.run import fetch_settings, run_verify
from claimcheck.store.store import Store
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.models import ClaimResult


def cite(
    *,
    claim_id: str,
    paths: list[Path] | None,
    style: Style,
    offline: bool,
    part: str | None,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
    """The work of `claimcheck cite`, given its parsed options: its exit code."""
    config = build_config(config_path, snapshots)
    claim = one_source(find_claim(read_claims(paths, config), claim_id), "cite", part)
    if claim.source is None or claim.anchor is None:
        raise UsageError(
            f"claim {clean_text(claim_id)!r} has no quote on a source to cite",
            hint="cite gives the version a quote was checked in; absence claims and "
            "citation-needed claims have none",
        )
    report, _ = run_verify([claim], config, offline=True, remember=False)
    (result,) = report.results
    holds = (Verdict.VERIFIED, Verdict.MOVED, Verdict.CONTEXT_CHANGED, Verdict.EXPIRED)
    if result.verdict not in holds or result.snapshot is None:
        sys.stderr.write(
            f"error: {clean_text(claim.id)} is {result.verdict.value}: "
            f"{clean_text(result.reason)}\nhint: cite what holds; `claimcheck diff "
            f"{clean_text(claim.id)}` shows what changed\n"
        )
        return int(ExitCode.STALE)
    found = _citation(result, config, Store.of(config), offline=offline)
    sys.stdout.write(_render(found, style))
    return int(ExitCode.OK if found.permalink else ExitCode.UNCHECKED)


@dataclass(frozen=True)
class Citation:
    """What `cite` found for one claim; `permalink` None when no fixed version is known.

    `version_date` is the date the checked version is labelled by: its own (the
    commit's, the capture's) when `dated` is true, else the day the store first held
    it. `snapshot_date` is the day of the snapshot judged, which may be a later fetch
    of the same body.
    """

    id: str
    claim: str
    live: str
    permalink: str | None
    commit: str | None
    lines: tuple[int, int] | None
    snapshot_date: str
    version_date: str
    dated: bool
    note: str | None


def _citation(result: ClaimResult, config: Config, store: Store, *, offline: bool) -> Citation:
    """The citation the store knows (`history.citations`), asking for the version first
    when it is not known and `offline` is not set; what is learnt is remembered."""
    snapshot = result.snapshot
    assert snapshot is not None
    citer = Citer(store, config)
    known = citer.citation(result)
    note: str | None = None
    if (known is None or known.permalink is None) and not offline:
        notes, _ = learn_origins([result], store, config, fetch_settings(config))
        note = notes.get(f"{snapshot.key}/{snapshot.file}")
        known = citer.citation(result)
    elif known is None or known.permalink is None:
        github = snapshot.media.value in ("markdown", "card")
        what = "the commit of this snapshot" if github else "its Wayback capture"
        note = f"offline: {what} is not known yet"
    assert known is not None  # the quote holds on the snapshot: there is a live link
    if known.permalink is None and note is None:
        note = "the checked version's address is not known (the README's path in its repository)"
    version = known.version or ""
    day, dated = version_date(store, snapshot, known.version)
    return Citation(
        id=result.claim.id,
        claim=result.claim.claim,
        live=known.live,
        permalink=known.permalink,
        commit=version.removeprefix("commit ") if version.startswith("commit ") else None,
        lines=known.lines,
        snapshot_date=snapshot.fetched_at.date().isoformat(),
        version_date=day.isoformat(),
        dated=dated,
        note=note,
    )


def _render(found: Citation, style: Style) -> str:
    """The citation as Markdown (link or footnote) or JSON; third-party text cleaned."""
    if style is Style.JSON:
        return json.dumps(asdict(found), ensure_ascii=False, indent=2) + "\n"
    # Labelled by the version's own date: the commit's or the capture's, not the day it
    # was fetched again or the claim's check date.
    when = (
        f"version of {found.version_date}" if found.dated else f"as fetched on {found.version_date}"
    )
    fixed = f" ([{when}]({found.permalink}))" if found.permalink else ""
    note = f"<!-- {clean_text(found.note)} -->\n" if found.note else ""
    if style is Style.FOOTNOTE:
        version = f" {when}: {found.permalink}" if found.permalink else ""
        return f"{note}[^{found.id}]: <{found.live}>{version}\n"
    text = clean_text(found.claim).replace("[", "\\[").replace("]", "\\]")
    return f"{note}[{text}]({found.live}){fixed}\n"
