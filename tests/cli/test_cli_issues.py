"""End to end: `claimcheck issues` against the fake GitHub, night after night.

Verdicts come from JSON reports written with the real report code, or from a real
`verify` against the README-history replay server. Every wait of the GitHub client is
recorded on a fake clock instead of slept, so rate limits and write spacing cost no
time; the fake checks every request against GitHub's OpenAPI description.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from typer.testing import CliRunner, Result

from claimcheck.cli.app import app
from claimcheck.cli.work import issues as cli_issues
from claimcheck.github.body import issue_body, parse_marker
from claimcheck.github.issues import GitHubIssues
from claimcheck.models import ClaimResult, Verdict
from claimcheck.report.build import build_report, report_document
from claimcheck.store.state import RunState, SourceState, save_state
from support.claim_results import FOUND, QUOTE, SOURCE, result
from support.fake_github import BOT, TOKEN, Clock, FakeGitHub, FakeIssue, require_spec
from support.replay_server import ReplayServer

REPO = "desk/site"
LLAMA_URL = "https://github.com/ggml-org/llama.cpp"
QUOTE_MAR = "1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"
FEB_15, MAR_15 = dt.date(2024, 2, 15), dt.date(2024, 3, 15)
PAGE_HTML = f"<html><body><p>Supports {QUOTE_MAR}.</p></body></html>"
CONTRIBUTING = "Collaborators will be invited based on contributions"
HOSTILE = "ask @someone, see #123 <!-- then\n```\nfenced ``` code\n```"

runner = CliRunner()


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(require_spec(), repo=REPO) as fake:
        yield fake
    assert not fake.errors, "\n".join(fake.errors)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, github: FakeGitHub, clock: Clock
) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_API_URL", github.base_url)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_REPOSITORY", REPO)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    client = functools.partial(GitHubIssues, sleep=clock.sleep, clock=clock.time)
    monkeypatch.setattr(cli_issues, "github_client", client)
    (tmp_path / "snapshots").mkdir()
    return tmp_path


def issues(*args: str, env: dict[str, str] | None = None) -> Result:
    """`claimcheck issues ...`; the token must never show in what it prints."""
    outcome = runner.invoke(app, ["issues", *args], env=env, catch_exceptions=False)
    assert TOKEN not in outcome.stdout + outcome.stderr
    return outcome


def night(
    results: Sequence[ClaimResult],
    *args: str,
    sources: dict[str, SourceState] | None = None,
    claimed: Sequence[str] | None = None,
) -> Result:
    """One nightly run over a JSON report of `results` (and the sources' failure counts),
    the claim files holding `claimed` (default: the results' claims, a whole run)."""
    write_report(results, claimed)
    save_state(Path("snapshots"), RunState(sources=sources or {}))
    outcome = issues("--report", "report.json", *args)
    assert outcome.exit_code == 0, show(outcome)
    return outcome


def write_report(results: Sequence[ClaimResult], claimed: Sequence[str] | None = None) -> None:
    """report.json as `verify --output json=report.json` writes it, and the claim files
    it was made from: those of `claimed`, by default the results' (a whole run's)."""
    report = build_report(results, now=dt.datetime.now(dt.UTC), offline=False)
    Path("report.json").write_text(json.dumps(report_document(report)), encoding="utf-8")
    ids = [r.claim.id for r in results] if claimed is None else claimed
    write_claims(
        Path("claims"), [{"id": i, "claim": "c", "source": SOURCE, "quote": QUOTE} for i in ids]
    )


def show(outcome: Result) -> str:
    return f"exit {outcome.exit_code}\n--- stdout\n{outcome.stdout}\n--- stderr\n{outcome.stderr}"


def writes(github: FakeGitHub, start: int = 0) -> list[str]:
    """The write operations since request `start`, as `operation #number`."""
    done = []
    for request in github.requests[start:]:
        if request.method != "GET":
            number = re.search(r"/issues/(\d+)", request.path)
            done.append(f"{request.operation} #{number[1] if number else '-'}")
    return done


def write_claims(folder: Path, entries: list[dict[str, str]]) -> None:
    lines = ["page: page", "checked: 2026-10-20", "claims:"]
    for entry in entries:
        for position, (key, value) in enumerate(entry.items()):
            lines.append(f"{'  - ' if position == 0 else '    '}{key}: {json.dumps(value)}")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "page.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def ours(github: FakeGitHub) -> list[FakeIssue]:
    return [i for i in github.issues.values() if parse_marker(i.body) is not None]


# -- the lifecycle, night after night --------------------------------------------------


def test_one_issue_per_stale_claim_for_its_whole_life(project: Path, github: FakeGitHub) -> None:
    first = night([result()])
    (issue,) = github.issues.values()
    assert issue.labels == ["claimcheck", "stale"]
    assert issue.author == BOT
    assert "quant" in issue.title
    assert issue.body is not None
    assert issue.body.startswith("<!-- claimcheck:v1 claim=quant hash=sha256:")
    assert "create" in first.stdout
    assert writes(github) == ["issues/create-label #-"] * 2 + ["issues/create #-"]
    assert [label["name"] for label in github.labels.values()] == ["claimcheck", "stale"]

    mark = len(github.requests)
    second = night([result()])
    assert writes(github, mark) == []  # same finding: nothing written
    assert "same finding as #1" in second.stdout

    mark = len(github.requests)
    night([result(found=FOUND + " and more")])
    assert writes(github, mark) == ["issues/update #1"]  # finding changed, verdict did not

    mark = len(github.requests)
    night([result(verdict=Verdict.MISSING)])
    assert writes(github, mark) == ["issues/update #1", "issues/create-comment #1"]
    assert "drifted" in issue.comments[-1]
    assert "missing" in issue.comments[-1]

    mark = len(github.requests)
    night([result(verdict=Verdict.VERIFIED)])
    assert writes(github, mark) == ["issues/create-comment #1", "issues/update #1"]
    assert (issue.state, issue.state_reason, issue.closed_by) == ("closed", "completed", BOT)

    mark = len(github.requests)
    night([result()])
    assert writes(github, mark) == ["issues/update #1", "issues/create-comment #1"]
    assert (issue.state, issue.state_reason) == ("open", "reopened")

    github.close(1, "not_planned", by="alice")
    mark = len(github.requests)
    respected = night([result(verdict=Verdict.MISSING)])
    assert writes(github, mark) == []
    assert issue.state == "closed"
    assert "@alice" in respected.stdout
    assert len(github.issues) == 1


def test_a_removed_claim_is_closed_as_not_planned(project: Path, github: FakeGitHub) -> None:
    night([result("gone-claim"), result("kept", Verdict.VERIFIED)])
    night([result("kept", Verdict.VERIFIED)])
    (issue,) = github.issues.values()
    assert (issue.state, issue.state_reason) == ("closed", "not_planned")
    assert "no longer in the claim files" in issue.comments[-1]


def test_a_claim_left_out_of_the_report_but_in_the_claim_files_keeps_its_issue(
    project: Path, github: FakeGitHub
) -> None:
    """A partial report (a shard's from before reports named their shard, a verify over
    some claim files) is not a removal: the claim's issue is neither closed nor touched."""
    night([result("kept"), result("left-out")])
    kept, left_out = github.issues.values()

    mark = len(github.requests)
    partial = night([result("kept")], claimed=["kept", "left-out"])

    assert writes(github, mark) == []  # no comment, no close: nothing written at all
    assert (kept.state, left_out.state) == ("open", "open")
    line = rf"^nothing +#{left_out.number} +left-out  in the claim files but not in the report"
    assert re.search(line, partial.stdout, re.M), show(partial)
    assert (
        "note: a claim with an open issue is in the claim files but not in the report, so its "
        "issue is left as it is: left-out; give the report of a whole run"
    ) in partial.stderr

    night([result("kept")])  # now it is gone from the claim files too
    assert (left_out.state, left_out.state_reason) == ("closed", "not_planned")
    assert kept.state == "open"


def test_a_shards_report_is_refused_before_github_is_asked(
    project: Path, github: FakeGitHub
) -> None:
    write_report([result("a")])
    document = json.loads(Path("report.json").read_text(encoding="utf-8"))
    Path("shard.json").write_text(json.dumps({**document, "shard": {"index": 1, "count": 2}}))

    outcome = issues("--report", "shard.json")

    assert outcome.exit_code == 2, show(outcome)
    assert outcome.stderr.startswith("error: shard.json is the report of shard 1/2 only"), show(
        outcome
    )
    assert "hint: merge the reports of every shard first with `claimcheck report merge" in (
        outcome.stderr
    )
    assert "Traceback" not in outcome.stderr
    assert github.requests == []


def test_without_the_claim_files_nothing_is_closed_as_removed(
    project: Path, github: FakeGitHub
) -> None:
    """They alone tell a removed claim from one the report leaves out: without them,
    `issues --report` stops as every command without its claims does."""
    write_report([result()])
    shutil.rmtree("claims")

    outcome = issues("--report", "report.json")

    assert outcome.exit_code == 2, show(outcome)
    assert outcome.stderr.startswith(f"error: no claims folder at {project / 'claims'} ")
    assert "Traceback" not in outcome.stderr
    assert github.requests == []


def test_duplicates_collapse_to_the_oldest(project: Path, github: FakeGitHub) -> None:
    body = issue_body(result())
    for _ in range(3):
        github.add_issue("old", body)
    night([result()])
    first, *rest = github.issues.values()
    assert first.state == "open"
    for duplicate in rest:
        assert (duplicate.state, duplicate.state_reason) == ("closed", "duplicate")
        assert "Duplicate of #1" in duplicate.comments[-1]
    updates = [r.body for r in github.requests if r.operation == "issues/update"]
    closes = [b for b in updates if b.get("state") == "closed"]
    assert len(closes) == 2
    assert all(b["duplicate_issue_id"] == first.id for b in closes)
    assert first.labels == ["claimcheck", "stale"]  # the kept one gains its kind label


def test_other_peoples_markers_are_not_trusted(project: Path, github: FakeGitHub) -> None:
    github.add_issue("forged", issue_body(result()), author="mallory")
    github.add_issue("a pull request", issue_body(result()), pull_request=True)
    night([result()])
    assert [i.number for i in github.open_issues() if i.author == BOT] == [3]


def test_pagination_past_100_issues_finds_the_open_one(project: Path, github: FakeGitHub) -> None:
    for n in range(120):
        old = github.add_issue(f"old {n}", issue_body(result(f"old-{n}")))
        github.close(old.number, "completed", by=BOT)
    night([result()])
    assert github.issues[121].state == "open"

    mark = len(github.requests)
    night([result()])
    assert writes(github, mark) == []
    pages = [r for r in github.requests[mark:] if r.operation == "issues/list-for-repo"]
    assert len(pages) == 2


def test_max_new_caps_creations(project: Path, github: FakeGitHub) -> None:
    """Past the cap the run says so and exits 4; the next run creates the rest."""
    write_report([result("a"), result("b"), result("c")])
    outcome = issues("--report", "report.json", "--max-new", "2")
    assert outcome.exit_code == 4, show(outcome)
    assert sorted(parse_marker(i.body).claim_id for i in ours(github)) == ["a", "b"]  # type: ignore[union-attr]
    assert "not created this run: the cap is 2 new issues" in outcome.stdout
    assert "cap reached: created 2 new issues" in outcome.stderr
    assert "1 more claim needs one" in outcome.stderr
    night([result("a"), result("b"), result("c")], "--max-new", "2")
    assert len(github.issues) == 3


def test_source_gone_needs_two_nights(project: Path, github: FakeGitHub) -> None:
    gone = result(verdict=Verdict.SOURCE_GONE, reason="HTTP 404")
    night([gone], sources={SOURCE: SourceState(gone=1)})
    assert github.issues == {}
    night([gone], sources={SOURCE: SourceState(gone=2)})
    assert len(github.issues) == 1


def test_a_hostile_quote_stays_inert(project: Path, github: FakeGitHub) -> None:
    night([result(quote=HOSTILE, found=HOSTILE + " -->", diff=f"[-{HOSTILE}-]")])
    (issue,) = github.issues.values()
    assert issue.body is not None
    html = str(
        cmarkgfm.github_flavored_markdown_to_html(issue.body, options=Options.CMARK_OPT_UNSAFE)
    )
    shown = re.sub(r"<(?!!--)[^>]*>", "", html)
    assert html.count("<!--") == 2
    assert "How to accept or fix" in shown
    assert "@someone" not in shown
    assert not re.search(r"#\d", issue.body)
    assert "fenced ``` code" in shown


# -- GitHub's limits and failures ------------------------------------------------------


def test_a_rate_limited_create_lists_again_before_retrying(
    project: Path, github: FakeGitHub, clock: Clock
) -> None:
    github.inject(429, headers={"Retry-After": "20"}, operation="issues/create")
    outcome = night([result()])
    assert 20.0 in clock.sleeps
    ops = [r.operation for r in github.requests]
    first_create = ops.index("issues/create")
    assert ops[first_create + 1] == "issues/list-for-repo"
    assert ops.count("issues/create") == 2
    assert len(github.issues) == 1
    assert "listing again" in outcome.stderr


def test_a_create_that_went_through_is_not_filed_twice(project: Path, github: FakeGitHub) -> None:
    github.inject(502, operation="issues/create", apply=True)
    night([result()])
    assert len(github.issues) == 1
    assert [r.operation for r in github.requests].count("issues/create") == 1


def test_a_spent_quota_is_waited_out(project: Path, github: FakeGitHub, clock: Clock) -> None:
    night([result()])
    reset = str(int(clock.now) + 45)
    headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}
    github.inject(403, headers=headers, operation="issues/update")
    night([result(verdict=Verdict.VERIFIED)])
    assert clock.now > int(reset)  # waited until the reset, without sleeping for real
    assert max(clock.sleeps) > 40
    assert github.issues[1].state == "closed"


def test_writes_are_spaced(project: Path, github: FakeGitHub, clock: Clock) -> None:
    night([result("a"), result("b"), result("c")])
    assert clock.sleeps.count(1.0) == 4  # two labels, then three creates: four gaps


def test_a_rate_limit_too_long_to_wait_exits_3(project: Path, github: FakeGitHub) -> None:
    github.inject(429, headers={"Retry-After": "7200"}, operation="issues/create")
    write_report([result()])
    outcome = issues("--report", "report.json")
    assert outcome.exit_code == 3, show(outcome)
    assert "rate limited until" in outcome.stderr
    assert github.issues == {}


def test_dropped_labels_stop_the_run(project: Path, github: FakeGitHub) -> None:
    github.push_access = False
    write_report([result("a"), result("b")])
    outcome = issues("--report", "report.json")
    assert outcome.exit_code == 2, show(outcome)
    assert "without the label" in outcome.stderr
    assert len(github.issues) == 1


def test_github_actions_token_writes_as_its_bot(project: Path, github: FakeGitHub) -> None:
    github.tokens[TOKEN] = "github-actions[bot]"
    github.user_forbidden = True
    write_report([result()])
    refused = issues("--report", "report.json")
    assert refused.exit_code == 2
    for _ in range(2):
        done = issues("--report", "report.json", env={"GITHUB_ACTIONS": "true"})
        assert done.exit_code == 0, show(done)
    assert len(github.issues) == 1


# -- dry runs and usage ----------------------------------------------------------------


def test_dry_run_writes_nothing_and_needs_no_token(
    project: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    night([result("a")])
    monkeypatch.delenv("GITHUB_TOKEN")
    mark = len(github.requests)
    outcome = night([result("a", Verdict.VERIFIED), result("b")], "--dry-run")
    assert writes(github, mark) == []
    assert "would close (completed)" in outcome.stdout
    assert "would create" in outcome.stdout
    assert "dry run" in outcome.stderr
    assert all("authorization" not in r.headers for r in github.requests[mark:])


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        ([], {"GITHUB_TOKEN": ""}, "GITHUB_TOKEN is not set"),
        ([], {"GITHUB_REPOSITORY": ""}, "no repository"),
        (["--repo", "not-a-repo"], {}, "expected OWNER/NAME"),
        (["--label", "a,b"], {}, "--label"),
    ],
    ids=["no-token", "no-repo", "bad-repo", "bad-label"],
)
def test_usage_errors_exit_2(
    project: Path, github: FakeGitHub, args: list[str], env: dict[str, str], message: str
) -> None:
    write_report([result()])
    outcome = issues("--report", "report.json", *args, env=env)
    assert outcome.exit_code == 2, show(outcome)
    assert message in outcome.stderr
    assert github.requests == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "cannot read the report"),
        ('{"schema_version": 1, "results": []}', "holds no claims"),
        ('{"schema_version": 99, "results": []}', "schema_version"),
        ('{"results": "x"}', "no `results` list"),
    ],
    ids=["not-json", "empty", "newer", "not-a-report"],
)
def test_bad_reports_exit_2(project: Path, github: FakeGitHub, content: str, message: str) -> None:
    Path("report.json").write_text(content)
    outcome = issues("--report", "report.json")
    assert outcome.exit_code == 2, show(outcome)
    assert message in outcome.stderr


