"""Codeberg (Forgejo, Gitea): a repository's README or file read through API v1.

`https://codeberg.org/OWNER/REPO` (`/src/branch/REF` for another branch, `/src/tag/…`
and `/src/commit/…` alike) is the repository's README: the root folder's listing
(`GET /api/v1/repos/{owner}/{repo}/contents?ref=…`) names it (README.md first, as the
forge shows it), and the README is then read raw (`/raw/{path}?ref=…`), conditional on
the stored snapshot's validators, so an unchanged README answers 304 where the server
sends an ETag. `/src/branch/REF/PATH` is that file, read raw at once. History is
`/commits?path=…&sha=…&since=…&until=…` (GitHub-shaped commits, newest first, `Link`
pagination); a permalink is `…/src/commit/SHA/PATH#L10-L12`.

The server is `FORGEJO_URL` when set (a self-hosted Forgejo or Gitea, a test
server), else codeberg.org; URLs on codeberg.org and on that server's host are the
forge's. `FORGEJO_TOKEN` is sent to that server only. An unknown repository or file
answers 404: gone.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlsplit

from claimcheck.config import DEFAULT_FORGEJO_URL
from claimcheck.forges.api import parse_date
from claimcheck.forges.forge import Server, line_anchor
from claimcheck.forges.hosted import HostedForge, Site, dated, with_ref
from claimcheck.models import Blame, SourceKind, SourceRef

if TYPE_CHECKING:
    from claimcheck.config import Config


_SITE = Site("codeberg.org", frozenset({"codeberg.org", "www.codeberg.org"}))
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
_REF_KINDS = frozenset({"branch", "tag", "commit"})
_RESERVED = frozenset(
    {
        "-",
        "admin",
        "api",
        "assets",
        "explore",
        "issues",
        "login",
        "notifications",
        "org",
        "pulls",
        "repo",
        "user",
    }
)
"""First path segments of the forge's own pages, which no owner may take."""
_README_ORDER = ("readme.md", "readme.markdown", "readme.rst", "readme.txt", "readme")


@dataclass(frozen=True)
class ForgejoFile:
    """Which file a Forgejo source is: `path` None means "the README"; `ref` None the
    default branch."""

    host: str
    owner: str
    repo: str
    path: str | None
    ref: str | None
    ref_kind: str = "branch"


def readme_in(listing: Any) -> str | None:
    """The README of a root folder listing (`[{"name", "path", "type"}, …]`): README.md
    first, then the other spellings; "" for a listing without one, None for no listing."""
    if not isinstance(listing, list):
        return None
    files = {
        str(e["name"]).lower(): str(e.get("path") or e["name"])
        for e in listing
        if isinstance(e, dict) and e.get("type") == "file" and isinstance(e.get("name"), str)
    }
    for name in _README_ORDER:
        if name in files:
            return files[name]
    others = sorted(name for name in files if name.startswith("readme."))
    return files[others[0]] if others else ""


def forgejo_commit(item: Any) -> Blame | None:
    """One commit of the commits API (GitHub's shape: `sha`, `html_url`, `commit.
    {message, author, committer}`, `author.login`), or None when it lacks a field."""
    if not isinstance(item, dict) or not isinstance(item.get("sha"), str):
        return None
    details = item.get("commit")
    if not isinstance(details, dict):
        return None
    dates = [details.get(k) for k in ("committer", "author")]
    when = next(
        (parse_date(d.get("date")) for d in dates if isinstance(d, dict) and d.get("date")), None
    )
    if when is None:
        return None
    user = item.get("author")
    login = user.get("login") if isinstance(user, dict) else None
    written = details.get("author")
    name = written.get("name") if isinstance(written, dict) else None
    message = details.get("message")
    html = item.get("html_url")
    return Blame(
        sha=item["sha"],
        date=when,
        author=login if isinstance(login, str) and login else str(name or ""),
        title=message.splitlines()[0] if isinstance(message, str) and message else "",
        url=html if isinstance(html, str) else "",
    )


class ForgejoForge(HostedForge[ForgejoFile]):
    """The Codeberg / Forgejo / Gitea adapter (see the module docstring); its plumbing
    is `HostedForge`'s."""

    name = "forgejo"
    default_url = DEFAULT_FORGEJO_URL
    kind = SourceKind.FORGEJO
    site = _SITE

    def server(self, config: Config) -> Server:
        return Server(config.forgejo_url, config.forgejo_token)

    def parse(self, url: str) -> ForgejoFile | None:
        segments = [unquote(s) for s in urlsplit(url).path.split("/") if s]
        if len(segments) < 2 or segments[0].lower() in _RESERVED:
            return None
        owner, repo, rest = segments[0], segments[1], segments[2:]
        if not (_NAME.match(owner) and _NAME.match(repo)) or {owner, repo} & {".", ".."}:
            return None
        if any(s in (".", "..") or any(ord(c) < 0x20 for c in s) for s in rest):
            return None
        home = _SITE.home_of(url)
        repo = repo.removesuffix(".git")
        if not rest:
            return ForgejoFile(home, owner, repo, None, None)
        if rest[0] == "src" and len(rest) >= 3 and rest[1] in _REF_KINDS:
            path = "/".join(rest[3:]) or None
            return ForgejoFile(home, owner, repo, path, rest[2], rest[1])
        return None

    def canonical_url(self, file: ForgejoFile) -> str:
        base = f"https://{file.host}/{file.owner}/{file.repo}"
        if file.path is None:
            return base + (f"/src/{file.ref_kind}/{file.ref}" if file.ref else "")
        return f"{base}/src/{file.ref_kind}/{file.ref}/{file.path}"

    def repository(self, file: ForgejoFile) -> list[str]:
        return [file.owner, file.repo]

    def readme_url(self, server: Server, file: ForgejoFile) -> str:
        """The root folder at the source's ref (`/contents?ref=…`): it names the README."""
        return with_ref(f"{_repo_url(server, file)}/contents", file.ref)

    def readme_named(self, answer: Any) -> tuple[str, str | None] | None:
        path = readme_in(answer)
        return None if path is None else (path, None)  # the ref is the source's own

    def raw_url(self, server: Server, file: ForgejoFile, path: str, ref: str | None) -> str:
        """`/raw/{path}?ref=…` (None: the default branch)."""
        return with_ref(f"{_repo_url(server, file)}/raw/{quote(path)}", ref)

    def commits_url(
        self,
        server: Server,
        file: ForgejoFile,
        path: str,
        *,
        per_page: int,
        since: dt.datetime | None,
        until: dt.datetime | None,
    ) -> str:
        # stat, verification and files off: each costs the server a diff per commit.
        query = {"path": path, "limit": str(per_page), "stat": "false"}
        query |= {"verification": "false", "files": "false"}
        if file.ref:
            query["sha"] = file.ref
        return f"{_repo_url(server, file)}/commits?{dated(query, since, until)}"

    def commit_of(self, item: Any) -> Blame | None:
        return forgejo_commit(item)

    def permalink(
        self, ref: SourceRef, commit: str, path: str, lines: tuple[int, int] | None
    ) -> str | None:
        file = self.file_of(ref)
        blob = f"https://{file.host}/{file.owner}/{file.repo}/src/commit/{commit}/{quote(path)}"
        return blob + line_anchor(lines)


FORGEJO = ForgejoForge()


def _repo_url(server: Server, file: ForgejoFile) -> str:
    """The repository's API address (API v1)."""
    owner, repo = quote(file.owner, safe=""), quote(file.repo, safe="")
    return f"{server.url.rstrip('/')}/api/v1/repos/{owner}/{repo}"
