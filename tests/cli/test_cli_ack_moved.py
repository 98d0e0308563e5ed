"""End to end, online: an acknowledged `moved` claim stays quiet while its source leads
where it led when a person looked, and is flagged again once it leads elsewhere.

A web server on 127.0.0.1 whose answers the test changes (a permanent redirect from the
claim's page to another path, then to a third); `verify` fetches it, `ack` judges the
claim offline from what that run stored, as `show` and `explain` do.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from support.claim_files import write_fast_config
from support.cli_runs import run, show, today
from support.replay_server import ReplayServer

QUOTE = "The server batches incoming requests continuously."
PAGE = f"<html><body><main><h1>Serving</h1><p>{QUOTE}</p></main></body></html>"
PATH, OTHER, THIRD = "/guide/serving.html", "/handbook/serving.html", "/manual/serving.html"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_API_URL", "WAYBACK_URL", "HF_ENDPOINT"):
        monkeypatch.setenv(name, replay.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", "127.0.0.0/8,::1")
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    write_fast_config(tmp_path)
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "guide.yaml").write_text(
        f"page: guide\nchecked: {today()}\nclaims:\n  - id: serving\n    claim: c\n"
        f"    source: {replay.url(PATH)}\n    quote: {json.dumps(QUOTE)}\n",
        encoding="utf-8",
    )
    replay.set_page(PATH, PAGE)
    return tmp_path


def verify() -> tuple[int, dict[str, Any]]:
    outcome = run("verify", "--format", "json", "--no-progress", "--fail-on", "moved")
    assert outcome.exit_code in (0, 1), show(outcome)
    (result,) = json.loads(outcome.stdout)["results"]
    return outcome.exit_code, result


def test_a_move_acknowledged_is_quiet_until_the_source_leads_elsewhere(
    project: Path, replay: ReplayServer
) -> None:
    assert verify()[1]["verdict"] == "verified"
    replay.set_page(OTHER, PAGE)
    replay.redirect(PATH, OTHER, 301)
    code, result = verify()
    assert (code, result["verdict"], result["moved_to"]) == (1, "moved", replay.url(OTHER))

    acked = run("ack", "serving", "--note", "the handbook is the same page")

    assert acked.exit_code == 0, show(acked)
    digest = hashlib.sha256(f"moved\n{replay.url(OTHER)}".encode()).hexdigest()[:16]
    text = (project / "claims" / "guide.yaml").read_text(encoding="utf-8")
    assert text.endswith(
        f"    reviewed:\n      date: {today()}\n      verdict: moved\n"
        f'      version: {digest}\n      note: "the handbook is the same page"\n'
    )
    code, result = verify()
    assert (code, result["verdict"], result["acknowledged"]["holds"]) == (0, "moved", True)

    replay.set_page(THIRD, PAGE)
    replay.redirect(PATH, THIRD, 301)
    code, result = verify()

    assert (code, result["verdict"], result["moved_to"]) == (1, "moved", replay.url(THIRD))
    assert result["acknowledged"]["holds"] is False
    assert result["reason"].endswith(
        f"acknowledged as moved on {today()}, but the source changed since: the "
        "acknowledgement no longer holds"
    )