def test_a_wrong_token_exits_2(project: Path, github: FakeGitHub) -> None:
    write_report([result()])
    outcome = issues("--report", "report.json", env={"GITHUB_TOKEN": "ghp_wrong"})
    assert outcome.exit_code == 2
    assert "HTTP 401" in outcome.stderr
    assert "ghp_wrong" not in outcome.stderr


# -- with a real verify over the README-history replay ---------------------------------


def test_llama_cpp_nights_from_the_corpus(
    project: Path, github: FakeGitHub, replay: ReplayServer
) -> None:
    write_claims(
        project / "claims",
        [{"id": "quant", "claim": "1.5- to 8-bit", "source": LLAMA_URL, "quote": QUOTE_MAR}],
    )

    def replayed(as_of: dt.date | None) -> Result:
        replay.as_of = as_of
        verified = runner.invoke(
            app,
            ["verify", "--format", "json", "--output", "json=report.json", "--no-progress"],
            env={"GITHUB_API_URL": replay.base_url},
            catch_exceptions=False,
        )
        assert verified.exit_code in (0, 1), show(verified)
        outcome = issues("--report", "report.json")
        assert outcome.exit_code == 0, show(outcome)
        return outcome

    replayed(FEB_15)  # the README did not say 1.5-bit yet: drifted
    (issue,) = github.issues.values()
    assert issue.state == "open"
    assert issue.body is not None
    assert "8-bit integer quantization" in issue.body
    assert "[-1.5-bit,-]" in issue.body or "1.5-bit" in issue.body

    mark = len(github.requests)
    replayed(FEB_15)
    assert writes(github, mark) == []

    replayed(MAR_15)  # the quote is there now: closed as completed
    assert (issue.state, issue.state_reason) == ("closed", "completed")

    mark = len(github.requests)
    replayed(None)  # still there at the head
    assert writes(github, mark) == []


