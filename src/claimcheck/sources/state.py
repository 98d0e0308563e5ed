"""What claimcheck remembers between runs, kept with the snapshots in `state.json`.

The last verdict of every claim (for `list` / `show` and for issue syncing) and the
consecutive fetch failures of every source (a flaky source files no issue until it
has failed several nights in a row). Only runs that fetched write it, and only when
one of those changed: an offline verify never changes the repository, and a night
where nothing changed leaves nothing to commit.

When the scheduler last completed a run (so a scheduler that was down catches up
once) is kept apart, in `snapshots/.cache/last-run.json`: it moves every night, and
a file that changes every night would make every night's commit.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claimcheck.errors import StoreError
from claimcheck.json_text import indented
from claimcheck.models import ClaimResult, Report, Verdict
from claimcheck.sources.files import atomic_write, read_store_file
from claimcheck.sources.pages import CACHE_FOLDER, cache_made_here, prepare_cache

STATE_FILE = "state.json"
LAST_RUN_FILE = "last-run.json"


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
    """The whole remembered state; `last_run` is kept apart from the rest (see above)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    last_run: dt.datetime | None = None
    claims: dict[str, ClaimState] = Field(default_factory=dict)
    sources: dict[str, SourceState] = Field(default_factory=dict)


def load_state(snapshots: Path) -> RunState:
    """The remembered state, or an empty one before the first run.

    A state file of an older claimcheck may still hold `last_run`; it counts until the
    scheduler records one of its own.
    """
    path = snapshots / STATE_FILE
    try:
        # Parsed and validated in one pass by pydantic's own JSON reader: a desk's
        # state holds every claim's verdict, and a run reads it twice.
        state = RunState.model_validate_json(read_store_file(path))
    except FileNotFoundError:
        state = RunState()
    except (OSError, ValueError, ValidationError) as exc:
        raise StoreError(
            f"{path} is not a valid state file: {exc}",
            hint="restore it from version control, or delete it to start afresh",
        ) from exc
    last_run = _load_last_run(snapshots)
    return state.model_copy(update={"last_run": last_run}) if last_run else state


def save_state(snapshots: Path, state: RunState) -> None:
    """Write the state atomically, each of its two files only when it changed."""
    document = state.model_dump(mode="json", exclude={"last_run"})
    _write_if_changed(snapshots / STATE_FILE, document, durable=True)
    if state.last_run is not None:
        record_last_run(snapshots, state.last_run)


def record_last_run(snapshots: Path, when: dt.datetime) -> None:
    """Remember when the scheduler last completed a run (outside the committed state)."""
    document = {"last_run": when.astimezone(dt.UTC).isoformat()}
    _write_if_changed(prepare_cache(snapshots) / LAST_RUN_FILE, document, durable=False)


def _load_last_run(snapshots: Path) -> dt.datetime | None:
    if not cache_made_here(snapshots):
        return None  # a cache not made here says nothing of this machine's runs
    try:
        raw = json.loads(read_store_file(snapshots / CACHE_FOLDER / LAST_RUN_FILE))
        when = dt.datetime.fromisoformat(raw["last_run"])
    except (OSError, StoreError, ValueError, TypeError, KeyError):
        return None  # never recorded, or damaged: the scheduler catches up once
    return when if when.tzinfo else None


def _write_if_changed(path: Path, document: object, *, durable: bool) -> None:
    text = indented(document)
    try:
        if read_store_file(path).decode("utf-8", "replace") == text:
            return
    except OSError:
        pass
    atomic_write(path, text.encode("utf-8"), durable=durable)


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
    for result in (part for each in report.results for part in each.parts or (each,)):
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
    return RunState(last_run=state.last_run, claims=claims, sources=sources)


def suspect_count(state: RunState, url: str) -> int:
    """This run's count of consecutive answers from `url` that were not the page."""
    old = state.sources.get(url)
    return (old.suspect if old else 0) + 1
