"""End to end: `claimcheck ack` keeps a review verdict a person looked at quiet until its
source changes again, in the claim file, the gate, every report and the issues.

A real project on disk: a claim file with comments, a store seeded with the versions of
a page a person would have fetched (the page the claim was checked on, then one whose
heading changed), `verify --offline` judging them, `ack` writing `reviewed:`, and the
fake GitHub on 127.0.0.1 for `claimcheck issues`. Every expected value is written here
by hand: the claim file's lines, the verdicts, the version (the digest of the context as
a reader reads it), the messages.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

from claimcheck.forges.resolve import resolve_source
from claimcheck.models import MediaType
from claimcheck.store.store import Store
from support.cli_runs import run, show, today
from support.fake_github import TOKEN, FakeGitHub, require_spec

URL = "http://127.0.0.1:9/guide.html"
QUOTE = "The server batches incoming requests continuously."
OTHER = "Nothing else."
CHECKED = "2026-01-10"
REPO = "desk/site"
NOTE = "Still true: the deprecation is of the old API"


def page(heading: str, other: str = OTHER, quote: str = QUOTE) -> str:
    return (
        f"<html><body><main><h1>{heading}</h1><p>{quote}</p>"
        f"<h2>Else</h2><p>{other}</p></main></body></html>"
    )


CLAIMS = f"""\
# The serving guide's claims.
page: guide
checked: {CHECKED}
claims:
  - id: batching   # the main one
    claim: "The server batches requests."
    source: {URL}
    quote: '{QUOTE}'
    # keep this comment where it is
  - id: other
    claim: Other.
    source: {URL}
    quote: "{OTHER}"
