"""The GitHub Action's outputs, written by a script that action.yml runs.

A runner reads `$GITHUB_OUTPUT` line by line: a value holding a newline, written as
`name=value`, would write keys of its own (`report-dir: "x\\nexit-code=0"`). The
action's first step refuses any input with a control character; past it, every output
is still written in the form no value can break out of (`format_output`:
`name<<DELIMITER`, the value, the delimiter, with a random delimiter that the value
does not hold).

Only the standard library: the action runs this file with the Python it set up
(`python -I .../action.py`), before and apart from the claimcheck it installs.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sys
from collections.abc import Iterable, Mapping, Sequence

_OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


class ActionOutputError(ValueError):
    """An output that cannot be written safely (a name that is no output name)."""


def format_output(name: str, value: str, *, delimiter: str | None = None) -> str:
    """One output in the multi-line form: `name<<DELIMITER`, the value, the delimiter.

    The delimiter is random and checked to occur in neither the name nor the value, so
    nothing in the value can end it early and start a key of its own.
    """
    if not _OUTPUT_NAME.fullmatch(name):
        raise ActionOutputError(f"not an output name: {name!r}")
    while delimiter is None or delimiter in value or delimiter in name:
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def format_outputs(pairs: Iterable[tuple[str, str]]) -> str:
    """Several outputs, each in the multi-line form with a delimiter of its own."""
    return "".join(format_output(name, value) for name, value in pairs)


def report_counts(report: Mapping[str, object]) -> list[tuple[str, str]]:
    """The count outputs of a JSON report: one per verdict, named like it, and the total."""
    counts = report.get("counts")
    results = report.get("results")
    if not isinstance(counts, dict) or not isinstance(results, list):
        raise ActionOutputError("the JSON report has no counts and results")
    pairs = [(str(verdict), str(int(count))) for verdict, count in counts.items()]
    return [*pairs, ("total", str(len(results)))]


def _append(path: str, text: str) -> None:
    with open(path, "a", encoding="utf-8", newline="\n") as file:
        file.write(text)


def _error(message: str) -> None:
    """A workflow error annotation; `%`, CR and LF escaped as the runner unescapes them."""
    escaped = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    print(f"::error title=claimcheck::{escaped}", file=sys.stderr)


def main(argv: Sequence[str], env: Mapping[str, str]) -> int:
    """`output NAME VALUE ...`: append the pairs to $GITHUB_OUTPUT;
    `counts REPORT`: append the report's counts to $GITHUB_OUTPUT."""
    command, *rest = argv or ["?"]
    try:
        if command == "output" and len(rest) % 2 == 0:
            pairs = list(zip(rest[::2], rest[1::2], strict=True))
            _append(env["GITHUB_OUTPUT"], format_outputs(pairs))
            return 0
        if command == "counts" and len(rest) == 1:
            with open(rest[0], encoding="utf-8") as file:
                report = json.load(file)
            if not isinstance(report, dict):
                raise ActionOutputError("the JSON report is no object")
            _append(env["GITHUB_OUTPUT"], format_outputs(report_counts(report)))
            return 0
    except (ActionOutputError, OSError, ValueError, KeyError) as error:
        _error(f"{command}: {error}")
        return 2
    _error("usage: action.py output NAME VALUE ... | counts REPORT")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], os.environ))