def test_an_unreachable_source_is_filed_on_the_third_night(
    project: Path, github: FakeGitHub, replay: ReplayServer
) -> None:
    url = replay.set_page("/docs/flaky.html", PAGE_HTML)
    write_claims(
        project / "claims", [{"id": "flaky", "claim": "c", "source": url, "quote": QUOTE_MAR}]
    )
    replay.fail("/docs/flaky.html", status=503, times=None, headers={"Retry-After": "0"})
    (project / "claimcheck.toml").write_text("[fetch]\nretries = 0\nper_host_interval = 0\n")

    for expected in (0, 0, 1):
        outcome = issues("--unreachable-after", "3")  # no --report: runs verify itself
        assert outcome.exit_code == 0, show(outcome)
        assert len(github.issues) == expected
        if not expected:
            assert "below the threshold" in outcome.stdout
    assert "unreachable" in github.issues[1].title

    replay.fail("/docs/flaky.html", times=0)
    outcome = issues()
    assert outcome.exit_code == 0, show(outcome)
    assert (github.issues[1].state, github.issues[1].state_reason) == ("closed", "completed")


# -- stale and review issues, told apart by their labels -------------------------------

EVERY_VERDICT = {
    # claim id: (verdict, the source's failed runs so far, the labels of its issue or None)
    "holds": (Verdict.VERIFIED, 0, None),
    "reworded": (Verdict.DRIFTED, 0, ("claimcheck", "stale")),
    "removed": (Verdict.MISSING, 0, ("claimcheck", "stale")),
    "denied": (Verdict.CONTRADICTED, 0, ("claimcheck", "stale")),
    "gone": (Verdict.SOURCE_GONE, 2, ("claimcheck", "stale")),
    "caution": (Verdict.CONTEXT_CHANGED, 0, ("claimcheck", "review")),
    "alias": (Verdict.MOVED, 0, ("claimcheck", "review")),
    "old": (Verdict.EXPIRED, 0, None),
    "flaky": (Verdict.UNREACHABLE, 1, None),
    "unknown": (Verdict.UNVERIFIED, 0, None),
}