"""


def version(verdict: str, about: str) -> str:
    """The version `ack` writes, made by hand: the digest of what the verdict is about."""
    return hashlib.sha256(f"{verdict}\n{about}".encode()).hexdigest()[:16]


DEPRECATED = version("context-changed", f"§ Serving (deprecated)\n{QUOTE}")
"""The context of `batching` once its heading says "(deprecated)", as a reader reads it."""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    (tmp_path / ".git").mkdir()  # the project's root
    (tmp_path / "claimcheck.toml").write_text(
        "[history]\nwayback = false\n\n[verdict]\nmax_age_days = 0\n", encoding="utf-8"
    )
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "guide.yaml").write_text(CLAIMS, encoding="utf-8")
    store("Serving", "2026-01-09")  # the page as the claims were checked
    store("Serving (deprecated)", "2026-03-01")  # its heading changed since
    return tmp_path


def store(heading: str, day: str, **page_args: str) -> None:
    """Store a version of the page as a run that fetched it on `day` would have."""
    ref = resolve_source(URL)
    Store(Path("snapshots")).save(
        key=ref.key,
        url=ref.url,
        final_url=ref.fetch_url,
        status=200,
        body=page(heading, **page_args).encode(),
        media=MediaType.HTML,
        fetched_at=dt.datetime.fromisoformat(f"{day}T12:00:00+00:00"),
    )


def claim_file() -> Path:
    return Path("claims") / "guide.yaml"


def verify(*args: str) -> tuple[Result, dict[str, Any]]:
    """`verify --offline --format json --fail-on context-changed`: the run and its report."""
    outcome = run("verify", "--offline", "--format", "json", "--fail-on", "context-changed", *args)
    assert outcome.exit_code in (0, 1, 3), show(outcome)
    return outcome, json.loads(outcome.stdout)


def by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in report["results"]}


def ack(*args: str) -> Result:
    return run("ack", *args)


# -- ack writes the entry, every other byte kept -------------------------------------------


def test_ack_writes_reviewed_as_the_claims_last_key_keeping_every_other_line(
    project: Path,
) -> None:
    outcome = ack("batching", "--note", NOTE, "--until", "2099-12-31", "--by", "Ana")

    assert outcome.exit_code == 0, show(outcome)
    assert claim_file().read_text(encoding="utf-8") == CLAIMS.replace(
        f"    quote: '{QUOTE}'\n",
        f"    quote: '{QUOTE}'\n"
        "    reviewed:\n"
        f"      date: {today()}\n"
        "      verdict: context-changed\n"
        f"      version: {DEPRECATED}\n"
        f'      note: "{NOTE}"\n'
        "      until: 2099-12-31\n"
        '      by: "Ana"\n',
    )
    assert outcome.stdout.splitlines() == [
        "acknowledged batching (context-changed) in claims/guide.yaml",
        f"  note: {NOTE}",
        f"  version: {DEPRECATED} (the source as it is now)",
        "  until: 2099-12-31",
        "  quiet until its source changes again or the day passes; commit the claim file "
        "to keep it",
    ]
    shown = run("show", "batching")
    assert (
        f"reviewed:  {today()} by Ana: context-changed acknowledged (version {DEPRECATED}, "
        f"until 2099-12-31): {NOTE}\n"
    ) in shown.stdout, show(shown)
    as_json = json.loads(run("show", "batching", "-f", "json").stdout)
    assert as_json["reviewed"] == {
        "date": today(),
        "note": NOTE,
        "verdict": "context-changed",
        "version": DEPRECATED,
        "until": "2099-12-31",
        "by": "Ana",
    }


def test_ack_keeps_crlf_line_ends_and_replaces_an_entry_where_it_stands(project: Path) -> None:
    crlf = CLAIMS.replace("\n", "\r\n").encode()
    claim_file().write_bytes(crlf)
    assert ack("batching", "--note", "first look").exit_code == 0
    again = ack("batching", "--note", "second look")
    assert again.exit_code == 0, show(again)

    entry = (
        "    reviewed:\r\n"
        f"      date: {today()}\r\n"
        "      verdict: context-changed\r\n"
        f"      version: {DEPRECATED}\r\n"
        '      note: "second look"\r\n'
    )
    quote_line = f"    quote: '{QUOTE}'\r\n".encode()
    assert claim_file().read_bytes() == crlf.replace(quote_line, quote_line + entry.encode())


def test_several_ids_are_acknowledged_together_in_one_edit(project: Path) -> None:
    outcome = ack("batching", "other", "--note", "both fine")
    assert outcome.exit_code == 0, show(outcome)
    text = claim_file().read_text(encoding="utf-8")
    other = version("context-changed", f"§ Serving (deprecated) › Else\n{OTHER}")
    assert text.count("    reviewed:\n") == 2
    assert text.endswith(
        f'    quote: "{OTHER}"\n    reviewed:\n      date: {today()}\n'
        f'      verdict: context-changed\n      version: {other}\n      note: "both fine"\n'
    )


def test_dry_run_shows_the_edit_as_a_diff_and_writes_nothing(project: Path) -> None:
    before = claim_file().read_bytes()
    outcome = ack("batching", "--note", NOTE, "--dry-run")
    assert outcome.exit_code == 0, show(outcome)
    assert claim_file().read_bytes() == before
    assert "--- a/claims/guide.yaml\n+++ b/claims/guide.yaml\n" in outcome.stdout
    assert f"+    reviewed:\n+      date: {today()}\n" in outcome.stdout
    assert f'+      note: "{NOTE}"\n' in outcome.stdout
    assert outcome.stdout.endswith("dry run: nothing written\n")


# -- only a review verdict can be acknowledged ---------------------------------------------


def test_a_stale_claim_is_refused_and_nothing_is_written(project: Path) -> None:
    store("Serving (deprecated)", "2026-04-01", quote="The server batches requests in bulk.")
    before = claim_file().read_bytes()

    outcome = ack("batching", "--note", NOTE)

    assert outcome.exit_code == 2, show(outcome)
    assert (
        "error: cannot acknowledge 'batching': it is drifted (the quote changed" in outcome.stderr
    )
    assert (
        "only a review verdict (context-changed, moved, expired) can be acknowledged: a "
        "stale claim's support is gone" in outcome.stderr
    )
    assert "claimcheck accept batching" in outcome.stderr
    assert "Traceback" not in outcome.stderr
    assert claim_file().read_bytes() == before


def test_several_ids_with_one_stale_write_none(project: Path) -> None:
    store("Serving (deprecated)", "2026-04-01", other="Something else entirely now.")
    before = claim_file().read_bytes()
    outcome = ack("batching", "other", "--note", NOTE)
    assert outcome.exit_code == 2, show(outcome)
    assert "cannot acknowledge 'other': it is missing" in outcome.stderr
    assert claim_file().read_bytes() == before


def test_a_verified_claim_needs_nothing(project: Path) -> None:
    store("Serving", "2026-04-01")  # the heading is back as it was
    before = claim_file().read_bytes()
    outcome = ack("batching", "--note", NOTE)
    assert outcome.exit_code == 0, show(outcome)
    assert outcome.stdout == "batching is verified: nothing to acknowledge\n"
    assert claim_file().read_bytes() == before


def test_a_claim_without_a_stored_snapshot_is_refused_with_exit_3(project: Path) -> None:
    claim_file().write_text(CLAIMS.replace(URL, "http://127.0.0.1:9/new.html"), encoding="utf-8")
    before = claim_file().read_bytes()
    outcome = ack("batching", "--note", NOTE)
    assert outcome.exit_code == 3, show(outcome)
    assert "error: cannot acknowledge 'batching': unverified:" in outcome.stderr
    assert "hint: run `claimcheck verify` first" in outcome.stderr
    assert claim_file().read_bytes() == before


BAD_OPTIONS = {
    "blank-note": (["--note", "   "], "error: --note: must not be empty or whitespace only"),
    "until-no-date": (
        ["--note", NOTE, "--until", "next week"],
        "error: --until: must be a date (YYYY-MM-DD), not 'next week'",
    ),
    "until-passed": (["--note", NOTE, "--until", "2020-01-01"], "error: --until: 2020-01-01 has"),
    "unknown-id": (["--note", NOTE], "error: no claim with id 'batchin'; did you mean 'batching'?"),
}


@pytest.mark.parametrize(("args", "message"), BAD_OPTIONS.values(), ids=BAD_OPTIONS.keys())
def test_bad_options_exit_2_and_write_nothing(project: Path, args: list[str], message: str) -> None:
    before = claim_file().read_bytes()
    claim_id = "batchin" if "did you mean" in message else "batching"
    outcome = ack(claim_id, *args)
    assert outcome.exit_code == 2, show(outcome)
    assert message in outcome.stderr
    assert "Traceback" not in outcome.stderr
    assert claim_file().read_bytes() == before


# -- the judge: quiet until the source changes again, or until passes ----------------------


def test_an_acknowledged_review_verdict_passes_the_gate_and_stays_what_it_is(
    project: Path,
) -> None:
    first, report = verify()
    assert first.exit_code == 1  # context-changed, and --fail-on context-changed
    assert by_id(report)["batching"]["acknowledged"] is None

    assert ack("batching", "other", "--note", NOTE, "--until", "2099-12-31").exit_code == 0
    second, report = verify()

    assert second.exit_code == 0, show(second)
    assert report["exit_code"] == 0
    assert report["acknowledged"] == 2
    assert report["counts"]["context-changed"] == 2
    batching = by_id(report)["batching"]
    assert batching["verdict"] == "context-changed"  # never turned into verified
    assert batching["acknowledged"] == {
        "date": today(),
        "note": NOTE,
        "verdict": "context-changed",
        "version": DEPRECATED,
        "until": "2099-12-31",
        "by": None,
        "holds": True,
        "lapsed": None,
    }
    assert "2 claims: 2 context-changed; 2 acknowledged" in second.stderr


def test_a_change_elsewhere_keeps_it_quiet_a_change_of_its_context_flags_it_again(
    project: Path,
) -> None:
    assert ack("batching", "--note", NOTE).exit_code == 0
    store("Serving (deprecated)", "2026-04-01", other="Nothing else, really.")  # elsewhere

    quiet, report = verify("claims/guide.yaml")
    assert by_id(report)["batching"]["acknowledged"]["holds"] is True

    store("Serving (removed)", "2026-05-01", other="Nothing else, really.")  # its heading
    flagged, report = verify()

    assert flagged.exit_code == 1, show(flagged)
    batching = by_id(report)["batching"]
    assert batching["verdict"] == "context-changed"
    assert batching["acknowledged"]["holds"] is False
    assert batching["acknowledged"]["lapsed"] == "the source changed since"
    assert batching["reason"].endswith(
        f"; acknowledged as context-changed on {today()}, but the source changed since: "
        "the acknowledgement no longer holds"
    )
    assert report["acknowledged"] == 0
    assert quiet.exit_code == 1  # `other` was never acknowledged: it fails the gate


def test_until_passing_flags_it_again(project: Path) -> None:
    """An entry written by hand (as a reviewer's edit would be), its last day yesterday."""
    yesterday = (dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)).isoformat()
    entry = (
        f"    reviewed:\n      date: 2026-03-02\n      verdict: context-changed\n"
        f"      version: {DEPRECATED}\n      note: looked\n      until: {yesterday}\n"
    )
    claim_file().write_text(
        CLAIMS.replace(f"    quote: '{QUOTE}'\n", f"    quote: '{QUOTE}'\n{entry}"),
        encoding="utf-8",
    )

    outcome, report = verify()

    assert outcome.exit_code == 1, show(outcome)
    batching = by_id(report)["batching"]
    assert batching["acknowledged"]["holds"] is False
    assert batching["acknowledged"]["lapsed"] == f"it ran out on {yesterday}"
    assert (
        f"but it ran out on {yesterday}: the acknowledgement no longer holds"
        in (batching["reason"])
    )


