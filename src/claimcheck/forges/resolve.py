"""Resolve a claim's source URL into what is fetched and where its snapshots live.

A forge's file (a GitHub README or file, a Hugging Face card, a GitLab or Codeberg
README) is resolved by its forge's module (`forges.registry`), which reads it through the
forge's API rather than scraping it; every other URL is a web page. The snapshot key
is derived from the canonical URL with every segment sanitised: whatever a URL holds,
the key is a relative path of safe names that cannot leave `snapshots/`.

A web page's key is its readable path followed by a digest of its normalized URL
(`docs.example.org/vllm/@3f9c0a1b2d4e5f60`): the readable part alone folds `/a` and
`/a/`, `/` and `/index`, `/a/b` and `/a//b` together, the digest keeps them apart.
Normalizing keeps only what is truly the same address (RFC 3986 section 6): scheme
and host case, a default port, the case of percent escapes and escaped unreserved
characters, an empty path for `/`; the fragment is never sent, so it is dropped.
Forge keys name the repository file and stay as they were.
"""

from __future__ import annotations

import functools
import hashlib
import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from claimcheck.forges.forge import Servers
from claimcheck.forges.registry import default_servers, recognise, servers_of
from claimcheck.models import DEFAULT_API_URL, SourceKind, SourceRef
from claimcheck.store.keys import short_digest as _digest
from claimcheck.store.keys import snapshot_key

if TYPE_CHECKING:
    from claimcheck.config import Config

_DIGEST_MARK = "@"  # never in a sanitised segment, so no old key ends like a new one
_DIGEST_SEGMENT = re.compile(re.escape(_DIGEST_MARK) + r"([0-9a-f]{16})")
_DEFAULT_PORTS = {"http": "80", "https": "443"}
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


@functools.lru_cache(maxsize=1 << 16)
def resolve_source(
    url: str,
    api_url: str = DEFAULT_API_URL,
    hf_endpoint: str | None = None,
    servers: Servers | None = None,
) -> SourceRef:
    """Map a source URL (without text fragment) to its fetch URL and snapshot key.

    The forges (`forges.registry`) are asked first, each at its server:
    `servers` names them all (a run passes the config's, `servers_of`); without it
    `api_url` is GitHub's API and `hf_endpoint` the Hub (None: the public one). A key
    never depends on a server. Memoized: a run asks it for every claim several times,
    and the answer (a frozen model) depends on its arguments alone. The cache holds
    a desk of tens of thousands of sources: at 8,192 entries, 10,000 sources missed it
    every time, each in turn pushing out the next one asked for.
    """
    found = recognise(url, servers or default_servers(api_url, hf_endpoint))
    if found is not None:
        return found
    canonical = urlsplit(url)._replace(fragment="").geturl()
    return SourceRef(
        url=canonical, kind=SourceKind.WEB, fetch_url=canonical, key=web_key(canonical)
    )


def source_ref(url: str, config: Config) -> SourceRef:
    """The source a URL names, resolved with every forge server the config names.

    The one resolution every step of a run and every command shares: the fetch, the
    baseline, the citation, the shard. A URL on a self-hosted forge's own host is that
    forge's file only for a config that names the server; resolved without it, it is
    a web page with another snapshot key, and its stored versions are not found.
    """
    servers = servers_of(config)
    held = _REFS.get(id(servers))
    if held is None or held[0] is not servers:
        if len(_REFS) >= _SERVERS_KEPT:
            _REFS.clear()
        held = _REFS[id(servers)] = (servers, {})
    refs = held[1]
    ref = refs.get(url)
    if ref is None:
        if len(refs) >= _REFS_KEPT:
            refs.clear()
        ref = refs[url] = resolve_source(url, servers=servers)
    return ref


_REFS: dict[int, tuple[Servers, dict[str, SourceRef]]] = {}
"""`source_ref`'s answers by URL, for each set of servers (held, so that its `id` is not
another's while kept): a run asks for every claim several times, and `resolve_source`'s
own memo hashes the servers at every call."""
_SERVERS_KEPT = 16  # a run has one config; tests and commands make a few more
_REFS_KEPT = 1 << 16  # as many sources as `resolve_source` keeps


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

    Old folders are still read through it (see `store.store`); None for other keys.
    """
    head, _, _ = key.rpartition("/")
    return head if head and url_digest_of_key(key) is not None else None


def _escapes(text: str) -> str:
    """Percent escapes in one case, and unreserved characters unescaped (RFC 3986 6.2.2)."""

    def one(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else f"%{match.group(1).upper()}"

    return _ESCAPE.sub(one, text)


def _host_segment(netloc: str) -> str:
    host = netloc.rsplit("@", 1)[-1]
    return host.replace(":", "_")
