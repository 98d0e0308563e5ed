"""Save Page Now: asking the Wayback Machine to capture a source, so that a copy exists
before the source changes or goes.

The Internet Archive's Save Page Now 2 API (SPN2), as it documents it:

- `POST /save` with the form field `url` (and options: `skip_first_archive=1`, which
  spares the archive a look-up; `if_not_archived_within=30d`, which makes no new capture
  when one that recent exists), with `Accept: application/json` and the operator's keys
  as `Authorization: LOW ACCESS:SECRET`, answers `{"url": ..., "job_id": ...}`; or a
  `message` and no job (the page was captured that recently: the answer names no capture,
  so none is recorded), or `status: "error"` with a `status_ext` code.
- `GET /save/status/{job_id}` answers `status`: `pending`, then `success` (with
  `timestamp` and `original_url`: the capture is `/web/{timestamp}/{original_url}`) or
  `error` (with `status_ext`, e.g. `error:too-many-redirects`, and a `message`).
- `GET /save/status/user` answers how many captures the keys may still start at once
  (`available`); a run starts no more than that. HTTP 429 means "too many at once":
  the request is sent again after its `Retry-After`. `error:too-many-daily-captures`
  (and refused keys) end the run's captures: no use asking again today.

The keys go only to the Save Page Now host (no redirect is followed) and never appear in
a message. A source's URL is sent only when it may be shown to a third party
(`guard.withheld_url`): never one on an internal address.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import httpx

from claimcheck.forges.api import dig, json_of
from claimcheck.forges.wayback import cdx_base
from claimcheck.models import ArchivedCopy
from claimcheck.net.guard import Resolver, resolve_host, withheld_url
from claimcheck.net.http_policy import retry_after_seconds
from claimcheck.untrusted import clean_text

POLL_SECONDS = 5.0
"""How long to wait between two looks at a pending capture: SPN2 captures take from a
few seconds to a couple of minutes."""
ATTEMPTS = 3
"""How many times a request answered 429 (too many at once) is sent in all."""
LONGEST_WAIT = 120.0
"""The longest `Retry-After` honoured: a longer one ends the capture (asked next time)."""
FATAL = frozenset({"error:too-many-daily-captures", "error:unauthorized", "error:no-access"})
"""The `status_ext` codes after which no other capture of this run can succeed."""


@dataclass(frozen=True)
class Captured:
    """The capture made (or the recent one the archive named)."""

    copy: ArchivedCopy


@dataclass(frozen=True)
class NotCaptured:
    """Why no capture was recorded; `sent`: whether the URL went to the archive;
    `failed`: whether a capture that should have been made was not (a source withheld,
    or one the archive captured that recently, is no failure)."""

    reason: str
    sent: bool = True
    failed: bool = True


Capture = Captured | NotCaptured


class SavePageNow:
    """The Save Page Now API of the Wayback Machine at `url` (`wayback_url`), with keys.

    `client` sends the requests: an httpx client over the guarded transport, which
    follows no redirect (the keys stay on this host). `sleep` and `clock` are the
    waits' (tests make them instant).
    """

    def __init__(
        self,
        client: httpx.AsyncClient,
        url: str,
        keys: str,
        *,
        poll_seconds: float = POLL_SECONDS,
        timeout: float = 120.0,
        resolver: Resolver = resolve_host,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._base = cdx_base(url.rstrip("/"))
        self._headers = {"Accept": "application/json", "Authorization": f"LOW {keys}"}
        self._poll = poll_seconds
        self._timeout = timeout
        self._resolver = resolver
        self._sleep = sleep
        self._clock = clock
        self.ended: str | None = None
        """Set when the archive said no capture of this run can succeed (a daily limit,
        refused keys): the rest are not sent."""
        self.requests = 0

    async def room(self) -> int | None:
        """How many captures the keys may start at once now (`/save/status/user`), or
        None when the archive does not say."""
        answer = await self._send("GET", "/save/status/user")
        if isinstance(answer, NotCaptured):
            return None
        available = dig(answer[1], "available")
        return available if isinstance(available, int) and available >= 0 else None

    async def capture(self, url: str, *, within: str | None = None) -> Capture:
        """Ask for a capture of `url` and wait for it (`timeout` in all)."""
        withheld = await withheld_url(url, self._resolver)
        if withheld is not None:
            return NotCaptured(
                f"not sent to the Wayback Machine: {withheld}", sent=False, failed=False
            )
        if self.ended is not None:
            return NotCaptured(self.ended, sent=False)
        form = {"url": url, "skip_first_archive": "1"}
        if within:
            form["if_not_archived_within"] = within
        started = self._clock()
        answer = await self._send("POST", "/save", form=form)
        if isinstance(answer, NotCaptured):
            return answer
        job = dig(answer[1], "job_id")
        if not isinstance(job, str) or not job:
            message = dig(answer[1], "message")
            if dig(answer[1], "status") != "error" and isinstance(message, str) and message:
                # `if_not_archived_within`: a capture that recent exists; none is made
                said = clean_text(message)[:200]
                return NotCaptured(f"no new capture: the archive says {said}", failed=False)
            return self._refused(answer[1], "no capture was started")
        while True:
            answer = await self._send("GET", f"/save/status/{job}")
            if isinstance(answer, NotCaptured):
                return answer
            status = dig(answer[1], "status")
            if status == "success":
                return self._captured(answer[1], url)
            if status != "pending":
                return self._refused(answer[1], "the capture failed")
            if self._clock() - started + self._poll > self._timeout:
                return NotCaptured(
                    f"the capture was still pending after {self._timeout:g} s "
                    f"(job {clean_text(job)}); it may still finish"
                )
            await self._sleep(self._poll)

    async def _send(
        self, method: str, path: str, *, form: dict[str, str] | None = None
    ) -> tuple[int, object] | NotCaptured:
        """One request, sent again after a 429's wait; its status and JSON answer."""
        for attempt in range(ATTEMPTS):
            self.requests += 1
            try:
                response = await self._client.request(
                    method, f"{self._base}{path}", data=form, headers=self._headers
                )
                body = await response.aread()
            except httpx.HTTPError as exc:
                return NotCaptured(f"the Save Page Now API did not answer: {type(exc).__name__}")
            answer = json_of(body)
            if dig(answer, "status_ext") in FATAL:
                return self._refused(answer, "the Save Page Now API refused")
            if response.status_code == 429 and attempt + 1 < ATTEMPTS:
                wait = retry_after_seconds(response.headers.get("Retry-After"), time.time())
                if wait is None or wait > LONGEST_WAIT:
                    break
                await self._sleep(wait)
                continue
            if response.status_code in (401, 403):
                self.ended = f"the Save Page Now API refused the keys (HTTP {response.status_code})"
                return NotCaptured(self.ended)
            if response.status_code != 200:
                status = response.status_code
                return self._refused(answer, f"the Save Page Now API answered HTTP {status}")
            if not isinstance(answer, dict):
                return NotCaptured("the Save Page Now API answered no JSON object")
            return response.status_code, answer
        return NotCaptured("the Save Page Now API is busy (HTTP 429): asked again next time")

    def _refused(self, answer: object, default: str) -> NotCaptured:
        """The archive's own words for a refusal: its `status_ext` code and message."""
        code = dig(answer, "status_ext")
        message = dig(answer, "message")
        words = [clean_text(str(w))[:200] for w in (code, message) if isinstance(w, str) and w]
        reason = f"{default}: {' — '.join(words)}" if words else default
        if code in FATAL:
            self.ended = reason
        return NotCaptured(reason)

    def _captured(self, answer: object, url: str) -> Capture:
        stamp = dig(answer, "timestamp")
        try:
            when = dt.datetime.strptime(str(stamp), "%Y%m%d%H%M%S").replace(tzinfo=dt.UTC)
        except ValueError:
            return NotCaptured("the capture succeeded but its answer names no timestamp")
        # The URL sent, not the answer's `original_url`: the link is built of nothing
        # the archive's answer could bend but the timestamp, read as a date.
        copy = f"{self._base}/web/{when.strftime('%Y%m%d%H%M%S')}/{url}"
        return Captured(ArchivedCopy(url=copy, captured=when))
