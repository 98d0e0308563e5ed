"""Notifications end to end: the real CLI, pages on a web server on 127.0.0.1, and
Apprise's `json://` posting to an inbox on 127.0.0.1 that a test can make fail.

Three claims: `gpu` owned by infra (a route of its own), `api` in the docs file (a
route by page), `intro` owned by nobody (the default route, CLAIMCHECK_NOTIFY).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

from support.cli_runs import PROXY_VARS, run, show
from support.local_http import send_answer, serving
from support.notify_server import Inbox, notify_inbox

HOLDS = "The server batches incoming requests continuously."
OTHER = "The server handles one request at a time."
SECRET = "s3cr3t-t0ken"


@dataclass
class Desk:
    project: Path
    pages: dict[str, str]
    inbox: Inbox
    base: str


def _page(text: str) -> str:
    return f"<html><body><main><h1>Serving</h1><p>{text}</p></main></body></html>"


@pytest.fixture
def desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Desk]:
    pages = {"/gpu.html": _page(HOLDS), "/api.html": _page(HOLDS), "/intro.html": _page(HOLDS)}

    class Pages(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path)
            if body is None:
                send_answer(self, 404, {"Content-Type": "text/plain"}, b"gone")
            else:
                send_answer(self, 200, {"Content-Type": "text/html"}, body.encode())

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

    monkeypatch.chdir(tmp_path)
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_RUN_ID", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", "127.0.0.1")
    monkeypatch.setenv("NO_COLOR", "1")
    (tmp_path / "claimcheck.toml").write_text(
        "[fetch]\nper_host_interval = 0\n\n"
        '[notify.routes.infra]\nenv = "CLAIMCHECK_NOTIFY_INFRA"\nowners = ["infra"]\n\n'
        '[notify.routes.docs]\nenv = "CLAIMCHECK_NOTIFY_DOCS"\npages = ["claims/docs*.yaml"]\n',
        encoding="utf-8",
    )
    with serving(Pages) as base, notify_inbox() as inbox:
        claims = tmp_path / "claims"
        claims.mkdir()
        (claims / "ops.yaml").write_text(
            "page: ops\nchecked: 2026-10-20\nowner: infra\nclaims:\n"
            f"  - id: gpu\n    claim: It batches.\n    source: {base}/gpu.html\n"
            f"    quote: {HOLDS}\n"
            f"  - id: intro\n    owner: '@ana'\n    claim: It batches.\n"
            f"    source: {base}/intro.html\n    quote: {HOLDS}\n",
            encoding="utf-8",
        )
        (claims / "docs-api.yaml").write_text(
            "page: api\nchecked: 2026-10-20\nclaims:\n"
            f"  - id: api\n    claim: It batches.\n    source: {base}/api.html\n"
            f"    quote: {HOLDS}\n",
            encoding="utf-8",
        )
        monkeypatch.setenv("CLAIMCHECK_NOTIFY", f"{inbox.url('default')}?token={SECRET}")
        monkeypatch.setenv("CLAIMCHECK_NOTIFY_INFRA", inbox.url(f"infra/{SECRET}"))
        monkeypatch.setenv("CLAIMCHECK_NOTIFY_DOCS", inbox.url("docs"))
        yield Desk(tmp_path, pages, inbox, base)


def verify_notify(*extra: str) -> Result:
    result = run("verify", "--no-progress", "--notify", *extra)
    assert SECRET not in result.stdout + result.stderr, show(result)
    assert "json://" not in result.stdout + result.stderr, show(result)
    return result


def told(inbox: Inbox) -> dict[str, list[tuple[str, list[str]]]]:
    """Each route path's messages since last asked: (title, claim ids named)."""
    out: dict[str, list[tuple[str, list[str]]]] = {}
    for path, messages in inbox.take_all().items():
        route = path.strip("/").split("/")[0].split("?")[0]
        out[route] = [(m["title"], re.findall(r"\*\*: `([a-z]+)`", m["message"])) for m in messages]
    return out


def test_a_first_run_of_verified_claims_tells_no_one(desk: Desk) -> None:
    result = verify_notify()
    assert result.exit_code == 0, show(result)
    assert told(desk.inbox) == {}
    state = json.loads((desk.project / "snapshots" / "state.json").read_text())
    assert "notified" not in state


