"""Store README versions from the history corpus as snapshots with their true dates.

The repository's own `snapshots/` were made with this
(`PYTHONPATH=tests python -m support.corpus_snapshots`):
each engine's newest README in the corpus, dated by its commit and marked with the
commit as its origin, vouched for the desk's check date as history vouched for it, so
`claimcheck verify --offline` on a fresh clone judges the desk's claims against real
text. Tests use `import_version` and `import_history` to seed stores too.

A version from history stands only for the days history vouched for it
(`store.store.known_in_force`): a store seeded with a run of versions says each
stood until the next one's day (`import_history`), as history asked about every day in
between would have said.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from claimcheck.forges.resolve import resolve_source
from claimcheck.models import MediaType, Snapshot
from claimcheck.store.store import FETCHED, Store
from support import paths

CORPUS = paths.CORPUS
ROOT = paths.ROOT
DESK_CHECKED = dt.date(2026, 10, 20)
"""The day the desk checked the claims in `claims/`: history answered these heads for it."""


@dataclass(frozen=True)
class Version:
    """One README version of the corpus: which repo, which commit, which text."""

    repo: str
    commit: str
    committed: dt.datetime
    path: Path


def versions(folder: Path) -> list[Version]:
    """The distinct README versions of one corpus folder, oldest first."""
    owner, repo = folder.name.split("__", 1)
    seen: dict[str, Version] = {}
    for entry in json.loads((folder / "index.json").read_text(encoding="utf-8")):
        if entry.get("file") and entry["commit"] not in seen:
            seen[entry["commit"]] = Version(
                repo=f"{owner}/{repo}",
                commit=entry["commit"],
                committed=dt.datetime.fromisoformat(entry["commit_date"]).astimezone(dt.UTC),
                path=folder / entry["file"],
            )
    return list(seen.values())


def newest(folder: Path) -> Version:
    """The newest README version of one corpus folder (its head entry)."""
    return versions(folder)[-1]


def import_version(
    store: Store, version: Version, *, through: dt.date | None = None, live: bool = False
) -> Snapshot:
    """Store one version under the key its github.com URL resolves to, as history gives
    it: in force from its commit to the end of `through` (its own day when None). `live`:
    as a run fetched it at its commit's time instead, in force until the next version."""
    ref = resolve_source(f"https://github.com/{version.repo}")
    return store.save(
        key=ref.key,
        url=ref.url,
        final_url=ref.fetch_url,
        status=200,
        body=version.path.read_bytes(),
        media=MediaType.MARKDOWN,
        fetched_at=version.committed,
        origin=FETCHED if live else f"commit {version.commit}",
        vouched_until=through,
    )


def import_history(store: Store, history: list[Version], *, through: dt.date) -> list[Snapshot]:
    """Store a run of one source's versions (oldest first) as history tells them, asked
    about every day: each body from its first commit until the day before the next
    different body's, the last one through `through`. A commit that left the file as it
    was (the corpus's head entry) adds no version, as in the store's own history."""
    distinct = [v for n, v in enumerate(history) if n == 0 or _body(v) != _body(history[n - 1])]
    if not distinct:
        return []  # nothing committed by then: nothing to store
    stored = []
    for version, following in zip(distinct, [*distinct[1:], None], strict=True):
        until = through if following is None else following.committed.date() - dt.timedelta(1)
        stored.append(import_version(store, version, through=until))
    return stored


def _body(version: Version) -> bytes:
    return version.path.read_bytes()


def main() -> None:
    """Write the newest README of every corpus engine into snapshots/."""
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "snapshots"
    store = Store(target)
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        snapshot = import_version(store, newest(folder), through=DESK_CHECKED)
        print(f"{snapshot.key}: {snapshot.file} ({snapshot.origin})")


if __name__ == "__main__":
    main()
