"""Commands about a claim's history: backfill baselines, blame, diff and explain.

They answer an editor's questions about one claim — what did the source say when it
was checked, who changed it, what exactly changed, why this verdict — from the stored
snapshots, fetching only when asked to (`--fetch`) or when history is the point
(backfill, blame).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

import typer

from claimcheck.cli.support import (
    ConfigOpt,
    PartOpt,
    PathsArg,
    SnapshotsOpt,
    build_config,
    err,
    find_claim,
    guard,
    one_source,
    read_claims,
    say,
    use_color,
    writing,
)
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from claimcheck.config import Config
    from claimcheck.judge.change import Change
    from claimcheck.models import Anchor, Claim, ClaimResult
    from claimcheck.page import Page

# The judge matches a quote of fewer words exactly only (judge/anchor.py).
_FUZZY_WORDS = 3
NOTHING_TO_COMPARE = "(nothing to compare it with: no word diff)"
# What `diff`'s word diff compares, by the kind of change (`judge.change.Change`).
_DIFF_OF = {
    "quote": "the quote → the text now",
    "context": "the quote in its prefix/suffix → the text around it now",
    "block": "the block around the quote, baseline → now",
}

ClaimArg = Annotated[str, typer.Argument(metavar="CLAIM", help="The claim's id.")]
FetchOpt = Annotated[
    bool,
    typer.Option("--fetch", help="Fetch the source first instead of using stored snapshots."),
]


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
        from claimcheck.history.online import backfill
        from claimcheck.models import ExitCode
        from claimcheck.net.settings import fetch_settings
        from claimcheck.store.store import Store

        config = build_config(config_path, snapshots)
        claims = read_claims(paths, config)
        with writing(config, "backfill"):
            stats = backfill(claims, config, Store.of(config), fetch_settings(config))
        say(
            f"{stats.backfilled} baselines stored, {stats.not_found} not found, "
            f"{stats.requests} requests"
        )
        return int(ExitCode.UNCHECKED if stats.not_found else ExitCode.OK)

    raise typer.Exit(guard(work))


def blame_command(
    claim_id: ClaimArg,
    paths: PathsArg = None,
    part: PartOpt = None,
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
        claim = one_source(find_claim(read_claims(paths, config), claim_id), "blame", part)
        result = _judge(claim, config, fetch=True, blame=True)
        out = _console(use_color(sys.stdout))
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

    raise typer.Exit(guard(work))


def diff_command(
    claim_id: ClaimArg,
    paths: PathsArg = None,
    fetch: FetchOpt = False,
    part: PartOpt = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Show the claim's context at its baseline and now, word by word, quote highlighted.

    Where the quote is not found (a drifted or missing claim, or one that never matched
    at its check date), that side shows the unit closest to it (the paragraph, list
    item or table row that replaced it) and how close it is; without a stored baseline,
    the text now alone. Exit 0: shown; 3: no snapshot of the source is stored; 2:
    unknown claim, or a claim without source.
    """

    def work() -> int:
        from rich.text import Text

        from claimcheck.errors import UsageError
        from claimcheck.forges.resolve import source_ref
        from claimcheck.history.baseline import baseline_of
        from claimcheck.models import ExitCode
        from claimcheck.store.store import Store

        config = build_config(config_path, snapshots)
        claim = one_source(find_claim(read_claims(paths, config), claim_id), "diff", part)
        if claim.source is None or claim.anchor is None:
            raise UsageError(
                f"claim {claim.id!r} has no source URL (citation needed): nothing to diff",
                hint="give it a `source` and a `quote`, then `claimcheck verify`",
            )
        result = _judge(claim, config, fetch=fetch, blame=False)
        store = Store.of(config)
        base = baseline_of(store, claim, config)
        latest = store.latest(source_ref(claim.source, config).key)
        out = _console(use_color(sys.stdout), soft_wrap=True)
        out.print(Text(f"{claim.id}: {result.verdict.value} — {clean_text(result.reason)}"))
        if base is None and latest is None:
            out.print(Text("(no snapshot of the source is stored: nothing to compare)"))
            err("hint: run `claimcheck snapshot` (or `verify`) once with a network")
            return int(ExitCode.UNCHECKED)
        then = None
        if base is not None:
            page = store.page(base)
            then = _closest(claim.anchor, page, config.verdict.drift_min_score)
            day = base.fetched_at.date().isoformat()
            _print_side(out, "baseline", day, then, claim.anchor.quote)
        else:
            out.print(
                Text(
                    f"--- baseline: none stored for {claim.checked} (`claimcheck backfill` "
                    "stores the source as it was then, from its history)",
                    style="bold",
                )
            )
        now = None
        if latest is not None:
            # Where the quote stood at the baseline, and in what, as the judge reads it.
            near: float | None = None
            from_code: bool | None = None
            if then is not None and then.exact:
                near, from_code = then.position, then.code
            page = store.page(latest)
            now = _closest(
                claim.anchor, page, config.verdict.drift_min_score, near=near, from_code=from_code
            )
            day = latest.fetched_at.date().isoformat()
            _print_side(out, "now", day, now, claim.anchor.quote)
        closest = now.block[slice(*now.span)] if then is not None and now is not None else None
        change = diff_change(result, closest)
        if change is None:
            held = then is not None and now is not None
            out.print(Text("(no word changed)" if held else NOTHING_TO_COMPARE))
            return int(ExitCode.OK)
        out.print(Text(f"--- word diff: {_DIFF_OF[change.what]}", style="bold"))
        out.print(_word_diff(change.text))
        if not change.changed:
            out.print(Text("(no word changed)"))
        return int(ExitCode.OK)

    raise typer.Exit(guard(work))


