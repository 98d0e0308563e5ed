"""Everything the command line imports late, in one place: what `claimcheck --help` and
`claimcheck verify --help` can do without.

- The typer app itself (`run_app`): the root's help and version are answered without
  typer (`cli/quick.py`); anything else imports the app (by name: the app imports
  this module for the version).
- The package's version (`version_line`): reading the installed metadata is the
  slowest import of `--version`, and `--help` has no use for it.
- A command's module (`command_module_of`), when the command is asked for: the root
  group builds only that command (`cli/group.py`).
- A command's work (`dispatch`), when the command runs: a command module holds the
  command's options and help and nothing else, so that its `--help` imports no more
  than typer; what the command does is its module in `cli/work/`, named after it,
  which imports at its top all it needs.
- The progress bar (`terminal_progress_bar`), only on a terminal: a run in CI or into
  a pipe never loads rich's console.
- The stages of a run that go online (`online_stages`), blame and the versions a
  citation needs (`blame_online`, `origin_learner`), only for a run that fetches: an
  offline run loads no HTTP client.
- The YAML reader (`read_yaml`), when a first claim file is read: a run whose claim
  files are all kept, unchanged, reads none and imports no YAML library.
- The pipeline (`pipeline_run_verify`) for `issues` without --report: keeping the
  issues by a report judges nothing.
- The state files' merge of `report merge --state` (`state_merge`), only with
  --state: merging reports alone reads neither the config nor the store.
- The claim ids a shell completes (`claim_ids_to_complete`), only when a shell asks.
- Notifying (`notify_claims`), only for `verify --notify`; Apprise
  (`send_notification`), only when a notification is sent: a run without
  notifications, and one with nothing to tell, never loads its hundred services.
- The captures `[archive] on` asks for (`archive_hook`), only when it names the moment.
"""

from __future__ import annotations

import importlib

# `typing` itself is left out: importing it is a good part of what `claimcheck --help`
# costs, and this module is imported by that path. The names below are for the type
# checker only.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from contextlib import AbstractContextManager
    from pathlib import Path
    from types import ModuleType
    from typing import Any, NoReturn

    from claimcheck.claims.yaml_values import Document
    from claimcheck.config import ArchiveMoment, Config
    from claimcheck.models import Claim, ClaimResult, Report
    from claimcheck.notify.run import Notified
    from claimcheck.observe.stats import ProgressCallback, RunStats
    from claimcheck.pipeline import OnlineStages
    from claimcheck.store.store import Store


def run_app() -> None:
    """Run the typer app, httpx's own command line kept out of it."""
    from claimcheck._compat.httpx_cli import leave_out_httpx_command_line

    leave_out_httpx_command_line()
    importlib.import_module("claimcheck.cli.app").main()


def version_line() -> str:
    """What `claimcheck --version` prints, for the quick path and the typer app alike."""
    from importlib.metadata import version

    return f"claimcheck {version('claimcheck-desk')}"


def command_module_of(module: str) -> ModuleType:
    """`claimcheck.cli.<module>`, the command module the table names."""
    return importlib.import_module(f"claimcheck.cli.{module}")


def dispatch(command: Callable[..., None], arguments: dict[str, Any]) -> NoReturn:
    """Run `command`'s work with its parsed `arguments` and exit with the work's code.

    The work is the function of the same name in the module of that name in
    `claimcheck.cli.work`, imported here, when the command runs; it returns the exit
    code. Run-level errors become exit code 2 with a hint in `guard`.
    """
    import typer

    from claimcheck.cli.guard import guard

    work = importlib.import_module(f"claimcheck.cli.work.{command.__name__}")
    function = getattr(work, command.__name__)
    raise typer.Exit(guard(lambda: int(function(**arguments))))


def terminal_progress_bar() -> AbstractContextManager[ProgressCallback]:
    """The progress bar drawn on a terminal, imported only then: a run in CI or into a
    pipe never loads rich's console."""
    from claimcheck.cli.progress import rich_progress_bar

    return rich_progress_bar()


def state_merge() -> Callable[[list[Path], Path | None, Path | None], str]:
    """`report merge --state`'s work on the state files (`cli/work/merge_states.py`)."""
    from claimcheck.cli.work.merge_states import merge_state_parts

    return merge_state_parts


def online_stages() -> OnlineStages:
    """The stages of a run that go online: the HTTP client and what fetches with it."""
    from claimcheck.observe.online import ONLINE

    return ONLINE


def archive_hook() -> Callable[[ArchiveMoment, Sequence[Claim], Config], None]:
    """The captures `[archive] on` asks of `add`, `accept` and `verify`
    (`cli/work/archive.py`), only when it names the moment: a run without them loads
    no HTTP client for them."""
    from claimcheck.cli.work.captures import archive_on

    return archive_on


def pipeline_run_verify() -> Callable[..., tuple[Report, RunStats]]:
    """`pipeline.run_verify`, for a command that judges only in some of its forms."""
    from claimcheck.pipeline import run_verify

    return run_verify


def claim_ids_to_complete(params: dict[str, Any], incomplete: str) -> list[str]:
    """The claim ids a shell completes (`cli/work/complete_ids.py`), imported only when
    a shell asks; nothing at all, and nothing printed, when they cannot be read."""
    import contextlib
    import io

    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            work = importlib.import_module("claimcheck.cli.work.complete_ids")
            return list(work.claim_ids_to_complete(params, incomplete))
    except Exception:  # a completion that fails completes nothing
        return []


def read_yaml(text: str) -> Document:
    """The YAML of a claim file or of an article's front matter (`ReadDocument`)."""
    from claimcheck.claims.yaml_read import read_document

    return read_document(text)


def blame_online(result: ClaimResult, config: Config) -> ClaimResult:
    """`result` with the upstream commit that changed its quote, asked of history."""
    from claimcheck.history.online import add_blame
    from claimcheck.net.settings import fetch_settings

    (blamed,), _ = add_blame([result], config, fetch_settings(config))
    return blamed


def origin_learner(store: Store, config: Config) -> Callable[[ClaimResult], str | None]:
    """What asks history for the version of a result's snapshot and remembers it in
    `store`: the note it has on it, if any. Imported when it is first asked."""

    def learn(result: ClaimResult) -> str | None:
        from claimcheck.history.online import learn_origins
        from claimcheck.net.settings import fetch_settings

        snapshot = result.snapshot
        assert snapshot is not None
        notes, _ = learn_origins([result], store, config, fetch_settings(config))
        return notes.get(f"{snapshot.key}/{snapshot.file}")

    return learn


def notify_claims(results: Sequence[ClaimResult], config: Config) -> Notified:
    """`verify --notify`'s notifying (`cli/work/notify.py`, by name as `dispatch` finds a
    command's work: that module sends through `send_notification` here), imported
    when asked for."""
    work = importlib.import_module("claimcheck.cli.work.notify")
    notified: Notified = work.notify_claims(results, config)
    return notified


def send_notification(urls: Sequence[str], title: str, body: str, kind: str) -> None:
    """Send one route's message through Apprise (`notify.deliver.send_apprise`), which
    is imported here, when a first message is sent (a `notify.run.Send`)."""
    from claimcheck.notify.deliver import send_apprise

    send_apprise(urls, title, body, kind)