def every_verdict() -> tuple[list[ClaimResult], dict[str, SourceState]]:
    """One claim of each verdict, each on its own source, with its failure counts."""
    results, sources = [], {}
    for claim_id, (verdict, runs, _) in EVERY_VERDICT.items():
        source = f"https://docs.example.org/{claim_id}"
        results.append(result(claim_id, verdict, source=source))
        sources[source] = SourceState(failures=runs, gone=runs)
    return results, sources


def filed(github: FakeGitHub) -> dict[str, tuple[str, ...]]:
    """Our open issues: claim id -> labels."""
    found = {}
    for issue in github.open_issues():
        marker = parse_marker(issue.body)
        assert marker is not None
        assert marker.claim_id not in found, f"two open issues for {marker.claim_id}"
        found[marker.claim_id] = tuple(issue.labels)
    return found


def test_every_stale_and_review_claim_gets_one_issue_with_its_kind(
    project: Path, github: FakeGitHub
) -> None:
    results, sources = every_verdict()

    first = night(results, sources=sources)

    expected = {i: labels for i, (_, _, labels) in EVERY_VERDICT.items() if labels is not None}
    assert filed(github) == expected
    assert re.search(r"^create +#\d+ +denied  contradicted: ", first.stdout, re.M), show(first)
    expired = r"^nothing +- +old  expired: files no issue here \(`\[issues\] expired = false`\)"
    assert re.search(expired, first.stdout, re.M), show(first)
    assert re.search(r"^nothing +- +flaky  unreachable on 1 consecutive run", first.stdout, re.M)
    assert "need an issue: 4 stale, 2 review; done: 6 create, 2 nothing" in first.stderr
    assert {label["name"] for label in github.labels.values()} == {"claimcheck", "stale", "review"}
    review = next(i for i in github.open_issues() if "review" in i.labels and "caution" in i.title)
    assert review.body is not None
    assert "claimcheck accept caution" in review.body
    stale = next(i for i in github.open_issues() if "denied" in i.title)
    assert "source contradicts it" in stale.title

    mark = len(github.requests)
    night(results, sources=sources)
    assert writes(github, mark) == []  # the same night again: nothing to do
    assert filed(github) == expected


