"""What `claimcheck ack` does: write a person's acknowledgement of a review verdict
(`reviewed:`) into the claims' claim files.

Each claim's verdict is judged offline from the stored snapshots, as `explain` judges
it, and only a review verdict is acknowledged: a stale claim's support is gone, and an
acknowledgement must never pass a false claim for a true one. Every claim named is
checked before any file is written, so several ids are acknowledged together or not
at all; each file is edited once, in place (`claims.edit.set_reviewed`), and written
only if it is still as it was read.
"""

from __future__ import annotations

import datetime as dt
import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from claimcheck.claims.article import article_media
from claimcheck.claims.edit import EditError, set_reviewed, write_claim_file
from claimcheck.claims.field_checks import text_problem
from claimcheck.claims.parse import parse_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.cli.project import build_config
from claimcheck.cli.selection import find_claim
from claimcheck.cli.selection import read_claims as read_config_claims
from claimcheck.cli.verbosity import err
from claimcheck.cli.work.one_claim import clean_lines, judge
from claimcheck.errors import UsageError
from claimcheck.judge.review import ACKNOWLEDGEABLE, version_of
from claimcheck.models import ExitCode, Verdict
from claimcheck.untrusted import clean_text, shorten

if TYPE_CHECKING:
    from collections.abc import Callable

    from claimcheck.models import Claim, ClaimResult


@dataclass(frozen=True)
class _Ack:
    """One claim to acknowledge: the claim, its verdict now, and its entry's values."""

    claim: Claim
    result: ClaimResult
    entry: dict[str, str]


def ack(
    *,
    claim_ids: list[str],
    note: str,
    until: str | None,
    by: str | None,
    dry_run: bool,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
    """The work of `claimcheck ack`, given its parsed options: its exit code."""
    today = dt.datetime.now(dt.UTC).date()
    note, by = _text("--note", note), None if by is None else _text("--by", by)
    last_day = None if until is None else _until(until, today)
    config = build_config(config_path, snapshots)
    claims = read_config_claims(None, config)
    wanted = [find_claim(claims, claim_id) for claim_id in dict.fromkeys(claim_ids)]
    acks: list[_Ack] = []
    unknown = 0
    for claim in wanted:
        _require_claim_file(claim)
        result = judge(claim, config, fetch=False, blame=False)
        verdict = result.verdict
        if verdict is Verdict.VERIFIED:
            typer.echo(f"{clean_text(claim.id)} is verified: nothing to acknowledge")
            continue
        if verdict.is_unknown:
            err(f"error: cannot acknowledge {claim.id!r}: {verdict.value}: {_why(result)}")
            unknown += 1
            continue
        if verdict not in ACKNOWLEDGEABLE:
            raise UsageError(
                f"cannot acknowledge {claim.id!r}: it is {verdict.value} ({_why(result)}); "
                "only a review verdict (context-changed, moved, expired) can be "
                "acknowledged: a stale claim's support is gone",
                hint=f"fix the claim, or re-baseline it with `claimcheck accept {claim.id}` "
                "if the source's new words still support it",
            )
        entry = {
            "date": today.isoformat(),
            "verdict": verdict.value,
            "version": version_of(result),
            "note": note,
        }
        if last_day is not None:
            entry["until"] = last_day.isoformat()
        if by is not None:
            entry["by"] = by
        acks.append(_Ack(claim, result, entry))
    if unknown:
        err(
            "hint: run `claimcheck verify` first: only a verdict judged on a stored snapshot "
            "can be acknowledged"
        )
        return int(ExitCode.UNCHECKED)
    _write(acks, config.local_path, dry_run=dry_run)
    return int(ExitCode.OK)


def _text(option: str, value: str) -> str:
    """A text for the claim file, refused as the claim file would refuse it."""
    problem = text_problem(value)
    if problem is not None:
        raise UsageError(f"{option}: {problem}")
    return value.strip()


def _until(value: str, today: dt.date) -> dt.date:
    """--until as a date, today or later."""
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        raise UsageError(f"--until: must be a date (YYYY-MM-DD), not {value!r}") from None
    if day < today:
        raise UsageError(
            f"--until: {day.isoformat()} has passed (today is {today.isoformat()}, UTC): "
            "give the last day the acknowledgement should hold"
        )
    return day


def _require_claim_file(claim: Claim) -> None:
    """A claim read from an article is refused: its acknowledgement has nowhere to go."""
    if article_media(claim.file) is not None:
        raise UsageError(
            f"cannot acknowledge {claim.id!r}: it is read from the article "
            f"{clean_text(claim.file)}, and `ack` writes a claim file's `reviewed:` entry",
            hint="move the claim into a claim file (`claimcheck extract`) to acknowledge it, "
            "or `claimcheck accept` it",
        )


def _why(result: ClaimResult) -> str:
    return shorten(clean_text(result.reason), 200)


def _write(acks: list[_Ack], local_path: Callable[[str], Path], *, dry_run: bool) -> None:
    """Edit each claim file once for all its claims; with `dry_run`, print the diffs.

    A file is edited from its text as read now, which must still give each claim as it
    was judged, and written only if it is still that text when written: an edit made
    meanwhile (by a person, another command) is never overwritten.
    """
    by_file: dict[str, list[_Ack]] = {}
    for item in acks:
        by_file.setdefault(item.claim.file, []).append(item)
    for name, items in by_file.items():
        path = local_path(name)
        text = path.read_text(encoding="utf-8")
        now = {c.id: c for c in parse_claims([(name, text)], read=read_document)}
        edited = text
        for item in items:
            if now.get(item.claim.id) != item.claim:
                raise EditError(
                    f"{name}: claim {item.claim.id!r} changed since it was read; nothing written",
                    hint="run `claimcheck ack` again",
                )
            edited = set_reviewed(name, edited, item.claim.id, item.entry)
        if dry_run:
            diff = difflib.unified_diff(
                text.splitlines(keepends=True),
                edited.splitlines(keepends=True),
                fromfile=f"a/{name}",
                tofile=f"b/{name}",
            )
            typer.echo(clean_lines("".join(diff).rstrip("\n")))
            continue
        if path.read_text(encoding="utf-8") != text:
            raise EditError(
                f"{name}: the file changed while `ack` ran; nothing written",
                hint="run `claimcheck ack` again",
            )
        write_claim_file(path, edited)
        for item in items:
            _said(item)
    if dry_run:
        typer.echo("dry run: nothing written")


def _said(item: _Ack) -> None:
    """What was acknowledged, and what it means for the next runs."""
    entry, claim = item.entry, item.claim
    typer.echo(
        f"acknowledged {clean_text(claim.id)} ({entry['verdict']}) in {clean_text(claim.file)}"
    )
    typer.echo(f"  note: {clean_text(entry['note'])}")
    typer.echo(f"  version: {entry['version']} (the source as it is now)")
    if "until" in entry:
        typer.echo(f"  until: {entry['until']}")
    typer.echo(
        "  quiet until its source changes again"
        + (" or the day passes" if "until" in entry else "")
        + "; commit the claim file to keep it"
    )
