"""A replayed week of the nightly cycle: what the judge knows reaches the issues, the
offline gate and the next night unchanged.

Ten claims, one of every verdict, on pages a web server on 127.0.0.1 changes from
night to night; one of them is llama.cpp's README as it stood on each night's date
of its real history (the replay server's corpus), so its quantization bullet is
reworded between the second and the third night. Each night runs the real cycle (fetch,
store, judge, reports, issues against the fake GitHub), then the offline gate over the
same store. The expectations are written by hand from what each page says:

- night 1: every page as checked: all verified but the expired, the unverified one;
- night 2: the README reworded (drifted), a sentence removed (missing), a denial now
  said (contradicted), a page gone (source-gone, once: below the issue threshold), a
  docs alias that leads to another version (moved), the heading above a quote now says
  its section is unmaintained (context-changed), a page failing (unreachable, below its
  threshold);
- night 3: the same pages: the moved claim is still moved, the gone page now has an
  issue; nothing else is written;
- the editor accepts the reworded, the moved and the retitled claim, the gone page
  comes back, the failing one answers again;
- night 4: those four issues close; the missing and the contradicted stay open;
- night 5: nothing changes, nothing is written.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from claimcheck.claims.load import load_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.cli.app import app
from claimcheck.config import load_config
from claimcheck.github.issues import GitHubIssues
from claimcheck.nightly.cycle import CycleOutcome, CyclePlan, run_cycle
from claimcheck.report.formats import OutputFormat
from support.claim_files import LLAMA, QUOTE_FEB, write_claims
from support.fake_github import TOKEN, Clock, FakeGitHub, require_spec
from support.replay_server import ReplayServer
from support.stored_page import store_page

# Slow: a week of nightly runs replayed end to end.
pytestmark = pytest.mark.slow

runner = CliRunner()

SERVES = "The server batches incoming requests continuously."


def page(text: str, *, heading: str = "Serving") -> str:
    return f"<html><body><main><h1>{heading}</h1><p>{text}</p></main></body></html>"


HOLDS = "Requests are served over HTTP with an OpenAI-compatible API."
LEAVES = "The scheduler preempts long requests when memory runs out."
OTHER = "Our team meets every Tuesday to plan the roadmap and review designs."
README = "/llama/README.md"
ALIAS, V063, V070 = "/en/latest/serving.html", "/en/v0.6.3/serving.html", "/en/v0.7.0/serving.html"
NIGHTS = [dt.date(2024, 2, 15), dt.date(2024, 3, 15), dt.date(2024, 3, 16), dt.date(2024, 4, 1)]
LONG_AGO = dt.datetime(2025, 6, 1, 12, tzinfo=dt.UTC)  # the expired claim's check date
CHECKED = dt.datetime(2026, 11, 1, 12, tzinfo=dt.UTC)  # the retitled claim's


@pytest.fixture
def week(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer
) -> Iterator[tuple[Path, FakeGitHub]]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", "127.0.0.1")
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    (tmp_path / "claimcheck.toml").write_text(
        "[fetch]\nper_host_interval = 0\n\n[verdict]\nmax_age_days = 365\n", encoding="utf-8"
    )
    with FakeGitHub(require_spec(), repo="desk/site") as github:
        monkeypatch.setenv("GITHUB_API_URL", github.base_url)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        yield tmp_path, github
    assert not github.errors, "\n".join(github.errors)


def claims(project: Path, replay: ReplayServer) -> None:
    today = dt.datetime.now(dt.UTC).date().isoformat()
    url = replay.url
    entries: list[dict[str, str]] = [
        {"id": "holds", "source": url("/docs/holds.html"), "quote": HOLDS},
        {"id": "reworded", "source": url(README), "quote": QUOTE_FEB},
        {"id": "removed", "source": url("/docs/removed.html"), "quote": LEAVES},
        {"id": "denied", "source": url("/docs/denied.html"), "absent": "maintenance mode"},
        {"id": "gone", "source": url("/docs/gone.html"), "quote": HOLDS},
        {"id": "alias", "source": url(ALIAS), "quote": SERVES},
        {"id": "flaky", "source": url("/docs/flaky.html"), "quote": HOLDS},
        {"id": "needs-source", "cited": "the vendor's sales deck"},
    ]
    for entry in entries:
        entry["claim"] = f"the claim {entry['id']}"
    write_claims(project / "claims", entries, checked=today)
    dated = [
        {"id": "retitled", "source": url("/docs/retitled.html"), "quote": SERVES},
        {"id": "old", "source": url("/docs/old.html"), "quote": SERVES},
    ]
    for entry, when in zip(dated, (CHECKED, LONG_AGO), strict=True):
        entry["claim"] = f"the claim {entry['id']}"
        write_claims(
            project / "claims", [entry], name=f"{entry['id']}.yaml", checked=when.date().isoformat()
        )


def serve_as_checked(project: Path, replay: ReplayServer) -> None:
    replay.set_page("/docs/holds.html", page(HOLDS))
    replay.set_page("/docs/removed.html", page(f"{HOLDS} {LEAVES}"))
    replay.set_page("/docs/denied.html", page(HOLDS))
    replay.set_page("/docs/gone.html", page(HOLDS))
    replay.set_page("/docs/flaky.html", page(HOLDS))
    replay.set_page(V063, page(SERVES))
    replay.set_page(V070, page(f"Version 0.7 adds streaming. {SERVES}"))
    replay.redirect(ALIAS, V063, 302)
    for name, when in (("retitled", CHECKED), ("old", LONG_AGO)):
        source = replay.url(f"/docs/{name}.html")
        replay.set_page(f"/docs/{name}.html", page(SERVES))
        store_page(project / "snapshots", source, page(SERVES), when)  # the check day's


def readme_on(replay: ReplayServer, day: dt.date) -> None:
    body = replay.readme_as_of(LLAMA, day)
    assert body is not None
    replay.set_page(README, body, content_type="text/markdown; charset=utf-8")


def night(github: FakeGitHub) -> tuple[CycleOutcome, dict[str, str]]:
    """One night of the cycle, and each claim's verdict in its JSON report."""
    clock = Clock()
    client = functools.partial(GitHubIssues, sleep=clock.sleep, clock=clock.time)
    config = load_config(None)
    plan = CyclePlan(
        outputs=((OutputFormat.JSON, Path("out/report.json")),), issue_repo="desk/site"
    )
    outcome = run_cycle(
        load_claims(config.claim_paths, read=read_document), config, plan, issues_client=client
    )
    assert not outcome.abandoned, outcome
    return outcome, verdicts_in(json.loads(Path("out/report.json").read_text()))