def test_review_false_files_no_review_issues(project: Path, github: FakeGitHub) -> None:
    Path("claimcheck.toml").write_text("[issues]\nreview = false\n", encoding="utf-8")
    results, sources = every_verdict()

    outcome = night(results, sources=sources)

    assert set(filed(github)) == {"reworded", "removed", "denied", "gone"}
    line = r"^nothing +- +caution  context-changed: files no issue here \(`\[issues\] review"
    assert re.search(line, outcome.stdout, re.M), show(outcome)
    assert "review" not in {label["name"] for label in github.labels.values()}


def test_expired_is_filed_only_when_asked(project: Path, github: FakeGitHub) -> None:
    old = result("old", Verdict.EXPIRED)
    night([old])
    assert github.issues == {}

    Path("claimcheck.toml").write_text("[issues]\nexpired = true\n", encoding="utf-8")
    night([old])
    assert filed(github) == {"old": ("claimcheck", "review")}


def test_labels_come_from_the_config(project: Path, github: FakeGitHub) -> None:
    Path("claimcheck.toml").write_text(
        '[issues]\nlabel = "claims"\nstale_label = "fix me"\nreview_label = "look again"\n',
        encoding="utf-8",
    )
    night([result("a"), result("b", Verdict.MOVED)])
    assert sorted(tuple(i.labels) for i in github.open_issues()) == [
        ("claims", "fix me"),
        ("claims", "look again"),
    ]
    listed = [r for r in github.requests if r.operation == "issues/list-for-repo"]
    assert {r.query["labels"] for r in listed} == {"claims"}


