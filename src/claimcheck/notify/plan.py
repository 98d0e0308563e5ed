"""Which claims each notification route is told of, and what: pure, no I/O.

A route is told of a claim only when the claim's state changed since it last told the
route (a *transition*): newly stale (a stale verdict: drifted, missing, contradicted,
source-gone), newly needing review (context-changed, moved, expired) or recovered
(verified again after either). What each route was last told is its record in the
store's state (`RunState.notified`); a claim it holds no record of was last said to be
verified, or was never anything else, so a claim seen for the first time that is
verified sends nothing and one that is stale sends. A claim that could not be judged
(unreachable, unverified) changes nothing: nothing is known of it. A review verdict a
person acknowledged (`claimcheck ack`, `ClaimResult.quiet`) sends nothing: the route's
record becomes `acknowledged` without a message, so that the acknowledgement lapsing
(the source changed again, `until` passed) is told as newly needing review, and a claim
verified again after it is cleared without one.

A claim goes to every configured route whose owners and pages match it (a route
giving both needs both), and to the default route when none does.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from claimcheck.config.notify import DEFAULT_ROUTE, NOTIFY_ENV, NotifyConfig
from claimcheck.models import ClaimResult, NotifiedState, Verdict

REVIEW = frozenset({Verdict.CONTEXT_CHANGED, Verdict.MOVED, Verdict.EXPIRED})
"""The verdicts that ask a person to look again: a review notification."""


class Transition(StrEnum):
    """How a claim's state changed since the route was last told of it."""

    STALE = "newly stale"
    REVIEW = "newly needing review"
    RECOVERED = "recovered"


@dataclass(frozen=True)
class Route:
    """A route as the plan uses it: its name, the variable of its URLs, whom and where
    it is for (both empty: the default route, for the claims no other route takes)."""

    name: str
    env: str
    owners: frozenset[str] = frozenset()
    pages: tuple[str, ...] = ()

    def takes(self, owner: str | None, places: Iterable[str]) -> bool:
        """Whether a claim of `owner`, in a file or page named by `places`, is for it."""
        if self.owners and owner not in self.owners:
            return False
        if self.pages:
            names = tuple(places)
            return any(fnmatch.fnmatchcase(name, glob) for glob in self.pages for name in names)
        return True


@dataclass(frozen=True)
class Notice:
    """One claim a route is told of: its result, its transition, and the route's record
    of it once told (None: recovered, no record kept)."""

    result: ClaimResult
    transition: Transition
    record: NotifiedState | None


@dataclass(frozen=True)
class RouteNotices:
    """What one route is told in one run, and the records that change without a
    message (`silent`: claim id → new record; an acknowledgement made or cleared)."""

    route: Route
    notices: tuple[Notice, ...]
    silent: tuple[tuple[str, NotifiedState | None], ...] = ()

    def told(self) -> dict[str, NotifiedState | None]:
        """Each claim id's new record, once the route was told (`record_notified`)."""
        return {notice.result.claim.id: notice.record for notice in self.notices}


def routes_of(config: NotifyConfig) -> tuple[Route, ...]:
    """The configured routes in the file's order, then the default route."""
    named = tuple(
        Route(name, route.env, frozenset(route.owners), tuple(route.pages))
        for name, route in config.routes.items()
    )
    return (*named, Route(DEFAULT_ROUTE, NOTIFY_ENV))


def state_now(
    verdict: Verdict, *, review: bool, quiet: bool = False
) -> NotifiedState | Literal["verified"] | None:
    """What a verdict says of a claim's state; None: nothing known (or, with `review`
    off, a review verdict), so the record stands as it is. `quiet`: the verdict is an
    acknowledged review verdict (`ClaimResult.quiet`)."""
    if quiet:
        return "acknowledged"
    if verdict.is_stale:
        return "stale"
    if verdict in REVIEW:
        return "review" if review else None
    if verdict is Verdict.VERIFIED:
        return "verified"
    return None


def transition(
    before: NotifiedState | None, now: NotifiedState | Literal["verified"] | None
) -> Transition | None:
    """The transition from what a route was told (`before`, None: verified or never
    told) to the state now; None when there is nothing to tell (an acknowledgement
    made, or a claim verified after one, is recorded without a message: `silently`)."""
    if now is None or now == (before or "verified") or now == "acknowledged":
        return None
    if now == "verified" and before == "acknowledged":
        return None
    if now == "stale":
        return Transition.STALE
    if now == "review":
        return Transition.REVIEW
    return Transition.RECOVERED


def routes_for(result: ClaimResult, routes: Sequence[Route]) -> tuple[Route, ...]:
    """The routes a claim goes to: every configured one that takes it, else the default."""
    claim = result.claim
    places = (claim.file, claim.page)
    taken = tuple(r for r in routes if r.name != DEFAULT_ROUTE and r.takes(claim.owner, places))
    return taken or tuple(r for r in routes if r.name == DEFAULT_ROUTE)


def plan_notices(
    results: Sequence[ClaimResult],
    notified: Mapping[str, Mapping[str, NotifiedState]],
    routes: Sequence[Route],
    *,
    review: bool = True,
) -> list[RouteNotices]:
    """Each route with something to tell, in `routes`' order, its claims in the
    results' order; `notified` is each route's record (`RunState.notified`)."""
    told: dict[str, list[Notice]] = {route.name: [] for route in routes}
    silent: dict[str, list[tuple[str, NotifiedState | None]]] = {r.name: [] for r in routes}
    for result in results:
        now = state_now(result.verdict, review=review, quiet=result.quiet)
        if now is None:
            continue
        record = None if now == "verified" else now
        for route in routes_for(result, routes):
            before = notified.get(route.name, {}).get(result.claim.id)
            change = transition(before, now)
            if change is not None:
                told[route.name].append(Notice(result, change, record))
            elif before != record and "acknowledged" in (before, now):
                silent[route.name].append((result.claim.id, record))
    return [
        RouteNotices(route, tuple(told[route.name]), tuple(silent[route.name]))
        for route in routes
        if told[route.name] or silent[route.name]
    ]
