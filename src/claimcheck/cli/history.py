"""Commands about a claim's history: backfill baselines, blame, diff and explain.

They answer an editor's questions about one claim — what did the source say when it
was checked, who changed it, what exactly changed, why this verdict — from the stored
snapshots, fetching only when asked to (`--fetch`) or when history is the point
(backfill, blame).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from claimcheck.cli.support import (
    ConfigOpt,
    PathsArg,
    SnapshotsOpt,
    build_config,
    err,
    find_claim,
    guard,
    read_claims,
    use_color,
    writing,
)
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from claimcheck.config import Config
    from claimcheck.models import Claim, ClaimResult

ClaimArg = Annotated[str, typer.Argument(metavar="CLAIM", help="The claim's id.")]
FetchOpt = Annotated[
    bool,
    typer.Option("--fetch", help="Fetch the source first instead of using stored snapshots."),
]
_WINDOW = 240


def register(app: typer.Typer) -> None:
    """Add the history commands to the claimcheck app."""
    app.command(name="backfill")(backfill_command)
    app.command(name="blame")(blame_command)
    app.command(name="diff")(diff_command)
    app.command(name="explain")(explain_command)


def backfill_command(
    paths: PathsArg = None, config_path: ConfigOpt = None, snapshots: SnapshotsOpt = None
) -> None:
    """Store each claim's baseline (its source as of its check date) from history.

    GitHub sources come from the commit history, other pages from the Wayback Machine.
    Exit 0: every baseline is stored; 3: some could not be found; 2: bad input.
    """

    def work() -> int:
        from claimcheck.models import ExitCode
        from claimcheck.run import fetch_settings
        from claimcheck.sources.baseline import backfill
        from claimcheck.sources.store import Store

        config = build_config(config_path, snapshots)
        claims = read_claims(paths, config)
        with writing(config, "backfill"):
            stats = backfill(claims, config, Store(config.snapshots_dir), fetch_settings(config))
        err(
            f"{stats.backfilled} baselines stored, {stats.not_found} not found, "
            f"{stats.requests} requests"
        )
        return int(ExitCode.UNCHECKED if stats.not_found else ExitCode.OK)

    raise typer.Exit(guard(work))


def blame_command(
    claim_id: ClaimArg,
    paths: PathsArg = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Name the upstream commit that changed or removed a stale claim's quote.

    Fetches the source and its history. Exit 0: printed (or the claim is not stale);
    3: the commit could not be found; 2: unknown claim or bad input.
    """

    def work() -> int:
        from rich.text import Text

        from claimcheck.models import ExitCode

        config = build_config(config_path, snapshots)
        claim = find_claim(read_claims(paths, config), claim_id)
        result = _judge(claim, config, fetch=True, blame=True)
        out = _console(use_color(sys.stdout))
        out.print(Text(f"{claim.id}: {result.verdict.value} — {clean_text(result.reason)}"))
        if not result.verdict.is_stale:
            return int(ExitCode.OK)
        if result.blame is None:
            err(
                "the commit that changed the quote was not found (not a GitHub source, "
                "no baseline, or history unavailable)"
            )
            return int(ExitCode.UNCHECKED)
        blame = result.blame
        out.print(Text(f"commit {blame.sha}"))
        out.print(Text(f"date   {blame.date.isoformat()}"))
        out.print(Text(f"author {clean_text(blame.author)}"))
        out.print(Text(f"title  {clean_text(blame.title)}"))
        out.print(Text(f"link   {clean_text(blame.url)}"))
        return int(ExitCode.OK)

    raise typer.Exit(guard(work))


