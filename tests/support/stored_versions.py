"""Which stored version a reader saw on a day: the tests' plain reading of the store."""

from __future__ import annotations

import datetime as dt

from claimcheck.models import Snapshot
from claimcheck.store.store import Store, known_in_force


def as_of(store: Store, key: str, when: dt.date | dt.datetime) -> Snapshot | None:
    """The version a reader saw at `when`: the newest stored at or before it, when it
    is known to be in force then (`known_in_force`); None when none is.

    A date means the end of that day (UTC), so a snapshot taken on the check date
    counts as what the checker saw that day.
    """
    if not isinstance(when, dt.datetime):
        when = dt.datetime.combine(when, dt.time.max, tzinfo=dt.UTC)
    found = None
    for snapshot in store.versions(key):
        if snapshot.fetched_at <= when:
            found = snapshot
    return found if found is not None and known_in_force(found, when) else None
