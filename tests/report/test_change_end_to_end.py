"""The change every report shows, and what contradicts an absence claim, end to end.

A web server on 127.0.0.1 serves a page; `verify` stores it as the claims' baseline,
the page changes, and `verify` runs again in every `--format`, then `diff`. The page
said "Engine A supports 4-bit and 8-bit integer quantization." and now says "Engine A
supports 4-bit, 5-bit and 8-bit integer quantization for faster inference."; the claim
quotes "supports 4-bit and 8-bit integer quantization". Read by hand, the quote's
change is `4-bit` → `4-bit, 5-bit`: "Engine A" and "for faster inference." are the
sentence around the quote, and every other word of the quote is still there. The page
also came to say "multi-tenant serving", which an absence claim says it does not.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from xml.etree import ElementTree as ET

import pytest
from bs4 import BeautifulSoup

from support.cli_runs import PROXY_VARS, run, show
from support.local_http import send_answer, serving

BEFORE = (
    "# Engine A\n\nEngine A supports 4-bit and 8-bit integer quantization.\n\nIt runs on Linux.\n"
)
AFTER = (
    "# Engine A\n\nEngine A supports 4-bit, 5-bit and 8-bit integer quantization for faster "
    "inference.\n\nIt runs on Linux. It offers multi-tenant serving.\n"
)
QUOTE = "supports 4-bit and 8-bit integer quantization"
# The quote's change, written by hand from the two pages.
CHANGE = "supports [-4-bit-]{+4-bit, 5-bit+} and 8-bit integer quantization"
NOW = "Engine A supports 4-bit, 5-bit and 8-bit integer quantization for faster inference."
# The unit that says what the absence claim says the page does not.
SAYS = "It runs on Linux. It offers multi-tenant serving."


class Page:
    """The page the server answers with, changed by the test between runs."""

    body = BEFORE


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A project whose two claims cite a page on 127.0.0.1, checked today: its URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/docs/engine.md":
                headers = {"Content-Type": "text/markdown; charset=utf-8"}
                send_answer(self, 200, headers, Page.body.encode())
            else:
                send_answer(self, 404, {}, b"")

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads the reports."""

    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(tmp_path)
    Page.body = BEFORE
    with serving(Handler) as url:
        (tmp_path / "claims").mkdir()
        (tmp_path / "claimcheck.toml").write_text(
            f'wayback_url = "{url}"\n[fetch]\nper_host_interval = 0\n'
        )
        today = dt.datetime.now(dt.UTC).date().isoformat()
        (tmp_path / "claims" / "engines.yaml").write_text(
            f"page: engines\nchecked: {today}\nclaims:\n"
            "  - id: quant\n"
            "    claim: Engine A supports 4-bit and 8-bit quantization\n"
            f"    source: {url}/docs/engine.md\n"
            f"    quote: {QUOTE}\n"
            "  - id: single-tenant\n"
            "    claim: Engine A is not a multi-tenant server\n"
            f"    source: {url}/docs/engine.md\n"
            "    absent: multi-tenant serving\n"
        )
        yield url


def verify(*args: str) -> str:
    result = run("verify", *args)
    assert result.exit_code in (0, 1), show(result)
    return result.stdout


def changed_page(site: str) -> None:
    """The baseline stored (both claims hold on it), then the page changed."""
    first = json.loads(verify("--format", "json"))
    assert [r["verdict"] for r in first["results"]] == ["verified", "verified"]
    Page.body = AFTER


def test_every_format_and_diff_show_the_quotes_change_not_the_sentences(site: str) -> None:
    changed_page(site)

    document = json.loads(verify("--format", "json"))
    markdown = verify("--format", "markdown")
    github = verify("--format", "github")
    sarif = json.loads(verify("--format", "sarif"))
    junit = ET.fromstring(verify("--format", "junit"))
    page = BeautifulSoup(verify("--format", "html"), "html.parser")
    diff = run("diff", "quant")

    quant = document["results"][0]
    assert quant["verdict"] == "drifted"
    assert quant["found"] == NOW
    assert quant["diff"] == CHANGE
    # Markdown: the sentence now, only the quote's change marked.
    assert (
        "- **Now:** Engine A supports ~~4-bit~~ **4-bit, 5-bit** and 8-bit integer "
        "quantization for faster inference. (99% match)"
    ) in markdown.splitlines()
    # github: the annotation's diff line (the runner's escapes undone).
    (annotation,) = [line for line in github.splitlines() if "title=stale claim quant" in line]
    message = annotation.split("::", 2)[2].replace("%0A", "\n").replace("%25", "%")
    assert f"diff: {CHANGE}" in message.splitlines()
    assert f"now: “{NOW}”" in message.splitlines()
    # SARIF and JUnit.
    (first, _) = sarif["runs"][0]["results"]
    assert f"Change: {CHANGE}" in first["message"]["text"].splitlines()
    failure = junit.find(".//testcase[@name='quant']/failure")
    assert failure is not None
    assert failure.text is not None
    assert f"diff: {CHANGE}" in failure.text.splitlines()
    # HTML: the quote then with `4-bit` struck; now with `4-bit, 5-bit` inserted, the
    # sentence's other words as context.
    card = page.select_one("#claim-quant")
    assert card is not None
    then, now = card.select(".sides section .text")
    assert [d.get_text() for d in then.select("del")] == ["4-bit"]
    assert then.get_text() == "supports 4-bit and 8-bit integer quantization"
    assert [i.get_text() for i in now.select("ins")] == ["4-bit, 5-bit"]
    assert [c.get_text() for c in now.select(".context")] == ["Engine A", "for faster inference."]
    assert now.get_text() == NOW
    # diff: the same change.
    assert diff.exit_code == 0, show(diff)
    lines = diff.stdout.splitlines()
    assert lines[-2:] == ["--- word diff: the quote → the text now", CHANGE]


