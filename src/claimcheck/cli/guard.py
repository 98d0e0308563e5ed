"""The one place run-level errors become a message, a hint and exit code 2 (`guard`),
and the writes held back until a command's input is accepted (`once_accepted`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from claimcheck.cli.verbosity import err
from claimcheck.errors import ClaimcheckError
from claimcheck.models import ExitCode
from claimcheck.untrusted import clean_text


class _Held(threading.local):
    """The writes each running `guard` of this thread holds back, innermost last."""

    def __init__(self) -> None:
        self.scopes: list[list[Callable[[], None]]] = []


_HELD = _Held()


def once_accepted(write: Callable[[], None]) -> None:
    """Do `write` once the command's input is accepted, or at once outside a command.

    A command refused for its input (exit 2: a claim file, the config, an unknown id,
    an option) writes nothing, yet what it reads on the way may be worth keeping (the
    claims its claim files gave). Such a write waits for the command's work to end
    with another exit code; a refusal drops it.
    """
    if _HELD.scopes:
        _HELD.scopes[-1].append(write)
    else:
        write()


def guard(work: Callable[[], int]) -> int:
    """The one place run-level errors become a message, a hint and exit code 2.

    Messages name files, paths and ids from the repository, which a pull request
    controls: each line is cleaned of control, escape and bidi characters, so a file
    named `x\\n::error::forged` cannot start a line of its own (a GitHub workflow
    command) or rewrite the terminal. An error's problems (`ClaimcheckError.problems`:
    a claim file's, the config's) stay one per line. The writes held back by
    `once_accepted` are done when the work ends with any exit code but 2.
    """
    _HELD.scopes.append([])
    try:
        code = work()
    except ClaimcheckError as exc:
        err("error: " + "\n".join(clean_text(line) for line in exc.problems))
        if exc.hint:
            err(f"hint: {clean_text(exc.hint)}")
        code = int(ExitCode.BAD_INPUT)
    finally:
        held = _HELD.scopes.pop()
    if code != ExitCode.BAD_INPUT:
        for write in held:
            write()
    return code