BAD_ISSUES_SECTIONS = {
    "not-a-boolean": (
        "[issues]\nreview = 1\n",
        "claimcheck.toml:2: issues.review: Input should be a valid boolean",
    ),
    "unknown-key": (
        "[issues]\nexpired = true\nreviews = true\n",
        "claimcheck.toml:3: issues.reviews: unknown key",
    ),
    "comma": (
        '[issues]\nstale_label = "a,b"\n',
        "claimcheck.toml:2: issues.stale_label: must be a label name",
    ),
    "same-label": (
        '[issues]\nreview_label = "Stale"\n',
        "claimcheck.toml:1: issues: label, stale_label and review_label must be three different",
    ),
}


@pytest.mark.parametrize(
    ("toml", "message"), BAD_ISSUES_SECTIONS.values(), ids=BAD_ISSUES_SECTIONS.keys()
)
def test_a_bad_issues_section_exits_2_naming_file_line_and_key(
    project: Path, github: FakeGitHub, toml: str, message: str
) -> None:
    Path("claimcheck.toml").write_text(toml, encoding="utf-8")
    write_report([result()])
    outcome = issues("--report", "report.json")
    assert outcome.exit_code == 2, show(outcome)
    assert f"error: {message}" in outcome.stderr
    assert "Traceback" not in outcome.stderr
    assert github.requests == []


