"""A GitHub-shaped REST API on 127.0.0.1 for benchmarks: N repositories of real READMEs.

    python bench/loopback_github.py --sources 1000 --latency 0.02 [--history 404] [--port 0]
        [--distinct]

It prints one line, `http://127.0.0.1:PORT ...`, once it listens, and serves until it
is terminated. Repositories are `bench/engine-0` … `bench/engine-{N-1}`; each one's
README is a real README text of the history corpus (`tests/data/corpus/readme-history`),
the versions taken in turn across the engines so that the average body is README-sized
(about 16 KB). Every answer waits `--latency` seconds first, without blocking the others
(asyncio timers), like a distant server: a small HTTP/1.1 server with keep-alive on an
asyncio protocol, standard library only, run in its own process so that its CPU time is
not the measured tool's.

GitHub's REST API as reproduced (see https://docs.github.com/rest):

- `GET /repos/{owner}/{repo}/readme[?ref=]` and `/contents/README.md?ref=`: the raw
  bytes with `Accept: application/vnd.github.raw` (or `...raw+json`), that media type
  echoed in `Content-Type`; otherwise the JSON content object (`type`, `path`, `sha`,
  `size`, `content` in base64 wrapped at 60 characters, `encoding`, ...). `ref` is the
  default branch `main`, `HEAD`, or one of the repository's commit shas (7+ characters).
- `GET /repos/{owner}/{repo}/commits?path=&sha=&since=&until=&per_page=&page=`: newest
  first, with a `Link` header when there are more pages. A repository has two commits
  (or one, for a corpus engine's first README): the head commit, dated `--head-date`,
  whose README is served now, and the one before it, 30 days older, with the engine's
  previous README. `--history 404` answers 404 here, as for a repository whose history
  cannot be read.
- `GET /repos/{owner}/{repo}`: the repository object with its `full_name`.
- `ETag: "<git blob sha>"` and `Last-Modified` (the commit date) on file answers; a
  matching `If-None-Match` (else an `If-Modified-Since` not older) answers
  `304 Not Modified` with no body. `X-RateLimit-*` headers on every API answer (a budget
  that never runs out). Errors are GitHub's JSON `{"message": "Not Found", ...}`.

`GET /__stats` answers what was served since the last reset (requests, body bytes, by
endpoint and status, connections opened, the server's own CPU seconds) as JSON, without
latency and without counting itself; `GET /__stats?reset=1` answers the same and starts
counting anew. `--files FILE` names the corpus files to take in turn (one path a line,
relative to the corpus), so a benchmark can leave out READMEs that do not suit it;
`--distinct` makes every repository's README a body of its own (see `build_repositories`).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import datetime as dt
import email.utils
import functools
import hashlib
import json
import re
import resource
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "corpus" / "readme-history"
OWNER = "bench"
DOCS = "https://docs.github.com/rest"
README = "README.md"
RATE_LIMIT = 1_000_000_000
PREVIOUS_AGE = dt.timedelta(days=30)

_REPO_PATH = re.compile(r"^/repos/([^/]+)/([^/]+)(/.*)?$")
_ENGINE = re.compile(r"^engine-(\d+)$", re.IGNORECASE)
_RAW = re.compile(r"^application/vnd\.github(?:\.v3)?\.raw(\+json)?$")
_SHA_PREFIX = re.compile(r"^[0-9a-f]{7,40}$")
_PHRASES = {200: "OK", 304: "Not Modified", 404: "Not Found", 405: "Method Not Allowed"}


def corpus_cycle(corpus: Path = CORPUS) -> list[Path]:
    """Every distinct README text of the corpus, taken in turn across the engines.

    The first version of each engine, then the second of each, and so on: a run over a
    few repositories already has READMEs of every engine and era.
    """
    engines = [sorted(d.glob("*.md")) for d in sorted(corpus.iterdir()) if d.is_dir()]
    cycle: list[Path] = []
    for depth in range(max((len(e) for e in engines), default=0)):
        cycle.extend(files[depth] for files in engines if depth < len(files))
    return cycle


def previous_version(file: Path) -> Path | None:
    """The engine's README version before `file` (the corpus names them by date)."""
    older = [f for f in sorted(file.parent.glob("*.md")) if f.name < file.name]
    return older[-1] if older else None