def absence_card(page: BeautifulSoup) -> Any:
    card = page.select_one("#claim-single-tenant")
    assert card is not None
    return card


def test_a_contradicted_absence_claim_names_the_text_that_contradicts_it_in_every_format(
    site: str,
) -> None:
    changed_page(site)

    document = json.loads(verify("--format", "json"))
    markdown = verify("--format", "markdown")
    github = verify("--format", "github")
    sarif = json.loads(verify("--format", "sarif"))
    junit = ET.fromstring(verify("--format", "junit"))
    page = BeautifulSoup(verify("--format", "html"), "html.parser")
    table = verify("--format", "table")

    entry = document["results"][1]
    assert entry["verdict"] == "contradicted"
    assert (entry["absent"], entry["found"]) == (["multi-tenant serving"], SAYS)
    lines = markdown.splitlines()
    assert "- **Must not say:** “multi-tenant serving”" in lines
    assert "- **Says now:** “It runs on Linux. It offers **multi-tenant serving**.”" in lines
    (annotation,) = [line for line in github.splitlines() if "single-tenant%3A" in line]
    message = annotation.split("::", 2)[2].replace("%0A", "\n").replace("%25", "%")
    assert "must not say: “multi-tenant serving”" in message.splitlines()
    assert f"says now: “{SAYS}”" in message.splitlines()
    text = sarif["runs"][0]["results"][1]["message"]["text"].splitlines()
    assert "Must not say: “multi-tenant serving”" in text
    assert f"Says now: “{SAYS}”" in text
    failure = junit.find(".//testcase[@name='single-tenant']/failure")
    assert failure is not None
    assert failure.text is not None
    assert "must not say: “multi-tenant serving”" in failure.text.splitlines()
    assert f"says now: {SAYS}" in failure.text.splitlines()
    card = absence_card(page)
    assert "cites: nothing" not in card.get_text()
    absent = card.select_one(".absent")
    assert absent is not None
    assert absent.get_text() == "must not say: “multi-tenant serving”"
    says = card.select_one(".says-now .text")
    assert says is not None
    assert says.get_text() == SAYS
    assert [m.get_text() for m in says.select("mark")] == ["multi-tenant serving"]
    link = card.select_one(".links a")
    assert link is not None
    assert link.get_text() == "open the source at the text"
    assert "It offers multi-tenant serving" in unquote(str(link["href"]))
    row = re.sub(r"\s+", " ", table[table.index("single-tenant") :])
    assert f'now: "{SAYS}"' in row


def test_a_verified_absence_claim_says_what_it_checks_in_every_format(site: str) -> None:
    verify("--format", "json")  # the baseline: the page does not say it

    markdown = verify("--format", "markdown")
    junit = ET.fromstring(verify("--format", "junit"))
    sarif = json.loads(verify("--format", "sarif"))
    page = BeautifulSoup(verify("--format", "html"), "html.parser")
    github = verify("--format", "github")
    table = verify("--format", "table")

    card = absence_card(page)
    assert "cites: nothing" not in card.get_text()
    absent = card.select_one(".absent")
    assert absent is not None
    assert absent.get_text() == "must not say: “multi-tenant serving”"
    assert card.select_one(".says-now") is None
    out = junit.find(".//testcase[@name='single-tenant']/system-out")
    assert out is not None
    assert out.text is not None
    assert "must not say: “multi-tenant serving”" in out.text.splitlines()
    # SARIF lists only the claims needing attention, a holding quote's neither.
    assert sarif["runs"][0]["results"] == []
    # The formats that list a passing claim in one line say what it checks in its reason.
    said = "the source does not say 'multi-tenant serving' now"
    assert said in github
    assert said in re.sub(r"\s+", " ", table)
    assert "single-tenant" in markdown  # listed among all claims