def test_each_transition_is_told_once_to_its_owners_route(desk: Desk) -> None:
    assert verify_notify().exit_code == 0
    desk.pages["/gpu.html"] = _page(OTHER)
    desk.pages["/api.html"] = _page(OTHER)
    result = verify_notify()
    assert result.exit_code == 1, show(result)  # the gate is the gate
    assert told(desk.inbox) == {
        "infra": [("claimcheck: 1 newly stale", ["gpu"])],
        "docs": [("claimcheck: 1 newly stale", ["api"])],
    }
    assert "notified 2 claims to infra, docs" in result.stderr

    quiet = verify_notify()
    assert quiet.exit_code == 1
    assert told(desk.inbox) == {}, "a second run with nothing changed tells no one"

    desk.pages["/gpu.html"] = _page(HOLDS)
    desk.pages["/intro.html"] = _page(OTHER)
    result = verify_notify()
    assert told(desk.inbox) == {
        "infra": [("claimcheck: 1 recovered", ["gpu"])],
        "default": [("claimcheck: 1 newly stale", ["intro"])],
    }
    state = json.loads((desk.project / "snapshots" / "state.json").read_text())
    assert state["notified"] == {"docs": {"api": "stale"}, "default": {"intro": "stale"}}


def test_the_message_shows_the_change_the_source_and_the_page(desk: Desk) -> None:
    verify_notify()
    desk.pages["/gpu.html"] = _page("The server batches incoming requests in waves.")
    verify_notify()
    (message,) = desk.inbox.messages(f"infra/{SECRET}")
    body = message["message"]
    assert message["title"] == "claimcheck: 1 newly stale"
    assert message["type"] == "failure"
    host = desk.base.removeprefix("http://")
    assert body == (
        "### `claims/ops.yaml` (ops)\n"
        "\n"
        "- ❌ **newly stale**: `gpu` · drifted\n"
        "  - **Why:** the quote changed: the closest text matches 84%\n"
        "  - **Claim:** It batches.\n"
        f"  - **Quote:** “{HOLDS}”\n"
        "  - **Now:** The server batches incoming requests ~~continuously.~~ **in waves.**\n"
        f"  - **Source:** [{host}/gpu.html](http://{host}/gpu.html#:~:text="
        "The%20server%20batches%20incoming%20requests%20in%20waves.)\n"
        "  - **Where:** `claims/ops.yaml:5`"
    )


def test_a_failing_route_is_named_keeps_the_exit_code_and_is_told_once_next_run(
    desk: Desk,
) -> None:
    verify_notify()
    desk.inbox.failing.add(f"/infra/{SECRET}")
    desk.pages["/gpu.html"] = _page(OTHER)
    desk.pages["/api.html"] = _page(OTHER)
    result = verify_notify()
    assert result.exit_code == 1, show(result)
    assert (
        "notify: route 'infra' (CLAIMCHECK_NOTIFY_INFRA) failed: 1 of its 1 URL did not "
        "take the message (refused, failed or not reached); its 1 claim will be notified "
        "again next run"
    ) in result.stderr
    assert told(desk.inbox) == {"docs": [("claimcheck: 1 newly stale", ["api"])]}

    desk.inbox.failing.clear()
    result = verify_notify()
    assert told(desk.inbox) == {"infra": [("claimcheck: 1 newly stale", ["gpu"])]}
    verify_notify()
    assert told(desk.inbox) == {}


