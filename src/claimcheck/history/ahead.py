"""History asked inside the fetch: the versions a run wants of each source, asked as
its answer arrives rather than after the last one (`history.online.backfill` then asks
only the rest)."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

from claimcheck.config import Config
from claimcheck.forges.registry import forge_of
from claimcheck.history.baseline import HistoryWanted, history_wanted
from claimcheck.history.online import (
    HistoryStats,
    history_for,
    keep_found,
    remember_paths,
    version_at,
)
from claimcheck.models import Claim, SourceRef
from claimcheck.net.fetcher import Fetcher
from claimcheck.store.store import Store


@dataclass
class HistoryAhead:
    """The versions a run wants from history, asked in the fetch as each source's answer
    arrives (`observe.fetch`), and those it asked, whatever history said: `backfill`
    then asks only the rest."""

    wanted: HistoryWanted
    asked: set[tuple[str, dt.date]] = field(default_factory=set)

    @classmethod
    def of(
        cls,
        claims: Sequence[Claim],
        config: Config,
        store: Store,
        now: dt.datetime,
        asked: set[tuple[str, dt.date]] | None = None,
    ) -> HistoryAhead:
        """What `backfill` would ask after this run's fetch, known before it: the check
        dates before today, which no version fetched now can be in force on. `asked`:
        the set to add each asked version to, for one who judges as sources settle."""
        wanted = history_wanted(claims, config, store)
        ahead = {asking: ref for asking, ref in wanted.items() if asking[1] < now.date()}
        return cls(ahead, asked if asked is not None else set())


class HistoryAsker:
    """Asks history for a source's wanted versions once its state is known, and stores
    what it finds, as `backfill` would (`keep_found`)."""

    def __init__(self, plan: HistoryAhead, fetcher: Fetcher, config: Config, store: Store) -> None:
        self._plan = plan
        self._refs = {key: ref for (key, _), ref in plan.wanted.items()}
        # Told the README paths the store knows, so that each is asked once ever.
        self._history = history_for(fetcher, config, store, self._refs)
        self._store = store
        self._stats = HistoryStats()
        self._days: dict[str, list[tuple[dt.date, SourceRef]]] = {}
        for (key, day), ref in plan.wanted.items():
            self._days.setdefault(key, []).append((day, ref))

    def learned_path(self, ref: SourceRef, path: str) -> None:
        """The README path a source's answer named: its commits are asked by it."""
        forge = forge_of(ref)
        if forge is not None and ref.key in self._refs:
            forge.remembered_path(self._history, self._refs[ref.key], path)

    async def ask(self, ref: SourceRef, *, live: bool) -> None:
        """Ask for the versions wanted of `ref`'s source and store them. `live`: the
        source's latest snapshot is the file as fetched now, so a version unchanged
        since is not downloaded again."""
        days = self._days.pop(ref.key, [])
        found = await asyncio.gather(
            *(version_at(self._history, wanted, day, current=live) for day, wanted in days)
        )
        for (day, wanted), version in zip(days, found, strict=True):
            keep_found(self._store, wanted, day, version, self._stats)
            self._plan.asked.add((wanted.key, day))

    def remember_paths(self) -> None:
        """Keep the README paths history learned (`remember_paths`)."""
        remember_paths(self._history, self._store, self._refs)
