"""Resolve a claim's source URL into what is fetched and where its snapshots live.

GitHub pages are read through the REST API (raw media type) rather than scraped, so a
README is judged by its Markdown and costs one cheap, cacheable request. The snapshot
key is derived from the canonical URL with every segment sanitised: whatever a URL
holds, the key is a relative path of safe names that cannot leave `snapshots/`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit

from claimcheck.models import DEFAULT_API_URL, MediaType, SourceKind, SourceRef

RAW_MEDIA_TYPE = "application/vnd.github.raw+json"
JSON_MEDIA_TYPE = "application/vnd.github+json"
GITHUB_API_VERSION = "2022-11-28"

_GITHUB_HOSTS = {"github.com", "www.github.com"}
_RAW_HOST = "raw.githubusercontent.com"
_OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$")
_REPO = re.compile(r"^[A-Za-z0-9._-]+$")
_SAFE = re.compile(r"[^A-Za-z0-9._-]")
_MAX_SEGMENT = 80
_MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")


def resolve_source(url: str, api_url: str = DEFAULT_API_URL) -> SourceRef:
    """Map a source URL (without text fragment) to its fetch URL and snapshot key."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    segments = [s for s in parts.path.split("/") if s]
    api = api_url.rstrip("/")
    plain = not any(s in (".", "..") for s in segments)
    if (
        plain
        and host in _GITHUB_HOSTS
        and len(segments) >= 2
        and _is_repo(segments[0], segments[1])
    ):
        owner, repo = segments[0], _strip_git(segments[1])
        rest = segments[2:]
        if rest[:1] == ["blob"] and len(rest) >= 3:
            return _github_file(api, owner, repo, rest[1], rest[2:])
        if rest[:1] == ["tree"] and len(rest) >= 2:
            return _github_readme(api, owner, repo, "/".join(rest[1:]))
        if not rest:
            return _github_readme(api, owner, repo, None)
    if plain and host == _RAW_HOST and len(segments) >= 4 and _is_repo(segments[0], segments[1]):
        return _github_file(api, segments[0], segments[1], segments[2], segments[3:])
    canonical = parts._replace(fragment="").geturl()
    key_parts = [_host_segment(parts.netloc.lower()), *segments]
    if parts.query:
        key_parts.append("query-" + _digest(parts.query))
    if len(key_parts) == 1:
        key_parts.append("index")
    return SourceRef(
        url=canonical,
        kind=SourceKind.WEB,
        fetch_url=canonical,
        key=snapshot_key(key_parts),
    )


def _github_readme(api: str, owner: str, repo: str, ref: str | None) -> SourceRef:
    url = f"https://github.com/{owner}/{repo}" + (f"/tree/{ref}" if ref else "")
    fetch = f"{api}/repos/{_q(owner)}/{_q(repo)}/readme"
    if ref:
        fetch += f"?ref={quote(ref, safe='')}"
    key = ["github.com", owner, repo, "README"] + ([f"ref-{ref}"] if ref else [])
    return SourceRef(
        url=url,
        kind=SourceKind.GITHUB_README,
        fetch_url=fetch,
        key=snapshot_key(key),
        accept=RAW_MEDIA_TYPE,
        media=MediaType.MARKDOWN,
    )


def _github_file(api: str, owner: str, repo: str, ref: str, path: list[str]) -> SourceRef:
    repo = _strip_git(repo)
    file_path = "/".join(path)
    fetch = (
        f"{api}/repos/{_q(owner)}/{_q(repo)}/contents/{quote(file_path)}?ref={quote(ref, safe='')}"
    )
    media = MediaType.MARKDOWN if file_path.lower().endswith(_MARKDOWN_SUFFIXES) else MediaType.TEXT
    return SourceRef(
        url=f"https://github.com/{owner}/{repo}/blob/{ref}/{file_path}",
        kind=SourceKind.GITHUB_FILE,
        fetch_url=fetch,
        key=snapshot_key(["github.com", owner, repo, "blob", ref, *path]),
        accept=RAW_MEDIA_TYPE,
        media=media,
    )


@dataclass(frozen=True)
class GitHubFile:
    """Which repository file a GitHub source is: `path` None means "the README"."""

    owner: str
    repo: str
    path: str | None
    ref: str | None


def github_file(ref: SourceRef) -> GitHubFile | None:
    """The repository file behind a GitHub source, for reading its history."""
    if ref.kind is SourceKind.WEB:
        return None
    segments = [unquote(s) for s in urlsplit(ref.url).path.split("/") if s]
    owner, repo, rest = segments[0], segments[1], segments[2:]
    if ref.kind is SourceKind.GITHUB_README:
        return GitHubFile(owner, repo, None, "/".join(rest[1:]) or None)
    return GitHubFile(owner, repo, "/".join(rest[2:]), rest[1])


def renamed_repository(moved_to: str, api_url: str) -> str | None:
    """The API URL of a renamed repository, from where the API redirected a request.

    GitHub answers a renamed repository's old API paths with a permanent redirect to
    `/repositories/{id}/…`; that URL names no repository, so the repository itself is
    asked for its new `full_name`.
    """
    api = api_url.rstrip("/")
    match = re.match(re.escape(api) + r"/repositories/(\d+)(?:/|$|\?)", moved_to)
    return f"{api}/repositories/{match.group(1)}" if match else None


def rename_github_url(url: str, full_name: str) -> str:
    """The github.com URL of a source after its repository was renamed to `full_name`."""
    parts = urlsplit(url)
    rest = [s for s in parts.path.split("/") if s][2:]
    return "/".join([f"https://github.com/{full_name}", *rest])


def snapshot_key(parts: list[str]) -> str:
    """Join URL-derived parts into a relative path whose every segment is a safe name.

    Unsafe characters become `_`; a segment that was altered, is too long, or is made
    of dots only (`.`, `..`) gets a short digest of its original so two different URLs
    never share a folder. No segment can be empty, absolute or a parent reference.
    """
    return "/".join(_safe_segment(p) for p in parts if p)


def _safe_segment(segment: str) -> str:
    cleaned = _SAFE.sub("_", segment)
    if cleaned.startswith("."):
        cleaned = "_" + cleaned
    if cleaned != segment or len(cleaned) > _MAX_SEGMENT:
        cleaned = f"{cleaned[:_MAX_SEGMENT]}-{_digest(segment)}"
    return cleaned


def _host_segment(netloc: str) -> str:
    host = netloc.rsplit("@", 1)[-1]
    return host.replace(":", "_")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def _is_repo(owner: str, repo: str) -> bool:
    """GitHub's own naming rules; anything else is not read through the API."""
    return bool(_OWNER.match(owner) and _REPO.match(repo)) and repo.strip(".") != ""


def _strip_git(repo: str) -> str:
    return repo[:-4] if repo.endswith(".git") else repo


def _q(segment: str) -> str:
    return quote(segment, safe="")
