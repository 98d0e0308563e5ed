"""The `cite` command: the permanent link to exactly what a verified claim was checked against.

An editor pastes it into the article, so readers can see the version that was checked
and not only the page as it is today: for a forge's file (GitHub, the Hugging Face Hub,
GitLab, Codeberg), the file at the commit of the stored snapshot with the quote's lines
selected, beside a text-fragment link to the
live page; for another page, the Wayback Machine's capture of it when one exists.
The version is the one the store knows (`history.citations`: history stored it, or
an earlier `cite` or `verify --cite` learnt it); otherwise it is asked of the forge (the
last commit of the file at the snapshot's time), accepted only when the file at that
commit is byte for byte the stored snapshot, and remembered for every later report.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from claimcheck.cli.support import (
    ConfigOpt,
    PartOpt,
    PathsArg,
    SnapshotsOpt,
    build_config,
    guard,
)
from claimcheck.errors import UsageError
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.models import ClaimResult
    from claimcheck.store.store import Store


class Style(StrEnum):
    """How the citation is printed."""

    LINK = "link"
    FOOTNOTE = "footnote"
    JSON = "json"


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


def register(app: typer.Typer) -> None:
    """Add the `cite` command to the claimcheck app."""
    app.command("cite")(cite)


def cite(
    claim_id: Annotated[str, typer.Argument(metavar="ID", help="The claim's id.")],
    paths: PathsArg = None,
    style: Annotated[
        Style,
        typer.Option(
            "--style",
            help="link: a Markdown link to the live quote and to the checked version; "
            "footnote: a Markdown footnote; json: the parts, for tools.",
        ),
    ] = Style.LINK,
    offline: Annotated[
        bool,
        typer.Option(
            "--offline",
            help="Ask nothing of GitHub or the Wayback Machine: cite only what the store "
            "already knows (a snapshot from history knows its commit).",
        ),
    ] = False,
    part: PartOpt = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Print the permanent citation of a verified claim, to paste into the article.

    For a forge's file (GitHub, the Hugging Face Hub, GitLab, Codeberg): the file at the
    checked commit with the quote's lines (…/blob/SHA/README.md#L10-L12) and a
    text-fragment link to the live page; for other pages, the Wayback Machine's capture
    of the checked version when one exists.

    Exit 0: printed; 1: the claim does not hold now (nothing to cite); 2: unknown claim
    or bad input; 3: printed, but no permanent version was found (the live link only).
    """

    def work() -> int:
        from claimcheck.cli.support import find_claim, one_source, read_claims
        from claimcheck.models import ExitCode, Verdict
        from claimcheck.pipeline import run_verify
        from claimcheck.store.store import Store

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
        found = _citation(result, config, Store.of(config), offline=offline)
        sys.stdout.write(_render(found, style))
        return int(ExitCode.OK if found.permalink else ExitCode.UNCHECKED)

    raise typer.Exit(guard(work))


def _citation(result: ClaimResult, config: Config, store: Store, *, offline: bool) -> Citation:
    """The citation the store knows (`history.citations`), asking for the version first
    when it is not known and `offline` is not set; what is learnt is remembered."""
    from claimcheck.history.citations import Citer, version_date

    snapshot = result.snapshot
    assert snapshot is not None
    citer = Citer(store, config)
    known = citer.citation(result)
    note: str | None = None
    if (known is None or known.permalink is None) and not offline:
        from claimcheck.history.online import learn_origins
        from claimcheck.net.settings import fetch_settings

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