def test_a_route_that_refuses_connections_changes_no_exit_code(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    verify_notify()
    monkeypatch.setenv("CLAIMCHECK_NOTIFY_DOCS", f"json://127.0.0.1:9/{SECRET}")
    desk.pages["/api.html"] = _page(OTHER)
    result = verify_notify()
    assert result.exit_code == 1, show(result)
    assert "notify: route 'docs' (CLAIMCHECK_NOTIFY_DOCS) failed" in result.stderr


def test_notify_reads_a_report_and_dry_run_sends_nothing(desk: Desk) -> None:
    run("verify", "--no-progress")
    desk.pages["/api.html"] = _page(OTHER)
    judged = run("verify", "--no-progress", "--format", "json", "--output", "json=report.json")
    assert judged.exit_code == 1, show(judged)
    dry = run("notify", "--report", "report.json", "--dry-run")
    assert dry.exit_code == 0, show(dry)
    assert dry.stdout.startswith(
        "would notify route 'docs' (CLAIMCHECK_NOTIFY_DOCS): claimcheck: 1 newly stale\n"
    )
    assert SECRET not in dry.stdout + dry.stderr
    assert told(desk.inbox) == {}
    sent = run("notify", "--report", "report.json")
    assert sent.exit_code == 0, show(sent)
    assert told(desk.inbox) == {"docs": [("claimcheck: 1 newly stale", ["api"])]}
    again = run("notify", "--report", "report.json")
    assert again.exit_code == 0
    assert told(desk.inbox) == {}


def test_notify_exits_3_when_a_route_fails(desk: Desk) -> None:
    run("verify", "--no-progress")
    desk.pages["/intro.html"] = _page(OTHER)
    run("verify", "--no-progress", "--format", "json", "--output", "json=report.json")
    desk.inbox.failing.add("/default")
    result = run("notify", "--report", "report.json")
    assert result.exit_code == 3, show(result)
    assert "route 'default' (CLAIMCHECK_NOTIFY) failed" in result.stderr
    assert SECRET not in result.stdout + result.stderr


def test_a_route_without_urls_is_named_and_told_once_it_has_some(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    verify_notify()
    monkeypatch.delenv("CLAIMCHECK_NOTIFY_INFRA")
    desk.pages["/gpu.html"] = _page(OTHER)
    result = verify_notify()
    assert (
        "notify: route 'infra': CLAIMCHECK_NOTIFY_INFRA is not set: 1 claim not notified"
        in result.stderr
    )
    monkeypatch.setenv("CLAIMCHECK_NOTIFY_INFRA", desk.inbox.url(f"infra/{SECRET}"))
    verify_notify()
    assert told(desk.inbox) == {"infra": [("claimcheck: 1 newly stale", ["gpu"])]}


def test_an_apprise_url_in_the_config_is_refused_by_line(desk: Desk) -> None:
    (desk.project / "claimcheck.toml").write_text(
        f'[notify.routes.infra]\nenv = "json://hooks.example/{SECRET}"\nowners = ["infra"]\n',
        encoding="utf-8",
    )
    result = run("verify", "--no-progress", "--notify")
    assert result.exit_code == 2, show(result)
    assert "claimcheck.toml:2: notify.routes.infra.env: an Apprise URL is never read" in (
        result.stderr
    )
    assert SECRET not in result.stdout + result.stderr


def test_a_bad_owner_is_named_by_file_and_line(desk: Desk) -> None:
    (desk.project / "claims" / "ops.yaml").write_text(
        "page: ops\nchecked: 2026-10-20\nowner: two words\nclaims:\n"
        f"  - id: gpu\n    claim: It batches.\n    source: {desk.base}/gpu.html\n"
        f"    quote: {HOLDS}\n    ownr: infra\n",
        encoding="utf-8",
    )
    result = run("verify", "--no-progress", "--notify")
    assert result.exit_code == 2, show(result)
    assert "claims/ops.yaml:3: owner: must be one word" in result.stderr
    assert "did you mean 'owner'?" in result.stderr


def test_with_no_route_and_no_variable_notify_says_so_once(
    desk: Desk, monkeypatch: pytest.MonkeyPatch
) -> None:
    (desk.project / "claimcheck.toml").write_text(
        "[fetch]\nper_host_interval = 0\n", encoding="utf-8"
    )
    monkeypatch.delenv("CLAIMCHECK_NOTIFY")
    desk.pages["/intro.html"] = _page(OTHER)
    result = verify_notify()
    assert result.exit_code == 1, show(result)
    assert result.stderr.count("notify: nothing to tell: no [notify.routes.*]") == 1
    assert told(desk.inbox) == {}


def test_a_shards_report_is_refused(desk: Desk) -> None:
    run("verify", "--no-progress", "--shard", "1/2", "--format", "json", "--output", "json=p.json")
    result = run("notify", "--report", "p.json")
    assert result.exit_code == 2, show(result)
    assert "is the report of shard 1/2 only" in result.stderr
    refused = run("verify", "--no-progress", "--shard", "1/2", "--notify")
    assert refused.exit_code == 2
    assert "--notify with --shard" in refused.stderr


def test_the_owner_is_shown_with_the_claim(desk: Desk) -> None:
    result = run("show", "intro")
    assert result.exit_code == 0, show(result)
    assert re.search(r"^owner: +@ana$", result.stdout, re.M)
    gpu = json.loads(run("show", "gpu", "-f", "json").stdout)
    assert gpu["owner"] == "infra"  # the file's


def test_config_get_names_a_routes_variable_never_its_urls(desk: Desk) -> None:
    result = run("config", "get", "notify.routes.infra.env")
    assert result.exit_code == 0, show(result)
    assert result.stdout == "CLAIMCHECK_NOTIFY_INFRA\n"
    whole = run("config", "get", "notify")
    assert json.loads(whole.stdout) == {
        "routes": {
            "infra": {"env": "CLAIMCHECK_NOTIFY_INFRA", "owners": ["infra"], "pages": []},
            "docs": {"env": "CLAIMCHECK_NOTIFY_DOCS", "owners": [], "pages": ["claims/docs*.yaml"]},
        },
        "review": True,
    }
    assert SECRET not in whole.stdout + whole.stderr
