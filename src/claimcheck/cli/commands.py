"""The command line's table of contents, readable without typer: each command's module
and summary, and the root's own help and options.

`cli/app.py` builds the typer app from it (a command's module holds its options and
help, `cli/work/` what it does); `cli/quick.py` prints the root's help from it without
importing typer at all (the import alone takes longer than the whole help should).
`tests/cli/test_startup.py` holds every entry equal to what typer prints.
"""

from __future__ import annotations

ROOT_HELP = "Keep published claims honest: check that each claim's quote is still on its source."
"""The root's help: the first paragraph of `claimcheck --help`."""

VERSION_HELP = "Print claimcheck's version and exit."

ROOT_OPTIONS: tuple[tuple[str, str], ...] = (
    ("-V, --version", VERSION_HELP),
    ("--install-completion", "Install completion for the current shell."),
    (
        "--show-completion",
        "Show completion for the current shell, to copy it or customize the installation.",
    ),
    ("-h, --help", "Show this message and exit."),
)
"""The root's options as typer lists them: its own, then typer's and click's."""

# Every command in the order `--help` lists it: the module of `claimcheck.cli` that
# defines it, and its summary, which is the first paragraph of its docstring (a test
# holds them equal). The root's help is printed from these without importing a command.
COMMANDS: dict[str, tuple[str, str]] = {
    "verify": ("verify", "Fetch every source, store new snapshots and judge every claim."),
    "snapshot": ("verify", "Fetch every source and store what changed, without judging."),
    "schema": (
        "schema",
        "Print the JSON Schema of a claim file (for editor completion and validation).",
    ),
    "issues": (
        "issues",
        "Keep one GitHub issue per claim to fix or review: create, update, reopen, close.",
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
    "add": ("add", "Add a claim after checking that its quote is on the source now."),
    "accept": (
        "accept",
        "Re-baseline a reviewed claim on the latest stored snapshot of its source.",
    ),
    "ack": (
        "accept",
        "Acknowledge a review verdict: quiet until the claim's source changes again.",
    ),
    "lint": ("lint", "Check every claim file offline, against the latest stored snapshots."),
    "list": ("show", "List the claims with their last verdicts (of the last run that fetched)."),
    "show": (
        "show",
        "Show one claim: every field, its last verdict and reason, and its snapshots.",
    ),
    "notify": (
        "notify",
        "Tell each notification route of the claims whose state changed (Apprise).",
    ),
    "schedule": (
        "schedule",
        "Run verify nightly: fetch, store, judge, write the reports, sync issues, commit.",
    ),
    "init": (
        "schedule",
        "Set up a repository: claims/, snapshots/, claimcheck.toml and two GitHub workflows.",
    ),
    "extract": ("extract", "Write the claim file equivalent to an article's highlight links."),
    "cite": (
        "cite",
        "Print the permanent citation of a verified claim, to paste into the article.",
    ),
    "archive": (
        "cite",
        "Ask the Wayback Machine to capture each claim's source now, and record the capture.",
    ),
    "report": (
        "report",
        "Merge the JSON reports of a run's shards; render a JSON report in any format.",
    ),
    "config": (
        "config",
        "Print a setting of claimcheck.toml as the project resolves it (for scripts).",
    ),
}