def test_a_verdict_of_another_kind_is_not_acknowledged(project: Path) -> None:
    assert ack("batching", "--note", NOTE).exit_code == 0
    store("Serving (deprecated)", "2026-04-01", quote="The server batches requests in bulk.")
    outcome, report = verify()
    batching = by_id(report)["batching"]
    assert batching["verdict"] == "drifted"
    assert batching["acknowledged"]["lapsed"] == "the verdict is now drifted"
    assert outcome.exit_code == 1


# -- every report format shows it apart -----------------------------------------------------


def test_every_format_shows_the_acknowledged_claim_apart(project: Path) -> None:
    note = "Fine <b>really</b> @someone #12"
    assert ack("batching", "--note", note, "--by", "Ana").exit_code == 0
    outputs = {fmt: f"out.{fmt}" for fmt in ("markdown", "sarif", "junit", "html", "github")}
    args = [arg for fmt, path in outputs.items() for arg in ("--output", f"{fmt}={path}")]
    table = run("verify", "--offline", "--fail-on", "context-changed", *args)
    assert table.exit_code == 1, show(table)  # `other` is not acknowledged
    said = f"acknowledged on {today()} by Ana: {note}"

    assert re.search(r"^~  batching  +context-changed", table.stdout, re.M), show(table)
    assert re.search(r"^!  other  +context-changed", table.stdout, re.M), show(table)
    assert "acknowledged (1), quiet until their sources change:" in table.stdout
    assert f"~ claims/guide.yaml:5  batching  context-changed, {said}" in table.stdout

    markdown = Path(outputs["markdown"]).read_text(encoding="utf-8")
    assert "⚠️ To review: the quote holds, but look again (1)" in markdown
    assert "☑️ Acknowledged: a person looked, quiet until the source changes (1)" in markdown
    assert f"- **Reviewed:** acknowledged on {today()} by Ana: Fine &lt;b&gt;really" in markdown
    assert "<b>really" not in markdown

    sarif = json.loads(Path(outputs["sarif"]).read_text(encoding="utf-8"))
    results = {r["properties"]["claimId"]: r for r in sarif["runs"][0]["results"]}
    assert "suppressions" not in results["other"]
    assert results["batching"]["level"] == "warning"
    assert results["batching"]["suppressions"] == [
        {
            "kind": "inSource",
            "status": "accepted",
            "justification": note,
            "properties": {"date": today(), "version": DEPRECATED, "by": "Ana"},
        }
    ]
    assert sarif["runs"][0]["properties"]["acknowledged"] == 1

    junit = ET.fromstring(Path(outputs["junit"]).read_text(encoding="utf-8"))
    assert junit.get("skipped") == "1"
    (skipped,) = junit.iter("skipped")
    assert skipped.get("message") == f"context-changed, {said}"

    html = Path(outputs["html"]).read_text(encoding="utf-8")
    assert 'id="claim-batching" data-level="acknowledged"' in html
    assert 'id="claim-other" data-level="warning"' in html
    assert "Fine &lt;b&gt;really&lt;/b&gt;" in html
    assert '<li class="level-acknowledged"><b>1</b> acknowledged</li>' in html

    github = Path(outputs["github"]).read_text(encoding="utf-8")
    assert re.search(
        r"^::notice file=claims/guide.yaml,line=5,title=acknowledged claim batching%3A "
        r"context-changed::.*%0Areviewed: " + re.escape(said) + "$",
        github,
        re.M,
    ), github
    assert re.search(r"^::warning file=claims/guide.yaml,line=16,", github, re.M), github


