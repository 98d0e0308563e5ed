"""httpx's own command line, left out of the process: its module is private.

`import httpx` imports `httpx._main` (rich's console, click, pygments) whenever those
are installed, and typer installs them: about 0.1 s of every run that fetches. httpx
falls back to a stub when that import fails, which a `None` in `sys.modules` makes it
do. Written for httpx 0.27 up to 1.0; with another httpx installed nothing is done,
since leaving the command line in costs only start-up time.
"""

from __future__ import annotations

import sys

from claimcheck._compat.versions import Release, supported

SUPPORTED_RANGE: tuple[Release, Release] = ((0, 27), (1,))
"""The httpx releases that import `httpx._main` and fall back to a stub without it."""


def leave_out_httpx_command_line() -> bool:
    """Keep httpx from importing its command line, which claimcheck never runs; whether
    it was kept out (not when httpx is already imported or of another release).

    Done for this process only, and only by the script: a program that imports
    claimcheck keeps httpx as it is.
    """
    if "httpx" in sys.modules or not supported("httpx", *SUPPORTED_RANGE):
        return False
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]  # not importable
    return True
