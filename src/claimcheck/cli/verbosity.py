"""How much a command says on stderr: -q silences `say`, -v routes claimcheck's log there.

The report goes to stdout; these lines are for the human. Light enough to be imported
while a command is being built (`options.add_verbosity_options` applies -v/-q).
"""

from __future__ import annotations

import logging
import sys
from contextlib import suppress

import typer


def err(message: str) -> None:
    """A line for the human on stderr (the report itself goes to stdout)."""
    sys.stderr.write(message + "\n")


_QUIET = False


def quiet() -> bool:
    """Whether this command runs with -q."""
    return _QUIET


def set_verbosity(verbose: int, quiet: bool) -> None:
    """Apply -v / -q for this command: `say` goes quiet, or claimcheck's log goes to stderr.

    Set afresh for each command, since one process may run several (tests, the
    scheduler): without -v claimcheck's loggers are left as the host program set them.
    """
    global _QUIET
    if verbose and quiet:
        raise typer.BadParameter("--quiet and --verbose say opposite things; give one")
    _QUIET = quiet
    logger = logging.getLogger("claimcheck")
    for handler in [h for h in logger.handlers if isinstance(h, _StderrHandler)]:
        logger.removeHandler(handler)
    if verbose:
        logger.addHandler(_StderrHandler())
        logger.setLevel(logging.INFO if verbose == 1 else logging.DEBUG)
        logger.propagate = False
    else:
        logger.setLevel(logging.NOTSET)
        logger.propagate = True


class _StderrHandler(logging.Handler):
    """Log lines to whatever `sys.stderr` is when a line is written, as `err` does."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter("%(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        with suppress(OSError, ValueError):  # a closed stderr: lose the line, not the run
            sys.stderr.write(self.format(record) + "\n")


def say(message: str) -> None:
    """A line of information for the human on stderr (a summary, a count), unless -q."""
    if not _QUIET:
        sys.stderr.write(message + "\n")
