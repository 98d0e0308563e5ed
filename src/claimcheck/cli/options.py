"""The options and arguments the commands share, as typer reads them, and -v/-q on every command.

A command module (the parse half of a command) imports these at its top, so each is
built from typer and the standard library alone: `FormatName` and `VERDICT_NAMES` are
plain names for the option choices, kept equal to `OutputFormat` and `Verdict` by a
test, so that building the options imports neither the report formats nor the models.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from claimcheck.cli.lazy import claim_ids_to_complete
from claimcheck.cli.verbosity import set_verbosity


class FormatName(StrEnum):
    """The report formats' names, for --format (equal to `OutputFormat`, in its order)."""

    TABLE = "table"
    JSON = "json"
    MARKDOWN = "markdown"
    GITHUB = "github"
    SARIF = "sarif"
    JUNIT = "junit"
    HTML = "html"


class ListingFormat(StrEnum):
    """What `list`, `show` and `lint` print on stdout: lines for a person, or one JSON
    document for a script (its shape on each command's page of docs/commands/)."""

    TABLE = "table"
    JSON = "json"


ListingFormatOpt = Annotated[
    ListingFormat,
    typer.Option(
        "--format",
        "-f",
        help="table: lines for a person; json: one JSON document for a script (messages "
        "stay on stderr).",
    ),
]


VERDICT_NAMES = (
    "verified",
    "context-changed",
    "expired",
    "drifted",
    "changed",
    "missing",
    "contradicted",
    "source-gone",
    "moved",
    "unreachable",
    "unverified",
)
"""Every verdict's name, in `Verdict`'s order."""


PathsArg = Annotated[
    list[Path] | None,
    typer.Argument(
        metavar="PATHS",
        help="Claim files, articles (*.md, *.html) or folders of *.yaml claim files, from "
        "the current folder [default: the config's claims, i.e. claims/ in the project root].",
        show_default=False,
    ),
]


ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="Config file [default: the nearest claimcheck.toml from the current folder "
        "up, not above the repository's root].",
    ),
]


SnapshotsOpt = Annotated[
    Path | None,
    typer.Option(
        "--snapshots",
        help="Snapshot folder [default: the config's, snapshots/ in the project root].",
    ),
]


ConcurrencyOpt = Annotated[
    int | None,
    typer.Option("--concurrency", min=1, max=64, help="Requests in flight at once."),
]


JobsOpt = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        min=0,
        max=64,
        help="Worker processes that read pages ahead of the judge; headless browsers "
        "render pages one for every two (at least one, at most 4); 0: no workers "
        "[default: the config's jobs, else one a core, up to 4].",
        show_default=False,
    ),
]


OutputsOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--output",
        "-o",
        metavar="FORMAT=PATH",
        help="Also write the report in FORMAT to PATH; repeatable "
        f"(formats: {', '.join(FormatName)}).",
        show_default=False,
    ),
]


class FailOn(StrEnum):
    """Review verdicts that --fail-on can turn into a failing exit code."""

    CONTEXT_CHANGED = "context-changed"
    EXPIRED = "expired"
    MOVED = "moved"


FailOnOpt = Annotated[
    list[FailOn] | None,
    typer.Option("--fail-on", help="Also exit 1 on this verdict; repeatable.", show_default=False),
]


ShardOpt = Annotated[
    str | None,
    typer.Option(
        "--shard",
        metavar="K/N",
        help="Only shard K of N (K from 1): the sources are dealt to N shards, every "
        "claim of a source to the same one and each host's sources evenly; claims "
        "without a source go to shard 1. Run the N shards as parallel jobs and combine "
        "their JSON reports with `claimcheck report merge`.",
        show_default=False,
    ),
]


ProgressOpt = Annotated[
    bool,
    typer.Option("--progress/--no-progress", help="Progress bar on a terminal (stderr)."),
]


def complete_claim_id(ctx: typer.Context, incomplete: str) -> list[str]:
    """The shell's completions of a claim's id: the ids of the current project's claims
    that start with what was typed, read as the command would read them (its PATHS,
    --config and --snapshots when given before the id), offline.

    A completion must answer at once and never print: any failure (no project, a
    broken claim file) completes nothing (`lazy.claim_ids_to_complete`).
    """
    return claim_ids_to_complete(dict(ctx.params), incomplete)


IdArg = Annotated[
    str,
    typer.Argument(
        metavar="ID",
        help="The claim's id.",
        show_default=False,
        autocompletion=complete_claim_id,
    ),
]
PartOpt = Annotated[
    str | None,
    typer.Option(
        "--part",
        metavar="K|URL",
        help="For a claim on several sources: the part to work on, by number (1 is the "
        "first of `sources:`) or by its source URL.",
        show_default=False,
    ),
]


VerboseOpt = Annotated[
    int,
    typer.Option(
        "--verbose",
        "-v",
        count=True,
        help="Also say on stderr what was fetched, from where, how long it took and what "
        "was retried (never a header or a token).",
        show_default=False,
    ),
]


QuietOpt = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Only errors and warnings on stderr: no summary lines, no progress bar.",
        show_default=False,
    ),
]


def add_verbosity_options(app: typer.Typer) -> None:
    """Give every command of `app` (and of its groups) -v/--verbose and -q/--quiet.

    One mechanism rather than two parameters written into each command: the command's
    callback is wrapped in a function whose signature is the command's plus the two
    options, which typer reads when it builds the command line.
    """

    def wrap(callback: Callable[..., object]) -> Callable[..., object]:
        signature = inspect.signature(callback, eval_str=True)
        if "verbose" in signature.parameters:  # a group's app given to two apps: once
            return callback
        extra = [
            inspect.Parameter(
                "verbose", inspect.Parameter.KEYWORD_ONLY, default=0, annotation=VerboseOpt
            ),
            inspect.Parameter(
                "quiet", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=QuietOpt
            ),
        ]
        parameters = [*signature.parameters.values(), *extra]

        @functools.wraps(callback)
        def command(
            *args: object, verbose: int = 0, quiet: bool = False, **kwargs: object
        ) -> object:
            set_verbosity(verbose, quiet)
            return callback(*args, **kwargs)

        command.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        command.__annotations__ = {
            **callback.__annotations__,
            "verbose": VerboseOpt,
            "quiet": QuietOpt,
        }
        return command

    infos = [*app.registered_commands]
    for group in app.registered_groups:
        if group.typer_instance is not None:
            infos.extend(group.typer_instance.registered_commands)
    for info in infos:
        if info.callback is not None:
            info.callback = wrap(info.callback)
