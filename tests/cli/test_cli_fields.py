"""End to end: claims on fields, with the real `claimcheck` CLI and servers on 127.0.0.1.

A JSON document served by a test server changes between two nights (its licence
field changes, then is removed); a model card served through `HF_ENDPOINT` holds a
licence and a base model in its front matter. Every expected verdict and value is
written here by hand.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from support.claim_files import write_fast_config
from support.cli_runs import PROXY_VARS, run, today
from support.cli_runs import show as _show
from support.cli_runs import verify_by_id as verify_json
from support.local_http import RecordingServer, running, send_answer


class JsonDocument:
    """One JSON document at `/tool.json`, its body set by the test, served with an ETag
    that answers a matching If-None-Match with 304; every request recorded."""

    def __init__(self) -> None:
        self.body = b"{}"
        self.content_type = "application/json"
        self.requests: list[tuple[str, int]] = []
        errors: list[str] = []
        document = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                etag = '"' + hashlib.sha256(document.body).hexdigest()[:16] + '"'
                if self.headers.get("If-None-Match") == etag:
                    document.requests.append((self.path, 304))
                    self.send_response(304)
                    self.send_header("ETag", etag)
                    self.end_headers()
                    return
                document.requests.append((self.path, 200))
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


@pytest.fixture
def served() -> Iterator[JsonDocument]:
    document = JsonDocument()
    with running(document.server):
        yield document


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CLAIMCHECK_ALLOW_ADDRESSES", "127.0.0.1")
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("WAYBACK_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_COLOR", "1")
    for name in ("HF_TOKEN", "GITHUB_TOKEN", *PROXY_VARS):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    write_fast_config(tmp_path)
    return tmp_path


def write(project: Path, text: str) -> None:
    folder = project / "claims"
    folder.mkdir(exist_ok=True)
    (folder / "desk.yaml").write_text(text, encoding="utf-8")


def test_a_json_field_is_verified_then_changed_then_missing(
    project: Path, served: JsonDocument
) -> None:
    served.serve({"name": "tool", "license": "MIT", "version": 2, "stable": True})
    write(
        project,
        f"""\
page: desk
checked: {today()}
claims:
  - id: tool-license
    claim: The tool is MIT-licensed.
    source: {served.url}
    field: /license
    value: MIT
  - id: tool-version
    claim: The tool is at version 2.
    source: {served.url}
    field: /version
    value: "2"
  - id: tool-stable
    claim: The tool is stable.
    source: {served.url}
    field: stable
    value: true
""",
    )

    first, night1 = verify_json()
    served.serve({"name": "tool", "license": "Apache-2.0", "version": 2.0, "stable": True})
    second, night2 = verify_json()
    served.serve({"name": "tool", "version": 3, "stable": True})
    third, night3 = verify_json()

    assert first.exit_code == 0, _show(first)
    assert {k: v["verdict"] for k, v in night1.items()} == {
        "tool-license": "verified",
        "tool-version": "verified",
        "tool-stable": "verified",
    }
    assert second.exit_code == 1, _show(second)
    print(json.dumps(night2, indent=1))
    assert night2["tool-license"]["verdict"] == "changed"
    assert night2["tool-version"]["verdict"] == "verified"
    assert third.exit_code == 1, _show(third)
    print(json.dumps(night3, indent=1))
    assert night3["tool-license"]["verdict"] == "missing"
    assert night3["tool-version"]["verdict"] == "changed"
