"""The Wayback Machine: a web page as it was on a date, from the Internet Archive.

A web page has no history of its own; the Wayback Machine's copy closest to a date,
when it is not newer than it, stands in for one (a baseline, a citation's origin). It
is another host than the source's: a source's URL goes to it only when it may be shown
to a third party (`guard.withheld_url`), and never when it is turned off (`[history]
wayback = false`); otherwise the look-up is `Withheld`, with nothing sent.
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlencode

from claimcheck.forges.api import dig, json_of
from claimcheck.forges.forge import ABSENT, Absent, Fetches, Version, Withheld
from claimcheck.net.fetch import Fetched, FetchRequest
from claimcheck.net.guard import Resolver, resolve_host, withheld_url

WAYBACK_OFF = Withheld("the Wayback Machine is turned off ([history] wayback = false)")


class Wayback:
    """The Wayback Machine at `url` (None: turned off), asked through the run's fetcher."""

    def __init__(
        self, fetcher: Fetches, url: str | None, resolver: Resolver = resolve_host
    ) -> None:
        """`resolver` finds the addresses of a source's host, to tell an internal one
        (tests inject it)."""
        self._fetcher = fetcher
        self._url = url.rstrip("/") if url is not None else None
        self._resolver = resolver
        self._withheld: dict[str, str | None] = {}  # by URL: each decided once

    async def version(self, url: str, until: dt.datetime) -> Version | Absent | Withheld | None:
        """The Wayback Machine's copy closest to `until`, if it is not newer than it.

        The availability API answers the closest capture on either side; a capture
        after the check date is not what the checker saw, so it is refused. Withheld,
        with nothing sent: the Wayback Machine is turned off, or `url` may not be shown
        to a third party (`guard.withheld_url`: an internal or unresolvable host).
        """
        if self._url is None:
            return WAYBACK_OFF
        if url not in self._withheld:
            self._withheld[url] = await withheld_url(url, self._resolver)
        reason = self._withheld[url]
        if reason is not None:
            return Withheld(f"not sent to the Wayback Machine: {reason}")
        query = urlencode({"url": url, "timestamp": until.strftime("%Y%m%d%H%M%S")})
        outcome = await self._fetcher.fetch(
            FetchRequest(url=f"{self._url}/wayback/available?{query}")
        )
        if not isinstance(outcome, Fetched):
            return None
        answer = json_of(outcome.body)
        closest = dig(answer, "archived_snapshots", "closest")
        if isinstance(dig(answer, "archived_snapshots"), dict) and closest is None:
            return ABSENT  # the archive answered: it holds no copy of the page
        if not isinstance(closest, dict) or not closest.get("available"):
            return None
        stamp, copy = str(closest.get("timestamp", "")), str(closest.get("url", ""))
        try:
            captured = dt.datetime.strptime(stamp, "%Y%m%d%H%M%S").replace(tzinfo=dt.UTC)
        except ValueError:
            return None
        if captured > until:
            return ABSENT  # the closest copy is later than the check date
        if f"/{stamp}/" not in copy:
            return None
        raw = copy.replace(f"/{stamp}/", f"/{stamp}id_/", 1)
        fetched = await self._fetcher.fetch(FetchRequest(url=raw))
        if not isinstance(fetched, Fetched):
            return None
        return Version(date=captured, body=fetched.body, origin=f"wayback {copy}")
