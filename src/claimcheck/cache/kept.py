"""Answers kept between runs: a versioned map of derived data in `snapshots/.cache/`.

What a run derives from its inputs alone (a verdict from a claim and its snapshots, the
lines a quote stands on in a stored README) need not be derived again by the next run
that meets the same inputs. Each such answer is kept under a digest of exactly those
inputs (`keys.entry_key`), in one JSON document per kind, `<kind>.json`, under the
cache's one scheme (`cache/keys.py`):

- the document carries a version (`keys.code_version`: the code that derives the
  answers and the entries' format): another version's document is ignored, so a change
  of the code derives everything afresh;
- a damaged or unreadable document is a miss: ignored, and written again;
- it is written by rename, without an fsync, and only when this run added or dropped
  answers, so a run that met nothing new writes nothing;
- answers no run asked for in a while are dropped: the document holds those of this
  run and, beyond them, at most as many again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from claimcheck.cache.keys import (
    cache_folder,
    cache_made_here,
    entry_key,
    load_entry,
    prepare_cache,
    write_entry,
)
from claimcheck.errors import StoreError


class Kept:
    """One kind of kept answers: `get` what an earlier run derived, `put` what this one
    did, `save` at the end of the run. Without a snapshots folder, or with the caches
    switched off (`keys.caches_off`), it reads nothing and writes nothing."""

    def __init__(
        self, snapshots: Path | None, name: str, version: str, *, field: str = "answers"
    ) -> None:
        cache = cache_folder(snapshots)
        self._path = cache / name if cache is not None else None
        self._version = version
        self._field = field  # the document's key for the map (verdicts.json: "verdicts")
        self._kept: dict[str, Any] = self._load()
        self._used: dict[str, Any] = {}

    @staticmethod
    def key(*terms: str) -> str:
        """The key of an answer derived from exactly `terms` (the cache's one scheme)."""
        return entry_key(*terms)

    def get(self, key: str) -> Any | None:
        """The answer kept under `key` (by an earlier run, or put by this one), or None;
        an answer taken is kept for next time."""
        found = self._used.get(key)
        if found is not None:
            return found
        found = self._kept.get(key)
        if found is not None:
            self._used[key] = found
        return found

    def put(self, key: str, answer: Any) -> None:
        """Keep an answer this run derived (JSON: dicts, lists, strings, numbers)."""
        self._used[key] = answer

    def save(self) -> None:
        """Write this run's answers (and at most as many older ones) if they changed."""
        if self._path is None:
            return
        if (
            len(self._kept) <= 2 * max(len(self._used), 1)
            and self._used.keys() <= self._kept.keys()
        ):
            return  # every answer of this run was kept, and no older one is dropped
        merged = dict(self._used)
        for key, value in self._kept.items():
            if len(merged) >= 2 * max(len(self._used), 1):
                break
            merged.setdefault(key, value)
        if merged.keys() == self._kept.keys():
            return
        document = {"version": self._version, self._field: merged}
        try:
            prepare_cache(self._path.parent.parent)
        except (OSError, StoreError):
            return  # a read-only checkout still works; it only derives again next time
        write_entry(self._path, orjson.dumps(document))

    def _load(self) -> dict[str, Any]:
        if self._path is None or not cache_made_here(self._path.parent.parent):
            return {}  # none, or one this folder did not make: derive everything
        document = load_entry(self._path, orjson.loads)
        if not isinstance(document, dict) or document.get("version") != self._version:
            return {}
        found = document.get(self._field)
        if not isinstance(found, dict):
            return {}
        return {k: v for k, v in found.items() if isinstance(k, str) and v is not None}
