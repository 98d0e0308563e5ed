"""What `claimcheck explain` does: the text around the best match, the score, the rule."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from claimcheck.cli.project import build_config
from claimcheck.cli.selection import find_claim, one_source, read_claims
from claimcheck.cli.terminal import use_color
from claimcheck.cli.work.one_claim import console, judge, marked
from claimcheck.judge.closest import find_closest
from claimcheck.models import Anchor, ExitCode, Verdict
from claimcheck.observe.known import observed, with_page
from claimcheck.store.store import Store
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.models import Claim, ClaimResult
    from claimcheck.page import Page


def explain(
    *,
    claim_id: str,
    paths: list[Path] | None,
    fetch: bool,
    part: str | None,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
    """The work of `claimcheck explain`, given its parsed options: its exit code."""
    config = build_config(config_path, snapshots)
    claim = one_source(find_claim(read_claims(paths, config), claim_id), "explain", part)
    result = judge(claim, config, fetch=fetch, blame=False)
    out = console(use_color(sys.stdout))
    for line in _explanation(claim, result, config):
        out.print(line)
    return int(ExitCode.OK)


def _explanation(claim: Claim, result: ClaimResult, config: Config) -> list[Text]:
    """What explain prints: the claim, its verdict and why, then the evidence a person
    reads it by. A quote's score and closest text; for an absence claim what it checks
    (its `absent` texts, matched exactly, so no score) and the text that contradicts it."""

    lines = [
        Text(f"claim     {claim.id} ({claim.file}:{claim.line})"),
        Text(f"source    {clean_text(claim.source or '-')}"),
    ]
    if claim.field is not None:
        lines += _field(claim, result)
    elif claim.anchor is not None or not claim.absent:
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
            found = find_closest(claim.anchor, page, config.verdict.drift_min_score)
            if found is not None:
                how = "the quote" if found.exact else f"the closest text ({found.score:.0f}%)"
                lines.append(Text(f"{how}, in its context as a reader sees the page:"))
                lines.append(marked(found.block, found.span))
    return lines


def _field(claim: Claim, result: ClaimResult) -> list[Text]:
    """A claim on a field: the field, what the claim expects, and its value on the check
    date and now (third-party text cleaned)."""
    field = claim.field
    assert field is not None
    expects = f"value     {field.value!r}" if field.value is not None else ""
    if field.matches is not None:
        expects = f"matches   {field.matches!r} (a regular expression, the whole value)"
    lines = [Text(f"field     {clean_text(field.path)}"), Text(clean_text(expects))]
    if result.value_then is not None:
        lines.append(Text(f"then      {clean_text(repr(result.value_then))} (on the check date)"))
    if result.snapshot is not None:
        now = repr(result.value_now) if result.value_now is not None else "(not there)"
        lines.append(Text(f"now       {clean_text(now)}"))
    return lines


def _contradiction(claim: Claim, page: Page) -> list[Text]:
    """The first absent text the page says, in its context as a reader sees the page: the
    one the verdict names (the judge looks for them in the same order, exactly)."""

    exact_only = 101.0
    for text in claim.absent:
        found = find_closest(Anchor(quote=text), page, exact_only)
        if found is not None and found.exact:
            return [
                Text(
                    f"the source says {clean_text(repr(text))}, in its context as a reader "
                    "sees the page:"
                ),
                marked(found.block, found.span),
            ]
    return []
