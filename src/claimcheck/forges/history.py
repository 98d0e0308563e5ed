"""Sources as they were: forge file history (GitHub here; the Hub's as `hub`, see
`forges.hub_cards`; GitLab's and Forgejo's in their adapters, over the same
`FileCommits` algorithms) and Wayback Machine copies, over the fetcher.

Backfill asks "what did this source say on the check date?" when no stored snapshot
is that old; blame asks "which commit changed the quote?". Both read history through
the same `Fetcher` as everything else, so limits, retries and the token rules hold.
Failures are values (None), never exceptions: without history a claim is still judged
against the current text, it only lacks a baseline or a blame. The Wayback Machine is
another host than the source's: a source's URL goes to it only when it may be shown to
a third party (`guard.withheld_url`), and never when it is turned off; otherwise the
look-up is `Withheld`, with nothing sent.

Each history or blame URL is asked once a run (`Asked`): the claims on one source ask
the same commit lists and the same files at the same commits (GitHub's anonymous budget
is 60 requests an hour), and the run's steps (history in the fetch, backfill, blame,
cite) share the answers.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import quote, urlencode, urlsplit

from claimcheck.config import DEFAULT_HF_ENDPOINT
from claimcheck.forges.adapters import Servers
from claimcheck.forges.adapters.github import (
    GITHUB_API_VERSION,
    JSON_MEDIA_TYPE,
    RAW_MEDIA_TYPE,
    GitHubFile,
)
from claimcheck.forges.adapters.paging import MAX_PAGES
from claimcheck.forges.hub_cards import HubHistory
from claimcheck.models import Blame
from claimcheck.net.fetch import Fetched, FetchOutcome, FetchRequest, Gone
from claimcheck.net.fetcher import Fetcher
from claimcheck.net.guard import Resolver, resolve_host, withheld_url
from claimcheck.net.http_policy import ForeignPageError, next_page_url

DEFAULT_WAYBACK_URL = "https://archive.org"
README_PATH = "README.md"
_RECENT = 30  # commits asked at once for a baseline: GitHub's default page
ASKED_LIMIT = 16 * 1024 * 1024
"""The bytes of history's answers a run keeps to send no request twice (`Asked`)."""


@dataclass(frozen=True)
class Version:
    """A source's body as it was at `date`, and where that copy came from.

    `body` is None when the version is the one in force now: the file has not changed
    since, so the body fetched in this run is that version, with no second download.
    """

    date: dt.datetime
    body: bytes | None
    origin: str


@dataclass(frozen=True)
class Absent:
    """History answered, and had no version at that time (the file or page was not
    there yet): worth remembering, unlike a failure, which is asked again next run."""


ABSENT = Absent()


@dataclass(frozen=True)
class Withheld:
    """History was not asked, by rule: the source's URL may not leave this machine (its
    address is internal, `guard.withheld_url`), or the Wayback Machine is turned off
    (`[history] wayback = false`). Like a failure it is no answer about the source."""

    reason: str


WAYBACK_OFF = Withheld("the Wayback Machine is turned off ([history] wayback = false)")


