"""What `claimcheck diff` does: the claim's context at its baseline and now, word by word."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from claimcheck.cli.project import build_config
from claimcheck.cli.selection import find_claim, one_source, read_claims
from claimcheck.cli.terminal import use_color
from claimcheck.cli.verbosity import err
from claimcheck.cli.work.one_claim import console, judge, marked
from claimcheck.errors import UsageError
from claimcheck.forges.resolve import source_ref
from claimcheck.history.baseline import baseline_of
from claimcheck.judge.closest import Closest, diff_change, find_closest
from claimcheck.models import ExitCode
from claimcheck.store.store import Store
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    from rich.console import Console

    from claimcheck.models import Claim, ClaimResult


def diff(
    *,
    claim_id: str,
    paths: list[Path] | None,
    fetch: bool,
    part: str | None,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
    """The work of `claimcheck diff`, given its parsed options: its exit code."""

    config = build_config(config_path, snapshots)
    claim = one_source(find_claim(read_claims(paths, config), claim_id), "diff", part)
    if claim.source is not None and claim.field is not None:
        return _diff_field(claim, judge(claim, config, fetch=fetch, blame=False))
    if claim.source is None or claim.anchor is None:
        raise UsageError(
            f"claim {claim.id!r} has no source URL (citation needed): nothing to diff",
            hint="give it a `source` and a `quote`, then `claimcheck verify`",
        )
    result = judge(claim, config, fetch=fetch, blame=False)
    store = Store.of(config)
    base = baseline_of(store, claim, config)
    latest = store.latest(source_ref(claim.source, config).key)
    out = console(use_color(sys.stdout), soft_wrap=True)
    out.print(Text(f"{claim.id}: {result.verdict.value} — {clean_text(result.reason)}"))
    if base is None and latest is None:
        out.print(Text("(no snapshot of the source is stored: nothing to compare)"))
        err("hint: run `claimcheck snapshot` (or `verify`) once with a network")
        return int(ExitCode.UNCHECKED)
    then = None
    if base is not None:
        page = store.page(base)
        then = find_closest(claim.anchor, page, config.verdict.drift_min_score)
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
        now = find_closest(
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


def _diff_field(claim: Claim, result: ClaimResult) -> int:
    """`diff` of a claim on a field: its value on the check date (the baseline's) and
    now, and the claim's value → the value now."""
    field = claim.field
    assert field is not None
    out = console(use_color(sys.stdout), soft_wrap=True)
    out.print(Text(f"{claim.id}: {result.verdict.value} — {clean_text(result.reason)}"))
    if result.snapshot is None:
        out.print(Text("(no snapshot of the source is stored: nothing to compare)"))
        err("hint: run `claimcheck snapshot` (or `verify`) once with a network")
        return int(ExitCode.UNCHECKED)
    name = clean_text(field.path)
    for side, snapshot, value in (
        ("baseline", result.baseline, result.value_then),
        ("now", result.snapshot, result.value_now),
    ):
        if snapshot is None:
            out.print(Text(f"--- {side}: none stored for {claim.checked}", style="bold"))
            continue
        day = snapshot.fetched_at.date().isoformat()
        out.print(Text(f"--- {side} (snapshot of {day}): field {name}", style="bold"))
        out.print(Text(clean_text(value) if value is not None else "(not there)"))
    if result.diff is None:
        out.print(
            Text("(no value changed)" if result.value_now is not None else NOTHING_TO_COMPARE)
        )
        return int(ExitCode.OK)
    out.print(Text("--- value diff: the claim's value → the value now", style="bold"))
    out.print(_word_diff(result.diff))
    return int(ExitCode.OK)


# The judge matches a quote of fewer words exactly only (judge/anchor.py).
_FUZZY_WORDS = 3


NOTHING_TO_COMPARE = "(nothing to compare it with: no word diff)"


# What `diff`'s word diff compares, by the kind of change (`judge.change.Change`).
_DIFF_OF = {
    "quote": "the quote → the text now",
    "context": "the quote in its prefix/suffix → the text around it now",
    "block": "the block around the quote, baseline → now",
}


def _print_side(out: Console, side: str, day: str, found: Closest | None, quote: str) -> None:
    """One side of a diff (`baseline` or `now`): its heading, then the quote's block, or
    the closest one."""
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
    out.print(marked(found.block, found.span))


def _word_diff(diff: str) -> Text:
    """Colour git-style word diff markers: [-removed-] red, {+added+} green."""
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
