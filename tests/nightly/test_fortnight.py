"""The acceptance test of the desk's daily loop (#40): a replayed fortnight.

Fourteen nights of the real nightly cycle (fetch, store, judge, issues against the fake
GitHub, notifications, commit) over a desk in a real git repository. The replay server
moves its date one day a night, from 20 February to 4 March 2024, so llama.cpp's README
is the one of its real history on that date: its quantization bullet is reworded on
1 March (night 11). A web server on 127.0.0.1 changes the other pages on the nights
the table below says. Notifications go through Apprise to `json://` routes on
127.0.0.1 (the infra route also by e-mail, `mailto://` to a small SMTP server on
127.0.0.1), and what each route is told each night is written here by hand, from what
each page says, as a table (`TOLD`).

The routes: `infra` (owners = ["infra"]) and `docs` (pages = ["claims/serving.yaml"]);
every claim neither takes goes to the default route (`CLAIMCHECK_NOTIFY`).

| claim     | file                | owner          | routes        |
| --------- | ------------------- | -------------- | ------------- |
| quant     | claims/engines.yaml | infra (file's) | infra         |
| batching  | claims/serving.yaml | -              | docs          |
| api       | claims/serving.yaml | infra (own)    | infra, docs   |
| gone      | claims/guides.yaml  | @ana (file's)  | default       |
| flaky     | claims/guides.yaml  | @ana           | default       |
| retitled  | claims/guides.yaml  | @ana           | default       |

After the fortnight, a fresh clone of the repository runs a night and tells no one
(what each route was told is committed in state.json), and the pull-request gate
(`verify --changed-since main`) judges exactly the claims of the claim files a branch
changed. On night 8 an editor acknowledges the retitled claim's review
(`claimcheck ack`, committed): its issue is closed with the note and no route is told,
until its page changes again on night 13.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from claimcheck.claims.load import load_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.config import load_config
from claimcheck.github.issues import GitHubIssues
from claimcheck.nightly.cycle import CyclePlan, run_cycle
from claimcheck.notify.deliver import send_apprise
from claimcheck.report.formats import OutputFormat
from support.claim_files import LLAMA, QUOTE_FEB
from support.cli_runs import PROXY_VARS, run, show
from support.fake_github import TOKEN, Clock, FakeGitHub, require_spec
from support.notify_server import Inbox, notify_inbox
from support.replay_server import ReplayServer
from support.smtp_server import Mailbox, smtp_mailbox
from support.stored_page import store_page

# Slow: a fortnight of nightly runs replayed end to end, then a clone's night and a gate.
pytestmark = pytest.mark.slow

HOLDS = "Requests are served over HTTP with an OpenAI-compatible API."
BATCHES = "The server batches incoming requests continuously."
LEAVES = "The scheduler preempts long requests when memory runs out."
OTHER = "Our team meets every Tuesday to plan the roadmap and review designs."
README = "/llama/README.md"
FIRST_NIGHT = dt.date(2024, 2, 20)
SECRET = "hook-s3cret"


def page(text: str, *, heading: str = "Serving") -> str:
    return f"<html><body><main><h1>{heading}</h1><p>{text}</p></main></body></html>"


# Night → route → [(claim, transition)]: every message, written by hand. A night not
# listed tells no one.
TOLD: dict[int, dict[str, list[tuple[str, str]]]] = {
    # 1, 2: every page as checked; 3: the flaky page fails (unreachable: nothing known).
    4: {"docs": [("batching", "newly stale")]},  # its sentence removed: missing
    # 5: the flaky page still fails.
    6: {"default": [("retitled", "newly needing review")]},  # the heading above it
    7: {"default": [("gone", "newly stale")]},  # its page answers 404: source-gone
    # 8: nothing changes.
    9: {"docs": [("batching", "recovered")]},  # the sentence is back
    # 10: the api page drops its sentence; infra is told, docs fails (answers 500).
    10: {"infra": [("api", "newly stale")]},
    # 11: 1 March: the README's bullet reworded (drifted); docs told of api, once.
    11: {"infra": [("quant", "newly stale")], "docs": [("api", "newly stale")]},
    # 8: an editor acknowledged retitled's review (`claimcheck ack`, committed): silent.
    12: {"default": [("gone", "recovered")]},  # the page is back
    # 13: retitled's heading changes again: the acknowledgement lapses, told once.
    13: {"default": [("retitled", "newly needing review")]},
    # 14: nothing changes.
}
ACK_NOTE = "Legacy heading only; the sentence still holds."

EXIT: dict[int, int] = {
    1: 0,
    2: 0,
    3: 3,  # nothing stale, a source could not be checked
    4: 1,
    5: 1,
    6: 1,
    7: 1,
    8: 1,
    9: 1,  # gone is still stale
    10: 1,
    11: 1,
    12: 1,  # api and quant are still stale
    13: 1,
    14: 1,
}


@dataclass
class Desk:
    project: Path
    replay: ReplayServer
    github: FakeGitHub
    inbox: Inbox
    mailbox: Mailbox


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer) -> Iterator[Desk]:
    project = tmp_path / "desk"
    project.mkdir()
    monkeypatch.chdir(project)
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", "127.0.0.1")
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "desk/site")
    (project / "claimcheck.toml").write_text(
        "[fetch]\nper_host_interval = 0\n\n[verdict]\nmax_age_days = 365\n\n"
        '[notify.routes.infra]\nenv = "CLAIMCHECK_NOTIFY_INFRA"\nowners = ["infra"]\n\n'
        '[notify.routes.docs]\nenv = "CLAIMCHECK_NOTIFY_DOCS"\npages = ["claims/serving.yaml"]\n',
        encoding="utf-8",
    )
    (project / ".gitignore").write_text("snapshots/.cache/\nout/\n", encoding="utf-8")
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "user.email", "desk@example.org")
    git(project, "config", "user.name", "Desk")
    git(project, "config", "commit.gpgsign", "false")
    with (
        FakeGitHub(require_spec(), repo="desk/site") as github,
        notify_inbox() as inbox,
        smtp_mailbox() as mailbox,
    ):
        monkeypatch.setenv("GITHUB_API_URL", github.base_url)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("CLAIMCHECK_NOTIFY", inbox.url("default"))
        monkeypatch.setenv(
            "CLAIMCHECK_NOTIFY_INFRA",
            f"{inbox.url(f'infra/{SECRET}')} {mailbox.url('infra@example.org')}",
        )
        monkeypatch.setenv("CLAIMCHECK_NOTIFY_DOCS", inbox.url(f"docs?token={SECRET}"))
        yield Desk(project, replay, github, inbox, mailbox)
    assert not github.errors, "\n".join(github.errors)


def write_desk(desk: Desk) -> None:
    """The three claim files and the pages as checked, the retitled claim's baseline
    stored as of its check date; committed on main."""
    url, project = desk.replay.url, desk.project
    checked = (dt.datetime.now(dt.UTC) - dt.timedelta(days=20)).replace(microsecond=0)
    today = dt.datetime.now(dt.UTC).date().isoformat()
    claims = project / "claims"
    claims.mkdir()
    (claims / "engines.yaml").write_text(
        f"page: engines\nchecked: {today}\nowner: infra\nclaims:\n"
        f"  - id: quant\n    claim: llama.cpp quantizes.\n    source: {url(README)}\n"
        f"    quote: {QUOTE_FEB}\n",
        encoding="utf-8",
    )
    (claims / "serving.yaml").write_text(
        f"page: serving\nchecked: {today}\nclaims:\n"
        f"  - id: batching\n    claim: It batches.\n    source: {url('/docs/batching.html')}\n"
        f"    quote: {BATCHES}\n"
        f"  - id: api\n    owner: infra\n    claim: It preempts.\n"
        f"    source: {url('/docs/api.html')}\n    quote: {LEAVES}\n",
        encoding="utf-8",
    )
    (claims / "guides.yaml").write_text(
        f"page: guides\nchecked: {today}\nowner: '@ana'\nclaims:\n"
        f"  - id: gone\n    claim: It serves.\n    source: {url('/docs/gone.html')}\n"
        f"    quote: {HOLDS}\n"
        f"  - id: flaky\n    claim: It serves.\n    source: {url('/docs/flaky.html')}\n"
        f"    quote: {HOLDS}\n"
        f"  - id: retitled\n    claim: It batches.\n    source: {url('/docs/retitled.html')}\n"
        f"    quote: {BATCHES}\n    checked: {checked.date().isoformat()}\n",
        encoding="utf-8",
    )
    replay = desk.replay
    replay.set_page("/docs/batching.html", page(f"{HOLDS} {BATCHES}"))
    replay.set_page("/docs/api.html", page(f"{HOLDS} {LEAVES}"))
    replay.set_page("/docs/gone.html", page(HOLDS))
    replay.set_page("/docs/flaky.html", page(HOLDS))
    replay.set_page("/docs/retitled.html", page(BATCHES))
    store_page(project / "snapshots", url("/docs/retitled.html"), page(BATCHES), checked)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "the desk's claims")


def change_pages(desk: Desk, night: int) -> None:
    """What changes upstream before `night` (besides the README's date)."""
    replay = desk.replay
    if night == 3:
        replay.fail("/docs/flaky.html", 503, times=None)
    elif night == 4:
        replay.set_page("/docs/batching.html", page(f"{HOLDS} {OTHER}"))
    elif night == 6:
        replay.fail("/docs/flaky.html", 503, times=0)
        replay.set_page(
            "/docs/retitled.html", page(BATCHES, heading="Legacy serving, unmaintained")
        )
    elif night == 7:
        replay.remove_page("/docs/gone.html")
    elif night == 9:
        replay.set_page("/docs/batching.html", page(f"{HOLDS} {BATCHES}"))
    elif night == 10:
        replay.set_page("/docs/api.html", page(f"{HOLDS} {OTHER}"))
        desk.inbox.failing.add("/docs")
    elif night == 11:
        desk.inbox.failing.clear()
    elif night == 8:
        acked = run("ack", "retitled", "--note", ACK_NOTE)
        assert acked.exit_code == 0, show(acked)
        git(desk.project, "commit", "-q", "-am", "retitled: reviewed, acknowledged")
    elif night == 12:
        replay.set_page("/docs/gone.html", page(HOLDS))
    elif night == 13:
        replay.set_page("/docs/retitled.html", page(BATCHES, heading="Serving, rewritten"))


def readme_on(replay: ReplayServer, day: dt.date) -> None:
    body = replay.readme_as_of(LLAMA, day)
    assert body is not None
    replay.set_page(README, body, content_type="text/markdown; charset=utf-8")


def run_night(
    night: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """One night of the real cycle, committed: its exit code and what it said."""
    monkeypatch.setenv("GITHUB_RUN_ID", str(1000 + night))
    clock = Clock()
    client = functools.partial(GitHubIssues, sleep=clock.sleep, clock=clock.time)
    config = load_config(None)
    plan = CyclePlan(
        outputs=((OutputFormat.JSON, Path("out/report.json")),),
        issue_repo="desk/site",
        commit=True,
        notify=send_apprise,
    )
    claims = load_claims(config.claim_paths, read=read_document)
    outcome = run_cycle(claims, config, plan, issues_client=client)
    assert not outcome.abandoned, outcome
    said = capsys.readouterr()
    return outcome.exit_code, said.out + said.err


def told(desk: Desk) -> dict[str, list[tuple[str, str]]]:
    """Each route's (claim, transition) pairs since last asked; one message a route."""
    found: dict[str, list[tuple[str, str]]] = {}
    for path, messages in desk.inbox.take_all().items():
        route = path.strip("/").split("/")[0].split("?")[0]
        assert len(messages) == 1, f"{route} got {len(messages)} messages in one night"
        found[route] = [
            (claim, transition)
            for transition, claim in re.findall(
                r"^- \S+ \*\*([a-z ]+)\*\*: `([a-z]+)`", messages[0]["message"], re.M
            )
        ]
    return found


def test_a_replayed_fortnight_tells_each_transition_once_to_its_owner(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_desk(desk)
    for night in range(1, 15):
        readme_on(desk.replay, FIRST_NIGHT + dt.timedelta(days=night - 1))
        change_pages(desk, night)
        code, said = run_night(night, monkeypatch, capsys)
        assert code == EXIT[night], f"night {night}: exit {code}\n{said}"
        assert SECRET not in said, f"night {night} showed a URL's token"
        assert "json://" not in said
        assert "mailto://" not in said
        expected = TOLD.get(night, {})
        got = told(desk)
        assert got == expected, f"night {night}: told {got}, expected {expected}\n{said}"
        infra_mail = desk.mailbox.take_all()
        if "infra" in expected:
            ((recipients, mail),) = infra_mail
            assert recipients == ["infra@example.org"]
            assert mail["Subject"] == f"claimcheck: 1 {expected['infra'][0][1]}"
        else:
            assert infra_mail == [], f"night {night}: mail to infra"
        retitled = [i for i in desk.github.open_issues() if "retitled" in i.title]
        assert len(retitled) == (1 if night in (6, 7, 13, 14) else 0), f"night {night}"
        if night == 8:  # closed with the editor's note
            (closed,) = [i for i in desk.github.issues.values() if "retitled" in i.title]
            assert closed.state == "closed"
            assert any(ACK_NOTE in comment for comment in closed.comments)
        if night in (8, 13):  # `list` says what the night said
            listed = run("list", "-f", "json")
            (row,) = [c for c in json.loads(listed.stdout)["claims"] if c["id"] == "retitled"]
            assert (row["verdict"], row["acknowledged"]) == ("context-changed", night == 8)
            table = run("list", "--page", "guides").stdout
            assert ("context-changed (acknowledged)" in table) is (night == 8), table
        if night == 10:
            assert (
                "notify: route 'docs' (CLAIMCHECK_NOTIFY_DOCS) failed: 1 of its 1 URL did "
                "not take the message (refused, failed or not reached); its 1 claim will "
                "be notified again next run"
            ) in said
        # What each route was told is committed with the night's snapshots.
        committed = json.loads(git(desk.project, "show", "HEAD:snapshots/state.json"))
        assert committed.get("notified", {}) == json.loads(
            (desk.project / "snapshots" / "state.json").read_text()
        ).get("notified", {})

    committed = json.loads(git(desk.project, "show", "HEAD:snapshots/state.json"))
    assert committed["notified"] == {
        "infra": {"api": "stale", "quant": "stale"},
        "docs": {"api": "stale"},
        "default": {"retitled": "review"},
    }

    # A fresh runner: a clone of the repository, with no cache, tells no one.
    clone = desk.project.parent / "clone"
    subprocess.run(["git", "clone", "-q", str(desk.project), str(clone)], check=True)
    monkeypatch.chdir(clone)
    code, said = run_night(15, monkeypatch, capsys)
    assert code == 1, said
    assert told(desk) == {}
    assert desk.mailbox.take_all() == []


def test_the_messages_link_the_source_the_issue_and_the_run(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_desk(desk)
    readme_on(desk.replay, FIRST_NIGHT)
    run_night(1, monkeypatch, capsys)
    desk.replay.set_page("/docs/batching.html", page(f"{HOLDS} {OTHER}"))
    run_night(2, monkeypatch, capsys)
    ((message,),) = desk.inbox.take_all().values()
    issues = [i for i in desk.github.open_issues() if "batching" in i.title]
    (issue,) = issues
    body = message["message"]
    assert message["title"] == "claimcheck: 1 newly stale"
    assert "### `claims/serving.yaml` (serving)" in body
    assert f"**Issue:** [#{issue.number}](https://github.com/desk/site/issues/{issue.number})" in (
        body
    )
    assert "[The run's report](https://github.com/desk/site/actions/runs/1002)" in body
    assert f"({desk.replay.url('/docs/batching.html')}" in body


def gate(*args: str) -> set[str]:
    """The ids the pull-request gate judged (`verify --offline --changed-since main`)."""
    result = run("verify", "--offline", "-f", "json", "--changed-since", "main", *args)
    assert result.exit_code in (0, 1, 3), show(result)
    return {row["id"] for row in json.loads(result.stdout)["results"]}


def test_the_pull_request_gate_judges_exactly_the_changed_claims(
    desk: Desk, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_desk(desk)
    readme_on(desk.replay, FIRST_NIGHT)
    run_night(1, monkeypatch, capsys)  # commits the snapshots on main
    git(desk.project, "switch", "-q", "-c", "change")
    assert gate() == set()

    engines = desk.project / "claims" / "engines.yaml"
    engines.write_text(
        engines.read_text(encoding="utf-8").replace("llama.cpp quantizes.", "It quantizes."),
        encoding="utf-8",
    )
    git(desk.project, "commit", "-q", "-am", "reword the quant claim")
    assert gate() == {"quant"}

    serving = desk.project / "claims" / "serving.yaml"
    serving.write_text(
        serving.read_text(encoding="utf-8").replace("It preempts.", "It preempts requests."),
        encoding="utf-8",
    )
    git(desk.project, "commit", "-q", "-am", "reword the api claim")
    assert gate() == {"quant", "batching", "api"}
    capsys.readouterr()
