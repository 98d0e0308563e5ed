"""The GitHub Action's input checks and output writing, run as a script by action.yml.

A runner reads `$GITHUB_OUTPUT` line by line and the step's stdout as workflow
commands (`::error::`, `::add-mask::`, ...). An input holding a newline would write keys
of its own into the outputs (`report-dir: "x\\nexit-code=0"`) and a line of its own onto
stdout, where it is read as a command. So every input is checked before the action
does anything with it (`check_inputs`: no control character at all, the input named,
its value never printed), and every output is written in the form a value cannot
break out of (`format_output`: `name<<DELIMITER`, the value, the delimiter, with a
random delimiter that the value does not hold).

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

INPUT_PREFIX = "INPUT_"
"""The action passes each input it checks as an environment variable INPUT_NAME."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""What may not be in an input: C0 and C1 controls (newline, CR, tab, escape, NEL) and
the Unicode line and paragraph separators, which some readers take as line ends."""

_OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


class ActionInputError(ValueError):
    """An output that cannot be written safely (a name that is no output name)."""


def input_name(variable: str) -> str:
    """The action input an environment variable carries: INPUT_REPORT_DIR → report-dir."""
    return variable.removeprefix(INPUT_PREFIX).lower().replace("_", "-")


def check_inputs(env: Mapping[str, str]) -> list[str]:
    """One message per input (INPUT_* variable) that holds a control character.

    The message names the input and the character's code, never the value: a token, or
    text made to look like a workflow command, is not printed back.
    """
    problems = []
    for variable in sorted(env):
        if not variable.startswith(INPUT_PREFIX):
            continue
        found = _CONTROL.search(env[variable])
        if found is None:
            continue
        problems.append(
            f"input {input_name(variable)} holds a control character (U+{ord(found[0]):04X},"
            " a newline, carriage return, tab or the like): give it on one line of plain"
            " text (a YAML block scalar, | or >, ends in a newline)"
        )
    return problems


def format_output(name: str, value: str, *, delimiter: str | None = None) -> str:
    """One output in the multi-line form: `name<<DELIMITER`, the value, the delimiter.

    The delimiter is random and checked to occur in neither the name nor the value, so
    nothing in the value can end it early and start a key of its own.
    """
    if not _OUTPUT_NAME.fullmatch(name):
        raise ActionInputError(f"not an output name: {name!r}")
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
        raise ActionInputError("the JSON report has no counts and results")
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
    """`check`: every INPUT_* variable, exit 2 on a control character;
    `output NAME VALUE ...`: append the pairs to $GITHUB_OUTPUT;
    `counts REPORT`: append the report's counts to $GITHUB_OUTPUT."""
    command, *rest = argv or ["?"]
    try:
        if command == "check" and not rest:
            problems = check_inputs(env)
            for problem in problems:
                _error(problem)
            return 2 if problems else 0
        if command == "output" and len(rest) % 2 == 0:
            pairs = list(zip(rest[::2], rest[1::2], strict=True))
            _append(env["GITHUB_OUTPUT"], format_outputs(pairs))
            return 0
        if command == "counts" and len(rest) == 1:
            with open(rest[0], encoding="utf-8") as file:
                report = json.load(file)
            if not isinstance(report, dict):
                raise ActionInputError("the JSON report is no object")
            _append(env["GITHUB_OUTPUT"], format_outputs(report_counts(report)))
            return 0
    except (ActionInputError, OSError, ValueError, KeyError) as error:
        _error(f"{command}: {error}")
        return 2
    _error("usage: action.py check | output NAME VALUE ... | counts REPORT")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], os.environ))
