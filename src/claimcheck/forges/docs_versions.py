"""Docs versions: which documentation URLs pin a version and which follow a moving alias.

Documentation sites serve each release under its own path segment (`/en/v0.6.3/`,
`/0.6/`, `/v2.1.x/`) and point moving aliases (`latest`, `stable`, `main`, `dev`,
`nightly`) at one of them, often by a redirect. A claim on a pinned URL is judged as
it is: that version's text does not change. A claim on an alias is tracked: the
version the alias redirects to is kept, in the source's notes (the version the last
run saw) and with each claim (the version it stands on: the one in force when a run
first judged it, or when a person accepted it). While the alias leads to another
version than the claim stands on, the claim is `moved`, with the new version's URL,
night after night, so a person decides whether the claim still holds for it; it holds
again when the alias leads back, or once `accept` records the new version for it. A
claim's first run only records the version, without a false `moved`.

Pure: URLs in, a decision out; the run keeps what was seen (`observe.keep.track_version`,
`observe.known.stands_on_now`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

ALIASES = frozenset({"latest", "stable", "main", "dev", "nightly"})
"""Path segments that name whichever version a docs site currently points them at."""
_VERSION = re.compile(r"^(?:v\d+(?:\.(?:\d+|x))*|\d+(?:\.(?:\d+|x))+)$", re.IGNORECASE)
"""`v1`, `v0.6.3`, `v2.1.x`, `0.6`, `1.2.3`: a `v` and a number, or dotted numbers (a
lone number, `/2024/`, `/3/`, is a year or a page as often as a version)."""


def is_version(segment: str) -> bool:
    """Whether a path segment names a release (`v0.6.3`, `0.6`, `v2.1.x`)."""
    return _VERSION.match(segment) is not None


def alias_at(url: str) -> int | None:
    """The index of the first path segment of `url` that is a moving alias, or None."""
    segments = _segments(url)
    return next((i for i, s in enumerate(segments) if s.lower() in ALIASES), None)


def pinned_version(url: str, final_url: str) -> str | None:
    """The version-pinned URL an alias URL ended on, or None when it ended on no version.

    `final_url` pins a version when it is on the same host and, where `url` has its
    alias, has a version segment, the segments before it being the same
    (`/en/latest/x` → `/en/v0.6.3/x`). A URL without an alias is never tracked.
    """
    index = alias_at(url)
    if index is None:
        return None
    here, there = urlsplit(url), urlsplit(final_url)
    if (here.hostname or "").lower() != (there.hostname or "").lower():
        return None
    before, after = _segments(url), _segments(final_url)
    if len(after) <= index or after[:index] != before[:index] or not is_version(after[index]):
        return None
    return final_url


@dataclass(frozen=True)
class Tracked:
    """What a run makes of an alias URL's redirect: the version URL to keep, and
    `moved_to`, that URL when it differs from the one the last run kept."""

    seen: str
    moved_to: str | None


def track_version(url: str, final_url: str, last_seen: str | None) -> Tracked | None:
    """The alias URL's tracked version this run, or None when `url` is not tracked
    (no alias, or the alias did not end on a version)."""
    pinned = pinned_version(url, final_url)
    if pinned is None:
        return None
    if last_seen is None or same_version(last_seen, pinned):
        return Tracked(seen=pinned, moved_to=None)
    return Tracked(seen=pinned, moved_to=pinned)


def standing_version(stands_on: str | None, before: str | None, now: str) -> str:
    """The version a claim on an alias stands on: the one recorded with it, else the
    one the source's last run saw (a claim new to a tracked source), else this one."""
    return stands_on or before or now


def moved_from(stands_on: str | None, before: str | None, now: str) -> str | None:
    """The version URL a claim on an alias is `moved` to (`now`), or None when the alias
    still leads to the version the claim stands on (`standing_version`)."""
    return None if same_version(standing_version(stands_on, before, now), now) else now


def moved_why(to: str) -> str:
    """The words a `moved` reason gives for an alias that leads to another version."""
    return f"its docs alias now leads to another version, {to}; check the claim there"


def _segments(url: str) -> list[str]:
    return [s for s in urlsplit(url).path.split("/") if s]


def same_version(a: str, b: str) -> bool:
    """The same version URL, whatever the fragment (never sent) or a trailing slash."""
    one, two = urlsplit(a)._replace(fragment=""), urlsplit(b)._replace(fragment="")
    return one._replace(path=one.path.rstrip("/")) == two._replace(path=two.path.rstrip("/"))
