"""A GitHub repository's data on 127.0.0.1, as GitHub's REST API answers it.

`FakeRepository` serves `GET /repos/{owner}/{repo}` (the repository object) and `GET
/repos/{owner}/{repo}/releases/latest` (the latest release), as a claim on a
repository's `license`, `default-branch` or `latest-release` reads them. The repository
object is built from the `repository` schema of GitHub's own OpenAPI description (every
property it requires, typed as it says) and validated against it before it is served;
the release carries the fields GitHub documents for "Get the latest release" (the shared
description holds no release schema). A repository without releases answers 404 with
GitHub's error object. Each answer has an ETag, and a matching If-None-Match is
answered 304; the headers claimcheck must send (`Accept`, `X-GitHub-Api-Version`) are
checked, and any request the fake does not serve is kept in `errors`, which fails the
test.
"""

from __future__ import annotations

import hashlib
import json
from http.server import BaseHTTPRequestHandler
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

from support.local_http import RecordingServer, running, send_answer
from support.openapi_document import SPEC, load_document

API_VERSION = "2022-11-28"
_WHEN = "2026-11-01T03:00:00Z"


def _value_of(document: Any, name: str, schema: dict[str, Any], base: str) -> Any:
    """A value of a repository property as its schema types it."""
    schema = document.resolve(schema)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next(k for k in kind if k != "null")
    if schema.get("format") == "date-time":
        return _WHEN
    if kind == "string":
        uri = name.endswith("url") or schema.get("format") == "uri"
        return f"{base}/{name}" if uri else name
    if kind == "integer":
        return 0
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if kind == "object" or "properties" in schema:
        required = schema.get("required", [])
        properties = schema.get("properties", {})
        return {key: _value_of(document, key, properties[key], base) for key in required}
    if schema.get("nullable") or "anyOf" in schema or "allOf" in schema:
        return None
    raise AssertionError(f"no value for {name}: {schema}")


class FakeRepository:
    """One repository's data (see the module doc): its licence (an SPDX id, or None for
    none), default branch and latest release tag (None: no release), set by the test."""

    def __init__(self, owner: str = "acme", repo: str = "engine") -> None:
        self.owner, self.repo = owner, repo
        self.spdx: str | None = "MIT"
        self.default_branch = "main"
        self.latest_tag: str | None = "v1.2.0"
        self.requests: list[tuple[str, int]] = []
        self.errors: list[str] = []
        self._document = load_document(SPEC)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                fake.answer(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = RecordingServer(("127.0.0.1", 0), Handler, self.errors)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def url(self) -> str:
        """The repository as a claim names it."""
        return f"https://github.com/{self.owner}/{self.repo}"

    def __enter__(self) -> Self:
        self._running = running(self.server)
        self._running.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._running.__exit__(kind, error, trace)

    def repository(self) -> dict[str, Any]:
        """The repository object, every property the schema requires, validated."""
        schema = self._document.doc["components"]["schemas"]["repository"]
        base = f"https://api.github.com/repos/{self.owner}/{self.repo}"
        found = _value_of(self._document, "repository", schema, base)
        license = None
        if self.spdx is not None:
            key = self.spdx.lower()
            license = {
                "key": key,
                "name": f"{self.spdx} License",
                "url": f"https://api.github.com/licenses/{key}",
                "spdx_id": self.spdx,
                "node_id": "MDc6TGljZW5zZTEz",
            }
        found |= {
            "name": self.repo,
            "full_name": f"{self.owner}/{self.repo}",
            "html_url": f"https://github.com/{self.owner}/{self.repo}",
            "default_branch": self.default_branch,
            "license": license,
            "description": "An inference engine.",
        }
        problems = self._document.problems(
            {"$ref": "#/components/schemas/repository"}, found, "repository"
        )
        assert problems == [], problems
        return found

    def release(self) -> dict[str, Any]:
        """The latest release as GitHub's "Get the latest release" answers it."""
        base = f"https://api.github.com/repos/{self.owner}/{self.repo}/releases/1"
        return {
            "url": base,
            "html_url": f"https://github.com/{self.owner}/{self.repo}/releases/tag/{self.latest_tag}",
            "assets_url": f"{base}/assets",
            "upload_url": f"https://uploads.github.com/repos/{self.owner}/{self.repo}/releases/1/assets{{?name,label}}",
            "tarball_url": f"https://api.github.com/repos/{self.owner}/{self.repo}/tarball/{self.latest_tag}",
            "zipball_url": f"https://api.github.com/repos/{self.owner}/{self.repo}/zipball/{self.latest_tag}",
            "id": 1,
            "node_id": "MDc6UmVsZWFzZTE=",
            "tag_name": self.latest_tag,
            "target_commitish": self.default_branch,
            "name": self.latest_tag,
            "body": "What changed.",
            "draft": False,
            "prerelease": False,
            "created_at": _WHEN,
            "published_at": _WHEN,
            "author": None,
            "assets": [],
        }

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        path = urlsplit(handler.path).path
        prefix = f"/repos/{self.owner}/{self.repo}"
        accept = handler.headers.get("Accept", "")
        if "application/vnd.github" not in accept and "application/json" not in accept:
            self.errors.append(f"{path}: Accept {accept!r}")
        if handler.headers.get("X-GitHub-Api-Version") != API_VERSION:
            self.errors.append(f"{path}: no X-GitHub-Api-Version {API_VERSION}")
        if path == prefix:
            body: Any = self.repository()
        elif path == f"{prefix}/releases/latest" and self.latest_tag is not None:
            body = self.release()
        elif path == f"{prefix}/releases/latest":
            body = {
                "message": "Not Found",
                "documentation_url": "https://docs.github.com/rest/releases/releases#get-the-latest-release",
                "status": "404",
            }
            self.requests.append((path, 404))
            send_answer(
                handler, 404, {"Content-Type": "application/json"}, json.dumps(body).encode()
            )
            return
        else:
            self.errors.append(f"unexpected request {path}")
            self.requests.append((path, 404))
            send_answer(handler, 404, {"Content-Type": "application/json"}, b"{}")
            return
        data = json.dumps(body, indent=2).encode()
        etag = '"' + hashlib.sha256(data).hexdigest()[:20] + '"'
        if handler.headers.get("If-None-Match") == etag:
            self.requests.append((path, 304))
            handler.send_response(304)
            handler.send_header("ETag", etag)
            handler.end_headers()
            return
        self.requests.append((path, 200))
        headers = {"Content-Type": "application/json; charset=utf-8", "ETag": etag}
        send_answer(handler, 200, headers, data)