def test_an_issue_filed_before_kind_labels_is_kept_and_gains_its_label(
    project: Path, github: FakeGitHub
) -> None:
    """An issue an older claimcheck filed (labelled `claimcheck`, with the marker) is
    still the claim's: no second issue; it gains `stale`, and a person's label stays."""
    old = github.add_issue("old title", issue_body(result()), labels=("claimcheck", "priority"))
    night([result()])
    assert len(github.issues) == 1
    assert old.labels == ["claimcheck", "priority", "stale"]
    assert writes(github) == ["issues/create-label #-", "issues/update #1"]


def test_a_stale_issue_that_turns_to_review_swaps_its_kind_label(
    project: Path, github: FakeGitHub
) -> None:
    night([result()])
    (issue,) = github.issues.values()
    night([result(verdict=Verdict.CONTEXT_CHANGED)])
    assert issue.state == "open"
    assert issue.labels == ["claimcheck", "review"]
    assert "from **drifted** to **context-changed**" in issue.comments[-1]


def test_a_review_issue_closes_once_the_claim_is_accepted(
    project: Path, github: FakeGitHub, replay: ReplayServer
) -> None:
    """At the README's head the Contributing sentence holds verbatim, but the headings
    over it changed since 2024-03-15: context-changed, a review issue. A person accepts
    the claim; the next verify says verified, and the sync closes the issue."""
    Path("claimcheck.toml").write_text(
        "[fetch]\nper_host_interval = 0\n\n[verdict]\nmax_age_days = 0\n", encoding="utf-8"
    )
    claims = [{"id": "contributing", "claim": "c", "source": LLAMA_URL, "quote": CONTRIBUTING}]
    write_claims(project / "claims", claims)
    claim_file = project / "claims" / "page.yaml"
    claim_file.write_text(
        claim_file.read_text(encoding="utf-8").replace("2026-10-20", "2024-03-15"),
        encoding="utf-8",
    )
    replay.as_of = None

    def verified_then_synced() -> Result:
        verified = runner.invoke(
            app,
            ["verify", "--format", "json", "--output", "json=report.json", "--no-progress"],
            env={"GITHUB_API_URL": replay.base_url},
            catch_exceptions=False,
        )
        assert verified.exit_code in (0, 1), show(verified)
        outcome = issues("--report", "report.json")
        assert outcome.exit_code == 0, show(outcome)
        return outcome

    verified_then_synced()
    (issue,) = github.issues.values()
    assert (issue.state, issue.labels) == ("open", ["claimcheck", "review"])
    assert issue.body is not None
    assert "`context-changed`" in issue.body
    assert "claimcheck accept contributing" in issue.body

    mark = len(github.requests)
    verified_then_synced()  # not accepted yet: the issue stays as it is
    assert writes(github, mark) == []

    accepted = runner.invoke(app, ["accept", "contributing"], catch_exceptions=False)
    assert accepted.exit_code == 0, show(accepted)
    verified_then_synced()
    assert (issue.state, issue.state_reason) == ("closed", "completed")
    assert "**verified**" in issue.comments[-1]
    assert "accepted" in issue.comments[-1]

    mark = len(github.requests)
    verified_then_synced()
    assert writes(github, mark) == []


def test_a_kind_label_github_drops_stops_the_run(project: Path, github: FakeGitHub) -> None:
    """Without push access GitHub drops the labels of an update silently: said, exit 2,
    rather than setting them again in vain every night."""
    github.add_issue("old title", issue_body(result()), labels=("claimcheck",))
    github.push_access = False
    write_report([result()])
    outcome = issues("--report", "report.json")
    assert outcome.exit_code == 2, show(outcome)
    assert "error: issue #1 was saved without the label(s) 'stale'" in outcome.stderr
    assert "Traceback" not in outcome.stderr


