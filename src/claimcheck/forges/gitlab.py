"""GitLab: a project's README or file read through REST API v4, history from its commits.

`https://gitlab.com/GROUP/…/PROJECT` (subgroups included, `/-/tree/REF` for another
ref) is the project's README: the project (`GET /api/v4/projects/:id`, `:id` the
URL-encoded path) names its default branch and its README (`readme_url`), and the
README is then read raw (`/repository/files/:path/raw?ref=…`), conditional on the
stored snapshot's validators, so an unchanged README answers 304 where the server
sends an ETag. `/-/blob/REF/PATH` is that file, read raw at once. History is
`/repository/commits?path=…&ref_name=…&since=…&until=…` (newest first, `Link`
pagination); a permalink is `…/-/blob/SHA/PATH#L10-12`.

The server is `GITLAB_URL` when set (a self-hosted GitLab, a test server), else
gitlab.com; URLs on gitlab.com and on that server's host are GitLab's. `GITLAB_TOKEN`
is sent to that server only. A project GitLab does not know answers 404: gone.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlsplit

from claimcheck.config import DEFAULT_GITLAB_URL
from claimcheck.forges.api import parse_date
from claimcheck.forges.forge import Server, line_anchor
from claimcheck.forges.hosted import HostedForge, Site, dated, with_ref
from claimcheck.models import Blame, SourceKind, SourceRef

if TYPE_CHECKING:
    from claimcheck.config import Config

README_PATH = "README.md"

_SITE = Site("gitlab.com", frozenset({"gitlab.com", "www.gitlab.com"}))
_NAME = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.-]*$")
_RESERVED = frozenset(
    {
        "-",
        "admin",
        "api",
        "assets",
        "dashboard",
        "explore",
        "groups",
        "help",
        "oauth",
        "projects",
        "public",
        "search",
        "snippets",
        "uploads",
        "users",
    }
)
"""First path segments of GitLab pages that are no namespace (GitLab reserves them)."""


@dataclass(frozen=True)
class GitLabFile:
    """Which file a GitLab source is: `path` None means "the README"; `ref` None the
    default branch."""

    host: str
    project: str
    path: str | None
    ref: str | None


def gitlab_commit(item: Any) -> Blame | None:
    """One commit of the commits API (`id`, `title`, `author_name`, `committed_date`,
    `web_url`), or None when it lacks what history needs."""
    if not isinstance(item, dict) or not isinstance(item.get("id"), str):
        return None
    when = parse_date(item.get("committed_date") or item.get("created_at"))
    if when is None:
        return None
    title = item.get("title")
    if not isinstance(title, str) or not title:
        message = item.get("message")
        title = message.splitlines()[0] if isinstance(message, str) and message else ""
    author = item.get("author_name")
    web = item.get("web_url")
    return Blame(
        sha=item["id"],
        date=when,
        author=author if isinstance(author, str) else "",
        title=title,
        url=web if isinstance(web, str) else "",
    )


def readme_of(project: Any) -> tuple[str, str | None] | None:
    """The README path and default branch a project answer names; None when the
    answer is no project; ("", branch) when the project has no README."""
    if not isinstance(project, dict) or "readme_url" not in project:
        return None
    branch = project.get("default_branch")
    branch = branch if isinstance(branch, str) and branch else None
    readme = project.get("readme_url")
    if not isinstance(readme, str) or "/-/blob/" not in readme:
        return "", branch
    rest = urlsplit(readme).path.split("/-/blob/", 1)[1]
    prefix = f"{quote(branch, safe='/')}/" if branch else ""
    # The branch may hold slashes: cut it as written; else the first segment is it.
    path = rest[len(prefix) :] if branch and rest.startswith(prefix) else rest.partition("/")[2]
    rest = path
    return unquote(rest) or README_PATH, branch


class GitLabForge(HostedForge[GitLabFile]):
    """The GitLab adapter (see the module docstring); its plumbing is `HostedForge`'s."""

    name = "gitlab"
    default_url = DEFAULT_GITLAB_URL
    kind = SourceKind.GITLAB
    site = _SITE

    def server(self, config: Config) -> Server:
        return Server(config.gitlab_url, config.gitlab_token)

    def parse(self, url: str) -> GitLabFile | None:
        segments = [unquote(s) for s in urlsplit(url).path.split("/") if s]
        cut = segments.index("-") if "-" in segments else len(segments)
        project, rest = segments[:cut], segments[cut + 1 :]
        if len(project) < 2 or project[0].lower() in _RESERVED:
            return None
        if not all(_NAME.match(s) and not s.endswith((".git", ".atom")) for s in project):
            return None
        if any(s in (".", "..") or any(ord(c) < 0x20 for c in s) for s in rest):
            return None
        home = _SITE.home_of(url)
        name = "/".join(project)
        if cut == len(segments):
            return GitLabFile(home, name, None, None)
        if rest[:1] == ["tree"] and len(rest) >= 2:
            return GitLabFile(home, name, None, "/".join(rest[1:]))
        if rest[:1] == ["blob"] and len(rest) >= 3:
            return GitLabFile(home, name, "/".join(rest[2:]), rest[1])
        return None

    def canonical_url(self, file: GitLabFile) -> str:
        base = f"https://{file.host}/{file.project}"
        if file.path is None:
            return base + (f"/-/tree/{file.ref}" if file.ref else "")
        return f"{base}/-/blob/{file.ref}/{file.path}"

    def repository(self, file: GitLabFile) -> list[str]:
        return file.project.split("/")

    def readme_url(self, server: Server, file: GitLabFile) -> str:
        """The project (`GET /projects/:id`): it names its README and default branch."""
        return _project_url(server, file)

    def readme_named(self, answer: Any) -> tuple[str, str | None] | None:
        return readme_of(answer)

    def raw_url(self, server: Server, file: GitLabFile, path: str, ref: str | None) -> str:
        """`/repository/files/:path/raw?ref=…` (None: HEAD)."""
        return with_ref(
            f"{_project_url(server, file)}/repository/files/{quote(path, safe='')}/raw", ref
        )

    def commits_url(
        self,
        server: Server,
        file: GitLabFile,
        path: str,
        *,
        per_page: int,
        since: dt.datetime | None,
        until: dt.datetime | None,
    ) -> str:
        query = {"path": path, "per_page": str(per_page)}
        if file.ref:
            query["ref_name"] = file.ref
        return f"{_project_url(server, file)}/repository/commits?{dated(query, since, until)}"

    def commit_of(self, item: Any) -> Blame | None:
        return gitlab_commit(item)

    def permalink(
        self, ref: SourceRef, commit: str, path: str, lines: tuple[int, int] | None
    ) -> str | None:
        file = self.file_of(ref)
        blob = f"https://{file.host}/{file.project}/-/blob/{commit}/{quote(path)}"
        return blob + line_anchor(lines, between="-")


GITLAB = GitLabForge()


def _project_url(server: Server, file: GitLabFile) -> str:
    """The project's API address (REST API v4): its path URL-encoded as the `:id`."""
    return f"{server.url.rstrip('/')}/api/v4/projects/{quote(file.project, safe='')}"
