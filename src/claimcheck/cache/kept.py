"""Answers kept between runs: a versioned map of derived data in `snapshots/.cache/`.

What a run derives from its inputs alone (a verdict from a claim and its snapshots, the
lines a quote stands on in a stored README) need not be derived again by the next run
that meets the same inputs. Each such answer is kept under a digest of exactly those
inputs, in one JSON file per kind, beside the kept pages (`cache/pages.py`), under
their rules:

- the file carries a version (a digest of the code that derives the answers): another
  version's file is ignored, so a change of the code derives everything afresh;
- a damaged or unreadable file is ignored, and written again;
- it is written by rename, without an fsync (it is derived: a lost write only costs the
  next run some work), and only when this run added or dropped answers, so a run that
  met nothing new writes nothing;
- answers no run asked for in a while are dropped: the file holds those of this run
  and, beyond them, at most as many again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from claimcheck.cache.pages import cache_made_here, prepare_cache
from claimcheck.errors import StoreError
from claimcheck.store.files import atomic_write, read_store_file


class Kept:
    """One kind of kept answers: `get` what an earlier run derived, `put` what this one
    did, `save` at the end of the run."""

    def __init__(
        self, snapshots: Path | None, name: str, version: str, *, field: str = "answers"
    ) -> None:
        self._path = snapshots / ".cache" / name if snapshots is not None else None
        self._version = version
        self._field = field  # the document's key for the map (verdicts.json: "verdicts")
        self._kept: dict[str, Any] = self._load()
        self._used: dict[str, Any] = {}

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
            atomic_write(self._path, orjson.dumps(document), durable=False)
        except (OSError, StoreError):
            pass  # a read-only checkout still works; it only derives again next time

    def _load(self) -> dict[str, Any]:
        if self._path is None or not cache_made_here(self._path.parent.parent):
            return {}  # none, or one this folder did not make: derive everything
        try:
            document = orjson.loads(read_store_file(self._path))
        except (OSError, StoreError, orjson.JSONDecodeError):
            return {}
        if not isinstance(document, dict) or document.get("version") != self._version:
            return {}
        found = document.get(self._field)
        if not isinstance(found, dict):
            return {}
        return {k: v for k, v in found.items() if isinstance(k, str) and v is not None}
