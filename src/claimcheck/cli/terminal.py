"""What a command draws when stdout or stderr is a terminal: colour, width, a progress bar."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from claimcheck.cli.lazy import terminal_progress_bar
from claimcheck.cli.verbosity import quiet

if TYPE_CHECKING:
    from claimcheck.observe.stats import ProgressCallback


@contextmanager
def progress_bar(enabled: bool) -> Iterator[ProgressCallback | None]:
    """A progress bar on stderr when it is a terminal (and not -q); nothing otherwise.

    It names the phase the run is in and its count (fetching 10/10, fetching and
    reading history 3/7, judging 2,000/10,000), so a long history lookup is not shown
    as fetching alone.
    """
    if not enabled or quiet() or not sys.stderr.isatty():
        yield None
        return
    with terminal_progress_bar() as update:
        yield update


def use_color(stream: object) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR")


def terminal_width(stream: object) -> int | None:
    """The terminal's columns when the stream is one; None for a file or a pipe."""
    isatty = getattr(stream, "isatty", None)
    return shutil.get_terminal_size().columns if isatty and isatty() else None