def diff_command(
    claim_id: ClaimArg,
    paths: PathsArg = None,
    fetch: FetchOpt = False,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Show the claim's context at its baseline and now, word by word, quote highlighted.

    For a drifted or missing claim, "now" is the closest text on the page (the unit
    that replaced the quote). Exit 0: shown; 3: neither a baseline nor a snapshot is
    stored; 2: unknown claim.
    """

    def work() -> int:
        from rich.text import Text

        from claimcheck.judge.anchor import diff_words
        from claimcheck.models import ExitCode
        from claimcheck.sources.baseline import contexts_of
        from claimcheck.sources.store import Store

        config = build_config(config_path, snapshots)
        claim = find_claim(read_claims(paths, config), claim_id)
        result = _judge(claim, config, fetch=fetch, blame=False)
        before, after = contexts_of(claim, config, Store(config.snapshots_dir))
        color = use_color(sys.stdout)
        out = _console(color, soft_wrap=True)
        out.print(Text(f"{claim.id}: {result.verdict.value} — {clean_text(result.reason)}"))
        quote = claim.anchor.quote if claim.anchor else ""
        base = result.baseline
        if base is None and result.snapshot is None:
            out.print(Text("(no baseline and no snapshot stored: nothing to compare)"))
            return int(ExitCode.UNCHECKED)
        # A quote gone from the page has no context now: its closest unit stands there.
        then = before.text if before else "(the quote is not in the baseline either)"
        now = after.text if after else (result.found or "(nothing close to the quote now)")
        out.print(Text(f"--- baseline ({base.fetched_at.date()})" if base else "--- baseline"))
        out.print(_highlight(then, quote))
        out.print(Text("--- now" if after else "--- now (the closest text)", style="bold"))
        out.print(_highlight(now, quote))
        out.print(Text("--- word diff", style="bold"))
        old_side = before.unit if before and not after else then
        new_side = now if not after else after.text
        out.print(_word_diff(result.block_diff or diff_words(old_side, new_side)))
        return int(ExitCode.OK)

    raise typer.Exit(guard(work))


def explain_command(
    claim_id: ClaimArg,
    paths: PathsArg = None,
    fetch: FetchOpt = False,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Explain a claim's verdict: the text around the best match, the score, the rule.

    Exit 0: explained; 2: unknown claim or bad input.
    """

    def work() -> int:
        from claimcheck.models import ExitCode

        config = build_config(config_path, snapshots)
        claim = find_claim(read_claims(paths, config), claim_id)
        result = _judge(claim, config, fetch=fetch, blame=False)
        out = _console(use_color(sys.stdout))
        for line in _explanation(claim, result, config):
            out.print(line)
        return int(ExitCode.OK)

    raise typer.Exit(guard(work))


def _console(color: bool, *, soft_wrap: bool = False) -> Console:
    """A rich console on stdout, coloured only when asked (see `use_color`)."""
    from rich.console import Console

    return Console(file=sys.stdout, no_color=not color, highlight=False, soft_wrap=soft_wrap)


def _explanation(claim: Claim, result: ClaimResult, config: Config) -> list[Text]:
    from rich.text import Text

    from claimcheck.judge.anchor import locate_anchor
    from claimcheck.sources.baseline import observe_snapshot
    from claimcheck.sources.store import Store

    lines = [
        Text(f"claim     {claim.id} ({claim.file}:{claim.line})"),
        Text(f"source    {clean_text(claim.source or '-')}"),
        Text(f"quote     {clean_text(claim.anchor.quote if claim.anchor else '-')}"),
        Text(f"checked   {claim.checked}"),
        Text(f"verdict   {result.verdict.value}", style="bold"),
        Text(f"why       {clean_text(result.reason)}"),
    ]
    if result.score is not None:
        lines.append(
            Text(
                f"score     {result.score} (drifted from {config.verdict.drift_min_score:g}, "
                f"verified only at an exact match)"
            )
        )
    if result.baseline:
        origin = result.baseline.origin
        lines.append(Text(f"baseline  {result.baseline.fetched_at.isoformat()} ({origin})"))
    if result.snapshot:
        lines.append(Text(f"snapshot  {result.snapshot.fetched_at.isoformat()}"))
    if result.snapshot and claim.anchor:
        store = Store(config.snapshots_dir)
        text = observe_snapshot(store, result.snapshot, live=False).text
        match = locate_anchor(claim.anchor, text, min_score=config.verdict.drift_min_score)
        if match is not None:
            start, end = max(0, match.start - _WINDOW), min(len(text), match.end + _WINDOW)
            lines.append(Text("text around the best match (normalized):"))
            around = Text(clean_text(text[start : match.start]))
            around.append(clean_text(text[match.start : match.end]), style="reverse")
            around.append(clean_text(text[match.end : end]))
            lines.append(around)
    return lines


def _judge(claim: Claim, config: Config, *, fetch: bool, blame: bool) -> ClaimResult:
    """One claim's result, online or from the store, without touching state.json."""
    from claimcheck.run import fetch_settings, run_verify
    from claimcheck.sources.baseline import add_blame

    report, _ = run_verify([claim], config, offline=not fetch, remember=False)
    (result,) = report.results
    if blame and result.blame is None and result.verdict.is_stale:
        (result,), _ = add_blame([result], config, fetch_settings(config))
    return result


def _highlight(text: str, quote: str) -> Text:
    """The block's text with every occurrence of the quote highlighted."""
    from rich.text import Text

    from claimcheck.judge.anchor import normalize_text

    shown = Text(clean_text(text))
    needle = normalize_text(quote).casefold()
    haystack = shown.plain.casefold()
    start = haystack.find(needle) if needle else -1
    while start >= 0:
        shown.stylize("reverse", start, start + len(needle))
        start = haystack.find(needle, start + len(needle))
    return shown


def _word_diff(diff: str) -> Text:
    """Colour git-style word diff markers: [-removed-] red, {+added+} green."""
    from rich.text import Text

    shown = Text()
    rest = clean_text(diff)
    while rest:
        cut = min((i for i in (rest.find("[-"), rest.find("{+")) if i >= 0), default=-1)
        if cut < 0:
            shown.append(rest)
            break
        shown.append(rest[:cut])
        closing, style = ("-]", "red") if rest.startswith("[-", cut) else ("+}", "green")
        end = rest.find(closing, cut + 2)
        end = len(rest) if end < 0 else end + 2
        shown.append(rest[cut:end], style=style)
        rest = rest[end:]
    return shown
