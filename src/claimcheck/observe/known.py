"""What is known of each source between runs, and the judge's input made from it.

An online run records what it found of every source (`state.Found`, `found_of`); an
offline run rebuilds the judge's input from that record (`as_found`), so that for the
same store an offline verdict is the last online one while the source's latest stored
version is the one the record was made over. A docs alias is observed with the version
it leads to (`track_alias`), and each claim on it is judged by the version that claim
stands on (`as_claim_sees`, `stands_on_now`), which `accept` moves (`accept_as_found`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from claimcheck.config import Config
from claimcheck.forges.docs_versions import (
    moved_from,
    moved_why,
    same_version,
    standing_version,
    track_version,
)
from claimcheck.forges.registry import forge_of
from claimcheck.forges.resolve import source_ref
from claimcheck.judge.verdict import Gone, NoSnapshot, Observed, SourceState, Unreachable
from claimcheck.models import ArchivedCopy, Claim, Snapshot, SourceRef
from claimcheck.store.lock import acquire_lock
from claimcheck.store.state import (
    ClaimState,
    Found,
    accept_version,
    load_state,
    save_state,
)
from claimcheck.store.store import Store


def observed(
    snapshot: Snapshot, *, live: bool, moved_to: str | None = None, fresh: bool = False
) -> Observed:
    """A stored version as the judge is told it, its page not read yet (`with_page`).
    `fresh`: the body is new in this run."""
    return Observed(snapshot, live=live, moved_to=moved_to, fresh=fresh)


def with_page(store: Store, state: Observed, *, body: bool = False) -> Observed:
    """An observed source with its page at hand, and its body with `body` (a claim that
    reads another part of the page: `Observed.scoped`). The page is read at most once
    per run and kept until freed (`Store.page`); a fresh body's page is read from it,
    never taken from the cache."""
    if state.unread:
        state = state.with_page(store.page(state.snapshot, fresh=state.fresh))
    if body and not state.body:
        state = state.with_page(state.page, store.read_body(state.snapshot))
    return state


def found_of(state: SourceState, latest: Snapshot | None) -> Found | None:
    """What a run found of a source, to record (`state.Found`): the judge's input for
    it, less what the store holds (`as_found` rebuilds it). `latest` is the source's
    latest stored version after the fetch; None for a source not fetched."""
    match state:
        case Observed(snapshot=snapshot):
            return Found(
                kind="page",
                snapshot=snapshot.file,
                fetched_at=snapshot.fetched_at,
                moved_to=state.moved_to,
                moved_why=state.moved_why,
                version=state.version,
            )
        case Gone(status=status, url=url, archived=archived):
            kind = "gone"
            detail: dict[str, object] = {"status": status, "url": url}
            if archived is not None:
                detail.update(archived_url=archived.url, archived_at=archived.captured)
            if state.unarchived:
                detail["unarchived"] = True
        case Unreachable(reason=reason, hint=hint):
            kind = "unreachable"
            detail = {"reason": reason, "hint": hint}
        case _:
            return None
    stored = {"snapshot": latest.file, "fetched_at": latest.fetched_at} if latest else {}
    return Found.model_validate({"kind": kind, **stored, **detail})


def found_in_run(
    states: Mapping[str, SourceState], store: Store, config: Config
) -> dict[str, Found]:
    """What a run found of each source it fetched, by URL, to record (`found_of`)."""
    found: dict[str, Found] = {}
    for url, state in states.items():
        # A page names its version; the others the latest stored one, if any.
        latest = None if isinstance(state, Observed) else store.latest(source_ref(url, config).key)
        seen = found_of(state, latest)
        if seen is not None:
            found[url] = seen
    return found


def as_found(store: Store, url: str, ref: SourceRef, found: Found | None) -> SourceState:
    """A source as the judge is told it offline: as the last run that fetched found it
    (`found`) while its latest stored version is still the one it found then, so that an
    offline verdict is that run's; else (no record, an older state file, a version
    stored since) its latest stored version, read as it is."""
    latest = store.latest(ref.key)
    current = found if found is not None and _still_latest(found, latest) else None
    if current is not None and current.kind == "gone":
        return Gone(
            status=current.status or 404,
            url=current.url or url,
            archived=archived_of(current),
            unarchived=bool(current.unarchived),
        )
    if current is not None and current.kind == "unreachable":
        return Unreachable(reason=current.reason or "", hint=current.hint or "", last=latest)
    if latest is None:
        return NoSnapshot()
    seen = observed(latest, live=False)
    if current is not None and current.kind == "page":
        before = store.history_notes(ref.key).get("docs_version")
        return seen.told(
            moved_to=current.moved_to,
            moved_why=current.moved_why,
            version=current.version,
            seen_before=before if current.version else None,
        )
    if forge_of(ref) is None:
        return track_alias(store, ref, latest.final_url, seen, remember=False)
    return seen


def archived_of(found: Found | None) -> ArchivedCopy | None:
    """The archived copy a record of a gone source keeps, if any (`state.Found`)."""
    if found is None or found.kind != "gone" or not found.archived_url or not found.archived_at:
        return None
    return ArchivedCopy(url=found.archived_url, captured=found.archived_at)


def _still_latest(found: Found, latest: Snapshot | None) -> bool:
    """Whether the version a record was made over is still the source's latest."""
    if latest is None:
        return found.snapshot is None
    return found.snapshot == latest.file and found.fetched_at == latest.fetched_at