# -- issues: closed with the note, reopened once it lapses ---------------------------------


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    with FakeGitHub(require_spec(), repo=REPO) as fake:
        monkeypatch.setenv("GITHUB_API_URL", fake.base_url)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("GITHUB_REPOSITORY", REPO)
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
            monkeypatch.delenv(name, raising=False)
            monkeypatch.delenv(name.lower(), raising=False)
        yield fake
    assert not fake.errors, "\n".join(fake.errors)


def nightly() -> Result:
    """A night as the workflow runs it: verify into report.json, then the issue sync."""
    verified = run("verify", "--offline", "--output", "json=report.json", "--no-progress")
    assert verified.exit_code in (0, 1), show(verified)
    synced = run("issues", "--report", "report.json")
    assert synced.exit_code == 0, show(synced)
    assert TOKEN not in synced.stdout + synced.stderr
    return synced


def test_the_issue_closes_with_the_note_and_reopens_when_the_source_changes_again(
    project: Path, github: FakeGitHub
) -> None:
    nightly()
    issue = next(i for i in github.issues.values() if "batching" in i.title)
    assert (issue.state, issue.labels) == ("open", ["claimcheck", "review"])
    assert issue.body is not None
    assert 'claimcheck ack batching --note "..."' in issue.body

    note = "Fine, see @someone in #12 <!-- x -->"
    assert ack("batching", "--note", note, "--by", "Ana").exit_code == 0
    closed = nightly()

    assert (issue.state, issue.state_reason) == ("closed", "completed")
    comment = issue.comments[-1]
    assert f"verdict was acknowledged by Ana on {today()}" in comment
    assert "> Fine, see" in comment
    for raw in ("@someone", "#12", "<!--"):  # a person's text, escaped
        assert raw not in comment
    assert "stays quiet until its source changes again; this issue reopens then." in comment
    closing = r"^close \(completed\) +#\d+ +batching  context-changed: acknowledged on "
    assert re.search(closing, closed.stdout, re.M), show(closed)
    assert "(1 acknowledged need none)" in closed.stderr

    mark = len(github.requests)
    nightly()  # a quiet night: nothing written
    assert [r for r in github.requests[mark:] if r.method != "GET"] == []

    store("Serving (removed)", "2026-05-01")
    reopened = nightly()

    assert issue.state == "open"
    assert re.search(r"^reopen +#\d+ +batching  to review again: ", reopened.stdout, re.M)
    assert (
        f"The acknowledgement of {today()} no longer holds (the source changed since)"
        in (issue.comments[-1])
    )
    assert "the acknowledgement no longer holds" in (issue.body or "")


