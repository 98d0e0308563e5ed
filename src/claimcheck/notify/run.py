"""Notifying one run's transitions: read what each route was told, send, record.

The I/O shell around the pure plan (`notify.plan`) and messages (`notify.message`):
it reads each route's URLs from its environment variable, sends each route's message
through `send` (Apprise, `notify.deliver`, given by the caller so that nothing here
imports it), and records in the store's state what each route that took its message
was told. A route that fails keeps its old record, so the next run tells it again,
and the routes that took theirs are not told twice. Nothing here changes a verdict or
an exit code: a failure is a line for the caller to print, naming the route and its
variable, never a URL.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from claimcheck.config import Config
from claimcheck.config.notify import NOTIFY_ENV
from claimcheck.errors import ClaimcheckError
from claimcheck.models import ClaimResult
from claimcheck.notify.message import Links, Message, render_message
from claimcheck.notify.plan import RouteNotices, Transition, plan_notices, routes_of
from claimcheck.store.state import load_state, record_notified, save_state
from claimcheck.untrusted import clean_text
from claimcheck.wording import counted

Send = Callable[[Sequence[str], str, str, str], None]
"""Sends (urls, title, Markdown body, kind) or raises `ClaimcheckError` (never naming a
URL): `notify.deliver.send_apprise`, or a test's own."""


@dataclass(frozen=True)
class Notified:
    """What notifying did: a line for each route told or failed, and what dry-run
    would send. `changed`: the state file was written."""

    sent: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()
    unset: tuple[str, ...] = ()
    messages: tuple[tuple[str, str, Message], ...] = ()
    changed: bool = False
    claims: int = 0

    def line(self) -> str:
        """The run's one line about notifications."""
        parts = []
        if self.sent:
            parts.append(f"notified {counted(self.claims, 'claim')} to {', '.join(self.sent)}")
        if self.failed:
            parts.append(f"notifying failed for {', '.join(self.failed)} (retried next run)")
        if self.unset:
            parts.append(f"no URLs for {', '.join(self.unset)}")
        return "; ".join(parts) or "nothing to notify"


def configured(config: Config, env: Mapping[str, str]) -> bool:
    """Whether any route can be told anything: a route in claimcheck.toml, or URLs in
    `CLAIMCHECK_NOTIFY`."""
    return bool(config.notify.routes) or bool(env.get(NOTIFY_ENV, "").split())


def route_urls(variable: str, env: Mapping[str, str]) -> list[str]:
    """The Apprise URLs in `variable`, separated by white space (a URL holds none)."""
    return env.get(variable, "").split()


def worst(told: RouteNotices) -> str:
    """The kind of the message: its worst transition."""
    kinds = {notice.transition for notice in told.notices}
    for kind, name in (
        (Transition.STALE, "stale"),
        (Transition.REVIEW, "review"),
    ):
        if kind in kinds:
            return name
    return "recovered"


def notify_results(
    results: Sequence[ClaimResult],
    config: Config,
    *,
    send: Send,
    env: Mapping[str, str],
    links: Links,
    dry_run: bool = False,
    say: Callable[[str], None] = lambda _line: None,
) -> Notified:
    """Tell each route of its claims' transitions and record what it was told.

    `say` gets a line for each route that failed or has no URLs (the caller's stderr).
    With `dry_run`, nothing is sent or recorded: `messages` holds what would be sent,
    with each route's variable.
    """
    snapshots = config.snapshots_dir
    state = load_state(snapshots)
    routes = routes_of(config.notify)
    plans = plan_notices(results, state.notified, routes, review=config.notify.review)
    sent: list[str] = []
    failed: list[str] = []
    unset: list[str] = []
    messages: list[tuple[str, str, Message]] = []
    claims = 0
    quietly = False  # records changed without a message (an acknowledgement)
    for told in plans:
        route = told.route
        if told.silent and not dry_run:
            state = record_notified(state, route.name, dict(told.silent))
            quietly = True
        if not told.notices:
            continue
        message = render_message(told, links)
        urls = route_urls(route.env, env)
        name = clean_text(route.name)
        if dry_run:
            messages.append((route.name, route.env, message))
            continue
        if not urls:
            unset.append(name)
            say(
                f"notify: route {name!r}: {route.env} is not set: "
                f"{counted(len(told.notices), 'claim')} not notified (told once it is set)"
            )
            continue
        try:
            send(urls, message.title, message.body, worst(told))
        except ClaimcheckError as exc:
            failed.append(name)
            say(
                f"notify: route {name!r} ({route.env}) failed: {exc}; its "
                f"{counted(len(told.notices), 'claim')} will be notified again next run"
            )
            continue
        sent.append(name)
        claims += len(told.notices)
        state = record_notified(state, route.name, told.told())
    changed = bool(sent) or quietly
    if changed:
        save_state(snapshots, state)
    return Notified(
        sent=tuple(sent),
        failed=tuple(failed),
        unset=tuple(unset),
        messages=tuple(messages),
        changed=changed,
        claims=claims,
    )
