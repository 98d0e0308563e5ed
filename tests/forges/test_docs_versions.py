"""Docs versions: which path segments pin a release, and what an alias URL's redirect
means for a claim (the rule in docs/snapshots.md, "Docs versions")."""

from __future__ import annotations

import pytest

from claimcheck.forges.docs_versions import (
    Tracked,
    alias_at,
    is_version,
    pinned_version,
    track_version,
)

LATEST = "https://docs.example.org/en/latest/serving.html"
V063 = "https://docs.example.org/en/v0.6.3/serving.html"
V070 = "https://docs.example.org/en/v0.7.0/serving.html"


@pytest.mark.parametrize(
    ("segment", "expected"),
    [
        ("v0.6.3", True),
        ("0.6", True),
        ("v2.1.x", True),
        ("V1", True),
        ("1.2.3", True),
        ("2024", False),  # a year, as often as a version
        ("3", False),  # a page number
        ("latest", False),
        ("v", False),
        ("0.6.3-beta", False),
        ("serving.html", False),
    ],
)
def test_version_segments(segment: str, expected: bool) -> None:
    assert is_version(segment) is expected


@pytest.mark.parametrize(
    ("url", "index"),
    [
        (LATEST, 1),
        ("https://docs.example.org/stable/", 0),
        ("https://docs.example.org/projects/kit/en/nightly/api.html", 3),
        (V063, None),
        ("https://docs.example.org/en/guide/", None),
    ],
)
def test_alias_segments(url: str, index: int | None) -> None:
    assert alias_at(url) == index


@pytest.mark.parametrize(
    ("url", "final", "pinned"),
    [
        (LATEST, V063, V063),
        (
            "https://docs.example.org/stable/",
            "https://docs.example.org/0.6/",
            "https://docs.example.org/0.6/",
        ),
        (LATEST, LATEST, None),  # served in place: nothing to track
        (LATEST, "https://docs.example.org/login?next=/en/latest/", None),
        (LATEST, "https://docs.example.org/fr/v0.6.3/serving.html", None),  # not the alias's place
        (LATEST, "https://mirror.example.net/en/v0.6.3/serving.html", None),  # another host
        (V063, V070, None),  # a pinned URL is judged as it is
    ],
    ids=["latest", "stable", "in-place", "login", "other-language", "other-host", "pinned"],
)
def test_the_version_an_alias_ended_on(url: str, final: str, pinned: str | None) -> None:
    assert pinned_version(url, final) == pinned


def test_the_first_run_records_the_version_and_a_change_is_moved_once() -> None:
    first = track_version(LATEST, V063, None)
    same = track_version(LATEST, V063 + "#top", V063)
    changed = track_version(LATEST, V070, V063)
    after = track_version(LATEST, V070, V070)

    assert first == Tracked(seen=V063, moved_to=None)
    assert same == Tracked(seen=V063 + "#top", moved_to=None)
    assert changed == Tracked(seen=V070, moved_to=V070)
    assert after == Tracked(seen=V070, moved_to=None)
    assert track_version(V063, V070, V063) is None  # a pinned URL is not tracked
