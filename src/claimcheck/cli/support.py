"""What every claimcheck command shares: config and claims loading, errors, output.

Command modules (the modules of `claimcheck.cli`) build their objects with these,
so run-level errors become exit code 2 with a hint in exactly one place (`guard`).

`claimcheck --help` must start at once: a command module imports at its top only
typer, the standard library and what its options' types need (the names here); what
a command runs (the pipeline, HTTP, YAML, rich, pydantic models) is imported by the
command when it runs. `FormatName` and `VERDICT_NAMES` are the option choices, kept
equal to `OutputFormat` and `Verdict` by a test, so that building the options does not
import the report formats or the models.
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from claimcheck.errors import ClaimcheckError, UsageError

if TYPE_CHECKING:
    from claimcheck.claims.yaml_values import Document
    from claimcheck.config import Config
    from claimcheck.models import Claim, Report
    from claimcheck.observe.stats import ProgressCallback
    from claimcheck.report.formats import OutputFormat


class FormatName(StrEnum):
    """The report formats' names, for --format (equal to `OutputFormat`, in its order)."""

    TABLE = "table"
    JSON = "json"
    MARKDOWN = "markdown"
    GITHUB = "github"
    SARIF = "sarif"
    JUNIT = "junit"
    HTML = "html"


VERDICT_NAMES = (
    "verified",
    "context-changed",
    "expired",
    "drifted",
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


def parse_outputs(values: list[str]) -> list[tuple[OutputFormat, Path]]:
    """`FORMAT=PATH` pairs, checked before any work is done."""
    from claimcheck.report.formats import OutputFormat

    targets = []
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not path or name not in OutputFormat.__members__.values():
            raise UsageError(
                f"--output {value!r}: expected FORMAT=PATH with FORMAT one of "
                f"{', '.join(OutputFormat)}"
            )
        targets.append((OutputFormat(name), Path(path)))
    return targets


def build_config(
    path: Path | None,
    snapshots: Path | None = None,
    concurrency: int | None = None,
    jobs: int | None = None,
) -> Config:
    """The run's config: the project's claimcheck.toml (or --config), then the flags on top.

    Every command that reads the config comes here: the project is found from the
    current folder up (`config.find_project`), so each works from any subfolder.
    --snapshots, like PATHS, is taken from the current folder, as typed, and must be a
    folder of its own as the file's `snapshots` must (`config.checked_store_flag`).
    """
    from claimcheck.config import checked_store_flag, load_config

    config = load_config(path)
    for notice in config.notices:
        err(f"warning: {notice}")
    update: dict[str, object] = {}
    if snapshots is not None:
        update["snapshots"] = str(checked_store_flag(config, snapshots))
    if concurrency is not None:
        update["fetch"] = config.fetch.model_copy(update={"concurrency": concurrency})
    if jobs is not None:
        update["jobs"] = jobs
    return config.model_copy(update=update) if update else config


def read_claims(
    paths: list[Path] | None, config: Config, *, makes_store: bool = False
) -> list[Claim]:
    """The claims of the given paths, or of the config's claim paths.

    This is where claims' file paths enter every report and message: each claim's
    `file` becomes its path from the repository's root (POSIX; absolute outside it),
    whatever the current folder, so an annotation or an alert lands on its file.
    Open one with `config.local_path(claim.file)`. An unchanged claim file's claims are
    taken as its last read gave them (`load_claims`, kept in the snapshots' `.cache`);
    `makes_store`: the command creates the snapshots folder anyway (an online run), so
    its first run keeps them too.
    """
    from claimcheck.claims.load import load_claims

    claims = load_claims(
        claim_inputs(paths, config),
        read=read_yaml,
        kept_in=config.snapshots_dir,
        create=makes_store,
        defer=once_accepted,
    )
    return as_reported(claims, config)


def read_yaml(text: str) -> Document:
    """The YAML of a claim file or of an article's front matter (`ReadDocument`), the
    YAML reader imported when a first text is read: a run whose claim files are all
    kept, unchanged, reads none and imports no YAML library."""
    from claimcheck.claims.yaml_read import read_document

    return read_document(text)


def as_reported(claims: list[Claim], config: Config) -> list[Claim]:
    """The claims with each `file` as reports show it (`Config.report_path`)."""
    shown = {file: config.report_path(file) for file in {c.file for c in claims}}
    return [
        c if shown[c.file] == c.file else c.model_copy(update={"file": shown[c.file]})
        for c in claims
    ]


def claim_inputs(paths: list[Path] | None, config: Config) -> list[Path]:
    """The claim files or folders to read: PATHS as typed, else the config's.

    A path that is not there is a usage error that says where it was looked for: a
    missing claims folder names the project that claimcheck found and suggests
    `claimcheck init`.
    """
    if paths:
        missing = [p for p in paths if not os.path.exists(p)]
        if missing:
            raise UsageError(
                "; ".join(f"{p}: no such claim file or folder" for p in missing),
                hint=f"claim paths are taken from the current folder, {Path.cwd()}",
            )
        return paths
    for path in config.claim_paths:
        if not os.path.exists(path):
            raise UsageError(
                f"{_no_claims_at(path)} ({_where_from(config)})", hint=_create_hint(config)
            )
    return config.claim_paths


def _no_claims_at(path: Path) -> str:
    what = "claim file" if path.suffix in (".yaml", ".yml") else "claims folder"
    return f"no {what} at {os.path.abspath(path)}"


def _create_hint(config: Config) -> str:
    """`claimcheck init` where the project has no config yet (init refuses to overwrite)."""
    project = config.project
    if project is not None and project.config is not None:
        return f"create it, set `claims` in {_relative(project.config)}, or pass claim files"
    folder = "" if config.root == Path() else f" {shlex.quote(config.root.as_posix())}"
    return f"run `claimcheck init{folder}` to create one, or pass claim files"


def _relative(path: Path) -> str:
    """`path` from the current folder, as a person would type it."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive
        return str(path)


def _where_from(config: Config) -> str:
    """How the project was found, for a message about what is missing in it."""
    from claimcheck.config import CONFIG_FILE

    project = config.project
    if project is None:
        return f"the project's folder is {os.path.abspath(config.root)}"
    if project.config is not None:
        how = "as set by" if "claims" in config.model_fields_set else "beside"
        return f"{how} {project.config}"
    upto = " to the repository's root" if project.boundary is not None else ""
    return f"searched from {project.start} up{upto} for {CONFIG_FILE}: none found"


def parse_shard_option(value: str | None) -> tuple[int, int] | None:
    """K and N of --shard, checked before any work is done; None without the option."""
    if value is None:
        return None
    from claimcheck.claims.shard import parse_shard

    return parse_shard(value)


def select_shard(claims: list[Claim], shard: tuple[int, int] | None, config: Config) -> list[Claim]:
    """The claims of the shard (all of them without --shard), their sources resolved
    with the config's servers, as the run resolves them."""
    if shard is None:
        return claims
    from claimcheck.claims.shard import shard_of
    from claimcheck.forges.registry import servers_of

    return shard_of(claims, *shard, servers=servers_of(config))


def shard_line(shard: tuple[int, int], claims: list[Claim], every: list[Claim]) -> str:
    """What the shard holds, for stderr: its sources and claims out of all."""
    k, n = shard
    sources = len({s for c in claims for s in c.sources})
    total = len({s for c in every for s in c.sources})
    return f"shard {k} of {n}: {sources} of {total} sources, {len(claims)} of {len(every)} claims"


def writing(
    config: Config, command: str, *, offline: bool = False
) -> AbstractContextManager[object]:
    """The run lock of the snapshot folder for a command that writes it (none offline).

    `schedule` holds the same lock for its whole life, so a verify by hand never writes
    the store at the same moment as the nightly run.
    """
    if offline:
        return nullcontext()
    from claimcheck.store.lock import acquire_lock

    return acquire_lock(config.snapshots_dir, command)


def find_claim(claims: list[Claim], claim_id: str) -> Claim:
    """The claim with this id, or a usage error that says where ids are listed."""
    for claim in claims:
        if claim.id == claim_id:
            return claim
    raise UsageError(
        f"no claim with id {claim_id!r}", hint="`claimcheck list` shows the claims' ids"
    )


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


def one_source(claim: Claim, command: str, part: str | None = None) -> Claim:
    """The claim as a claim of one source: itself, or the part `--part` names of a claim
    on several; else a usage error (`command` works on one source's history, snapshots
    or quote)."""
    index = part_index(claim, command, part)
    return claim if index is None else claim.view(claim.parts[index])


def part_index(claim: Claim, command: str, part: str | None) -> int | None:
    """Which part (0-based) `--part` names; None for a claim of one source."""
    from claimcheck.untrusted import clean_text

    count = len(claim.parts)
    listed = "; ".join(f"{n}: {clean_text(p.source)}" for n, p in enumerate(claim.parts, 1))
    if not claim.parts:
        if part is not None:
            raise UsageError(
                f"claim {claim.id!r} rests on one source: --part is for a claim on several",
                hint=f"run `claimcheck {command} {claim.id}` without --part",
            )
        return None
    if part is None:
        raise UsageError(
            f"claim {claim.id!r} rests on {count} sources: `claimcheck {command}` works on "
            "a claim of one source",
            hint=f"name the part with --part K (1 to {count}) or --part URL ({listed})",
        )
    if part.isdigit() and 1 <= int(part) <= count:
        return int(part) - 1
    wanted = part.strip().rstrip("/")
    for index, each in enumerate(claim.parts):
        if each.source.rstrip("/") == wanted:
            return index
    raise UsageError(
        f"claim {claim.id!r} has no part {clean_text(part)!r}",
        hint=f"--part takes 1 to {count} or one of its sources ({listed})",
    )


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
    from claimcheck.models import ExitCode

    _HELD.scopes.append([])
    try:
        code = work()
    except ClaimcheckError as exc:
        from claimcheck.untrusted import clean_text

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


@contextmanager
def progress_bar(enabled: bool) -> Iterator[ProgressCallback | None]:
    """A progress bar on stderr when it is a terminal (and not -q); nothing otherwise.

    It names the phase the run is in and its count (fetching 10/10, fetching and
    reading history 3/7, judging 2,000/10,000), so a long history lookup is not shown
    as fetching alone.
    """
    if not enabled or _QUIET or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    console = Console(file=sys.stderr)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("starting", total=None)

        def update(phase: str, done: int, total: int) -> None:
            bar.update(task, description=phase, completed=done, total=total)

        yield update


def use_color(stream: object) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR")


def terminal_width(stream: object) -> int | None:
    """The terminal's columns when the stream is one; None for a file or a pipe."""
    isatty = getattr(stream, "isatty", None)
    return shutil.get_terminal_size().columns if isatty and isatty() else None


def emit(report: Report, fmt: OutputFormat, *, color: bool = False) -> None:
    """Write a report to stdout in a format.

    The JSON formats (json, sarif) go as UTF-8 bytes where stdout takes bytes: a large
    report is never held as a `str` (see `json_text.indented_bytes`). The others are
    text for a person, written through stdout's own encoding (a terminal's).
    """
    from claimcheck.report.formats import is_utf8_document, render, render_chunks

    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None or not is_utf8_document(fmt):
        sys.stdout.write(render(report, fmt, color=color, width=terminal_width(sys.stdout)))
        return
    sys.stdout.flush()  # what was written as text goes first
    for chunk in render_chunks(report, fmt):  # the JSON report a result at a time
        buffer.write(chunk)
    buffer.flush()


def err(message: str) -> None:
    """A line for the human on stderr (the report itself goes to stdout)."""
    sys.stderr.write(message + "\n")


# -- how much a command says: -q / -v on every command -----------------------------------

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
_QUIET = False


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


def add_verbosity_options(app: typer.Typer) -> None:
    """Give every command of `app` (and of its groups) -v/--verbose and -q/--quiet.

    One mechanism rather than two parameters written into each command: the command's
    callback is wrapped in a function whose signature is the command's plus the two
    options, which typer reads when it builds the command line.
    """
    import functools
    import inspect

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
