"""The registry of forges: which forge a URL or a resolved source is, and every server.

Everything outside `forges/` asks here and never branches on the forge: adding one is
adding its module (implementing `forge.Forge`) and its line in `ADAPTERS` (and, when it
has a server override, its two settings in `config`). A URL no forge recognises is a
web page. Resolving stays offline: no forge module imports the fetcher at module level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from claimcheck.forges.forge import Forge, Servers
from claimcheck.forges.forgejo import FORGEJO
from claimcheck.forges.github import GITHUB
from claimcheck.forges.gitlab import GITLAB
from claimcheck.forges.huggingface import HUGGING_FACE
from claimcheck.models import SourceKind, SourceRef

if TYPE_CHECKING:
    from claimcheck.config import Config


ADAPTERS: tuple[Forge, ...] = (HUGGING_FACE, GITHUB, GITLAB, FORGEJO)
"""Every forge claimcheck reads, asked in this order; a URL none claims is a web page.
Order matters only where two could claim a URL: none do today."""


_BY_KIND: dict[SourceKind, Forge] = {kind: forge for forge in ADAPTERS for kind in forge.kinds}


def forge_of(ref: SourceRef) -> Forge | None:
    """The adapter of a resolved source; None for a web page. A lookup by the source's
    kind: every claim asks it several times a run."""
    return _BY_KIND.get(ref.kind)


def recognise(url: str, servers: Servers) -> SourceRef | None:
    """The source a URL names on the first forge that claims it; None: a web page."""
    for forge in ADAPTERS:
        ref = forge.recognise(url, servers.server(forge))
        if ref is not None:
            return ref
    return None


def servers_of(config: Config) -> Servers:
    """Every forge's server and token, as the config names them.

    Made once per config: a run asks for every claim (its baseline, its citation),
    and a config is frozen, so what it names cannot change under the answer. The
    config is held beside its answer, so its `id` is not reused while it is kept.
    """
    held = _SERVERS_OF.get(id(config))
    if held is not None and held[0] is config:
        return held[1]
    named = [(forge.name, forge.server(config)) for forge in ADAPTERS]
    servers = Servers(
        urls=tuple((name, server.url) for name, server in named),
        tokens=tuple((name, server.token) for name, server in named if server.token),
    )
    if len(_SERVERS_OF) >= _SERVERS_KEPT:
        _SERVERS_OF.clear()
    _SERVERS_OF[id(config)] = (config, servers)
    return servers


_SERVERS_OF: dict[int, tuple[Config, Servers]] = {}
_SERVERS_KEPT = 16  # a run has one config; tests and commands make a few more


def default_servers(api_url: str, hf_endpoint: str | None) -> Servers:
    """The servers `resolve_source` is told of by its two legacy arguments."""
    urls = [("github", api_url)]
    if hf_endpoint:
        urls.append(("huggingface", hf_endpoint))
    return Servers(urls=tuple(urls))
