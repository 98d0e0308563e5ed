"""The `claimcheck` command line: the root of the app and the table of its commands.

Each command lives in a module beside this one and is imported and built only when it
is asked for (`cli/lazy.py`). The report goes to stdout, the human summary and errors
to stderr. Run-level errors are caught in one place (`cli.support.guard`) and become
exit code 2 with a hint.
"""

from __future__ import annotations

from typing import Annotated

import typer

from claimcheck.cli.lazy import LazyGroup

# Every command in the order `--help` lists it: the module of `claimcheck.cli` that
# defines it, and its summary, which is the first paragraph of its docstring (a test
# holds them equal). The root's help is printed from these without importing a command.
COMMANDS: dict[str, tuple[str, str]] = {
    "verify": ("gate", "Fetch every source, store new snapshots and judge every claim."),
    "snapshot": ("gate", "Fetch every source and store what changed, without judging."),
    "schema": (
        "gate",
        "Print the JSON Schema of a claim file (for editor completion and validation).",
    ),
    "issues": (
        "issues",
        "Keep one GitHub issue per stale claim: create, update, reopen and close them.",
    ),
    "backfill": (
        "history",
        "Store each claim's baseline (its source as of its check date) from history.",
    ),
    "blame": (
        "history",
        "Name the upstream commit that changed or removed a stale claim's quote.",
    ),
    "diff": (
        "history",
        "Show the claim's context at its baseline and now, word by word, quote highlighted.",
    ),
    "explain": (
        "history",
        "Explain a claim's verdict: the text around the best match, the score, the rule.",
    ),
    "add": ("editor", "Add a claim after checking that its quote is on the source now."),
    "accept": (
        "editor",
        "Re-baseline a reviewed claim on the latest stored snapshot of its source.",
    ),
    "lint": ("editor", "Check every claim file offline, against the latest stored snapshots."),
    "list": ("editor", "List the claims with their last verdicts (of the last run that fetched)."),
    "show": (
        "editor",
        "Show one claim: every field, its last verdict and reason, and its snapshots.",
    ),
    "schedule": (
        "schedule",
        "Run verify nightly: fetch, store, judge, write the reports, sync issues, commit.",
    ),
    "init": (
        "schedule",
        "Set up a repository: claims/, snapshots/, claimcheck.toml and two GitHub workflows.",
    ),
    "extract": ("article", "Write the claim file equivalent to an article's highlight links."),
    "cite": (
        "cite",
        "Print the permanent citation of a verified claim, to paste into the article.",
    ),
    "report": (
        "report",
        "Merge the JSON reports of a run's shards; render a JSON report in any format.",
    ),
}

app = typer.Typer(
    name="claimcheck",
    help="Keep published claims honest: check that each claim's quote is still on its source.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version as package_version

        typer.echo(f"claimcheck {package_version('claimcheck')}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            help="Print claimcheck's version and exit.",
            callback=_print_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """Keep published claims honest: check that each claim's quote is still on its source."""


def main() -> None:
    """Entry point of the `claimcheck` script."""
    app()
