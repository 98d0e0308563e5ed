"""A claim's baseline is a fact about its check date: it does not depend on which other
claims share its source's snapshots.

The real CLI against the replay server (llama.cpp's real README history). A version
history gave for one claim's day stands only for the days history vouched for it; a
claim checked later asks history for its own day rather than take the older claim's
version, so its verdict and baseline with a shared store are those it gets alone.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime as dt
import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.claim_files import LLAMA_URL, claim, write_claims, write_fast_config
from support.cli_runs import PROXY_VARS, run, show
from support.corpus_replay import sentences
from support.corpus_snapshots import Version, versions
from support.replay_server import ReplayServer

# Checked 2023-07-15: history gives llama.cpp's README of 2023-06-29 (commit b8c8dda).
QUOTE_A = "4-bit, 5-bit and 8-bit integer quantization support"
# In the README from 2023 to now; its heading moved from "### Contributing" (under a
# section) to "## Contributing" by 2024-12-31 (commit 0827b2c) and stayed there.
QUOTE_B = "Collaborators will be invited based on contributions"

Judged = tuple[str, str | None, str | None]
"""What a claim's verdict is made of here: the verdict, its baseline's date and origin."""


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch, replay: ReplayServer) -> ReplayServer:
    """The API (and the Wayback Machine) at the replay server, no token, no proxy."""
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return replay


def verify(project: Path, claims: Sequence[tuple[str, str, dt.date]]) -> dict[str, Judged]:
    """`claimcheck verify` online in `project` over these claims (id, quote, check date),
    each on its own page; what it judged of each, by id."""
    for stale in (project / "claims").glob("*.yaml"):
        stale.unlink()
    for claim_id, quote, checked in claims:
        entry = claim(claim_id, quote=quote, source=LLAMA_URL)
        page = f"p-{claim_id}"
        write_claims(project / "claims", [entry], f"{page}.yaml", page, checked.isoformat())
    with contextlib.chdir(project):
        result = run("verify", "--format", "json")
    assert result.exit_code in (0, 1), show(result)
    results: list[dict[str, Any]] = json.loads(result.stdout)["results"]
    return {r["id"]: (r["verdict"], r["baseline"], r["baseline_origin"]) for r in results}


def project(root: Path) -> Path:
    """A new project folder with the fast config (no spacing, no expiry)."""
    root.mkdir(parents=True)
    write_fast_config(root)
    return root


def test_a_claim_checked_later_asks_history_for_its_own_day(
    tmp_path: Path, online: ReplayServer
) -> None:
    """Claim A's 2023-06-29 version was taken as in force until the next stored version,
    so claim B, checked 2025-01-10, was judged against it (context-changed) and history
    was never asked for B's day, where B is verified against 2024-12-31."""
    a = ("a", QUOTE_A, dt.date(2023, 7, 15))
    b = ("b", QUOTE_B, dt.date(2025, 1, 10))
    alone = verify(project(tmp_path / "alone"), [b])

    shared = project(tmp_path / "shared")
    first = verify(shared, [a])
    both = verify(shared, [a, b])

    assert alone["b"] == (
        "verified",
        "2024-12-31",
        "commit 0827b2c1da299805288abbd556d869318f2b121e",
    )
    assert first["a"][1:] == ("2023-06-29", "commit b8c8dda75fdf5fdea49c80af36818e7c30fe0ddf")
    assert both["b"] == alone["b"]
    assert both["a"] == first["a"]  # and A's own baseline stays what it was
    index = json.loads(
        (shared / "snapshots/github.com/ggml-org/llama.cpp/README/index.json").read_text()
    )
    vouched = {v["origin"][:14]: v.get("vouched_until") for v in index["versions"]}
    assert vouched == {
        "commit b8c8dda": "2023-07-15",  # from its commit to A's day
        "commit 0827b2c": "2025-01-10",  # from its commit to B's day
        "fetch": None,  # the README fetched now, in force from now on
    }


# -- the property: with a shared store, each claim is judged as it is alone ------------------


@functools.cache
def llama_history() -> tuple[list[Version], list[list[str]]]:
    """llama.cpp's README versions in the corpus, oldest first, and each one's sentences."""
    from support import paths

    found = versions(paths.CORPUS / "ggml-org__llama.cpp")
    return found, [sentences(v.path.read_text(encoding="utf-8")) for v in found]


def in_force(day: dt.date) -> int:
    """The index of the version in force at the end of `day` (the corpus's first one
    before it began)."""
    found, _ = llama_history()
    end = dt.datetime.combine(day, dt.time.max, tzinfo=dt.UTC)
    return max(bisect.bisect_right([v.committed for v in found], end) - 1, 0)


FIRST_DAY = dt.date(2023, 4, 1)
LAST_DAY = dt.date(2026, 8, 31)


@st.composite
def dated_claims(draw: st.DrawFn) -> list[tuple[str, str, dt.date]]:
    """Two or three claims on llama.cpp's README, each checked on its own day with a
    quote from a README version near that day (so some hold, some moved, some went)."""
    _, texts = llama_history()
    count = draw(st.integers(2, 3))
    drawn = []
    for number in range(count):
        day = draw(st.dates(FIRST_DAY, LAST_DAY))
        near = min(max(in_force(day) + draw(st.integers(-2, 0)), 0), len(texts) - 1)
        quote = draw(st.sampled_from(texts[near]))
        drawn.append((f"c{number}", quote, day))
    return drawn


@pytest.mark.slow  # whole runs over the corpus with a shared store
@settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(claims=dated_claims())
def test_a_claims_verdict_with_a_shared_store_is_its_verdict_alone(
    tmp_path_factory: pytest.TempPathFactory,
    online: ReplayServer,
    claims: list[tuple[str, str, dt.date]],
) -> None:
    """The claims are added one run at a time to one project (each run judges all so
    far, over the store the earlier runs left), and each is also judged alone in a
    fresh project: the last shared run judges each as it was judged alone."""
    root = tmp_path_factory.mktemp("shared-store")
    alone = {c[0]: verify(project(root / f"alone-{c[0]}"), [c])[c[0]] for c in claims}
    shared = project(root / "shared")
    for upto in range(1, len(claims) + 1):
        together = verify(shared, claims[:upto])

    assert together == alone, claims
