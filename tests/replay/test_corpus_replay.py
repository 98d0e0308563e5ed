"""Real README history replayed: no false alarms, and formatting-only edits never alarm.

The figures themselves are printed by `PYTHONPATH=tests python -m support.corpus_replay`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.corpus_replay import (
    CORPUS,
    FORMATTING_EDITS,
    engines,
    formatting_alarms,
    replay_engine,
    versions,
)

# Slow: replays the whole README-history corpus.
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("folder", engines() if CORPUS.is_dir() else [], ids=lambda p: p.name)
def test_history_replay_has_no_false_alarms(folder: Path) -> None:
    figures = replay_engine(folder)
    assert figures.sentences > 100
    assert figures.false_alarms == []
    assert figures.changed > 0  # real wording changes were seen, and flagged


@pytest.mark.parametrize("edit", FORMATTING_EDITS, ids=str)
def test_formatting_only_edits_never_alarm(edit: str) -> None:
    alarms = [
        a for f in engines() for a in formatting_alarms(versions(f)[-1], FORMATTING_EDITS[edit])
    ]
    assert alarms == []