class Fetches(Protocol):
    """What history reads through: a `Fetcher`, or the run's answers over one (`Asked`)."""

    async def fetch(self, request: FetchRequest) -> FetchOutcome:
        """The outcome of one request, as `Fetcher.fetch` gives it."""
        ...


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
    """Reads GitHub file history and Wayback copies through one fetcher."""

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
        self._fetcher = asking
        self.fetcher = asking
        """The run's fetcher, which every forge's history reads through, with the run's
        answers (`asked`: shared by the run's steps; else this history's own), so that
        each request is sent once."""
        self.servers = servers or Servers()
        """Every forge's server and token (GitHub's and the Hub's are also given apart)."""
        self.paths: dict[str, str] = dict(paths or {})
        """README paths of other forges' sources, by snapshot key: known ones seed it,
        and what this run learns is read back from it (see `forges.adapters`)."""
        self.hub = HubHistory(asking, endpoint=hf_endpoint, token=hf_token)
        """Hugging Face card history, on the same fetcher, with the Hub's own token."""
        self._api = api_url.rstrip("/")
        self._token = token
        self._wayback = wayback_url.rstrip("/") if wayback_url is not None else None
        self._resolver = resolver
        self._withheld: dict[str, str | None] = {}  # by URL: each decided once
        self.readme_paths: dict[tuple[str, str, str | None], str] = dict(readme_paths or {})
        """README paths by (owner, repo, ref), lower-cased: known ones seed it, and what
        this run learns is read back from it, so each is asked once ever."""

    async def commits(
        self,
        source: GitHubFile,
        *,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        per_page: int = 100,
        max_pages: int = MAX_PAGES,
    ) -> list[Blame] | None:
        """Commits that touched the file, newest first, following `Link: rel="next"`.

        None when history could not be read (a failure, asked again next run); a 404 or
        410 for the first page is an answer, no commits, so a source whose history
        GitHub does not have is not asked about every night.
        """
        path = source.path or await self.readme_path(source)
        query: dict[str, str] = {"path": path, "per_page": str(per_page)}
        if source.ref:
            query["sha"] = source.ref
        if since:
            query["since"] = _iso(since)
        if until:
            query["until"] = _iso(until)
        url: str | None = f"{self._repo(source)}/commits?{urlencode(query)}"
        found: list[Blame] = []
        for _ in range(max_pages):
            if url is None:
                break
            outcome = await self._fetcher.fetch(self._api_request(url, JSON_MEDIA_TYPE))
            if isinstance(outcome, Gone) and not found:
                return []  # GitHub answered: no history of this path (remembered as such)
            if not isinstance(outcome, Fetched):
                return None
            page = _json(outcome.body)
            if not isinstance(page, list):
                return None
            found.extend(c for c in map(_commit, page) if c is not None)
            try:
                url = next_page_url(outcome.link, url)
            except ForeignPageError:
                return None  # the token goes to the API host only: stop, unknown
        return found

    async def readme_path(self, source: GitHubFile) -> str:
        """The path of the repository's README (README.md, readme.rst, docs/README…).

        The README endpoint's JSON answer names it; asked once per repository and ref.
        Falls back to README.md when the answer says nothing useful.
        """
        key = readme_key(source)
        if key not in self.readme_paths:
            url = f"{self._repo(source)}/readme"
            if source.ref:
                url += f"?ref={quote(source.ref, safe='')}"
            outcome = await self._fetcher.fetch(self._api_request(url, JSON_MEDIA_TYPE))
            path = _dig(_json(outcome.body), "path") if isinstance(outcome, Fetched) else None
            if not isinstance(outcome, Fetched):
                return README_PATH  # unknown this time: not remembered, asked again
            self.readme_paths[key] = path if isinstance(path, str) and path else README_PATH
        return self.readme_paths[key]

    async def commit_before(self, source: GitHubFile, until: dt.datetime) -> Blame | Absent | None:
        """The last commit that touched the file at or before `until`; ABSENT: GitHub
        answered that there is none; None: it did not answer (asked again next time)."""
        commits = await self.commits(source, until=until, per_page=1, max_pages=1)
        if commits is None:
            return None
        return commits[0] if commits else ABSENT

    async def file_at(self, source: GitHubFile, sha: str) -> bytes | None:
        """The file's raw body at a commit."""
        repo = self._repo(source)
        if source.path is None:
            url = f"{repo}/readme?ref={quote(sha, safe='')}"
        else:
            url = f"{repo}/contents/{quote(source.path)}?ref={quote(sha, safe='')}"
        outcome = await self._fetcher.fetch(self._api_request(url, RAW_MEDIA_TYPE))
        return outcome.body if isinstance(outcome, Fetched) else None

    async def github_version(
        self, source: GitHubFile, until: dt.datetime, *, current: bool = False
    ) -> Version | Absent | None:
        """The file as it stood at `until`, dated by the commit that made it so
        (`version_from_commits` over GitHub's commits of the file)."""
        return await version_from_commits(_GitHubCommits(self, source), until, current=current)

    async def wayback_version(
        self, url: str, until: dt.datetime
    ) -> Version | Absent | Withheld | None:
        """The Wayback Machine's copy closest to `until`, if it is not newer than it.

        The availability API answers the closest capture on either side; a capture
        after the check date is not what the checker saw, so it is refused. Withheld,
        with nothing sent: the Wayback Machine is turned off, or `url` may not be shown
        to a third party (`guard.withheld_url`: an internal or unresolvable host).
        """
        if self._wayback is None:
            return WAYBACK_OFF
        if url not in self._withheld:
            self._withheld[url] = await withheld_url(url, self._resolver)
        reason = self._withheld[url]
        if reason is not None:
            return Withheld(f"not sent to the Wayback Machine: {reason}")
        query = urlencode({"url": url, "timestamp": until.strftime("%Y%m%d%H%M%S")})
        outcome = await self._fetcher.fetch(
            FetchRequest(url=f"{self._wayback}/wayback/available?{query}")
        )
        if not isinstance(outcome, Fetched):
            return None
        answer = _json(outcome.body)
        closest = _dig(answer, "archived_snapshots", "closest")
        if isinstance(_dig(answer, "archived_snapshots"), dict) and closest is None:
            return ABSENT  # the archive answered: it holds no copy of the page
        if not isinstance(closest, dict) or not closest.get("available"):
            return None
        stamp, copy = str(closest.get("timestamp", "")), str(closest.get("url", ""))
        try:
            captured = dt.datetime.strptime(stamp, "%Y%m%d%H%M%S").replace(tzinfo=dt.UTC)
        except ValueError:
            return None
        if captured > until:
            return ABSENT  # the closest copy is later than the check date
        if f"/{stamp}/" not in copy:
            return None
        raw = copy.replace(f"/{stamp}/", f"/{stamp}id_/", 1)
        fetched = await self._fetcher.fetch(FetchRequest(url=raw))
        if not isinstance(fetched, Fetched):
            return None
        return Version(date=captured, body=fetched.body, origin=f"wayback {copy}")

    async def blame(
        self,
        source: GitHubFile,
        since: dt.datetime,
        still_holds: Callable[[bytes], bool],
    ) -> tuple[Blame | None, int]:
        """The first commit since `since` after which `still_holds` is false
        (`bisect_commits` over GitHub's commits of the file)."""
        return await bisect_commits(_GitHubCommits(self, source), since, still_holds)

    def _repo(self, source: GitHubFile) -> str:
        return f"{self._api}/repos/{quote(source.owner, safe='')}/{quote(source.repo, safe='')}"

    def _api_request(self, url: str, accept: str) -> FetchRequest:
        return api_request(url, accept, api_url=self._api, token=self._token)