# -- lint: `reviewed:` is checked like every key --------------------------------------------


def test_lint_names_file_line_and_field_of_a_bad_reviewed_entry(project: Path) -> None:
    entry = (
        "    reviewed:\n"
        "      date: 2026-13-01\n"
        '      note: "  "\n'
        "      verdict: drifted\n"
        "      version: xyz\n"
        "      untill: 2027-01-01\n"
    )
    claim_file().write_text(
        CLAIMS.replace(f"    quote: '{QUOTE}'\n", f"    quote: '{QUOTE}'\n{entry}"),
        encoding="utf-8",
    )

    outcome = run("lint")

    assert outcome.exit_code == 2, show(outcome)
    where = "claims/guide.yaml"
    for line, problem in (
        (10, "reviewed.date: must be a date (YYYY-MM-DD), not '2026-13-01'"),
        (11, "reviewed.note: must not be empty or whitespace only"),
        (12, "reviewed.verdict: 'drifted' cannot be acknowledged: only a review verdict can"),
        (13, "reviewed.version: must be the 16 hexadecimal digits `claimcheck ack` writes"),
        (14, "reviewed.untill: unknown key; did you mean 'until'?"),
    ):
        assert f"{where}:{line}: error: claim 'batching': {problem}" in outcome.stdout, show(
            outcome
        )
    assert "Traceback" not in outcome.stdout + outcome.stderr


