"""What `claimcheck report merge` does: one run's report from its shards' reports."""

from __future__ import annotations

from pathlib import Path

from claimcheck.cli.lock import writing
from claimcheck.cli.output import emit
from claimcheck.cli.project import build_config
from claimcheck.cli.verbosity import say
from claimcheck.cli.work.report_file import read_document
from claimcheck.errors import StoreError, UsageError
from claimcheck.report.build import summary_line
from claimcheck.report.formats import OutputFormat
from claimcheck.report.merge import merge_documents
from claimcheck.report.write import write_outputs
from claimcheck.store.state import STATE_FILE, load_state, merge_states, read_state, save_state
from claimcheck.untrusted import clean_text
from claimcheck.wording import counted


def merge(
    *,
    parts: list[Path],
    output: Path | None,
    states: list[Path] | None,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
    """The work of `claimcheck report merge`, given its parsed options: its exit code."""
    merged = merge_documents([(str(path), read_document(path)) for path in parts])
    if states:
        config = build_config(config_path, snapshots)
        with writing(config, "report merge --state"):
            told = merge_state_files(states, config.snapshots_dir)
    if output is None:
        emit(merged, OutputFormat.JSON)
    else:
        write_outputs(merged, [(OutputFormat.JSON, output)])
    say(f"merged {len(parts)} reports: {summary_line(merged)}")
    if states:
        say(told)
    return 0


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
