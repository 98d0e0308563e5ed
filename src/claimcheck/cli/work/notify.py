"""What `claimcheck notify` does, and `verify --notify` after its run: tell each route
of its claims' transitions, print what failed, record what was told."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import typer

from claimcheck.cli.lazy import send_notification
from claimcheck.cli.project import build_config
from claimcheck.cli.selection import read_claims
from claimcheck.cli.verbosity import err, say
from claimcheck.cli.work.render_report import read_report
from claimcheck.config import Config
from claimcheck.config.notify import NOTIFY_ENV
from claimcheck.errors import UsageError
from claimcheck.models import ClaimResult, ExitCode
from claimcheck.notify.message import run_links
from claimcheck.notify.run import Notified, configured, notify_results
from claimcheck.store.lock import writing
from claimcheck.untrusted import clean_text


def notify(*, report: Path, dry_run: bool, config_path: Path | None, snapshots: Path | None) -> int:
    """The work of `claimcheck notify`, given its parsed options: its exit code.

    The owners of the claims are read from the claim files as they are now (a report
    does not carry them), so routing follows claimcheck.toml and the claim files of
    the project, whatever run made the report.
    """
    config = build_config(config_path, snapshots)
    loaded = read_report(report)
    if loaded.shard is not None:
        raise UsageError(
            f"{clean_text(str(report))} is the report of shard {loaded.shard} only: its "
            "routes would be told of one shard's claims, and the other shards' records "
            "would be kept apart",
            hint="merge the reports of every shard first with `claimcheck report merge "
            "PART.json... --output report.json`, then run `claimcheck notify --report "
            "report.json`",
        )
    results = loaded.results
    owners = {claim.id: claim.owner for claim in read_claims(None, config)}
    owned = [
        result.model_copy(
            update={"claim": result.claim.model_copy(update={"owner": owners.get(result.claim.id)})}
        )
        for result in results
    ]
    done = notify_claims(owned, config, dry_run=dry_run)
    return int(ExitCode.UNCHECKED) if done.failed else 0


def notify_claims(
    results: Sequence[ClaimResult],
    config: Config,
    *,
    dry_run: bool = False,
    env: Mapping[str, str] | None = None,
    issues: Mapping[str, int] | None = None,
) -> Notified:
    """Notify the results' transitions (under the store's lock unless `dry_run`); each
    failing route is a line on stderr, the summary a line unless -q."""
    env = os.environ if env is None else env
    if not configured(config, env) and not dry_run:
        say(
            "notify: nothing to tell: no [notify.routes.*] in claimcheck.toml and "
            f"{NOTIFY_ENV} is not set"
        )
        return Notified()
    links = run_links(env, issues)
    if dry_run:
        done = notify_results(
            results, config, send=send_notification, env=env, links=links, dry_run=True
        )
        _print_dry_run(done, env)
        return done
    with writing(config, "notify"):
        done = notify_results(
            results, config, send=send_notification, env=env, links=links, say=err
        )
    say(done.line())
    return done


def _print_dry_run(done: Notified, env: Mapping[str, str]) -> None:
    if not done.messages:
        typer.echo("nothing to notify: no claim changed state since each route was told")
    for name, variable, message in done.messages:
        where = variable if env.get(variable, "").split() else f"{variable}, not set"
        typer.echo(f"would notify route {clean_text(name)!r} ({where}): {message.title}\n")
        typer.echo(message.body)
