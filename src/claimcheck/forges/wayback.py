"""The Wayback Machine: a web page as it was on a date, from the Internet Archive.

A web page has no history of its own; the Wayback Machine's copy closest to a date,
when it is not newer than it, stands in for one (a baseline, a citation's origin). It
is another host than the source's: a source's URL goes to it only when it may be shown
to a third party (`guard.withheld_url`), and never when it is turned off (`[history]
wayback = false`); otherwise the look-up is `Withheld`, with nothing sent.

A source that is gone gets the last capture from before it went as a suggestion
(`last_capture`, the CDX API: status 200 only, `to=` the last day it was seen alive),
as lychee's `--suggest` does for a dead link. Any failure there is no suggestion.
"""

from __future__ import annotations

import datetime as dt
import logging
from urllib.parse import urlencode, urlsplit

from claimcheck.forges.api import dig, json_of
from claimcheck.forges.forge import ABSENT, Absent, Fetches, Version, Withheld
from claimcheck.models import ArchivedCopy
from claimcheck.net.fetch import Fetched, FetchFailed, FetchRequest
from claimcheck.net.guard import Resolver, resolve_host, withheld_url

_log = logging.getLogger("claimcheck.wayback")

CDX_HOSTS = {"archive.org": "web.archive.org"}
"""The Internet Archive answers its CDX API on another host than its availability API."""

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

    async def last_capture(
        self, url: str, before: dt.datetime | None
    ) -> ArchivedCopy | Absent | None:
        """The last capture of `url` that answered 200, not after `before` (None: any),
        as a link to the archived page. `ABSENT`: the Wayback Machine answered that it
        holds none. None: no answer, when the Wayback Machine is off or `url` may not be
        named to it (`guard.withheld_url`: nothing is sent), or when it failed (said at
        debug level: a suggestion is never an error).
        """
        if self._url is None:
            return None
        if url not in self._withheld:
            self._withheld[url] = await withheld_url(url, self._resolver)
        if self._withheld[url] is not None:
            return None
        wanted = {"url": url, "output": "json", "fl": "timestamp,original"}
        wanted.update({"filter": "statuscode:200", "limit": "-1"})
        if before is not None:
            wanted["to"] = before.astimezone(dt.UTC).strftime("%Y%m%d%H%M%S")
        outcome = await self._fetcher.fetch(
            FetchRequest(url=f"{cdx_base(self._url)}/cdx/search/cdx?{urlencode(wanted)}")
        )
        if not isinstance(outcome, Fetched):
            why = outcome.reason if isinstance(outcome, FetchFailed) else type(outcome).__name__
            _log.debug("no archived copy of %s: the Wayback Machine failed: %s", url, why)
            return None
        answer = json_of(outcome.body)
        found = capture_of(answer, before)
        if found is None:
            _log.debug("no archived copy of %s in the Wayback Machine's answer", url)
            return ABSENT if isinstance(answer, list) else None
        stamp, original = found
        return ArchivedCopy(
            url=f"{cdx_base(self._url)}/web/{stamp.strftime('%Y%m%d%H%M%S')}/{original}",
            captured=stamp,
        )


def cdx_base(url: str) -> str:
    """Where the Wayback Machine at `url` answers its CDX API (`CDX_HOSTS`)."""
    parts = urlsplit(url)
    host = CDX_HOSTS.get(parts.hostname or "")
    return url if host is None else f"{parts.scheme}://{host}{parts.path}"


def capture_of(answer: object, before: dt.datetime | None) -> tuple[dt.datetime, str] | None:
    """The last (timestamp, original URL) row of a CDX JSON answer that is not after
    `before`; None for anything else (no rows, a header alone, garbage)."""
    if not isinstance(answer, list):
        return None
    last: tuple[dt.datetime, str] | None = None
    for row in answer:
        if not isinstance(row, list) or len(row) < 2 or row[0] == "timestamp":
            continue
        stamp, original = row[0], row[1]
        if not isinstance(stamp, str) or not isinstance(original, str) or not original:
            continue
        try:
            when = dt.datetime.strptime(stamp, "%Y%m%d%H%M%S").replace(tzinfo=dt.UTC)
        except ValueError:
            continue
        if before is not None and when > before:
            continue
        if last is None or when >= last[0]:
            last = (when, original)
    return last
