"""The one HTTP policy: when to retry, how long to wait, and where the next page is.

Every client claimcheck has — the page fetcher (async, many hosts), GitHub history
(over the fetcher) and the GitHub issues client (sync, writes) — asks this module the
same three questions, so retries, rate-limit waits and pagination are written once:

- `retry_delay`: seconds to wait before sending again, or None when the answer is
  final. A `Retry-After` wins (RFC 9110 §10.2.3); a spent GitHub quota
  (`X-RateLimit-Remaining: 0`) waits for `X-RateLimit-Reset`; GitHub's secondary
  limit (a 403 that says "rate limit", no headers) backs off from a minute, doubling,
  as GitHub's docs ask; 429 and 5xx back off exponentially with full jitter (AWS's
  "Exponential Backoff and Jitter"), so retrying clients spread out.
- `backoff_delay`: that exponential, jittered wait, also used for network trouble.
- `next_page_url`: the `rel="next"` target of a `Link` header (RFC 8288), refused
  when it leaves the host the credentials were sent to.

It is pure: headers come in as a mapping and the clock and random source are
arguments, so every wait is testable without sleeping.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

RETRY_AFTER_STATUSES = frozenset({403, 429, 503})
"""Statuses whose `Retry-After` header is honoured (503: maintenance, 403/429: limits)."""

SECONDARY_BACKOFF = 60.0
"""GitHub's secondary rate limit carries no reset time: wait at least a minute."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often to try again and how long one wait may be.

    `retries` counts the sends after the first; `max_wait` is the longest single wait
    a run accepts before giving up with the time to come back; `reset_margin` is added
    to a quota's reset time (a writer waits a second more, so that clock skew between
    us and GitHub does not spend its first write after the reset).
    """

    retries: int = 3
    backoff: float = 0.5
    max_backoff: float = 30.0
    max_wait: float = 120.0
    reset_margin: float = 0.0

    def may_retry(self, attempt: int) -> bool:
        """Whether a failed `attempt` (1 for the first send) may be followed by another."""
        return attempt <= self.retries

    def backoff_delay(self, attempt: int, rng: random.Random) -> float:
        """Exponential backoff with full jitter: uniform in [0, min(cap, base·2^(n-1))]."""
        ceiling = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
        return rng.uniform(0.0, ceiling)


def retry_delay(
    policy: RetryPolicy,
    status: int,
    headers: Mapping[str, str],
    attempt: int,
    *,
    now: float,
    rng: random.Random,
    message: str = "",
) -> float | None:
    """Seconds to wait before retrying an answer with this status, or None when final.

    `headers` are looked up in lower case; `message` is the answer's error text, where
    GitHub names its secondary limit ("You have exceeded a secondary rate limit").
    """
    if status in RETRY_AFTER_STATUSES:
        retry_after = retry_after_seconds(headers.get("retry-after"), now)
        if retry_after is not None:
            return retry_after
    if status in (403, 429):
        if headers.get("x-ratelimit-remaining", "").strip() == "0":
            reset = header_number(headers.get("x-ratelimit-reset"))
            if reset is None:
                return policy.backoff_delay(attempt, rng)
            return max(0.0, reset - now) + policy.reset_margin
        if "rate limit" in message.lower():
            return float(SECONDARY_BACKOFF * 2.0 ** (attempt - 1))
    if status == 429 or 500 <= status < 600:
        return policy.backoff_delay(attempt, rng)
    return None


def header_number(value: str | None) -> float | None:
    """A numeric header (X-RateLimit-Reset, -Remaining), or None when absent or garbled."""
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP-date."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, when.timestamp() - now)


_LINK = re.compile(r"<(?P<target>[^>]*)>(?P<params>[^,<]*)")
_REL = re.compile(r';\s*rel\s*=\s*(?:"(?P<quoted>[^"]*)"|(?P<bare>[^\s;,]+))', re.IGNORECASE)


def link_targets(header: str | None, base: str = "") -> dict[str, str]:
    """The targets of a `Link` header by relation type, resolved against `base`.

    A link may carry several relation types (`rel="next last"`); the first link of a
    type wins, as RFC 8288 leaves the choice to the reader.
    """
    found: dict[str, str] = {}
    for link in _LINK.finditer(header or ""):
        rel = _REL.search(link.group("params"))
        if rel is None:
            continue
        for name in (rel.group("quoted") or rel.group("bare") or "").lower().split():
            found.setdefault(name, urljoin(base, link.group("target").strip()))
    return found


class ForeignPageError(ValueError):
    """A `rel="next"` link points to another host than the one asked."""


def next_page_url(header: str | None, asked: str) -> str | None:
    """The next page of a paginated answer to `asked`, on the same scheme and host only.

    Credentials go to the host that was asked; a next link elsewhere would carry them
    away, so it is refused with `ForeignPageError` instead of followed.
    """
    target = link_targets(header, asked).get("next")
    if not target:
        return None
    here, there = urlsplit(asked), urlsplit(target)
    if (here.scheme, here.netloc.lower()) != (there.scheme, there.netloc.lower()):
        raise ForeignPageError(f"next-page link leaves {here.netloc} for {there.netloc}")
    return target
