"""The acceptance test of #41 (evidence beyond prose): one desk's claims on data, a paper
and archived copies, over two nights, with the real CLI and every server on 127.0.0.1.

- A model card through `HF_ENDPOINT` (`support.fake_hub`): its licence and base model,
  front-matter fields.
- A GitHub repository through a GitHub-shaped API (`support.fake_repository`, built from
  GitHub's OpenAPI description): its licence and its latest release.
- A JSON document on a web server whose `/version` changes between the nights.
- A two-column paper (`support.pdfs`, ligatures and broken words) whose page 2 says
  what the desk quotes.
- A Save Page Now server (`support.save_page_now`) that captures the sources after the
  first night (`claimcheck archive`), so that the second night's citations name the
  captures beside the live links.

Every expected verdict, value and page is written here by hand from what the servers
serve. Nothing connects off this machine: the sources' names resolve to the web server
while a run fetches them and to a public address while the archive is asked about them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support import pdfs
from support.cli_runs import PROXY_VARS, run, show, today, verify_by_id
from support.fake_hub import FakeHub
from support.fake_repository import FakeRepository
from support.model_cards import MODEL_URL, publish
from support.public_names import PUBLIC_ADDRESS, resolve_names
from support.replay_server import ReplayServer
from support.save_page_now import KEYS, STAMP, SavePageNowState, save_page_now

TOOLS, PAPERS = "tools.example.org", "papers.example.org"
PAPER_QUOTE = (
    "Quantized weights cut the memory of a seventy billion parameter model to about "
    "forty gigabytes."
)


class Names:
    """The web sources' names: the web server's address, or a public one once set."""

    public = False

    def address(self) -> str:
        return PUBLIC_ADDRESS if self.public else "127.0.0.1"


@pytest.fixture
def desk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[ReplayServer, FakeRepository, SavePageNowState, Names]]:
    monkeypatch.chdir(tmp_path)
    for name in ("HF_TOKEN", "GITHUB_TOKEN", *PROXY_VARS):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    names = Names()
    public = dict.fromkeys(("github.com", "huggingface.co"), PUBLIC_ADDRESS)
    resolve_names(monkeypatch, {**public, TOOLS: names.address, PAPERS: names.address})
    with (
        FakeHub() as hub,
        FakeRepository() as repository,
        ReplayServer(None) as web,
        save_page_now() as (archive, spn),
    ):
        monkeypatch.setenv("HF_ENDPOINT", hub.base_url)
        monkeypatch.setenv("GITHUB_API_URL", repository.base_url)
        monkeypatch.setenv("WAYBACK_URL", archive)
        monkeypatch.setenv("WAYBACK_KEYS", KEYS)
        publish(hub)
        web.set_page("/tool.json", json.dumps({"name": "tool", "version": 2}), "application/json")
        web.set_page("/paper.pdf", pdfs.two_column_paper(), "application/pdf")
        (tmp_path / "claimcheck.toml").write_text(
            "[fetch]\nper_host_interval = 0\nretries = 0\n[archive]\npoll_seconds = 0\n"
        )
        (tmp_path / "claims").mkdir()
        (tmp_path / "claims" / "desk.yaml").write_text(claims(web.port), encoding="utf-8")
        yield web, repository, spn, names
        assert hub.errors == [], hub.errors
        assert repository.errors == [], repository.errors


def claims(port: int) -> str:
    tool = f"http://{TOOLS}:{port}/tool.json"
    paper = f"http://{PAPERS}:{port}/paper.pdf"
    return f"""\
