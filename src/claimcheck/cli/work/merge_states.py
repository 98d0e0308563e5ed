"""What `claimcheck report merge --state` does to the state files: folds the shards'
states into the project's, under the run lock."""

from __future__ import annotations

from pathlib import Path

from claimcheck.cli.project import build_config
from claimcheck.errors import StoreError, UsageError
from claimcheck.report.document import MAX_REPORT_BYTES
from claimcheck.store.lock import writing
from claimcheck.store.state import STATE_FILE, load_state, merge_states, read_state, save_state
from claimcheck.untrusted import clean_text
from claimcheck.wording import counted


def merge_state_parts(states: list[Path], config_path: Path | None, snapshots: Path | None) -> str:
    """Fold `states` into the state of the project's snapshot folder; what changed, said."""
    config = build_config(config_path, snapshots)
    with writing(config, "report merge --state"):
        return merge_state_files(states, config.snapshots_dir)


_PART_STATE_HINT = (
    "give the state.json each shard's verify wrote (claimcheck-part-K/state.json in the "
    "sharded workflow)"
)


def merge_state_files(parts: list[Path], snapshots: Path) -> str:
    """Fold the shards' state files into the state in `snapshots`; what changed, said.

    Everything is read and checked before the state is written, so a bad part leaves
    the state as it was.
    """
    base = load_state(snapshots)
    read = []
    for path in parts:
        try:
            size = path.stat().st_size
            if size > MAX_REPORT_BYTES:  # a shard's file, from an artifact: bounded
                limit = MAX_REPORT_BYTES // 1024 // 1024
                raise UsageError(
                    f"--state {path}: {size:,} bytes, more than the {limit} MiB a state "
                    "file may hold",
                    hint=_PART_STATE_HINT,
                )
            read.append((str(path), read_state(path)))
        except FileNotFoundError as exc:
            raise UsageError(f"--state {path}: no such file") from exc
        except StoreError as exc:
            raise StoreError(str(exc), hint=_PART_STATE_HINT) from exc
    merged = merge_states(base, read)
    save_state(snapshots, merged)
    claims = sum(1 for key, entry in merged.claims.items() if base.claims.get(key) != entry)
    sources = sum(1 for key, entry in merged.sources.items() if base.sources.get(key) != entry)
    return (
        f"merged {len(parts)} state files into {clean_text(str(snapshots / STATE_FILE))}: "
        f"{counted(claims, 'claim')} and {counted(sources, 'source')} changed"
    )
