"""Sources as they were: the run's reader of every forge's history and the Wayback Machine.

Backfill asks "what did this source say on the check date?" when no stored snapshot
is that old; blame asks "which commit changed the quote?". Both read history through
the same `Fetcher` as everything else, so limits, retries and the token rules hold.
Failures are values (None), never exceptions: without history a claim is still judged
against the current text, it only lacks a baseline or a blame. `History` holds what
each forge's module reads through (`forge.Forge` takes it): the fetcher, every forge's
server, the README paths learnt, GitHub's (`github.GitHubHistory`) and the Hub's
(`huggingface.HubHistory`) readers, and the Wayback Machine (`wayback.Wayback`).

Each history or blame URL is asked once a run (`Asked`): the claims on one source ask
the same commit lists and the same files at the same commits (GitHub's anonymous budget
is 60 requests an hour), and the run's steps (history in the fetch, backfill, blame,
cite) share the answers.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass

from claimcheck.config import DEFAULT_HF_ENDPOINT, DEFAULT_WAYBACK_URL
from claimcheck.forges.forge import Fetches, Server, Servers
from claimcheck.forges.github import GitHubHistory
from claimcheck.forges.huggingface import HubHistory
from claimcheck.forges.wayback import Wayback
from claimcheck.net.fetch import Fetched, FetchOutcome, FetchRequest
from claimcheck.net.fetcher import Fetcher
from claimcheck.net.guard import Resolver, resolve_host

ASKED_LIMIT = 16 * 1024 * 1024
"""The bytes of history's answers a run keeps to send no request twice (`Asked`)."""


class Asked:
    """What history answered in one run, by request, so that each is sent once a run.

    A run asks history in several steps, each over a fetcher of its own (in the fetch as
    each source's answer arrives, then backfill, blame and cite), and the claims on one
    source ask the same things: the file's newest commits for every check date, the
    file at the same commits, the commits since the same baseline, the same bisection
    steps. Every outcome is kept, a failure too (the fetcher retried it already; asking
    again in the same run only spends the budget). Requests asked at the same time
    share one fetch. One `Asked` lives as long as the run's `Store`.

    The bodies kept are bounded (`limit` bytes, the least recently used let go first):
    a run over thousands of sources must not hold every commit list and file version to
    its end. A source's repeats come close together (its check dates asked at once, its
    blame soon after), so a desk's sources fit many times over.
    """

    def __init__(self, limit: int = ASKED_LIMIT) -> None:
        self._answers: OrderedDict[FetchRequest, FetchOutcome] = OrderedDict()
        self._asking: dict[FetchRequest, asyncio.Task[FetchOutcome]] = {}
        self._limit = limit
        self._kept = 0  # bytes of the bodies kept

    def over(self, fetcher: Fetcher) -> Fetches:
        """`fetcher` with this run's answers: a request answered before is not sent."""
        return _AskedOnce(self, fetcher)

    async def fetch(self, fetcher: Fetcher, request: FetchRequest) -> FetchOutcome:
        """The answer to `request`: the one kept, the one on its way, or `fetcher`'s."""
        known = self._answers.get(request)
        if known is not None:
            self._answers.move_to_end(request)
            return known
        loop = asyncio.get_running_loop()
        task = self._asking.get(request)
        if task is None or task.get_loop() is not loop or task.cancelled():
            # Each step runs its own event loop; a request a stopped step left is asked anew.
            task = self._asking[request] = loop.create_task(fetcher.fetch(request))
        # Not shielded: askers are cancelled together (a run stopping, a step failing), and
        # the fetch goes with them rather than outlive its fetcher.
        outcome = await task
        if self._asking.get(request) is task:
            del self._asking[request]
            self._keep(request, outcome)
        return outcome

    def _keep(self, request: FetchRequest, outcome: FetchOutcome) -> None:
        """Keep an answer, letting the least recently used go beyond the limit."""
        self._answers[request] = outcome
        self._kept += _size(outcome)
        while self._kept > self._limit and len(self._answers) > 1:
            _, gone = self._answers.popitem(last=False)
            self._kept -= _size(gone)


def _size(outcome: FetchOutcome) -> int:
    """The bytes an answer holds: its body's."""
    return len(outcome.body) if isinstance(outcome, Fetched) else 0


@dataclass(frozen=True)
class _AskedOnce:
    """A fetcher whose history requests are each sent once a run (`Asked.over`)."""

    asked: Asked
    fetcher: Fetcher

    async def fetch(self, request: FetchRequest) -> FetchOutcome:
        return await self.asked.fetch(self.fetcher, request)


class History:
    """Reads every forge's file history and Wayback copies through one fetcher."""

    def __init__(
        self,
        fetcher: Fetcher,
        *,
        api_url: str,
        token: str | None,
        wayback_url: str | None = DEFAULT_WAYBACK_URL,
        readme_paths: dict[tuple[str, str, str | None], str] | None = None,
        hf_endpoint: str = DEFAULT_HF_ENDPOINT,
        hf_token: str | None = None,
        servers: Servers | None = None,
        paths: dict[str, str] | None = None,
        asked: Asked | None = None,
        resolver: Resolver = resolve_host,
    ) -> None:
        """`wayback_url` None: the Wayback Machine is turned off. `resolver` finds the
        addresses of a source's host, to tell an internal one (tests inject it)."""
        asking = (Asked() if asked is None else asked).over(fetcher)
        self.fetcher = asking
        """The run's fetcher, which every forge's history reads through, with the run's
        answers (`asked`: shared by the run's steps; else this history's own), so that
        each request is sent once."""
        self.servers = servers or Servers()
        """Every forge's server and token (GitHub's and the Hub's are also given apart)."""
        self.paths: dict[str, str] = dict(paths or {})
        """README paths of other forges' sources, by snapshot key: known ones seed it,
        and what this run learns is read back from it (see `forge.Forge.learned_path`)."""
        self.github = GitHubHistory(asking, Server(api_url, token), readme_paths)
        """GitHub file history, on the same fetcher, with GitHub's own token."""
        self.hub = HubHistory(asking, endpoint=hf_endpoint, token=hf_token)
        """Hugging Face card history, on the same fetcher, with the Hub's own token."""
        self.wayback = Wayback(asking, wayback_url, resolver)
        """The Wayback Machine (turned off when `wayback_url` is None)."""