class FileCommits(Protocol):
    """One repository file's history on a forge: the commits that touched it, newest
    first, and the file at a commit. GitHub, GitLab and Forgejo each give one; the
    baseline and blame algorithms below are the same over all of them."""

    async def commits(
        self,
        *,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        per_page: int = 100,
        max_pages: int = MAX_PAGES,
    ) -> list[Blame] | None:
        """Commits that touched the file, newest first; None: history did not answer."""
        ...

    async def file_at(self, sha: str) -> bytes | None:
        """The file's raw body at a commit; None: not read."""
        ...


async def version_from_commits(
    files: FileCommits, until: dt.datetime, *, current: bool = False
) -> Version | Absent | None:
    """The file as it stood at `until`, dated by the commit that made it so.

    One request lists the file's newest commits: when the newest is not after
    `until`, the file is as it is now, and with `current` (the caller fetched the
    file this run) it is not downloaded again (`body` None); otherwise the list
    usually holds the commit in force at `until` and only that version is
    downloaded. A file changed more than a page of times since asks for the commit
    at `until` directly. None: history did not answer.
    """
    recent = await files.commits(per_page=_RECENT, max_pages=1)
    if recent is None:
        return None
    before = [c for c in recent if c.date <= until]
    if before and before[0] is recent[0] and current:
        return Version(date=recent[0].date, body=None, origin=f"commit {recent[0].sha}")
    if before:
        commit: Blame | None = before[0]
    elif len(recent) < _RECENT:
        return ABSENT  # every commit of the file is later: it was not there yet
    else:
        found = await files.commits(until=until, per_page=1, max_pages=1)
        if found is None:
            return None
        commit = found[0] if found else None
    if commit is None:
        return ABSENT
    body = await files.file_at(commit.sha)
    if body is None:
        return None
    return Version(date=commit.date, body=body, origin=f"commit {commit.sha}")


