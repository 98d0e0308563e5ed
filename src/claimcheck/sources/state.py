"""What claimcheck remembers between runs, kept with the snapshots in `state.json`.

The last verdict of every claim (for `list` / `show` and for issue syncing), the
consecutive fetch failures of every source (a flaky source files no issue until it
has failed several nights in a row), and when the last run completed (so a scheduler
that was down catches up once). Only runs that fetched write it: an offline verify
never changes the repository.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claimcheck.errors import StoreError
from claimcheck.models import ClaimResult, Report, Verdict
from claimcheck.sources.store import atomic_write, read_store_file

STATE_FILE = "state.json"


class ClaimState(BaseModel):
    """The last verdict of one claim, and since when it has held.

    No per-claim "judged at": `RunState.last_run` says when, so a night where nothing
    changed changes one line of the file.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    verdict: Verdict
    reason: str
    since: dt.datetime


class SourceState(BaseModel):
    """Consecutive failed fetches of one source; reset by a success.

    `suspect` counts the consecutive runs whose answer failed the plausibility gate (a
    bot challenge, an error page, ...): after `[fetch] suspect_limit` of them a person
    must look. A run that got no answer at all neither counts nor resets it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    failures: int = 0
    last_error: str | None = None
    gone: int = 0
    suspect: int = 0


class RunState(BaseModel):
    """The whole remembered state."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    last_run: dt.datetime | None = None
    claims: dict[str, ClaimState] = Field(default_factory=dict)
    sources: dict[str, SourceState] = Field(default_factory=dict)


def load_state(snapshots: Path) -> RunState:
    """The remembered state, or an empty one before the first run."""
    path = snapshots / STATE_FILE
    try:
        return RunState.model_validate(json.loads(read_store_file(path).decode("utf-8")))
    except FileNotFoundError:
        return RunState()
    except (OSError, ValueError, ValidationError) as exc:
        raise StoreError(
            f"{path} is not a valid state file: {exc}",
            hint="restore it from version control, or delete it to start afresh",
        ) from exc


def save_state(snapshots: Path, state: RunState) -> None:
    """Write the state atomically, and only when it changed."""
    path = snapshots / STATE_FILE
    text = json.dumps(state.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
    try:
        if read_store_file(path).decode("utf-8", "replace") == text:
            return
    except OSError:
        pass
    atomic_write(path, text.encode("utf-8"))


def record_report(
    state: RunState, report: Report, suspects: Mapping[str, int] | None = None
) -> RunState:
    """Fold one run's verdicts and fetch outcomes into the state.

    `suspects` maps each source whose answer this run was not the page to its count of
    consecutive such runs, this one included (see `suspect_count`).
    """
    suspects = suspects or {}
    now = report.generated_at
    claims = dict(state.claims)
    for result in report.results:
        previous = claims.get(result.claim.id)
        since = previous.since if previous and previous.verdict is result.verdict else now
        claims[result.claim.id] = ClaimState(
            verdict=result.verdict, reason=result.reason, since=since
        )
    outcome: dict[str, ClaimResult] = {}
    for result in report.results:
        if result.claim.source is not None:
            outcome.setdefault(result.claim.source, result)  # one fetch per source
    sources = dict(state.sources)
    for url, result in outcome.items():
        old = sources.get(url, SourceState())
        if result.verdict is Verdict.UNREACHABLE:
            sources[url] = SourceState(
                failures=old.failures + 1,
                last_error=result.reason,
                suspect=suspects.get(url, old.suspect),
            )
        elif result.verdict is Verdict.SOURCE_GONE:
            sources[url] = SourceState(gone=old.gone + 1)
        else:
            sources[url] = SourceState()
    return RunState(last_run=now, claims=claims, sources=sources)


def suspect_count(state: RunState, url: str) -> int:
    """This run's count of consecutive answers from `url` that were not the page."""
    old = state.sources.get(url)
    return (old.suspect if old else 0) + 1