def diff_change(result: ClaimResult, closest_now: str | None) -> Change | None:
    """The change `diff` shows: the one every report format shows (`change_of`); for a
    claim the judge found nothing close enough to, the quote against `closest_now`, the
    closest text on the page now (the same function, on the text `diff` shows)."""
    from claimcheck.judge.change import anchor_change, change_of

    change = change_of(result)
    anchor = result.claim.anchor
    if change is None and closest_now is not None and not result.found and anchor is not None:
        return anchor_change(anchor, closest_now)
    return change


def explain_command(
    claim_id: ClaimArg,
    paths: PathsArg = None,
    fetch: FetchOpt = False,
    part: PartOpt = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Explain a claim's verdict: the text around the best match, the score, the rule.

    For an absence claim: the texts it says the source does not say, and the one the
    source says, in its context, when it is contradicted.

    Exit 0: explained; 2: unknown claim or bad input.
    """

    def work() -> int:
        from claimcheck.models import ExitCode

        config = build_config(config_path, snapshots)
        claim = one_source(find_claim(read_claims(paths, config), claim_id), "explain", part)
        result = _judge(claim, config, fetch=fetch, blame=False)
        out = _console(use_color(sys.stdout))
        for line in _explanation(claim, result, config):
            out.print(line)
        return int(ExitCode.OK)

    raise typer.Exit(guard(work))


def _console(color: bool, *, soft_wrap: bool = False) -> Console:
    """A rich console on stdout, coloured only when asked (see `use_color`).

    Off a terminal (a pipe, a file, a test's capture) nothing is wrapped: a line is
    printed whole, so a URL or a commit link stays on one line for the next program.
    """
    from rich.console import Console

    isatty = getattr(sys.stdout, "isatty", None)
    terminal = bool(isatty and isatty())
    return Console(
        file=sys.stdout,
        no_color=not color,
        highlight=False,
        soft_wrap=soft_wrap or not terminal,
    )


@dataclass(frozen=True)
class _Closest:
    """The quote, or the text closest to it, on one version of a page, in its context.

    `block` is the context as a person reads it (notices, headings, lead-in, header
    row, the unit), `span` the quote or closest text within it, `score` 100 for the
    quote itself; `position` is where it stands on the page (a fraction of its units)
    and `code` whether in a code block.
    """

    block: str
    span: tuple[int, int]
    score: float
    exact: bool
    context_ok: bool
    position: float
    code: bool = False


def _closest(
    anchor: Anchor,
    page: Page,
    min_score: float,
    *,
    near: float | None = None,
    from_code: bool | None = None,
) -> _Closest | None:
    """The quote on the page, else the unit closest to it: what diff and explain show.

    The closest text is the judge's (the best match scoring at least `min_score`, the
    drift score, a code block only for a quote that was code: `from_code`), so it is
    the text a drifted verdict names; when none scores that much, the best of all,
    however far. None only when nothing can be compared (a quote under three words is
    matched exactly only).
    """
    from claimcheck.judge.anchor import locate_anchor
    from claimcheck.judge.context import Context

    text = page.text
    code = page.code
    match = locate_anchor(
        anchor, text, min_score=min_score, near=near, code=code, from_code=from_code
    )
    if match is None and min_score > 0:
        match = locate_anchor(
            anchor, text, min_score=0.0, near=near, code=code, from_code=from_code
        )
    if match is None:
        return None
    first, last = page.unit_at(match.start), page.unit_at(max(match.start, match.end - 1))
    unit = page.units[first]
    context = Context(
        kind=unit.kind,
        unit=" ".join(u.text for u in page.units[first : last + 1]),
        headings=unit.headings,
        header=unit.header,
        lead_in=unit.lead_in,
        notices=page.notices_over(first),
    )
    block = context.text
    # The block ends with the unit(s), whose text is the page's with its line breaks
    # for spaces: the match's offsets carry over.
    offset = len(block) - len(context.unit) - page.starts[first]
    span = (match.start + offset, min(len(block), match.end + offset))
    position = text.count("\n", 0, match.start) / max(1, text.count("\n"))
    in_code = first in code
    return _Closest(block, span, match.score, match.exact, match.context_ok, position, in_code)


def _print_side(out: Console, side: str, day: str, found: _Closest | None, quote: str) -> None:
    """One side of a diff (`baseline` or `now`): its heading, then the quote's block, or
    the closest one."""
    from rich.text import Text

    if found is None:
        out.print(Text(f"--- {side} (snapshot of {day}): nothing close to the quote", style="bold"))
        if len(quote.split()) < _FUZZY_WORDS:
            out.print(Text(f"(a quote of under {_FUZZY_WORDS} words is matched exactly only)"))
        return
    if found.exact:
        fits = "" if found.context_ok else ": the quote, but not between its prefix/suffix"
        title = f"--- {side} ({day}){fits}"
    else:
        gone = "; the quote was not in it" if side == "baseline" else ""
        title = f"--- {side} (the closest text): {found.score:.0f}%, snapshot of {day}{gone}"
    out.print(Text(title, style="bold"))
    out.print(_marked(found.block, found.span))


def _explanation(claim: Claim, result: ClaimResult, config: Config) -> list[Text]:
    """What explain prints: the claim, its verdict and why, then the evidence a person
    reads it by. A quote's score and closest text; for an absence claim what it checks
    (its `absent` texts, matched exactly, so no score) and the text that contradicts it."""
    from rich.text import Text

    from claimcheck.models import Verdict
    from claimcheck.observe.known import observed, with_page
    from claimcheck.store.store import Store

    lines = [
        Text(f"claim     {claim.id} ({claim.file}:{claim.line})"),
        Text(f"source    {clean_text(claim.source or '-')}"),
    ]
    if claim.anchor is not None or not claim.absent:
        lines.append(Text(f"quote     {clean_text(claim.anchor.quote if claim.anchor else '-')}"))
    if claim.absent:
        said = " or ".join(repr(text) for text in claim.absent)
        lines.append(Text(f"absent    {clean_text(said)}"))
    lines += [
        Text(f"checked   {claim.checked}"),
        Text(f"verdict   {result.verdict.value}", style="bold"),
        Text(f"why       {clean_text(result.reason)}"),
    ]
    contradicted = result.verdict is Verdict.CONTRADICTED
    if claim.absent:
        lines.append(
            Text(
                "checks    that the source says none of them, each matched as a quote is "
                "(case-folded, whole words, in one unit): any one found contradicts the "
                "claim; no score"
            )
        )
    if result.score is not None and claim.anchor is not None and not contradicted:
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
    if result.snapshot and (claim.anchor or contradicted):
        store = Store.of(config)
        seen = with_page(store, observed(result.snapshot, live=False), body=bool(claim.scope))
        # The part of the page the claim's scope selects, as the judge read it.
        page = (seen.scoped(claim.scope) if claim.scope else seen).page
        if contradicted:
            lines += _contradiction(claim, page)
        if claim.anchor:
            found = _closest(claim.anchor, page, config.verdict.drift_min_score)
            if found is not None:
                how = "the quote" if found.exact else f"the closest text ({found.score:.0f}%)"
                lines.append(Text(f"{how}, in its context as a reader sees the page:"))
                lines.append(_marked(found.block, found.span))
    return lines


def _contradiction(claim: Claim, page: Page) -> list[Text]:
    """The first absent text the page says, in its context as a reader sees the page: the
    one the verdict names (the judge looks for them in the same order, exactly)."""
    from rich.text import Text

    from claimcheck.models import Anchor

    exact_only = 101.0
    for text in claim.absent:
        found = _closest(Anchor(quote=text), page, exact_only)
        if found is not None and found.exact:
            return [
                Text(
                    f"the source says {clean_text(repr(text))}, in its context as a reader "
                    "sees the page:"
                ),
                _marked(found.block, found.span),
            ]
    return []


def _judge(claim: Claim, config: Config, *, fetch: bool, blame: bool) -> ClaimResult:
    """One claim's result, online or from the store, without touching state.json."""
    from claimcheck.pipeline import run_verify

    online = None
    if fetch:
        from claimcheck.observe.online import ONLINE

        online = ONLINE
    report, _ = run_verify([claim], config, online=online, remember=False)
    (result,) = report.results
    if blame and result.blame is None and result.verdict.is_stale:
        from claimcheck.history.online import add_blame
        from claimcheck.net.settings import fetch_settings

        (result,), _ = add_blame([result], config, fetch_settings(config))
    return result


def _marked(text: str, span: tuple[int, int]) -> Text:
    """The text with one span highlighted (the quote, or the text closest to it)."""
    from rich.text import Text

    start, end = span
    shown = Text(_clean_lines(text[:start]))
    shown.append(_clean_lines(text[start:end]), style="reverse")
    shown.append(_clean_lines(text[end:]))
    return shown


def _clean_lines(text: str) -> str:
    """Untrusted text made inert line by line: its own line breaks stay (a block's
    notices, headings and unit are lines), nothing else that moves the cursor does."""
    return "\n".join(clean_text(line) for line in text.split("\n"))


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