# -- a report is input from outside: only claims in the claim files, a cap on creates ----


def test_a_claim_in_no_claim_file_files_nothing_and_is_named(
    project: Path, github: FakeGitHub
) -> None:
    """A report naming claims no claim file holds creates nothing for them and reopens
    none of their issues (on main it filed `ghost` and reopened `ghost-closed`'s)."""
    closed = github.add_issue(
        "old", issue_body(result("ghost-closed"), failures=0), labels=("claimcheck", "stale")
    )
    github.close(closed.number, "completed", by=BOT)
    forged = [result("real"), result("ghost"), result("ghost-closed", found="other words")]
    write_report(forged, claimed=["real"])
    mark = len(github.requests)

    outcome = issues("--report", "report.json")

    assert outcome.exit_code == 0, show(outcome)
    assert writes(github, mark) == ["issues/create #-"]
    (created,) = [i for i in ours(github) if i.state == "open"]
    assert parse_marker(created.body).claim_id == "real"  # type: ignore[union-attr]
    assert github.issues[closed.number].state == "closed"
    assert github.issues[closed.number].comments == []
    skipped = [line for line in outcome.stdout.splitlines() if "in no claim file" in line]
    assert [line.split()[2] for line in skipped] == ["ghost", "ghost-closed"]
    assert "no claim file holds" in outcome.stderr
    assert "ghost, ghost-closed" in outcome.stderr


def test_a_forged_report_of_3000_claims_creates_max_new_a_run(
    project: Path, github: FakeGitHub
) -> None:
    """3,000 stale claims, all in the claim files: the default cap (`[issues] max_new`,
    20) creates 20, says so and exits 4; the next run creates the next 20 in order."""
    ids = [f"claim-{n:04d}" for n in range(3000)]
    for start in range(0, 3000, 100):  # a claim file holds at most 128 KiB
        write_claims_file(Path("claims") / f"page-{start:04d}.yaml", ids[start : start + 100])
    report = build_report([result(i) for i in ids], now=dt.datetime.now(dt.UTC), offline=False)
    Path("report.json").write_text(json.dumps(report_document(report)), encoding="utf-8")

    first = issues("--report", "report.json")

    assert first.exit_code == 4, show(first)
    assert sorted(filed_ids(github)) == ids[:20]
    assert "cap reached: created 20 new issues" in first.stderr
    assert "2,980 more claims need one" in first.stderr
    assert first.stdout.count("the cap is 20 new issues") == 2980

    second = issues("--report", "report.json")

    assert second.exit_code == 4, show(second)
    assert sorted(filed_ids(github)) == ids[:40]


def test_the_cap_is_a_setting_and_the_flag_overrides_it(project: Path, github: FakeGitHub) -> None:
    Path("claimcheck.toml").write_text("[issues]\nmax_new = 1\n", encoding="utf-8")
    write_report([result("a"), result("b"), result("c")])

    capped = issues("--report", "report.json")
    assert capped.exit_code == 4, show(capped)
    assert filed_ids(github) == ["a"]
    wider = issues("--report", "report.json", "--max-new", "5")
    assert wider.exit_code == 0, show(wider)
    assert sorted(filed_ids(github)) == ["a", "b", "c"]


def test_a_dry_run_past_the_cap_says_so_and_writes_nothing(
    project: Path, github: FakeGitHub
) -> None:
    write_report([result("a"), result("b")])
    mark = len(github.requests)
    outcome = issues("--report", "report.json", "--max-new", "1", "--dry-run")
    assert outcome.exit_code == 4, show(outcome)
    assert writes(github, mark) == []
    assert "cap reached: would create 1 new issue," in outcome.stderr


def filed_ids(github: FakeGitHub) -> list[str]:
    """The claim ids of our issues."""
    return [parse_marker(i.body).claim_id for i in ours(github)]  # type: ignore[union-attr]


def write_claims_file(path: Path, ids: Sequence[str]) -> None:
    """One claim file holding `ids`, all on one source and quote."""
    lines = [f"page: {path.stem}", "checked: 2026-10-20", "claims:"]
    for claim_id in ids:
        lines += [f"  - id: {claim_id}", "    claim: c", f"    source: {SOURCE}"]
        lines.append(f"    quote: {json.dumps(QUOTE)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
