"""How long a stored version is known to be its source: a version fetched live until
the next one, a version taken from history only as far as history vouched for it.

Pure: the store asks these of the versions in its indexes (`store.Store.as_of`,
`in_force_during`, `save`).
"""

from __future__ import annotations

import datetime as dt

from claimcheck.models import Snapshot

HISTORY_ORIGINS = ("commit ", "wayback ")
"""How the origin of a version taken from history begins: `commit SHA` (a forge's file at
that commit), `wayback URL` (that capture). Any other (`fetch`, `render`) was fetched live."""


def from_history(snapshot: Snapshot) -> bool:
    """Whether a stored version was taken from history (a commit, a capture), not
    fetched live."""
    return snapshot.origin.startswith(HISTORY_ORIGINS)


def vouched_day(snapshot: Snapshot) -> dt.date:
    """The last day history vouched for a version from history: the day it was asked
    about, or, in an index written before that was kept, the version's own date (so
    history is asked again for any later day)."""
    return snapshot.vouched_until or snapshot.fetched_at.date()


def known_in_force(snapshot: Snapshot, when: dt.datetime) -> bool:
    """Whether a stored version is known to be the source at `when`, a moment at or
    after its date and before the next stored version.

    A version fetched live stands until the next one. A version from history stands
    only for the days history vouched for it, from its date to the end of the day it
    was asked about: for a later day the source may have changed in between, and
    nothing stored says it did not, so history is asked. A claim's baseline is then
    the same whatever other claims asked history about the same source.
    """
    if not from_history(snapshot):
        return True
    return when <= dt.datetime.combine(vouched_day(snapshot), dt.time.max, tzinfo=dt.UTC)


def vouched_to(snapshot: Snapshot, day: dt.date) -> Snapshot:
    """A version from history that history answered again for `day`: it stands to
    that day's end too (a version fetched live is returned as it is)."""
    if not from_history(snapshot) or (
        snapshot.vouched_until is not None and snapshot.vouched_until >= day
    ):
        return snapshot
    return snapshot.model_copy(update={"vouched_until": max(day, vouched_day(snapshot))})
