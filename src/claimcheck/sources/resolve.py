"""Resolve a claim's source URL into what is fetched and where its snapshots live.

GitHub pages are read through the REST API (raw media type) rather than scraped, so a
README is judged by its Markdown and costs one cheap, cacheable request. The snapshot
key is derived from the canonical URL with every segment sanitised: whatever a URL
holds, the key is a relative path of safe names that cannot leave `snapshots/`.

A web page's key is its readable path followed by a digest of its normalized URL
(`docs.example.org/vllm/@3f9c0a1b2d4e5f60`): the readable part alone folds `/a` and
`/a/`, `/` and `/index`, `/a/b` and `/a//b` together, the digest keeps them apart.
Normalizing keeps only what is truly the same address (RFC 3986 section 6): scheme
and host case, a default port, the case of percent escapes and escaped unreserved
characters, an empty path for `/`; the fragment is never sent, so it is dropped.
GitHub keys name the repository file and stay as they were. Hugging Face cards are
resolved by their own adapter (`sources.huggingface`), tried first.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
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
_DIGEST_MARK = "@"  # never in a sanitised segment, so no old key ends like a new one
_DIGEST_SEGMENT = re.compile(re.escape(_DIGEST_MARK) + r"([0-9a-f]{16})")
_DEFAULT_PORTS = {"http": "80", "https": "443"}
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


@functools.lru_cache(maxsize=1 << 16)
def resolve_source(
    url: str, api_url: str = DEFAULT_API_URL, hf_endpoint: str | None = None
) -> SourceRef:
    """Map a source URL (without text fragment) to its fetch URL and snapshot key.

    `hf_endpoint` is where Hugging Face cards are fetched (None: the public Hub); a
    card's key does not depend on it. Memoized: a run asks it for every claim several
    times, and the answer (a frozen model) depends on its strings alone. The cache holds
    a desk of tens of thousands of sources: at 8,192 entries, 10,000 sources missed it
    every time, each in turn pushing out the next one asked for.
    """
    from claimcheck.sources import huggingface  # imports this module: not at the top

    card = huggingface.hub_source(url, hf_endpoint or huggingface.DEFAULT_HF_ENDPOINT)
    if card is not None:
        return card
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
    return SourceRef(
        url=canonical, kind=SourceKind.WEB, fetch_url=canonical, key=web_key(canonical)
    )


def web_key(url: str) -> str:
    """The snapshot key of a web page: its readable path, then its URL digest.

    The readable part is what keys were before the digest (`HOST/SEGMENTS[/query-…]`,
    `HOST/index` for the root), taken from the normalized URL, so equivalent spellings
    share a folder; the last segment, `@` and 16 hex digits, tells every other URL apart.
    """
    normal = urlsplit(normalize_url(url))
    key_parts = [_host_segment(normal.netloc), *(s for s in normal.path.split("/") if s)]
    if normal.query:
        key_parts.append("query-" + _digest(normal.query))
    if len(key_parts) == 1:
        key_parts.append("index")
    return f"{snapshot_key(key_parts)}/{_DIGEST_MARK}{url_digest(url)}"


def normalize_url(url: str) -> str:
    """The URL with only the differences that never name another resource removed.

    Lower-case scheme and host, no default port (80 for http, 443 for https), upper-case
    percent escapes with unreserved characters (`A-Z a-z 0-9 - . _ ~`) unescaped, `/`
    for an empty path, no fragment, and no user info (credentials stay out of folder
    names, even hashed). Everything else (trailing slash, `//`, `index`, query, `.`
    segments) is kept: two such URLs may be two pages.
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    hostport = parts.netloc.rpartition("@")[2]  # user info names no other page: left out
    if hostport.startswith("["):
        host, _, rest = hostport.partition("]")
        host, port = host + "]", rest.removeprefix(":")
    else:
        host, _, port = hostport.partition(":")
    if port.isdigit():
        port = str(int(port))
    if port == _DEFAULT_PORTS.get(scheme):
        port = ""
    netloc = host.lower() + (f":{port}" if port else "")
    path = _escapes(parts.path) or ("/" if netloc else "")
    query = f"?{_escapes(parts.query)}" if parts.query else ""
    return f"{scheme}://{netloc}{path}{query}"


def url_digest(url: str) -> str:
    """The digest of a normalized URL that names its snapshot folder (64 bits, hex)."""
    return hashlib.sha256(normalize_url(url).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def url_digest_of_key(key: str) -> str | None:
    """The URL digest a web key ends with; None for a key without one (GitHub, old keys)."""
    match = _DIGEST_SEGMENT.fullmatch(key.rpartition("/")[2])
    return match.group(1) if match else None


def legacy_key(key: str) -> str | None:
    """The key a web source had before keys carried the URL digest: its readable path.

    Old folders are still read through it (see `sources.store`); None for other keys.
    """
    head, _, _ = key.rpartition("/")
    return head if head and url_digest_of_key(key) is not None else None


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
        # The content object, not the raw file: it names the README's path too, which
        # history needs, so the README is downloaded once (see `readme_content`).
        accept=JSON_MEDIA_TYPE,
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
class ReadmeContent:
    """What GitHub's README content object says: the file's bytes (None when GitHub
    leaves them out, for files over 1 MB) and its path in the repository."""

    body: bytes | None
    path: str | None


def readme_content(body: bytes, content_type: str | None) -> ReadmeContent | None:
    """The README inside a content object answer; None when the answer is not one
    (a raw body, an error page, a rate-limit message: the plausibility gate judges it
    as it came)."""
    mime = (content_type or "").split(";", 1)[0].strip().lower()
    if not (mime == "application/json" or mime.startswith("application/vnd.github")):
        return None
    try:
        document = json.loads(body)
    except ValueError:
        return None
    if not isinstance(document, dict) or document.get("type") != "file":
        return None
    path = document.get("path")
    path = path if isinstance(path, str) and path else None
    content, encoding = document.get("content"), document.get("encoding")
    if encoding != "base64" or not isinstance(content, str) or not content:
        return ReadmeContent(None, path)  # too large to be inlined: ask for it raw
    try:
        return ReadmeContent(base64.b64decode(content, validate=False), path)
    except (ValueError, binascii.Error):
        return None


@dataclass(frozen=True)
class GitHubFile:
    """Which repository file a GitHub source is: `path` None means "the README"."""

    owner: str
    repo: str
    path: str | None
    ref: str | None


def github_file(ref: SourceRef) -> GitHubFile | None:
    """The repository file behind a GitHub source, for reading its history."""
    if ref.kind not in (SourceKind.GITHUB_README, SourceKind.GITHUB_FILE):
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


def _escapes(text: str) -> str:
    """Percent escapes in one case, and unreserved characters unescaped (RFC 3986 6.2.2)."""

    def one(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else f"%{match.group(1).upper()}"

    return _ESCAPE.sub(one, text)


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
