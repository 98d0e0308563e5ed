"""The permanent citation of one verified claim: the live link, the link to the version
that was checked and its date, as `claimcheck cite` prints it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from claimcheck.history.citations import Citer, version_date

if TYPE_CHECKING:
    from collections.abc import Callable

    from claimcheck.config import Config
    from claimcheck.models import ClaimResult
    from claimcheck.store.store import Store


@dataclass(frozen=True)
class Citation:
    """What `cite` found for one claim; `permalink` None when no fixed version is known.

    `version_date` is the date the checked version is labelled by: its own (the
    commit's, the capture's) when `dated` is true, else the day the store first held
    it. `snapshot_date` is the day of the snapshot judged, which may be a later fetch
    of the same body. `page`: for a PDF, the page the quote stands on (both links open
    at it).
    """

    id: str
    claim: str
    live: str
    permalink: str | None
    commit: str | None
    lines: tuple[int, int] | None
    page: int | None
    snapshot_date: str
    version_date: str
    dated: bool
    note: str | None
    archived: str | None = None
    """The source's capture `claimcheck archive` made, if any: cited beside the live link."""
    archived_date: str | None = None


def cite_result(
    result: ClaimResult,
    config: Config,
    store: Store,
    learn: Callable[[ClaimResult], str | None] | None,
) -> Citation:
    """The citation the store knows (`history.citations`), asking for the version first
    of history when it is not known and there is a way to (`learn`, which returns its
    note on it and remembers what it learnt; None: offline)."""
    snapshot = result.snapshot
    assert snapshot is not None
    citer = Citer(store, config)
    known = citer.citation(result)
    note: str | None = None
    if (known is None or known.permalink is None) and learn is not None:
        note = learn(result)
        known = citer.citation(result)
    elif known is None or known.permalink is None:
        github = snapshot.media.value in ("markdown", "card")
        what = "the commit of this snapshot" if github else "its Wayback capture"
        note = f"offline: {what} is not known yet"
    assert known is not None  # the quote holds on the snapshot: there is a live link
    if known.permalink is None and note is None:
        note = "the checked version's address is not known (the README's path in its repository)"
    version = known.version or ""
    day, dated = version_date(store, snapshot, known.version)
    return Citation(
        id=result.claim.id,
        claim=result.claim.claim,
        live=known.live,
        permalink=known.permalink,
        commit=version.removeprefix("commit ") if version.startswith("commit ") else None,
        lines=known.lines,
        page=known.page,
        snapshot_date=snapshot.fetched_at.date().isoformat(),
        version_date=day.isoformat(),
        dated=dated,
        note=note,
        archived=known.archived.url if known.archived else None,
        archived_date=known.archived.captured.date().isoformat() if known.archived else None,
    )
