"""The `cite` command: the permanent link to exactly what a verified claim was checked against.

An editor pastes it into the article, so readers can see the version that was checked
and not only the page as it is today: for a GitHub source, the file at the commit of
the stored snapshot with the quote's lines selected, beside a text-fragment link to the
live page; for another page, the Wayback Machine's capture of it when one exists.
The commit is the snapshot's own when history stored it; otherwise it is asked of
GitHub (the last commit of the file at the snapshot's time), and accepted only when
the file at that commit is byte for byte the stored snapshot.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from claimcheck.cli.support import ConfigOpt, PathsArg, SnapshotsOpt, build_config, guard
from claimcheck.errors import UsageError
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.models import ClaimResult, Snapshot, SourceRef
    from claimcheck.sources.adapters import Forge
    from claimcheck.sources.store import Store


class Style(StrEnum):
    """How the citation is printed."""

    LINK = "link"
    FOOTNOTE = "footnote"
    JSON = "json"


@dataclass(frozen=True)
class Citation:
    """What `cite` found for one claim; `permalink` None when no fixed version is known."""

    id: str
    claim: str
    live: str
    permalink: str | None
    commit: str | None
    lines: tuple[int, int] | None
    snapshot_date: str
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
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Print the permanent citation of a verified claim, to paste into the article.

    For a GitHub source: the file at the checked commit with the quote's lines
    (…/blob/SHA/README.md#L10-L12) and a text-fragment link to the live page; for other
    pages, the Wayback Machine's capture of the checked version when one exists.

    Exit 0: printed; 1: the claim does not hold now (nothing to cite); 2: unknown claim
    or bad input; 3: printed, but no permanent version was found (the live link only).
    """

    def work() -> int:
        from claimcheck.cli.support import find_claim, one_source, read_claims
        from claimcheck.models import ExitCode, Verdict
        from claimcheck.run import run_verify
        from claimcheck.sources.store import Store

        config = build_config(config_path, snapshots)
        claim = one_source(find_claim(read_claims(paths, config), claim_id), "cite")
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
        found = _citation(result, config, Store(config.snapshots_dir), offline=offline)
        sys.stdout.write(_render(found, style))
        return int(ExitCode.OK if found.permalink else ExitCode.UNCHECKED)

    raise typer.Exit(guard(work))


def _citation(result: ClaimResult, config: Config, store: Store, *, offline: bool) -> Citation:
    from claimcheck.claims.fragment import build_text_fragment
    from claimcheck.judge.permalink import quote_lines
    from claimcheck.sources.adapters import forge_of, servers_of
    from claimcheck.sources.resolve import resolve_source

    claim, snapshot = result.claim, result.snapshot
    assert claim.source is not None
    assert claim.anchor is not None
    assert snapshot is not None
    ref = resolve_source(claim.source, servers=servers_of(config))
    anchor = claim.anchor
    live = build_text_fragment(
        result.moved_to or claim.source, anchor.quote, anchor.prefix, anchor.suffix
    )
    forge = forge_of(ref)
    body = store.read_body(snapshot)
    commit: str | None = None
    note: str | None = None
    path: str | None = None
    permalink: str | None = None
    lines: tuple[int, int] | None = None
    if forge is not None:
        commit, path, note = _commit_of(snapshot, forge, ref, config, store, offline=offline)
        if commit is not None and path is not None:
            if snapshot.media.value in ("markdown", "card"):
                lines = quote_lines(body, claim.anchor)
            permalink = forge.permalink(ref, commit, path, lines)
    elif not offline:
        permalink, note = _wayback(claim.source, snapshot, config, store)
    else:
        note = "offline: the Wayback Machine was not asked for a capture"
    return Citation(
        id=claim.id,
        claim=claim.claim,
        live=live,
        permalink=permalink,
        commit=commit,
        lines=lines,
        snapshot_date=snapshot.fetched_at.date().isoformat(),
        note=note,
    )


def _commit_of(
    snapshot: Snapshot,
    forge: Forge,
    ref: SourceRef,
    config: Config,
    store: Store,
    *,
    offline: bool,
) -> tuple[str | None, str | None, str | None]:
    """The commit whose file is the snapshot, the file's path, and a note when unknown."""
    known = snapshot.origin.removeprefix("commit ").strip()
    stored_path = forge.named_path(ref) or store.history_notes(snapshot.key).get("readme_path")
    if snapshot.origin.startswith("commit ") and known and stored_path:
        return known, stored_path, None
    if offline:
        return None, None, "offline: the commit of this snapshot is not known yet"

    async def ask() -> tuple[str | None, str | None, str | None]:
        from claimcheck.run import fetch_settings
        from claimcheck.sources.baseline import history_for
        from claimcheck.sources.fetch import Fetcher

        async with Fetcher(fetch_settings(config)) as fetcher:
            history = history_for(fetcher, config, store)
            path = await forge.file_path(history, ref)
            if known and snapshot.origin.startswith("commit "):
                return known, path, None
            commit = await forge.commit_before(history, ref, snapshot.fetched_at)
            if commit is None:
                return None, path, "the forge named no commit of the file at the snapshot's time"
            body = await forge.file_at(history, ref, commit.sha)
            if body is None or hashlib.sha256(body).hexdigest() != snapshot.sha256:
                return (
                    None,
                    path,
                    (
                        f"the file at commit {commit.sha[:12]} is not the stored snapshot: "
                        "the source changed without a commit of this file, or the commit "
                        "list is late"
                    ),
                )
            return commit.sha, path, None

    return asyncio.run(ask())


def _wayback(
    url: str, snapshot: Snapshot, config: Config, store: Store
) -> tuple[str | None, str | None]:
    """The Wayback Machine's capture of the page no later than the snapshot, if any."""

    async def ask() -> tuple[str | None, str | None]:
        from claimcheck.run import fetch_settings
        from claimcheck.sources.baseline import history_for
        from claimcheck.sources.fetch import Fetcher
        from claimcheck.sources.history import Version

        async with Fetcher(fetch_settings(config)) as fetcher:
            history = history_for(fetcher, config, store)
            found = await history.wayback_version(url, snapshot.fetched_at)
        if isinstance(found, Version) and found.origin.startswith("wayback "):
            return found.origin.removeprefix("wayback ").strip(), None
        return None, "the Wayback Machine has no capture of the page from before the snapshot"

    return asyncio.run(ask())


def _render(found: Citation, style: Style) -> str:
    """The citation as Markdown (link or footnote) or JSON; third-party text cleaned."""
    if style is Style.JSON:
        return json.dumps(asdict(found), ensure_ascii=False, indent=2) + "\n"
    when = f"as checked on {found.snapshot_date}"
    fixed = f" ([{when}]({found.permalink}))" if found.permalink else ""
    note = f"<!-- {clean_text(found.note)} -->\n" if found.note else ""
    if style is Style.FOOTNOTE:
        version = f" {when}: {found.permalink}" if found.permalink else ""
        return f"{note}[^{found.id}]: <{found.live}>{version}\n"
    text = clean_text(found.claim).replace("[", "\\[").replace("]", "\\]")
    return f"{note}[{text}]({found.live}){fixed}\n"