def verdicts_in(document: dict[str, Any]) -> dict[str, str]:
    return {row["id"]: row["verdict"] for row in document["results"]}


def offline_gate() -> dict[str, str]:
    """What `verify --offline`, the pull request's gate, says of the same store."""
    result = runner.invoke(app, ["verify", "--offline", "--format", "json"])
    assert result.exit_code in (0, 1, 3), result.output
    return verdicts_in(json.loads(result.stdout))


def open_issues(github: FakeGitHub) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for issue in github.open_issues():
        claim_id = issue.title.split(" for claim ")[1].split()[0]
        assert claim_id not in found, f"two open issues for {claim_id}"
        found[claim_id] = sorted(issue.labels)
    return found


def writes(github: FakeGitHub, since: int) -> list[str]:
    return [f"{r.method} {r.path}" for r in github.requests[since:] if r.method != "GET"]


def accept(claim_id: str) -> None:
    result = runner.invoke(app, ["accept", claim_id])
    assert result.exit_code == 0, result.output


def test_a_replayed_week_files_every_claim_to_act_on_once_and_closes_it_when_settled(
    week: tuple[Path, FakeGitHub], replay: ReplayServer
) -> None:
    project, github = week
    claims(project, replay)
    serve_as_checked(project, replay)
    stale, review = ["claimcheck", "stale"], ["claimcheck", "review"]

    # Night 1: as checked.
    readme_on(replay, NIGHTS[0])
    _, first = night(github)
    assert first == {
        "holds": "verified",
        "reworded": "verified",
        "removed": "verified",
        "denied": "verified",
        "gone": "verified",
        "alias": "verified",
        "flaky": "verified",
        "needs-source": "unverified",
        "retitled": "verified",
        "old": "expired",
    }
    assert offline_gate() == first
    assert open_issues(github) == {}

    # Night 2: every kind of change.
    readme_on(replay, NIGHTS[1])
    replay.set_page("/docs/removed.html", page(f"{HOLDS} {OTHER}"))
    replay.set_page("/docs/denied.html", page(f"{HOLDS} The project is now in maintenance mode."))
    replay.remove_page("/docs/gone.html")
    replay.redirect(ALIAS, V070, 302)
    replay.set_page("/docs/retitled.html", page(SERVES, heading="Legacy serving, unmaintained"))
    replay.fail("/docs/flaky.html", 503, times=None)
    outcome, second = night(github)
    expected = {
        "holds": "verified",
        "reworded": "drifted",
        "removed": "missing",
        "denied": "contradicted",
        "gone": "source-gone",
        "alias": "moved",
        "flaky": "unreachable",
        "needs-source": "unverified",
        "retitled": "context-changed",
        "old": "expired",
    }
    assert second == expected
    assert offline_gate() == expected
    assert open_issues(github) == {
        "reworded": stale,
        "removed": stale,
        "denied": stale,
        "alias": review,
        "retitled": review,
    }
    assert outcome.exit_code == 1

    # Night 3: nothing new upstream. The move stands until a person acts on it; the
    # gone page has been gone two nights: now it gets its issue.
    readme_on(replay, NIGHTS[2])
    mark = len(github.requests)
    _, third = night(github)
    assert third == expected
    assert offline_gate() == expected
    assert open_issues(github) == {
        "reworded": stale,
        "removed": stale,
        "denied": stale,
        "gone": stale,
        "alias": review,
        "retitled": review,
    }
    assert [w for w in writes(github, mark) if w.startswith("POST")] == [
        "POST /repos/desk/site/issues"
    ]

    # The editor accepts what they reviewed; the gone page and the failing one are back.
    for claim_id in ("reworded", "alias", "retitled"):
        accept(claim_id)
    replay.set_page("/docs/gone.html", page(HOLDS))
    replay.fail("/docs/flaky.html", 503, times=0)

    # Night 4: what was settled closes; what was not stays open, once.
    readme_on(replay, NIGHTS[3])
    _, fourth = night(github)
    settled = {
        **expected,
        "reworded": "verified",
        "gone": "verified",
        "alias": "verified",
        "flaky": "verified",
        "retitled": "verified",
    }
    assert fourth == settled
    assert offline_gate() == settled
    assert open_issues(github) == {"removed": stale, "denied": stale}
    closed = [i for i in github.issues.values() if i.state == "closed"]
    assert sorted(i.title.split(" for claim ")[1].split()[0] for i in closed) == [
        "alias",
        "gone",
        "retitled",
        "reworded",
    ]
    assert all(i.state_reason == "completed" for i in closed)
    assert len(github.issues) == 6  # each claim to act on had one issue, once

    # Night 5: nothing changed; nothing is written.
    mark = len(github.requests)
    _, fifth = night(github)
    assert fifth == settled
    assert writes(github, mark) == []
