"""Store README versions from the history corpus as snapshots with their true dates.

The repository's own `snapshots/` were made with this
(`PYTHONPATH=tests python -m support.corpus_snapshots`):
each engine's newest README in the corpus, dated by its commit and marked with the
commit as its origin, so `claimcheck verify --offline` on a fresh clone judges the
desk's claims against real text. Tests use `import_version` to seed stores too.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from claimcheck.models import MediaType, Snapshot
from claimcheck.sources.resolve import resolve_source
from claimcheck.sources.store import Store
from support import paths

CORPUS = paths.CORPUS
ROOT = paths.ROOT


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


def import_version(store: Store, version: Version) -> Snapshot:
    """Store one version under the key its github.com URL resolves to."""
    ref = resolve_source(f"https://github.com/{version.repo}")
    return store.save(
        key=ref.key,
        url=ref.url,
        final_url=ref.fetch_url,
        status=200,
        body=version.path.read_bytes(),
        media=MediaType.MARKDOWN,
        fetched_at=version.committed,
        origin=f"commit {version.commit}",
    )


def main() -> None:
    """Write the newest README of every corpus engine into snapshots/."""
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "snapshots"
    store = Store(target)
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        snapshot = import_version(store, newest(folder))
        print(f"{snapshot.key}: {snapshot.file} ({snapshot.origin})")


if __name__ == "__main__":
    main()
