"""End to end: claims on fields, with the real `claimcheck` CLI and servers on 127.0.0.1.

A desk's data claims: a JSON document served by a test server whose fields change from
one night to the next (its licence changes, then is removed), and a model card served
through `HF_ENDPOINT` whose front matter holds a licence, a base model and tags. Every
expected verdict and value is written here by hand.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from support import docs
from support.claim_files import write_fast_config
from support.cli_runs import PROXY_VARS, run, today
from support.cli_runs import show as _show
from support.cli_runs import verify_by_id as verify_json
from support.fake_hub import FakeHub
from support.fake_repository import FakeRepository
from support.local_http import RecordingServer, running, send_answer
from support.model_cards import MODEL_URL, at, publish


class JsonDocument:
    """One document at `/tool.json`, its body and type set by the test, served with an
    ETag that answers a matching If-None-Match with 304; each request's status kept."""

    def __init__(self) -> None:
        self.body = b"{}"
        self.content_type = "application/json"
        self.statuses: list[int] = []
        errors: list[str] = []
        document = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                etag = '"' + hashlib.sha256(document.body).hexdigest()[:16] + '"'
                if self.headers.get("If-None-Match") == etag:
                    document.statuses.append(304)
                    self.send_response(304)
                    self.send_header("ETag", etag)
                    self.end_headers()
                    return
                document.statuses.append(200)
                headers = {"Content-Type": document.content_type, "ETag": etag}
                send_answer(self, 200, headers, document.body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = RecordingServer(("127.0.0.1", 0), Handler, errors)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/tool.json"

    def serve(self, document: object) -> None:
        self.body = json.dumps(document, indent=2).encode()
        self.content_type = "application/json"


@pytest.fixture
def served() -> Iterator[JsonDocument]:
    document = JsonDocument()
    with running(document.server):
        yield document


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub(per_page=2) as server:
        yield server
    assert server.errors == []


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hub: FakeHub) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_ENDPOINT", hub.base_url)
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", "127.0.0.1")
    monkeypatch.setenv("GITHUB_API_URL", hub.base_url)
    monkeypatch.setenv("WAYBACK_URL", hub.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    for name in ("HF_TOKEN", "GITHUB_TOKEN", *PROXY_VARS):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    write_fast_config(tmp_path)
    return tmp_path


def write(project: Path, text: str) -> Path:
    folder = project / "claims"
    folder.mkdir(exist_ok=True)
    path = folder / "desk.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def json_claims(url: str) -> str:
    return f"""\
page: desk
checked: {today()}
claims:
  # The licence row of the comparison table.
  - id: tool-license
    claim: The tool is MIT-licensed.
    source: {url}
    field: /license
    value: MIT   # as the document spells it
  - id: tool-version
    claim: The tool is at version 2.
    source: {url}
    field: /version
    value: 2
  - id: tool-stable
    claim: The tool calls itself stable.
    source: {url}
    field: stable
    value: true
  - id: tool-runtime
    claim: The tool runs on CUDA.
    source: {url}
    field: /runtimes
    matches: "(?i)cuda( [0-9.]+)?"
"""


NIGHT_1 = {
    "name": "tool",
    "license": "MIT",
    "version": 2,
    "stable": True,
    "runtimes": ["cpu", "CUDA 12"],
}
NIGHT_2 = {
    "name": "tool",
    "license": "Apache-2.0",
    "version": 2.0,
    "stable": True,
    "runtimes": ["cpu", "CUDA 12"],
}
NIGHT_3 = {"name": "tool", "version": 3, "stable": True, "runtimes": ["cpu"]}


def verdicts(results: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {claim_id: entry["verdict"] for claim_id, entry in results.items()}


def test_a_json_documents_fields_hold_then_change_then_go(
    project: Path, served: JsonDocument
) -> None:
    served.serve(NIGHT_1)
    write(project, json_claims(served.url))

    first, night1 = verify_json()
    again, unchanged = verify_json()
    served.serve(NIGHT_2)
    second, night2 = verify_json()
    markdown = run("verify", "--offline", "--format", "markdown")
    served.serve(NIGHT_3)
    third, night3 = verify_json()

    assert first.exit_code == 0, _show(first)
    assert verdicts(night1) == {
        "tool-license": "verified",
        "tool-version": "verified",
        "tool-stable": "verified",
        "tool-runtime": "verified",
    }
    assert night1["tool-license"]["reason"] == "the field '/license' is 'MIT' now"
    assert night1["tool-license"]["field"] == {
        "path": "/license",
        "value": "MIT",
        "matches": None,
        "now": "MIT",
        "then": "MIT",
    }
    assert night1["tool-runtime"]["field"]["now"] == '["cpu", "CUDA 12"]'
    # The unchanged night is asked with the ETag kept with the snapshot, and answered 304.
    assert again.exit_code == 0, _show(again)
    assert served.statuses[:2] == [200, 304]
    assert verdicts(unchanged) == verdicts(night1)

    assert second.exit_code == 1, _show(second)
    assert verdicts(night2) == {
        "tool-license": "changed",
        "tool-version": "verified",  # 2.0 is the number 2
        "tool-stable": "verified",
        "tool-runtime": "verified",
    }
    license = night2["tool-license"]
    assert license["stale"] is True
    assert license["field"]["now"] == "Apache-2.0"
    assert license["field"]["then"] == "MIT"
    assert license["diff"] == "[-MIT-]{+Apache-2.0+}"
    assert license["reason"].startswith(
        "the field '/license' changed: it is 'Apache-2.0' now, not 'MIT'; on "
    )
    assert markdown.exit_code == 1, _show(markdown)
    assert "#### `tool-license` · changed" in markdown.stdout
    assert "- **Field:** `/license`, expected “MIT”" in markdown.stdout
    assert "- **Value then → now:** ~~MIT~~ → “Apache-2.0”" in markdown.stdout

    assert third.exit_code == 1, _show(third)
    assert verdicts(night3) == {
        "tool-license": "missing",
        "tool-version": "changed",
        "tool-stable": "verified",
        "tool-runtime": "changed",
    }
    assert night3["tool-license"]["reason"] == "the field '/license' is not in the source now"
    assert night3["tool-license"]["field"]["now"] is None
    assert night3["tool-version"]["diff"] == "[-2-]{+3+}"
    assert night3["tool-runtime"]["reason"].startswith(
        "the field '/runtimes' changed: it is '[\"cpu\"]' now, which does not match "
        "'(?i)cuda( [0-9.]+)?'"
    )


def test_an_error_page_or_broken_json_is_unreachable_never_stale(
    project: Path, served: JsonDocument
) -> None:
    served.serve(NIGHT_1)
    write(project, json_claims(served.url))
    verify_json()

    served.body, served.content_type = b"<html><body><h1>Service</h1></body></html>", "text/html"
    html, as_html = verify_json()
    served.body, served.content_type = b'{"name": "tool", "lic', "application/json"
    cut, as_cut = verify_json()

    assert html.exit_code == 3, _show(html)
    assert set(verdicts(as_html).values()) == {"unreachable"}
    assert "the answer is an HTML page, not JSON" in as_html["tool-license"]["reason"]
    assert cut.exit_code == 3, _show(cut)
    assert set(verdicts(as_cut).values()) == {"unreachable"}
    assert "the answer is not whole JSON" in as_cut["tool-license"]["reason"]


def test_accept_writes_the_value_now_into_the_claim_keeping_comments(
    project: Path, served: JsonDocument
) -> None:
    served.serve(NIGHT_1)
    path = write(project, json_claims(served.url))
    verify_json()
    served.serve(NIGHT_2)
    verify_json()

    accepted = run("accept", "tool-license")
    after, results = verify_json("--offline")

    assert accepted.exit_code == 0, _show(accepted)
    assert "  value: 'MIT' -> 'Apache-2.0'" in accepted.stdout
    text = path.read_text(encoding="utf-8")
    assert "  # The licence row of the comparison table.\n" in text
    assert "    value: Apache-2.0   # as the document spells it\n" in text
    assert results["tool-license"]["verdict"] == "verified"
    assert after.exit_code == 0, _show(after)


def test_accept_refuses_a_field_that_is_gone_or_a_pattern_that_no_longer_matches(
    project: Path, served: JsonDocument
) -> None:
    served.serve(NIGHT_1)
    path = write(project, json_claims(served.url))
    verify_json()
    served.serve(NIGHT_3)
    verify_json()
    before = path.read_text(encoding="utf-8")

    gone = run("accept", "tool-license")
    pattern = run("accept", "tool-runtime")

    assert gone.exit_code == 1, _show(gone)
    assert "the field '/license' is not in the snapshot of" in gone.stderr
    assert pattern.exit_code == 1, _show(pattern)
    assert "its value '[\"cpu\"]' does not match the claim's pattern" in pattern.stderr
    assert path.read_text(encoding="utf-8") == before


def test_lint_names_a_field_the_latest_snapshot_does_not_hold(
    project: Path, served: JsonDocument
) -> None:
    served.serve(NIGHT_1)
    write(project, json_claims(served.url))
    verify_json()
    clean = run("lint")
    served.serve(NIGHT_2)
    verify_json()

    result = run("lint", "--format", "json")

    assert clean.exit_code == 0, _show(clean)
    assert result.exit_code == 1, _show(result)
    (finding,) = json.loads(result.stdout)["findings"]
    assert finding["rule"] == "field-mismatch"
    assert finding["id"] == "tool-license"
    assert finding["line"] == 5
    assert finding["message"].startswith(
        "the field '/license' changed: it is 'Apache-2.0' in the snapshot of "
    )


def test_diff_explain_and_cite_show_a_field(project: Path, served: JsonDocument) -> None:
    served.serve(NIGHT_1)
    write(project, json_claims(served.url))
    verify_json()
    cited = run("cite", "tool-license", "--offline", "--style", "json")
    served.serve(NIGHT_2)
    verify_json()

    diffed = run("diff", "tool-license")
    explained = run("explain", "tool-license")
    shown = run("show", "tool-license")
    as_json = json.loads(run("show", "tool-license", "-f", "json").stdout)

    assert cited.exit_code in (0, 3), _show(cited)
    assert json.loads(cited.stdout)["live"] == f"{served.url}#/license"
    assert diffed.exit_code == 0, _show(diffed)
    lines = diffed.stdout.splitlines()
    assert lines[0].startswith("tool-license: changed — the field '/license' changed")
    assert lines[1].startswith("--- baseline (snapshot of ")
    assert lines[1].endswith("): field /license")
    assert lines[2] == "MIT"
    assert lines[4] == "Apache-2.0"
    assert lines[5] == "--- value diff: the claim's value → the value now"
    assert lines[6] == "[-MIT-]{+Apache-2.0+}"
    assert explained.exit_code == 0, _show(explained)
    assert "field     /license" in explained.stdout
    assert "value     'MIT'" in explained.stdout
    assert "then      'MIT' (on the check date)" in explained.stdout
    assert "now       'Apache-2.0'" in explained.stdout
    assert "field:     /license\nvalue:     MIT\n" in shown.stdout
    assert as_json["field"] == {"path": "/license", "value": "MIT", "matches": None}
    assert as_json["quote"] is None


def test_a_model_cards_front_matter_fields(project: Path, hub: FakeHub) -> None:
    publish(hub)
    write(
        project,
        f"""\
page: desk
checked: {today()}
claims:
  - id: card-license
    claim: Tiny Chat 7B is Apache-2.0 licensed.
    source: {MODEL_URL}
    field: license
    value: apache-2.0
  - id: card-base
    claim: Tiny Chat 7B is fine-tuned from Tiny Base 7B.
    source: {MODEL_URL}
    field: /base_model
    value: acme-ai/tiny-base-7b
  - id: card-tag
    claim: Tiny Chat 7B is a chat model.
    source: {MODEL_URL}
    field: tags
    value: chat
  - id: card-mit
    claim: Tiny Chat 7B is MIT licensed.
    source: {MODEL_URL}
    field: license
    value: mit
  - id: card-datasets
    claim: Tiny Chat 7B names its datasets.
    source: {MODEL_URL}
    field: datasets
    matches: ".+"
""",
    )

    result, results = verify_json()

    assert result.exit_code == 1, _show(result)
    assert verdicts(results) == {
        "card-license": "verified",
        "card-base": "verified",
        "card-tag": "verified",  # one item of the list
        "card-mit": "missing",  # wrong when written: the card said apache-2.0 then too
        "card-datasets": "missing",
    }
    assert results["card-mit"]["reason"].startswith(
        "never matched at check date: the field 'license' held 'apache-2.0' as of "
    )
    assert results["card-mit"]["reason"].endswith(", so the claim never had this support")
    assert results["card-license"]["field"]["now"] == "apache-2.0"
    assert results["card-tag"]["field"]["now"] == '["chat", "llama"]'
    assert results["card-datasets"]["reason"].startswith(
        "never matched at check date: the field 'datasets' was not there as of "
    )


def test_lint_names_the_file_line_and_field_of_each_problem(project: Path) -> None:
    write(
        project,
        """\
page: desk
checked: 2026-01-05
claims:
  - id: bad-pointer
    claim: x
    source: https://example.org/a.json
    field: /a~2b
    value: x
  - id: bad-pattern
    claim: x
    source: https://example.org/a.json
    field: /a
    matches: "(unclosed"
  - id: both
    claim: x
    source: https://example.org/a.json
    field: /a
    quote: some words here
    value: x
  - id: no-value
    claim: x
    source: https://example.org/a.json
    field: /a
  - id: value-and-pattern
    claim: x
    source: https://example.org/a.json
    field: /a
    value: x
    matches: x
  - id: no-field
    claim: x
    source: https://example.org/a.json
    value: x
  - id: typo
    claim: x
    source: https://example.org/a.json
    feild: /a
    value: x
""",
    )

    result = run("verify")

    assert result.exit_code == 2, _show(result)
    assert result.stderr.splitlines()[:8] == [
        "error: claims/desk.yaml:7: claim 'bad-pointer': field: '/a~2b' is not a JSON "
        "Pointer: `~` at character 3 must be `~0` (a ~) or `~1` (a /), as RFC 6901 escapes "
        "them",
        "claims/desk.yaml:13: claim 'bad-pattern': matches: is not a valid regular "
        "expression: missing ), unterminated subpattern at position 0",
        "claims/desk.yaml:18: claim 'both': quote: a claim checks a quote or a field, not "
        "both: this one names a `field`, so no `quote`; make the quote a claim of its own",
        "claims/desk.yaml:23: claim 'no-value': field: say what the field holds: give "
        "`value` or `matches`",
        "claims/desk.yaml:29: claim 'value-and-pattern': matches: give `value` (exact) or "
        "`matches` (a pattern), not both",
        "claims/desk.yaml:33: claim 'no-field': value: `value` is what a field holds: name "
        "the field with `field`",
        "claims/desk.yaml:37: claim 'typo': feild: unknown key; did you mean 'field'?",
        "claims/desk.yaml:38: claim 'typo': value: `value` is what a field holds: name the "
        "field with `field`",
    ]


@pytest.fixture
def repository(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeRepository]:
    with FakeRepository() as server:
        monkeypatch.setenv("GITHUB_API_URL", server.base_url)
        yield server


def repository_claims(url: str) -> str:
    return f"""\
page: desk
checked: {today()}
claims:
  - id: engine-license
    claim: The engine is MIT licensed.
    source: {url}
    field: license
    value: MIT
  - id: engine-release
    claim: The engine's latest release is 1.2.
    source: {url}
    field: latest-release
    matches: "v1\\\\.2\\\\.[0-9]+"
  - id: engine-branch
    claim: The engine develops on main.
    source: {url}
    field: default-branch
    value: main
"""


def test_a_repositorys_licence_release_and_branch_through_githubs_api(
    project: Path, repository: FakeRepository
) -> None:
    write(project, repository_claims(repository.url))

    first, night1 = verify_json()
    again, unchanged = verify_json()
    repository.spdx, repository.latest_tag = "Apache-2.0", "v2.0.0"
    second, night2 = verify_json()
    repository.latest_tag = None  # the releases were deleted
    third, night3 = verify_json()

    assert first.exit_code == 0, _show(first)
    assert verdicts(night1) == {
        "engine-license": "verified",
        "engine-release": "verified",
        "engine-branch": "verified",
    }
    assert night1["engine-license"]["reason"] == "the field 'license' is 'MIT' now"
    assert night1["engine-release"]["field"]["now"] == "v1.2.0"
    # Each answer is asked again with its ETag, and a 304 keeps the verdicts.
    assert verdicts(unchanged) == verdicts(night1)
    assert again.exit_code == 0, _show(again)
    assert sorted(repository.requests[:4]) == [
        ("/repos/acme/engine", 200),
        ("/repos/acme/engine", 304),
        ("/repos/acme/engine/releases/latest", 200),
        ("/repos/acme/engine/releases/latest", 304),
    ]
    assert second.exit_code == 1, _show(second)
    assert verdicts(night2) == {
        "engine-license": "changed",
        "engine-release": "changed",
        "engine-branch": "verified",
    }
    assert night2["engine-license"]["field"] == {
        "path": "license",
        "value": "MIT",
        "matches": None,
        "now": "Apache-2.0",
        "then": "MIT",
    }
    assert night2["engine-release"]["reason"].startswith(
        "the field 'latest-release' changed: it is 'v2.0.0' now, which does not match "
    )
    assert third.exit_code == 1, _show(third)
    assert night3["engine-release"]["verdict"] == "source-gone"
    assert night3["engine-license"]["verdict"] == "changed"
    assert repository.errors == []


def test_a_repository_claim_checked_before_its_first_fetch_asks_no_history_twice(
    project: Path, repository: FakeRepository
) -> None:
    """A repository's data has no history: a claim checked before the first fetch is
    judged on the answer now, and the next run asks history nothing."""
    write(project, repository_claims(repository.url).replace(today(), "2026-01-05"))

    first, results = verify_json()
    again = run("backfill")

    assert first.exit_code == 0, _show(first)
    assert results["engine-license"]["verdict"] == "verified"
    assert results["engine-license"]["baseline"] is None
    assert again.exit_code == 0, _show(again)
    assert "0 baselines stored, 0 not found, 0 requests" in again.stderr
    assert repository.errors == []


def test_an_unknown_repository_field_is_refused_with_the_closest_name(project: Path) -> None:
    write(
        project,
        """\
page: desk
checked: 2026-01-05
claims:
  - id: engine-release
    claim: x
    source: https://github.com/acme/engine
    field: latest_release
    value: v1
""",
    )

    result = run("verify")

    assert result.exit_code == 2, _show(result)
    assert result.stderr.splitlines()[0] == (
        "error: claims/desk.yaml:7: claim 'engine-release': field: 'latest_release' is no "
        "field of a GitHub repository: give one of `license`, `latest-release`, "
        "`default-branch`; did you mean 'latest-release'?"
    )


def test_the_docs_example_of_claims_on_fields_holds_on_servers_shaped_like_it(
    project: Path, hub: FakeHub, repository: FakeRepository, served: JsonDocument
) -> None:
    """docs/claim-files.md's example, run as written, but for the JSON document's host."""
    publish(hub)
    served.serve(NIGHT_1)
    example = docs.block("example:fields").replace(
        "https://tools.example.org/tool.json", served.url
    )
    write(project, f"page: desk\nchecked: {today()}\nclaims:\n{example}")

    result, results = verify_json()

    assert result.exit_code == 0, _show(result)
    assert verdicts(results) == {
        "engine-license": "verified",
        "engine-release": "verified",
        "chat-base-model": "verified",
        "tool-version": "verified",
    }
    assert results["engine-release"]["field"]["matches"] == "v1\\.2\\.[0-9]+"
    assert results["engine-license"]["source"] == "https://api.github.com/repos/acme/engine"


RELICENSED = "acme-ai/relicensed-3b"


def relicensed_card(license: str, intro: str) -> str:
    matter = f"---\nlicense: {license}\nbase_model: acme-ai/tiny-base-7b\n---\n"
    return f"{matter}\n# Relicensed 3B\n\n{intro}\n"


def test_a_cards_licence_changed_since_the_check_date_is_blamed_on_its_commit(
    project: Path, hub: FakeHub
) -> None:
    hub.commit(
        RELICENSED,
        relicensed_card("mit", "A small model."),
        title="Initial card",
        date=at("2024-01-10"),
    )
    hub.commit(
        RELICENSED,
        relicensed_card("mit", "A small chat model."),
        title="Reword",
        date=at("2024-03-01"),
    )
    relicense = hub.commit(
        RELICENSED,
        relicensed_card("apache-2.0", "A small chat model."),
        title="Relicense to Apache-2.0",
        author="maintainer-c",
        date=at("2024-06-01", hour=9),
    )
    hub.commit(
        RELICENSED,
        relicensed_card("apache-2.0", "A small chat model, v2."),
        title="Reword again",
        date=at("2024-07-01"),
    )
    write(
        project,
        f"""\
page: desk
checked: 2024-02-01
claims:
  - id: relicensed-license
    claim: Relicensed 3B is MIT licensed.
    source: https://huggingface.co/{RELICENSED}
    field: license
    value: mit
""",
    )

    result, results = verify_json()
    blamed = run("blame", "relicensed-license")

    assert result.exit_code == 1, _show(result)
    entry = results["relicensed-license"]
    assert entry["verdict"] == "changed"
    assert entry["field"]["then"] == "mit"
    assert entry["field"]["now"] == "apache-2.0"
    assert entry["baseline"] == "2024-01-10"
    assert entry["blame"]["sha"] == relicense.sha
    assert entry["blame"]["title"] == "Relicense to Apache-2.0"
    assert blamed.exit_code == 0, _show(blamed)
    assert f"commit {relicense.sha}" in blamed.stdout.splitlines()


def test_an_acknowledged_expired_field_claim_accepted_loses_its_acknowledgement(
    project: Path, served: JsonDocument
) -> None:
    (project / "claimcheck.toml").write_text(
        "[fetch]\nper_host_interval = 0\n\n[verdict]\nmax_age_days = 30\n"
    )
    served.serve(NIGHT_1)
    path = write(project, json_claims(served.url).replace(today(), "2026-01-05"))
    _, first = verify_json()
    acked = run("ack", "tool-license", "--note", "The licence is still MIT.")
    after_ack = path.read_text(encoding="utf-8")
    served.serve(NIGHT_2)
    _, second = verify_json()

    accepted = run("accept", "tool-license")

    assert first["tool-license"]["verdict"] == "expired"
    assert acked.exit_code == 0, _show(acked)
    assert "reviewed:" in after_ack
    assert second["tool-license"]["verdict"] == "changed"
    assert accepted.exit_code == 0, _show(accepted)
    assert "  reviewed: removed (the acknowledgement of " in accepted.stdout
    text = path.read_text(encoding="utf-8")
    assert "reviewed:" not in text
    assert "    value: Apache-2.0   # as the document spells it\n" in text
