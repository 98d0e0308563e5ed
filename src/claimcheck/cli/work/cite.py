"""What `claimcheck cite` does: find and print a verified claim's permanent citation."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from claimcheck.cli.cite import Style
from claimcheck.cli.lazy import origin_learner
from claimcheck.cli.project import build_config
from claimcheck.cli.selection import find_claim, one_source, read_claims
from claimcheck.errors import UsageError
from claimcheck.history.cite import Citation, cite_result
from claimcheck.models import ExitCode, Verdict
from claimcheck.pipeline import run_verify
from claimcheck.store.store import Store
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    pass


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
    report, _ = run_verify([claim], config, online=None, remember=False)
    (result,) = report.results
    holds = (Verdict.VERIFIED, Verdict.MOVED, Verdict.CONTEXT_CHANGED, Verdict.EXPIRED)
    if result.verdict not in holds or result.snapshot is None:
        sys.stderr.write(
            f"error: {clean_text(claim.id)} is {result.verdict.value}: "
            f"{clean_text(result.reason)}\nhint: cite what holds; `claimcheck diff "
            f"{clean_text(claim.id)}` shows what changed\n"
        )
        return int(ExitCode.STALE)
    store = Store.of(config)
    found = cite_result(result, config, store, None if offline else origin_learner(store, config))
    sys.stdout.write(_render(found, style))
    return int(ExitCode.OK if found.permalink else ExitCode.UNCHECKED)


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
    copy = f"archived {found.archived_date}"
    kept = f" ([{copy}]({found.archived}))" if found.archived else ""
    note = f"<!-- {clean_text(found.note)} -->\n" if found.note else ""
    if style is Style.FOOTNOTE:
        version = f" {when}: {found.permalink}" if found.permalink else ""
        version += f"; {copy}: {found.archived}" if found.archived else ""
        return f"{note}[^{found.id}]: <{found.live}>{version}\n"
    text = clean_text(found.claim).replace("[", "\\[").replace("]", "\\]")
    return f"{note}[{text}]({found.live}){fixed}{kept}\n"