page: engines
checked: {today()}
claims:
  - id: chat-license
    claim: Tiny Chat 7B is Apache-2.0 licensed.
    source: {MODEL_URL}
    field: license
    value: apache-2.0
  - id: chat-base
    claim: Tiny Chat 7B is fine-tuned from Tiny Base 7B.
    source: {MODEL_URL}
    field: base_model
    value: acme-ai/tiny-base-7b
  - id: engine-license
    claim: The engine is MIT licensed.
    source: https://github.com/acme/engine
    field: license
    value: MIT
  - id: engine-release
    claim: The engine's latest release is 1.2.
    source: https://github.com/acme/engine
    field: latest-release
    matches: "v1\\\\.2\\\\.[0-9]+"
  - id: tool-version
    claim: The tool is at version 2.
    source: {tool}
    field: /version
    value: 2
  - id: paper-memory
    claim: A 70B model fits in about 40 GB once quantized.
    source: {paper}
    quote: {PAPER_QUOTE}
"""


def verdicts(results: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {claim_id: result["verdict"] for claim_id, result in results.items()}


def test_two_nights_of_claims_on_data_a_paper_and_archived_copies(
    desk: tuple[ReplayServer, FakeRepository, SavePageNowState, Names],
) -> None:
    web, repository, spn, names = desk
    tool, paper = web.url("/tool.json"), web.url("/paper.pdf")
    tool = tool.replace("127.0.0.1", TOOLS)
    paper = paper.replace("127.0.0.1", PAPERS)

    first, night1 = verify_by_id("--no-progress")

    assert first.exit_code == 0, show(first)
    assert verdicts(night1) == dict.fromkeys(
        (
            "chat-license",
            "chat-base",
            "engine-license",
            "engine-release",
            "tool-version",
            "paper-memory",
        ),
        "verified",
    )
    assert night1["engine-release"]["field"]["now"] == "v1.2.0"
    assert night1["tool-version"]["field"]["now"] == "2"  # as the report writes values
    assert "on page 2 of the PDF" in night1["paper-memory"]["reason"]
    assert night1["paper-memory"]["citation"]["page"] == 2
    assert night1["paper-memory"]["citation"]["live"].endswith("#page=2")

    # The editor captures every source (their names public now), each once.
    names.public = True
    captured = run("archive")
    names.public = False

    assert captured.exit_code == 0, show(captured)
    # A repository's fields are read from its API: the pages a reader opens are captured.
    assert sorted(spn.submitted()) == sorted(
        [
            MODEL_URL,
            "https://github.com/acme/engine",
            "https://github.com/acme/engine/releases/latest",
            tool,
            paper,
        ]
    )
    assert KEYS.split(":")[1] not in captured.stdout + captured.stderr

    # Night 2: the tool moves to version 3 and the engine releases 2.0.
    web.set_page("/tool.json", json.dumps({"name": "tool", "version": 3}), "application/json")
    repository.latest_tag = "v2.0.0"
    second, night2 = verify_by_id("--no-progress")
    offline, gate = verify_by_id("--offline", "--no-progress")

    assert second.exit_code == 1, show(second)
    assert verdicts(night2) == {
        "chat-license": "verified",
        "chat-base": "verified",
        "engine-license": "verified",
        "engine-release": "changed",
        "tool-version": "changed",
        "paper-memory": "verified",
    }
    field = night2["tool-version"]["field"]
    assert (field["then"], field["now"]) == ("2", "3")
    assert night2["engine-release"]["field"]["now"] == "v2.0.0"
    cited = night2["paper-memory"]["citation"]
    assert cited["page"] == 2
    assert cited["archived"] == {
        "url": f"{spn_base(spn)}/web/{STAMP}/{paper}#page=2",  # opens at the quote's page
        "captured": "2026-12-06T10:15:00+00:00",
    }
    # The CI gate on the stored snapshots says what the night said.
    assert offline.exit_code == 1, show(offline)
    assert verdicts(gate) == verdicts(night2)
    assert gate["paper-memory"]["citation"] == cited


def spn_base(spn: SavePageNowState) -> str:
    """The Save Page Now server's base URL, as the captures name it (from a request)."""
    (post, *_) = [seen for seen in spn.seen if seen.method == "POST"]
    return f"http://{post.headers['host']}"
