"""The progress bar a run draws on a terminal, with rich."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from claimcheck.observe.stats import ProgressCallback


@contextmanager
def rich_progress_bar() -> Iterator[ProgressCallback]:
    """A bar on stderr naming the run's phase and its count, gone when the run ends."""
    console = Console(file=sys.stderr)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("starting", total=None)

        def update(phase: str, done: int, total: int) -> None:
            bar.update(task, description=phase, completed=done, total=total)

        yield update