async def bisect_commits(
    files: FileCommits, since: dt.datetime, still_holds: Callable[[bytes], bool]
) -> tuple[Blame | None, int]:
    """The first commit since `since` after which `still_holds` is false.

    Bisects the commits that touched the file (oldest to newest), so the number
    of file fetches is logarithmic in the number of commits. Returns the commit
    (None when not found) and how many file versions were fetched.
    """
    commits = await files.commits(since=since)
    if not commits:
        return None, 0
    ordered: Sequence[Blame] = list(reversed(commits))
    low, high, fetched = 0, len(ordered) - 1, 0
    culprit: Blame | None = None
    while low <= high:
        middle = (low + high) // 2
        body = await files.file_at(ordered[middle].sha)
        fetched += 1
        if body is None:
            return None, fetched
        if still_holds(body):
            low = middle + 1
        else:
            culprit = ordered[middle]
            high = middle - 1
    return culprit, fetched


@dataclass(frozen=True)
class _GitHubCommits:
    """A GitHub file's history as `FileCommits`."""

    history: History
    source: GitHubFile

    async def commits(
        self,
        *,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        per_page: int = 100,
        max_pages: int = MAX_PAGES,
    ) -> list[Blame] | None:
        return await self.history.commits(
            self.source, since=since, until=until, per_page=per_page, max_pages=max_pages
        )

    async def file_at(self, sha: str) -> bytes | None:
        return await self.history.file_at(self.source, sha)


def readme_key(source: GitHubFile) -> tuple[str, str, str | None]:
    """How a README's path is remembered: repository names are case-insensitive."""
    return (source.owner.lower(), source.repo.lower(), source.ref)


def api_request(
    url: str,
    accept: str | None,
    *,
    api_url: str,
    token: str | None,
    etag: str | None = None,
    last_modified: str | None = None,
) -> FetchRequest:
    """A request to the GitHub API: its media type, version header, and the token
    bound to the API host (the fetcher never sends it anywhere else)."""
    return FetchRequest(
        url=url,
        accept=accept,
        etag=etag,
        last_modified=last_modified,
        token=token,
        token_host=urlsplit(api_url).netloc.lower(),
        api_version=GITHUB_API_VERSION,
    )


def _commit(item: Any) -> Blame | None:
    """A commit of the list-commits answer, or None when it lacks what blame needs."""
    if not isinstance(item, dict):
        return None
    sha, details = item.get("sha"), item.get("commit")
    if not isinstance(sha, str) or not isinstance(details, dict):
        return None
    date = _dig(details, "committer", "date") or _dig(details, "author", "date")
    try:
        when = dt.datetime.fromisoformat(str(date).replace("Z", "+00:00")).astimezone(dt.UTC)
    except ValueError:
        return None
    login = _dig(item, "author", "login")
    author = login if isinstance(login, str) else str(_dig(details, "author", "name") or "")
    message = str(details.get("message") or "")
    return Blame(
        sha=sha,
        date=when,
        author=author,
        title=message.splitlines()[0] if message else "",
        url=str(item.get("html_url") or ""),
    )


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _iso(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