def test_lint_suggests_reviewed_for_a_misspelt_key(project: Path) -> None:
    claim_file().write_text(
        CLAIMS.replace(f"    quote: '{QUOTE}'\n", f"    quote: '{QUOTE}'\n    reviewd: x\n"),
        encoding="utf-8",
    )
    outcome = run("lint")
    assert outcome.exit_code == 2, show(outcome)
    assert "claims/guide.yaml:9: error: claim 'batching': reviewd: unknown key; did you mean " in (
        outcome.stdout
    )
    assert "'reviewed'?" in outcome.stdout


# -- expired: the version is the stored snapshot itself ------------------------------------


def test_an_acknowledged_expired_claim_wakes_on_any_new_version_of_its_source(
    project: Path,
) -> None:
    Path("claimcheck.toml").write_text(
        "[history]\nwayback = false\n\n[verdict]\nmax_age_days = 30\n", encoding="utf-8"
    )
    store("Serving", "2026-04-01")  # as it was checked: the quotes hold, but long ago
    _, report = verify("--fail-on", "expired")
    assert by_id(report)["other"]["verdict"] == "expired"

    outcome = ack("other", "--note", "re-read, still true")

    assert outcome.exit_code == 0, show(outcome)
    body = hashlib.sha256(page("Serving").encode()).hexdigest()
    assert f"      version: {version('expired', body)}\n" in claim_file().read_text("utf-8")
    quiet, report = verify("--fail-on", "expired", "--fail-on", "context-changed")
    assert by_id(report)["other"]["acknowledged"]["holds"] is True
    assert by_id(report)["batching"]["acknowledged"] is None
    assert report["acknowledged"] == 1
    assert quiet.exit_code == 1  # batching, expired too, was not acknowledged

    store("Serving", "2026-05-01", quote=f"{QUOTE} Always.")  # a change beside its context
    _, report = verify("--fail-on", "expired")
    other = by_id(report)["other"]
    assert (other["verdict"], other["acknowledged"]["holds"]) == ("expired", False)
    assert other["acknowledged"]["lapsed"] == "the source changed since"


def test_a_claim_read_from_an_article_is_refused_with_where_to_move_it(project: Path) -> None:
    article = Path("content") / "guide.md"
    article.parent.mkdir()
    article.write_text(
        f"---\npage: guide-article\nchecked: {CHECKED}\n---\n\nThe server "
        f"[batches requests]({URL}#:~:text=The%20server%20batches)<!-- claim: art -->.\n",
        encoding="utf-8",
    )
    Path("claimcheck.toml").write_text(
        'claims = ["claims", "content/guide.md"]\n\n[history]\nwayback = false\n',
        encoding="utf-8",
    )
    before = article.read_bytes()

    outcome = ack("art", "--note", NOTE)

    assert outcome.exit_code == 2, show(outcome)
    assert (
        "error: cannot acknowledge 'art': it is read from the article content/guide.md, and "
        "`ack` writes a claim file's `reviewed:` entry" in outcome.stderr
    )
    assert "claimcheck extract" in outcome.stderr
    assert article.read_bytes() == before


def test_accept_removes_the_acknowledgement_its_new_baseline_supersedes(project: Path) -> None:
    assert ack("batching", "--note", NOTE).exit_code == 0

    accepted = run("accept", "batching")

    assert accepted.exit_code == 0, show(accepted)
    assert (
        f"  reviewed: removed (the acknowledgement of {today()}; the new baseline supersedes it)"
        in accepted.stdout
    )
    assert claim_file().read_text(encoding="utf-8") == CLAIMS.replace(
        f"    quote: '{QUOTE}'\n", f"    quote: '{QUOTE}'\n    checked: {today()}\n"
    )
    _, report = verify()
    assert (by_id(report)["batching"]["verdict"], by_id(report)["batching"]["acknowledged"]) == (
        "verified",
        None,
    )
