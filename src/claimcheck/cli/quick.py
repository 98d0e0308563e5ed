"""`claimcheck`, `claimcheck --help` and `claimcheck --version` answered without typer.

Importing typer takes about 0.1 s, most of what `claimcheck --help` took, and the
root's help needs none of it: its text is the table in `cli/commands.py` laid out as
click lays out a group's help (usage, the help paragraph, the options and the commands
as definition lists, wrapped to the terminal's width, each command's summary shortened
to the room left). Anything else, completion included, goes to the typer app.

The layout below is click's, as typer vendors it (`typer._click`): click's own
formatter cannot be used here, since claimcheck does not depend on click (typer
carries its own copy) and typer's copy is private and imports typer with it.
`tests/cli/test_startup.py` holds what this prints equal to what the typer app
prints, at several widths, so a change in typer's layout fails a test rather than
drifting.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from collections.abc import Mapping, Sequence

from claimcheck.cli.commands import COMMANDS, ROOT_HELP, ROOT_OPTIONS
from claimcheck.cli.lazy import run_app, version_line

USAGE_ARGS = "[OPTIONS] COMMAND [ARGS]..."
MAX_WIDTH = 80
"""click's default: help is laid out for at most 80 columns, two fewer for the margin."""


def main() -> None:
    """Entry point of the `claimcheck` script."""
    answer = quick_answer(sys.argv[1:], os.environ)
    if answer is None:
        run_app()
        return
    text, code = answer
    stream = sys.stdout if code == 0 else sys.stderr
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        # A reader that went away (`claimcheck --help | head -1` once head has its line)
        # ends the run with 1 and nothing more, as click does: the stream is pointed at
        # the null device so that flushing it at exit raises no second error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        sys.exit(1)
    sys.exit(code)


def quick_answer(args: Sequence[str], environ: Mapping[str, str]) -> tuple[str, int] | None:
    """The output and exit code of a command line that needs no typer, else None.

    `claimcheck --help` (or `-h`) prints the root's help; `claimcheck` alone prints it to
    stderr and exits 2, as a usage error does; `--version` (or `-V`) prints the version.
    A shell asking for completions (`_CLAIMCHECK_COMPLETE` set) is typer's to answer.
    """
    if any(name.startswith("_") and name.endswith("_COMPLETE") for name in environ):
        return None
    if not args or list(args) in (["--help"], ["-h"]):
        return root_help(program_name(), help_width()) + "\n", 0 if args else 2
    if list(args) in (["--version"], ["-V"]):
        return version_line() + "\n", 0
    return None


def program_name() -> str:
    """The name the usage line gives the program, as click finds it: the script's name,
    or `python -m claimcheck` when run as a module."""
    main_module = sys.modules.get("__main__")
    package = getattr(main_module, "__package__", None)
    path = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if not package:
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    module = package if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"


def help_width() -> int:
    """The width click lays help out to on this terminal."""
    return max(min(shutil.get_terminal_size().columns, MAX_WIDTH) - 2, 50)


def root_help(program: str, width: int) -> str:
    """`claimcheck --help` laid out `width` columns wide, without its last newline."""
    lines = [_usage(program, width), ""]
    lines += [_wrap(ROOT_HELP, width, "  ", "  "), ""]
    lines += ["Options:", *_definitions(ROOT_OPTIONS, width), ""]
    longest = max(len(name) for name in COMMANDS)
    commands = [
        (name, _shortened(summary, width - 6 - longest))
        for name, (_module, summary) in COMMANDS.items()
    ]
    lines += ["Commands:", *_definitions(commands, width)]
    return "\n".join(lines)


def _usage(program: str, width: int) -> str:
    prefix = f"Usage: {program} "
    if width >= len(prefix) + 20:
        return _wrap(USAGE_ARGS, width, prefix, " " * len(prefix))
    indent = " " * (len("Usage: ") + 4)
    return prefix + "\n" + _wrap(USAGE_ARGS, width, indent, indent)


def _definitions(rows: Sequence[tuple[str, str]], width: int) -> list[str]:
    """A definition list, indented two: terms in a column at most 30 wide, text wrapped
    beside them."""
    first_column = min(max(len(term) for term, _text in rows), 30) + 2
    text_width = max(width - first_column - 2, 10)
    beside = " " * (first_column + 2)
    lines: list[str] = []
    for term, text in rows:
        first, *rest = _wrap(text, text_width).splitlines()
        if len(term) <= first_column - 2:
            lines.append(f"  {term:<{first_column}}{first}")
        else:
            lines += [f"  {term}", beside + first]
        lines += [beside + line for line in rest]
    return lines


def _shortened(text: str, limit: int) -> str:
    """A summary cut to `limit` characters as click cuts it: at the end of the first
    sentence that fits, else at a word, with `...`."""
    words = text.split()
    total = 0
    for index, word in enumerate(words):
        total += len(word) + (index > 0)
        if total > limit:
            break
        if word.endswith("."):
            return " ".join(words[: index + 1])
        if total == limit and index != len(words) - 1:
            break
    else:
        return " ".join(words)
    total += len("...")
    while index > 0:
        total -= len(words[index]) + (index > 0)
        if total <= limit:
            break
        index -= 1
    return " ".join(words[:index]) + "..."


class _Wrapper(textwrap.TextWrapper):
    """click's wrapper: a word longer than the line is cut where the line ends."""

    def _handle_long_word(
        self, reversed_chunks: list[str], cur_line: list[str], cur_len: int, width: int
    ) -> None:
        room = max(width - cur_len, 1)
        last = reversed_chunks[-1]
        cur_line.append(last[:room])
        reversed_chunks[-1] = last[room:]


def _wrap(text: str, width: int, first: str = "", rest: str = "") -> str:
    wrapper = _Wrapper(
        width, initial_indent=first, subsequent_indent=rest, replace_whitespace=False
    )
    return wrapper.fill(text.expandtabs())
