"""A README is fetched once, as GitHub's content object: the file and its path together."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from claimcheck.cli.app import app
from claimcheck.forges.github import readme_content
from support.local_http import RecordingServer

README = b"# Engine\n\nThe engine supports CUDA and Metal.\n"
runner = CliRunner()


def content_object(**fields: Any) -> bytes:
    document = {"type": "file", "path": "docs/README.md", "name": "README.md", **fields}
    return json.dumps(document).encode()


@pytest.mark.parametrize(
    ("body", "content_type", "expected"),
    [
        (
            content_object(encoding="base64", content=base64.encodebytes(README).decode()),
            "application/json; charset=utf-8",
            (README, "docs/README.md"),
        ),
        (content_object(encoding="none", content=""), "application/json", (None, "docs/README.md")),
        (  # a byte order mark, which the standard library's reader takes and orjson not
            b"\xef\xbb\xbf"
            + content_object(encoding="base64", content=base64.encodebytes(README).decode()),
            "application/json",
            (README, "docs/README.md"),
        ),
        (README, "application/vnd.github.raw+json", None),  # a raw answer: judged as it came
        (b'{"message": "API rate limit exceeded"}', "application/json", None),
        (b"<html>Just a moment...</html>", "application/json", None),
    ],
    ids=["inlined", "too-large", "with-bom", "raw", "rate-limit", "not-json"],
)
def test_the_content_object_gives_the_file_and_its_path(
    body: bytes, content_type: str, expected: tuple[bytes | None, str] | None
) -> None:
    found = readme_content(body, content_type)
    assert (None if found is None else (found.body, found.path)) == expected


class _ObjectWithoutContent(BaseHTTPRequestHandler):
    """GitHub's answer for a README over 1 MB: the object without its content."""

    asked: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        accept = self.headers.get("Accept", "")
        self.asked.append(accept)
        raw = "raw" in accept
        body = README if raw else content_object(encoding="none", content="")
        self.send_response(200)
        self.send_header("Content-Type", accept if raw else "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    errors: list[str] = []
    httpd = RecordingServer(("127.0.0.1", 0), _ObjectWithoutContent, errors)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    assert errors == []


def test_a_readme_too_large_for_the_object_is_asked_for_raw(
    server: RecordingServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_API_URL", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    (tmp_path / "claimcheck.toml").write_text("[fetch]\nper_host_interval = 0\n")
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "p.yaml").write_text(
        "page: p\nchecked: 2026-11-20\nclaims:\n  - id: gpu\n    claim: c\n"
        "    source: https://github.com/o/r\n    quote: supports CUDA and Metal\n"
    )
    _ObjectWithoutContent.asked.clear()
    result = runner.invoke(app, ["verify", "--format", "json"])
    assert json.loads(result.stdout)["results"][0]["verdict"] == "verified", result.output
    readme_asks = [a for a in _ObjectWithoutContent.asked if a]
    assert readme_asks[:2] == ["application/vnd.github+json", "application/vnd.github.raw+json"]
    index = json.loads(next((tmp_path / "snapshots").rglob("index.json")).read_text())
    assert index["history"]["readme_path"] == "docs/README.md"