def blob_sha(data: bytes) -> str:
    """The git blob id of `data`, as GitHub reports a file's `sha`."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class Version:
    """A README as one commit left it."""

    commit: str
    date: dt.datetime
    data: bytes
    sha: str

    @functools.cached_property
    def last_modified(self) -> str:
        return email.utils.format_datetime(self.date, usegmt=True)


@dataclass
class Repository:
    """One `bench/engine-{i}`: its commits, newest first, the first one served now."""

    index: int
    versions: list[Version]
    _json: dict[tuple[str, str], bytes] = field(default_factory=dict)

    @property
    def full_name(self) -> str:
        return f"{OWNER}/engine-{self.index}"

    def at(self, ref: str | None) -> Version | None:
        """The version at `ref`: the default branch, HEAD, or a commit sha (prefix)."""
        if ref is None or ref in ("main", "HEAD"):
            return self.versions[0]
        if not _SHA_PREFIX.match(ref.lower()):
            return None
        found = [v for v in self.versions if v.commit.startswith(ref.lower())]
        return found[0] if len(found) == 1 else None


def build_repositories(
    count: int,
    head_date: dt.datetime,
    files: list[Path] | None = None,
    *,
    distinct: bool = False,
) -> list[Repository]:
    """`count` repositories over the corpus files taken in turn (`files`, else all).

    The corpus has a few hundred texts, so a thousand repositories share them, each
    about three times: a reader that keeps what it read by body meets a body again.
    `distinct` ends every repository's README with a line naming it, so that no two
    bodies are equal, as on a real desk.
    """
    cycle = files or corpus_cycle()
    if not cycle:
        raise ValueError("no README files to serve")
    texts: dict[Path, bytes] = {}

    def read(path: Path) -> bytes:
        if path not in texts:
            texts[path] = path.read_bytes()
        return texts[path]

    repos = []
    for index in range(count):
        current = cycle[index % len(cycle)]
        chain = [current]
        before = previous_version(current)
        if before is not None:
            chain.append(before)
        versions = []
        for age, path in enumerate(chain):
            data = read(path)
            if distinct:
                data += f"\n\nServed as {OWNER}/engine-{index}.\n".encode()
            seed = f"{OWNER}/engine-{index}@{age}".encode()
            commit = hashlib.sha1(seed, usedforsecurity=False).hexdigest()
            versions.append(Version(commit, head_date - age * PREVIOUS_AGE, data, blob_sha(data)))
        repos.append(Repository(index, versions))
    return repos


@dataclass
class Stats:
    """What was served since the last reset."""

    requests: int = 0
    body_bytes: int = 0
    connections: int = 0
    by_endpoint: Counter[str] = field(default_factory=Counter)
    by_status: Counter[str] = field(default_factory=Counter)
    cpu_since: float = field(default_factory=lambda: _cpu_seconds())

    def as_json(self) -> dict[str, Any]:
        return {
            "server_cpu_s": round(_cpu_seconds() - self.cpu_since, 4),
            "requests": self.requests,
            "body_bytes": self.body_bytes,
            "connections": self.connections,
            "by_endpoint": dict(sorted(self.by_endpoint.items())),
            "by_status": dict(sorted(self.by_status.items())),
        }


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes = b""
    endpoint: str = "other"


class LoopbackGitHub:
    """Answers GitHub API requests for `repositories` after `latency` seconds each."""

    def __init__(
        self, repositories: list[Repository], *, latency: float, history: bool = True
    ) -> None:
        self.repositories = repositories
        self.latency = latency
        self.history = history
        self.stats = Stats()
        self.base_url = ""
        self._remaining = RATE_LIMIT
        self._reset_at = int(time.time()) + 3600

    @property
    def total_bytes(self) -> int:
        """The bytes of every README served now (the raw bodies of one cold pass)."""
        return sum(len(r.versions[0].data) for r in self.repositories)

    # -- HTTP/1.1 on asyncio streams ---------------------------------------------------

    def connection(self) -> asyncio.Protocol:
        """A protocol instance for one new connection (the `create_server` factory)."""
        return _Connection(self)

    def respond(self, method: str, target: str, headers: dict[str, str], keep: bool) -> bytes:
        """The encoded answer to one request, counted in the stats (unless it asks for them)."""
        if target.startswith("/__stats"):
            return self._encode(self._stats_reply(target), method, keep)
        reply = self.answer(method, target, headers)
        self._count(reply)
        return self._encode(reply, method, keep)

    def _encode(self, reply: Reply, method: str, keep: bool) -> bytes:
        phrase = _PHRASES.get(reply.status, "Error")
        head = [f"HTTP/1.1 {reply.status} {phrase}", "Server: loopback-github"]
        head += [f"{name}: {value}" for name, value in reply.headers.items()]
        if reply.status != 304:
            head.append(f"Content-Length: {len(reply.body)}")
        if not keep:
            head.append("Connection: close")
        body = reply.body if method != "HEAD" and reply.status != 304 else b""
        return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body

    def _count(self, reply: Reply) -> None:
        self.stats.requests += 1
        self.stats.body_bytes += len(reply.body) if reply.status != 304 else 0
        self.stats.by_endpoint[reply.endpoint] += 1
        self.stats.by_status[str(reply.status)] += 1

    def _stats_reply(self, target: str) -> Reply:
        query = dict(parse_qsl(urlsplit(target).query))
        body = json.dumps(self.stats.as_json()).encode()
        if query.get("reset"):
            self.stats = Stats()
        return Reply(200, {"Content-Type": "application/json"}, body, "stats")

    # -- the GitHub API ----------------------------------------------------------------

    def answer(self, method: str, target: str, headers: dict[str, str]) -> Reply:
        """The reply to one request (after the latency)."""
        parts = urlsplit(target)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        match = _REPO_PATH.match(parts.path)
        if match is None:
            return Reply(404, {"Content-Type": "text/plain; charset=utf-8"}, b"Not Found")
        if method not in ("GET", "HEAD"):
            return self._rated(_error(404, "Not Found"), headers)
        owner, name, rest = match[1], match[2], match[3] or ""
        engine = _ENGINE.match(name)
        index = int(engine[1]) if engine else -1
        if owner.lower() != OWNER or not 0 <= index < len(self.repositories):
            return self._rated(_error(404, "Not Found"), headers)
        repo = self.repositories[index]
        if rest in ("", "/"):
            return self._rated(self._repo_reply(repo), headers)
        if rest == "/readme":
            return self._rated(self._file_reply(repo, query.get("ref"), headers), headers)
        if rest.startswith("/contents/"):
            path = unquote(rest.removeprefix("/contents/")).strip("/")
            if path != README:
                return self._rated(_error(404, "Not Found", "contents"), headers)
            return self._rated(self._file_reply(repo, query.get("ref"), headers), headers)
        if rest == "/commits":
            if not self.history:
                return self._rated(_error(404, "Not Found", "commits"), headers)
            return self._rated(self._commits_reply(repo, parts.path, query), headers)
        return self._rated(_error(404, "Not Found"), headers)

    def _rated(self, reply: Reply, headers: dict[str, str]) -> Reply:
        """GitHub's `X-RateLimit-*` headers; every answer but a 304 spends one request."""
        if reply.status != 304:
            self._remaining = max(self._remaining - 1, 1)
        reply.headers.update(
            {
                "X-RateLimit-Limit": str(RATE_LIMIT),
                "X-RateLimit-Remaining": str(self._remaining),
                "X-RateLimit-Reset": str(self._reset_at),
                "X-RateLimit-Used": str(RATE_LIMIT - self._remaining),
                "X-RateLimit-Resource": "core",
            }
        )
        return reply

    def _repo_reply(self, repo: Repository) -> Reply:
        body = {
            "id": 100_000 + repo.index,
            "name": repo.full_name.split("/")[1],
            "full_name": repo.full_name,
            "owner": {"login": OWNER},
            "private": False,
            "html_url": f"https://github.com/{repo.full_name}",
            "url": f"{self.base_url}/repos/{repo.full_name}",
            "default_branch": "main",
        }
        return _json(200, body, "repo")

    def _file_reply(self, repo: Repository, ref: str | None, headers: dict[str, str]) -> Reply:
        version = repo.at(ref)
        if version is None:
            return _error(404, f"No commit found for the ref {ref}", "readme")
        raw = _raw_media_type(headers.get("accept", ""))
        if raw is not None:
            reply = Reply(
                200,
                {
                    "Content-Type": f"{raw}; charset=utf-8",
                    "X-GitHub-Media-Type": "github.v3; param=raw; format="
                    + ("json" if raw.endswith("+json") else "raw"),
                },
                version.data,
                "readme-raw",
            )
        else:
            key = (version.commit, ref or "main")
            if key not in repo._json:
                repo._json[key] = json.dumps(
                    self._content_object(repo, version, ref or "main"), indent=2
                ).encode()
            reply = Reply(
                200,
                {
                    "Content-Type": "application/json; charset=utf-8",
                    "X-GitHub-Media-Type": "github.v3; format=json",
                },
                repo._json[key],
                "readme-json",
            )
        reply.headers["ETag"] = f'"{version.sha}"'
        reply.headers["Last-Modified"] = version.last_modified
        reply.headers["Cache-Control"] = "private, max-age=60, s-maxage=60"
        reply.headers["Vary"] = "Accept, Authorization, Cookie, X-GitHub-OTP"
        return _conditional(reply, headers, version) or reply

    def _content_object(self, repo: Repository, version: Version, ref: str) -> dict[str, Any]:
        encoded = base64.b64encode(version.data).decode()
        content = "".join(encoded[i : i + 60] + "\n" for i in range(0, len(encoded), 60))
        api = f"{self.base_url}/repos/{repo.full_name}/contents/{README}?ref={quote(ref)}"
        git = f"{self.base_url}/repos/{repo.full_name}/git/blobs/{version.sha}"
        html = f"https://github.com/{repo.full_name}/blob/{ref}/{README}"
        return {
            "type": "file",
            "encoding": "base64",
            "size": len(version.data),
            "name": README,
            "path": README,
            "content": content,
            "sha": version.sha,
            "url": api,
            "git_url": git,
            "html_url": html,
            "download_url": f"https://raw.githubusercontent.com/{repo.full_name}/{ref}/{README}",
            "_links": {"self": api, "git": git, "html": html},
        }

    def _commits_reply(self, repo: Repository, path: str, query: dict[str, str]) -> Reply:
        try:
            since = _iso(query.get("since"))
            until = _iso(query.get("until"))
            per_page = min(max(int(query.get("per_page", "30")), 1), 100)
            page = max(int(query.get("page", "1")), 1)
        except ValueError as exc:
            return _error(422, f"Validation Failed: {exc}", "commits")
        commits = list(repo.versions)
        if query.get("path", README).strip("/") != README:
            commits = []
        ref = query.get("sha")
        if ref and ref not in ("main", "HEAD"):
            tip = repo.at(ref)
            if tip is None:
                return _error(404, f"No commit found for SHA: {ref}", "commits")
            commits = [c for c in commits if c.date <= tip.date]
        if since is not None:
            commits = [c for c in commits if c.date >= since]
        if until is not None:
            commits = [c for c in commits if c.date <= until]
        last = max((len(commits) + per_page - 1) // per_page, 1)
        chunk = commits[(page - 1) * per_page : page * per_page]
        reply = _json(200, [self._commit_object(repo, c) for c in chunk], "commits")
        if page < last:
            reply.headers["Link"] = ", ".join(
                f'<{self.base_url}{path}?{urlencode({**query, "page": str(n)})}>; rel="{rel}"'
                for n, rel in ((page + 1, "next"), (last, "last"))
            )
        return reply

    def _commit_object(self, repo: Repository, version: Version) -> dict[str, Any]:
        when = version.date.strftime("%Y-%m-%dT%H:%M:%SZ")
        person = {"name": "Bench", "email": "bench@example.invalid", "date": when}
        return {
            "sha": version.commit,
            "commit": {"author": person, "committer": person, "message": "Update README.md"},
            "url": f"{self.base_url}/repos/{repo.full_name}/commits/{version.commit}",
            "html_url": f"https://github.com/{repo.full_name}/commit/{version.commit}",
            "author": {"login": "bench"},
            "committer": {"login": "bench"},
            "parents": [],
        }


class _Connection(asyncio.Protocol):
    """HTTP/1.1 with keep-alive on one connection: each answer is written `latency`
    seconds after its request arrived, by a timer (no task per request), in order."""

    def __init__(self, server: LoopbackGitHub) -> None:
        self.server = server
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.timers: set[asyncio.TimerHandle] = set()
        self.counted = False
        self.closing = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in self.timers:
            timer.cancel()
        self.timers.clear()
        self.transport = None

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while not self.closing:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            lines = self.buffer[:end].decode("latin-1").split("\r\n")
            headers: dict[str, str] = {}
            for line in lines[1:]:
                name, colon, value = line.partition(":")
                if colon:
                    headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length") or 0)
            if len(self.buffer) < end + 4 + length:
                return  # the body is still coming
            del self.buffer[: end + 4 + length]
            try:
                method, target, version = lines[0].split(" ", 2)
            except ValueError:
                self._close()
                return
            connection = headers.get("connection", "").lower()
            keep = connection != "close" and (version != "HTTP/1.0" or connection == "keep-alive")
            self._request(method, target, headers, keep)
            if not keep:
                self.closing = True

    def _request(self, method: str, target: str, headers: dict[str, str], keep: bool) -> None:
        stats = target.startswith("/__stats")
        if not stats and not self.counted:  # connections only asking for stats don't count
            self.server.stats.connections += 1
            self.counted = True
        answer = self.server.respond(method, target, headers, keep)
        delay = 0.0 if stats else self.server.latency
        if delay <= 0:
            self._send(answer, keep, None)
            return
        loop = asyncio.get_running_loop()
        holder: list[asyncio.TimerHandle] = []
        timer = loop.call_later(delay, lambda: self._send(answer, keep, holder[0]))
        holder.append(timer)
        self.timers.add(timer)

    def _send(self, answer: bytes, keep: bool, timer: asyncio.TimerHandle | None) -> None:
        if timer is not None:
            self.timers.discard(timer)
        if self.transport is None or self.transport.is_closing():
            return
        self.transport.write(answer)
        if not keep:
            self._close()

    def _close(self) -> None:
        self.closing = True
        if self.transport is not None:
            self.transport.close()


def _cpu_seconds() -> float:
    """The server process's CPU time so far (user and system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _json(status: int, payload: Any, endpoint: str) -> Reply:
    body = json.dumps(payload, indent=2).encode()
    return Reply(status, {"Content-Type": "application/json; charset=utf-8"}, body, endpoint)


def _error(status: int, message: str, endpoint: str = "other") -> Reply:
    payload = {"message": message, "documentation_url": DOCS, "status": str(status)}
    return _json(status, payload, endpoint)


def _raw_media_type(accept: str) -> str | None:
    for item in accept.split(","):
        media = item.split(";", 1)[0].strip().lower()
        if _RAW.match(media):
            return media
    return None


def _conditional(reply: Reply, headers: dict[str, str], version: Version) -> Reply | None:
    """304 for a client that has this version (If-None-Match, else If-Modified-Since)."""
    if_none_match = headers.get("if-none-match")
    if if_none_match is not None:
        tags = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
        if f'"{version.sha}"' not in tags and "*" not in tags:
            return None
    else:
        try:
            since = email.utils.parsedate_to_datetime(headers.get("if-modified-since", ""))
        except (TypeError, ValueError):
            return None
        if since.tzinfo is None or version.date.replace(microsecond=0) > since:
            return None
    keep = {"etag", "last-modified", "cache-control", "vary", "x-github-media-type"}
    kept = {k: v for k, v in reply.headers.items() if k.lower() in keep}
    return Reply(304, kept, b"", reply.endpoint)


def _iso(value: str | None) -> dt.datetime | None:
    if not value:
        return None
    parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def default_head_date() -> dt.datetime:
    """Ten days ago at noon (UTC): recent, and before a check date of a few days ago."""
    today = dt.datetime.now(dt.UTC).replace(hour=12, minute=0, second=0, microsecond=0)
    return today - dt.timedelta(days=10)


async def serve(server: LoopbackGitHub, port: int) -> None:
    loop = asyncio.get_running_loop()
    listening = await loop.create_server(server.connection, "127.0.0.1", port, backlog=1024)
    bound = listening.sockets[0].getsockname()[1]
    server.base_url = f"http://127.0.0.1:{bound}"
    megabytes = server.total_bytes / 1e6
    print(
        f"{server.base_url} {len(server.repositories)} repositories, {megabytes:.1f} MB of "
        f"READMEs, {server.latency * 1000:g} ms latency, history "
        f"{'served' if server.history else '404'}",
        flush=True,
    )
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    async with listening:
        await stop.wait()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sources", type=int, default=1000, help="repositories to serve")
    parser.add_argument("--latency", type=float, default=0.02, help="seconds per answer")
    parser.add_argument("--port", type=int, default=0, help="port (default: one the OS picks)")
    parser.add_argument(
        "--history", choices=["ok", "404"], default="ok", help="404: the commits API fails"
    )
    parser.add_argument(
        "--head-date",
        type=lambda s: dt.datetime.fromisoformat(s).astimezone(dt.UTC),
        default=None,
        help="date of every repository's head commit (ISO 8601; default: 10 days ago)",
    )
    parser.add_argument(
        "--files", type=Path, help="corpus files to take in turn, one a line (default: all)"
    )
    parser.add_argument(
        "--distinct",
        action="store_true",
        help="end each README with a line naming its repository: no two bodies equal",
    )
    args = parser.parse_args(argv)
    files = None
    if args.files is not None:
        names = args.files.read_text(encoding="utf-8").split()
        files = [CORPUS / name for name in names]
    repos = build_repositories(
        args.sources, args.head_date or default_head_date(), files, distinct=args.distinct
    )
    server = LoopbackGitHub(repos, latency=args.latency, history=args.history == "ok")
    try:
        asyncio.run(serve(server, args.port))
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
