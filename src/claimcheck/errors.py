"""The run-level error hierarchy: problems that stop a whole run, each with a hint.

A problem with one claim or one source is a verdict, never one of these. These are
for input the run cannot start from (a malformed claim file, a bad configuration, an
unwritable snapshot store); the CLI catches them in one place and exits with 2.
"""

from __future__ import annotations

from collections.abc import Sequence


class ClaimcheckError(Exception):
    """Base of every run-level error; `hint` tells the user what to do next.

    `problems` are what went wrong, one a line: the CLI prints them under one `error:`,
    each on its own line, so that the problems of a file (a claim file's, the config's)
    read as a list in the file's order, each with its file and line. A message is one
    problem: a newline in it (from a file name) is never taken for the start of another.
    """

    hint: str = ""

    def __init__(self, message: str, hint: str = "", *, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.problems = list(problems) or [message]
        if hint:
            self.hint = hint


class ClaimFileError(ClaimcheckError):
    """One or more claim files are malformed; every problem names file and line."""

    hint = "fix the lines above; `claimcheck schema` prints the claim-file schema"

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems), problems=problems)


class ConfigError(ClaimcheckError):
    """claimcheck.toml, the environment or a command-line option is invalid: one problem
    or several (`file:line: key: message` each, in the file's order)."""

    hint = "see docs/configuration.md"

    def __init__(self, *problems: str, hint: str = "") -> None:
        super().__init__("\n".join(problems), hint, problems=problems)


class StoreError(ClaimcheckError):
    """The snapshot store cannot be read or written."""

    hint = "check that the snapshots folder exists, is writable and is not corrupted"


class UsageError(ClaimcheckError):
    """A command-line option has a value the command cannot use."""

    hint = "see `claimcheck COMMAND --help`"


class RunStopped(Exception):  # noqa: N818 - a request, not an error
    """Raised to leave a run at once because someone asked it to stop (the nightly's
    stop on SIGTERM, raised from a progress callback). The run keeps nothing it stored
    in its batch (`Store.batch`), unlike a failure, which keeps what it stored."""
