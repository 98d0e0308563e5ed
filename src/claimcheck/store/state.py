"""What claimcheck remembers between runs, kept with the snapshots in `state.json`.

The last verdict of every claim (for `list` / `show` and for issue syncing), what the
last run that fetched found of every source (`Found`: the offline gate judges from it,
so a source gone, moved, refused or answering with something that is not the page
stays so offline until an online run says otherwise), and the consecutive fetch
failures of every source (a flaky source files no issue until it has failed several
nights in a row). Only runs that fetched write it (and `accept`, the version a person
accepted a claim on), and only when one of those changed: an offline verify never
changes the repository, and a night where nothing changed leaves nothing to commit.

When the scheduler last completed a run (so a scheduler that was down catches up
once) is kept apart, in `snapshots/.cache/last-run.json`: it moves every night, and
a file that changes every night would make every night's commit.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
)

from claimcheck.cache.keys import CACHE_FOLDER, cache_made_here, prepare_cache
from claimcheck.errors import StoreError
from claimcheck.json_text import indented, invalid_because
from claimcheck.models import ClaimResult, NotifiedState, Report, Verdict
from claimcheck.store.files import atomic_write, read_store_file

STATE_FILE = "state.json"
LAST_RUN_FILE = "last-run.json"

_Entry = TypeVar("_Entry", "ClaimState", "SourceState", "dict[str, NotifiedState]")


class ClaimState(BaseModel):
    """The last verdict of one claim, and since when it has held.

    No per-claim "judged at": `RunState.last_run` says when, so a night where nothing
    changed changes one line of the file.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    verdict: Verdict
    reason: str
    since: dt.datetime
    stands_on: dict[str, str] = Field(default_factory=dict)
    """Source URL → where that source led when the claim was judged on it first or a
    person accepted it (`accept`): the version a docs alias pointed at, or the URL a
    permanent redirect went to. The claim is `moved` while its source leads elsewhere
    (`docs_versions.moved_from`); written only when there is one, so that a claim on a
    plain source keeps its three-line record."""
    acknowledged: bool = False
    """The verdict is a review verdict a person acknowledged (`ClaimResult.quiet`), as
    `list` and `show` say; written only when true."""

    @model_serializer(mode="wrap")
    def _without_empty(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        document: dict[str, Any] = handler(self)
        if not self.stands_on:
            document.pop("stands_on", None)
        if not self.acknowledged:
            document.pop("acknowledged", None)
        return document


class Found(BaseModel):
    """What the last run that fetched found of a source, as the judge was told it.

    `kind`: `page` (the stored snapshot was judged; `moved_to` / `moved_why` when the
    source moved, `version` the docs version an alias led to), `gone` (it answered
    `status` at `url`) or `unreachable` (no answer, a refused address, or an answer
    that was not the page: `reason` and `hint` as the judge said them). `snapshot` and
    `fetched_at` name the source's latest stored version then (None: nothing stored):
    the record stands for the source while that is still the latest. A gone source's
    `archived_url` / `archived_at`: the Wayback Machine's last capture from before it
    went, asked once and kept here, so that later runs and the offline gate suggest the
    same copy without asking again; `unarchived` (true): it answered that it holds none,
    so it is not asked again either.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["page", "gone", "unreachable"]
    snapshot: str | None = None
    fetched_at: dt.datetime | None = None
    status: int | None = None
    url: str | None = None
    reason: str | None = None
    hint: str | None = None
    moved_to: str | None = None
    moved_why: str | None = None
    version: str | None = None
    archived_url: str | None = None
    archived_at: dt.datetime | None = None
    unarchived: bool | None = None

    @model_serializer(mode="wrap")
    def _without_none(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        document: dict[str, Any] = handler(self)
        return {key: value for key, value in document.items() if value is not None}


class SourceState(BaseModel):
    """What the last run that fetched found of one source (`found`; None in a state
    file of an older claimcheck), and its consecutive failed fetches, reset by a success.

    `suspect` counts the consecutive runs whose answer failed the plausibility gate (a
    bot challenge, an error page, ...): after `[fetch] suspect_limit` of them a person
    must look. A run that got no answer at all neither counts nor resets it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    failures: int = 0
    last_error: str | None = None
    gone: int = 0
    suspect: int = 0
    found: Found | None = None

    @model_serializer(mode="wrap")
    def _without_unknown(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        document: dict[str, Any] = handler(self)
        if self.found is None:
            document.pop("found", None)
        return document


class RunState(BaseModel):
    """The whole remembered state; `last_run` is kept apart from the rest (see above).

    `notified`: route name → claim id → what that route was last told of the claim
    (`notify/`), so that a message goes out only when that changes, and a route whose
    delivery failed is told again on the next run while the others are not. Kept here,
    committed, so that a fresh runner knows; written only once something was notified.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    last_run: dt.datetime | None = None
    claims: dict[str, ClaimState] = Field(default_factory=dict)
    sources: dict[str, SourceState] = Field(default_factory=dict)
    notified: dict[str, dict[str, NotifiedState]] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _without_unnotified(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        document: dict[str, Any] = handler(self)
        if not self.notified:
            document.pop("notified", None)
        return document


def load_state(snapshots: Path) -> RunState:
    """The remembered state, or an empty one before the first run.

    A state file of an older claimcheck may still hold `last_run`; it counts until the
    scheduler records one of its own.
    """
    try:
        state = read_state(snapshots / STATE_FILE)
    except FileNotFoundError:
        state = RunState()
    last_run = _load_last_run(snapshots)
    return state.model_copy(update={"last_run": last_run}) if last_run else state


def read_state(path: Path) -> RunState:
    """The state in one state file; `FileNotFoundError` when there is none.

    Parsed and validated in one pass by pydantic's own JSON reader: a desk's state
    holds every claim's verdict, and a run reads it twice.
    """
    try:
        return RunState.model_validate_json(read_store_file(path))
    except FileNotFoundError:
        raise
    except (OSError, ValueError, ValidationError) as exc:
        raise StoreError(
            f"{path} is not a valid state file: {invalid_because(exc)}",
            hint="restore it from version control, or delete it to start afresh",
        ) from exc


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
    state: RunState,
    report: Report,
    suspects: Mapping[str, int] | None = None,
    *,
    found: Mapping[str, Found] | None = None,
    stands_on: Mapping[str, Mapping[str, str]] | None = None,
) -> RunState:
    """Fold one run's verdicts and fetch outcomes into the state.

    `suspects` maps each source whose answer this run was not the page to its count of
    consecutive such runs, this one included (see `suspect_count`); `found`, each source
    URL to what the run found of it (`run.found_of`); `stands_on`, each claim id to the
    source versions it stands on now (kept with the claim's verdict).
    """
    suspects = suspects or {}
    found = found or {}
    stands_on = stands_on or {}
    now = report.generated_at
    claims = dict(state.claims)
    for result in report.results:
        previous = claims.get(result.claim.id)
        stands = dict(stands_on.get(result.claim.id, previous.stands_on if previous else {}))
        if (
            previous
            and previous.verdict is result.verdict
            and previous.reason == result.reason
            and previous.stands_on == stands
            and previous.acknowledged == result.quiet
        ):
            continue  # as it was: the night's 10,000 unchanged claims make no new records
        since = previous.since if previous and previous.verdict is result.verdict else now
        claims[result.claim.id] = ClaimState(
            verdict=result.verdict,
            reason=result.reason,
            since=since,
            stands_on=stands,
            acknowledged=result.quiet,
        )
    outcome: dict[str, ClaimResult] = {}
    for result in (part for each in report.results for part in each.parts or (each,)):
        if result.claim.source is not None:
            outcome.setdefault(result.claim.source, result)  # one fetch per source
    sources = dict(state.sources)
    for url, result in outcome.items():
        old = sources.get(url, SourceState())
        seen = found.get(url)
        if result.verdict is Verdict.UNREACHABLE:
            sources[url] = SourceState(
                failures=old.failures + 1,
                last_error=result.reason,
                suspect=suspects.get(url, old.suspect),
                found=seen,
            )
        elif result.verdict is Verdict.SOURCE_GONE:
            sources[url] = SourceState(gone=old.gone + 1, found=seen)
        else:
            sources[url] = SourceState(found=seen)
    return RunState(
        last_run=state.last_run, claims=claims, sources=sources, notified=state.notified
    )


def record_notified(
    state: RunState, route: str, told: Mapping[str, NotifiedState | None]
) -> RunState:
    """The state with what `route` was told now: each claim id's new record (None: it
    was told the claim recovered, so it holds no record of it any more)."""
    records = dict(state.notified.get(route, {}))
    for claim_id, what in told.items():
        if what is None:
            records.pop(claim_id, None)
        else:
            records[claim_id] = what
    notified = {**state.notified, route: records}
    if not records:
        del notified[route]
    return state.model_copy(update={"notified": notified})


def accept_version(state: RunState, claim_id: str, source: str, led_to: str | None) -> RunState:
    """The state with a person's acceptance of a claim on `source` as it leads now
    (`led_to`: a docs version or a redirect's target; None: the URL itself).

    A claim no run has judged yet has no record to keep it in: its first judgement
    takes the version in force then.
    """
    previous = state.claims.get(claim_id)
    if previous is None:
        return state
    stands = {url: to for url, to in previous.stands_on.items() if url != source}
    if led_to is not None:
        stands[source] = led_to
    if stands == previous.stands_on:
        return state
    claims = {**state.claims, claim_id: previous.model_copy(update={"stands_on": stands})}
    return state.model_copy(update={"claims": claims})


def suspect_count(state: RunState, url: str) -> int:
    """This run's count of consecutive answers from `url` that were not the page."""
    old = state.sources.get(url)
    return (old.suspect if old else 0) + 1


class StateMergeError(StoreError):
    """The state files are not the states of one run's shards: they cannot be merged."""

    hint = (
        "merge the state files of one run's shards (each shard's snapshots/state.json), "
        "over the state.json they all started from"
    )


def merge_states(base: RunState, parts: Sequence[tuple[str, RunState]]) -> RunState:
    """The state one run over all the claims would have left: `base` with every
    part's changes.

    Each shard of a run (`verify --shard K/N`) starts from the same state, `base`, and
    folds in the verdicts of its own claims and the fetches of its own sources; no
    claim and no source is in two shards. So an entry a part holds differently from
    `base` is that part's news, and the merged state takes each part's news. Two parts
    with different news for one entry, or a part without an entry of `base` (a part
    never forgets one), were not shards of one run over this state: `StateMergeError`,
    naming them.
    """
    claims = _merged("claim", base.claims, [(name, part.claims) for name, part in parts])
    sources = _merged("source", base.sources, [(name, part.sources) for name, part in parts])
    notified = _merged(
        "notification route", base.notified, [(name, part.notified) for name, part in parts]
    )
    return RunState(last_run=base.last_run, claims=claims, sources=sources, notified=notified)


def _merged(
    kind: str, base: Mapping[str, _Entry], parts: Sequence[tuple[str, Mapping[str, _Entry]]]
) -> dict[str, _Entry]:
    merged = dict(base)
    news_from: dict[str, str] = {}  # an entry with news → the part it came from
    for name, entries in parts:
        lost = [key for key in base if key not in entries]
        if lost:
            raise StateMergeError(
                f"{name}: not a shard's state over this state: it lacks the {kind} "
                f"{lost[0]!r}" + (f" and {len(lost) - 1} more" if len(lost) > 1 else "")
            )
        for key, entry in entries.items():
            if key in base and entry == base[key]:
                continue
            first = news_from.get(key)
            if first is None:
                merged[key] = entry
                news_from[key] = name
            elif merged[key] != entry:
                raise StateMergeError(
                    f"{name}: the {kind} {key!r} changed in two parts, differently: "
                    f"here and in {first}"
                )
    return merged