def as_claim_sees(
    claim: Claim, state: SourceState | None, standing: Mapping[str, ClaimState]
) -> SourceState | None:
    """A source's state as one claim on it is judged: `moved` while a docs alias leads
    to another version than the claim stands on (`docs_versions.moved_from`), and not
    for a permanent redirect to the URL a person accepted it on."""
    if not isinstance(state, Observed) or claim.source is None:
        return state
    previous = standing.get(claim.id)
    stands = previous.stands_on.get(claim.source) if previous else None
    if state.version is not None:
        to = moved_from(stands, state.seen_before, state.version)
        if to is None and state.moved_to is None:
            return state
        return state.moved(to, moved_why(to) if to else None)
    if state.moved_to and stands and same_version(stands, state.moved_to):
        return state.moved(None)
    return state


def stands_on_now(
    claims: Sequence[Claim], states: Mapping[str, SourceState], standing: Mapping[str, ClaimState]
) -> dict[str, dict[str, str]]:
    """Claim id → the source versions each claim stands on after this run: those it
    stood on, and for a source on a docs alias first judged now, the version the
    source's last run saw, else this one (`docs_versions.standing_version`)."""
    now: dict[str, dict[str, str]] = {}
    for claim in claims:
        previous = standing.get(claim.id)
        stands = dict(previous.stands_on) if previous else {}
        for source in claim.sources:
            state = states.get(source)
            if isinstance(state, Observed) and state.version is not None:
                stands[source] = standing_version(
                    stands.get(source), state.seen_before, state.version
                )
        now[claim.id] = stands
    return now


def accept_as_found(claim: Claim, config: Config) -> str | None:
    """Record that a person accepted `claim` (a claim of one source: the claim, or one
    part's view) on its source as the last run found it: a claim on a docs alias then
    stands on the version the alias leads to now, one on a permanently redirected
    source on the redirect's target, so the next run no longer calls it `moved`.

    Writes state.json under the store's lock, and only when that changes it; returns
    the URL the claim now stands on when it does.
    """
    snapshots = config.snapshots_dir
    if claim.source is None or not snapshots.is_dir():
        return None
    remembered = load_state(snapshots)
    ref = source_ref(claim.source, config)
    found = remembered.sources.get(claim.source)
    state = as_found(Store.of(config), claim.source, ref, found.found if found else None)
    if not isinstance(state, Observed):
        return None
    led_to = state.version or state.moved_to
    if accept_version(remembered, claim.id, claim.source, led_to) is remembered:
        return None
    with acquire_lock(snapshots, "accept"):
        again = load_state(snapshots)  # as it is now that no one else writes it
        accepted = accept_version(again, claim.id, claim.source, led_to)
        save_state(snapshots, accepted.model_copy(update={"last_run": None}))
    return led_to


def track_alias(
    store: Store, ref: SourceRef, final_url: str, state: Observed, *, remember: bool
) -> Observed:
    """The observation of an alias source told the version `final_url` pins and the one
    the source's last run kept in its notes: each claim on it is `moved` while the alias
    leads elsewhere than the version that claim stands on (`as_claim_sees`), never for
    the redirect alone (a 301 included). The version is kept in the notes only when the
    run `remember`s (verify), so that `snapshot` or a `blame` in between leaves what a
    claim new to the source stands on."""
    before = store.history_notes(ref.key).get("docs_version")
    tracked = track_version(ref.url, final_url, before)
    if tracked is None:
        return state
    if remember:
        store.note_history(ref.key, ref.url, docs_version=tracked.seen)
    return state.told(moved_to=None, moved_why=None, version=tracked.seen, seen_before=before)
