"""The caches change no answer: verdicts with the caches on and off, cold and warm, and
with every cache file damaged, are the same, through the real command line.

The desk (this repository's claims and snapshots) gives its known counts in every
state; generated projects (a stored README, claims quoting sentences of it or words it
does not hold) give the verdict read off the inputs by hand: a quote the README holds
verbatim is verified, one made of words it does not hold is missing.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimcheck.cache.keys import CACHE_FOLDER, MADE_HERE, NO_CACHE
from support import paths
from support.cli_runs import run, show
from support.stored_readme import store_readme

Results = list[dict[str, Any]]


def verify_offline(project: Path) -> Results:
    """`verify --offline --format json` in `project`: every result of the report."""
    result = run("verify", "--offline", "--format", "json", "--no-progress", "--jobs", "0")
    assert result.exit_code in (0, 1), show(result)
    found: Results = json.loads(result.stdout)["results"]
    return found


def damage(project: Path, noise: bytes, *, marker: bool) -> int:
    """Write `noise` into every file of the project's cache (its `.made-here` too, with
    `marker`): how many files were damaged."""
    files = [
        path
        for path in (project / "snapshots" / CACHE_FOLDER).rglob("*")
        if path.is_file() and (marker or path.name != MADE_HERE)
    ]
    for path in files:
        path.write_bytes(noise)
    return len(files)


def cache_files(project: Path) -> dict[str, bytes]:
    cache = project / "snapshots" / CACHE_FOLDER
    return {
        p.relative_to(cache).as_posix(): p.read_bytes() for p in cache.rglob("*") if p.is_file()
    }


def every_state(
    project: Path, monkeypatch: pytest.MonkeyPatch, noise: bytes
) -> Iterator[tuple[str, Results]]:
    """The project's results with the caches cold, warm, off, damaged (entries only, and
    everything), and warm again after the damage."""
    monkeypatch.chdir(project)
    monkeypatch.delenv(NO_CACHE, raising=False)
    shutil.rmtree(project / "snapshots" / CACHE_FOLDER, ignore_errors=True)
    yield "cold", verify_offline(project)
    warm = cache_files(project)
    assert warm, "a cold run keeps what it derived"
    yield "warm", verify_offline(project)
    assert cache_files(project) == warm, "a warm run writes nothing"
    with monkeypatch.context() as off:
        off.setenv(NO_CACHE, "1")
        yield "off", verify_offline(project)
        assert cache_files(project) == warm, "with the switch, nothing is written"
        damage(project, noise, marker=False)  # entries damaged, the cache still trusted
        forged = cache_files(project)
        yield "off over a damaged cache", verify_offline(project)
        assert cache_files(project) == forged, "with the switch, nothing is read or mended"
    shutil.rmtree(project / "snapshots" / CACHE_FOLDER)
    verify_offline(project)
    assert damage(project, noise, marker=False) > 0
    yield "entries damaged", verify_offline(project)
    damage(project, noise, marker=True)
    yield "all damaged", verify_offline(project)
    yield "warm after damage", verify_offline(project)


def same_in_every_state(project: Path, monkeypatch: pytest.MonkeyPatch, noise: bytes) -> Results:
    """The results, checked equal in every state of the caches."""
    states = dict(every_state(project, monkeypatch, noise))
    cold = states["cold"]
    for name, results in states.items():
        assert results == cold, name
    return cold


# -- the desk -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def desk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of this repository's claims, snapshots and config, without its cache."""
    root = tmp_path_factory.mktemp("desk")
    shutil.copytree(paths.ROOT / "claims", root / "claims")
    shutil.copytree(
        paths.ROOT / "snapshots",
        root / "snapshots",
        ignore=shutil.ignore_patterns(".cache", "state.json", ".claimcheck.lock", ".tmp-*"),
    )
    shutil.copy(paths.ROOT / "claimcheck.toml", root / "claimcheck.toml")
    return root


def test_the_desk_gets_the_same_verdicts_whatever_the_cache(
    desk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    results = same_in_every_state(desk, monkeypatch, b"\x00\xff{not json")
    assert len(results) == 74
    assert Counter(r["verdict"] for r in results) == {
        "verified": 40,
        "missing": 13,
        "unverified": 21,
    }


# -- generated projects ---------------------------------------------------------------

HELD = ["quantized", "weights", "load", "fast", "on", "every", "GPU", "model", "runs", "local"]
"""The README's words."""
ABSENT = ["zebra", "violin", "harbour", "crimson", "lantern", "orchard", "pebble", "saffron"]
"""Words the README never holds: a quote of them is missing."""

sentences = st.lists(st.sampled_from(HELD), min_size=4, max_size=9).map(
    lambda words: " ".join(words).capitalize() + "."
)
absent_quotes = st.lists(st.sampled_from(ABSENT), min_size=4, max_size=7).map(" ".join)


@st.composite
def projects(draw: Callable[..., Any]) -> tuple[list[str], list[tuple[str, str]]]:
    """A README (its paragraphs) and claims: (quote, the verdict read off by hand)."""
    paragraphs: list[str] = draw(st.lists(sentences, min_size=1, max_size=6, unique=True))
    claims: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(1, 5))):
        if draw(st.booleans()):
            claims.append((draw(st.sampled_from(paragraphs)).rstrip("."), "verified"))
        else:
            claims.append((draw(absent_quotes), "missing"))
    return paragraphs, claims


def write_project(root: Path, paragraphs: list[str], claims: list[tuple[str, str]]) -> None:
    day = dt.datetime.now(dt.UTC).date()
    (root / "claims").mkdir(parents=True)
    lines = ["page: page", f"checked: {day.isoformat()}", "claims:"]
    for number, (quote, _) in enumerate(claims):
        lines += [
            f"  - id: c{number}",
            f"    claim: claim {number}",
            "    source: https://github.com/o/r",
            f"    quote: {json.dumps(quote)}",
        ]
    (root / "claims" / "page.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    readme = "# R\n\n" + "\n\n".join(paragraphs) + "\n"
    store_readme(root / "snapshots", readme, day=day, at=dt.time(0))


@settings(max_examples=8)
@given(projects(), st.binary(min_size=1, max_size=32))
def test_generated_claims_get_the_same_verdicts_whatever_the_cache(
    tmp_path_factory: pytest.TempPathFactory,
    project: tuple[list[str], list[tuple[str, str]]],
    noise: bytes,
) -> None:
    paragraphs, claims = project
    root = tmp_path_factory.mktemp("project")
    write_project(root, paragraphs, claims)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("NO_COLOR", "1")
        results = same_in_every_state(root, monkeypatch, noise)
    assert [(r["id"], r["verdict"]) for r in results] == [
        (f"c{number}", verdict) for number, (_, verdict) in enumerate(claims)
    ]
