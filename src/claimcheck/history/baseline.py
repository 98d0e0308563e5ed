"""Baselines and blame: each claim's source as of its check date, and who changed it since.

The baseline of a claim is the stored snapshot of its source as of the claim's
`checked` date. That date is a whole UTC day, and a source may change during it: the
checker saw some version of that day, so the baseline is the newest one in which the
quote holds, and only when it holds in none is it the version at the end of the day.
When no stored snapshot is known to be in force that day, it is backfilled from
history (GitHub commits, or the Wayback Machine for other pages) and stored with its
true date and origin, so the next run finds it on disk. A version from history is known
to be in force only from its date to the day history was asked about (extended when
history answers it again for a later day, `Store.save`): a claim checked later asks
history for its own day rather than take an older claim's version, so its baseline does
not depend on which other claims share its source. For a stale claim on a forge
(GitHub, the Hub, GitLab, Codeberg), blame bisects the commits since the baseline to
name the one that changed the quote; each forge's module (`forges.registry`) reads
its own history.

This module is the offline half, which judging reads: which baseline a claim has and
which versions history is wanted for. Asking history (backfill, blame) and storing
what it found, through the same gate as a fetched answer (`keep_found`), is
`online.py`'s, which only online paths import.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

from claimcheck.config import Config
from claimcheck.forges.resolve import source_ref
from claimcheck.judge.anchor import quote_holds
from claimcheck.judge.fields import holds_in
from claimcheck.models import Claim, Snapshot, SourceRef
from claimcheck.store.store import Store


def end_of_day(day: dt.date) -> dt.datetime:
    """The last moment of a check date, UTC: what the checker saw that day."""
    return dt.datetime.combine(day, dt.time.max, tzinfo=dt.UTC)


def baseline_of(store: Store, claim: Claim, config: Config) -> Snapshot | None:
    """The stored version of the claim's source the checker verified it in, on its check date.

    A check date is a day, not a moment: the source may have changed after the checker
    looked. Any version in force during that UTC day (the one of its start included) in
    which the quote holds made the claim true that day, and the newest such is the
    baseline. When it holds in none, the end-of-day version is, so the judge can still
    say the claim never had this support. Only that day's versions are read, and one
    alone needs no reading at all.
    """
    if claim.source is None:
        return None
    key = source_ref(claim.source, config).key
    seen = store.in_force_on(key, claim.checked)
    if len(seen) < 2 or (claim.anchor is None and claim.field is None):
        return seen[-1] if seen else None
    for snapshot in reversed(seen):
        if claim.field is not None:
            if holds_in(claim.field, store.read_body(snapshot), snapshot.media):
                return snapshot
        elif claim.anchor is not None and quote_holds(claim.anchor, store.page(snapshot).text):
            return snapshot
    return seen[-1]


HistoryWanted = dict[tuple[str, dt.date], SourceRef]
"""The versions a run asks history for: (source key, check date) → the source."""


def history_wanted(claims: Sequence[Claim], config: Config, store: Store) -> HistoryWanted:
    """Every (source, check date) of a claim (every part's) with no stored version that
    old, except those history already said it holds nothing for."""
    wanted: HistoryWanted = {}
    refs: dict[str, SourceRef] = {}  # each source resolved once, not once a claim
    weighed: dict[tuple[str, dt.date], bool] = {}  # by its key and date alone
    for claim in (view for each in claims for view in each.views()):  # every part's
        if not (claim.source and (claim.anchor or claim.field)):
            continue
        ref = refs.get(claim.source)
        if ref is None:
            ref = refs[claim.source] = source_ref(claim.source, config)
        asking = (ref.key, claim.checked)
        wants = weighed.get(asking)
        if wants is None:
            wants = weighed[asking] = wants_history(store, ref, claim.checked)
        if wants:
            wanted[asking] = ref
    return wanted


def wants_history(store: Store, ref: SourceRef, day: dt.date) -> bool:
    """Whether history should be asked for `ref` as of `day`: no version known to be in
    force then is stored (`baseline_of` is None; a version from history counts only for
    the days history vouched for it), and history did not say it holds nothing that
    old."""
    if store.in_force_on(ref.key, day):
        return False
    return day.isoformat() > store.history_notes(ref.key).get("none_until", "")


def ticker(
    phase: str, total: int, on_progress: Callable[[str, int, int], None] | None
) -> Callable[[], None]:
    """A function to call as each of `total` steps of `phase` ends, telling `on_progress`."""
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if on_progress is not None:
            on_progress(phase, done, total)

    return tick
