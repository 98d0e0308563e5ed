"""One route's notification as a title and a Markdown body: pure, no I/O.

The claims are grouped by page (the claim file or article), each with its transition,
its verdict and reason, the quote and what the source says now (the report's own
fields and the change every format shows, `change_of`: nothing is judged again), the
link to the source at the quote, its issue when one is known, and the run's report.
Every text from a page, a claim file or the repository is escaped for Markdown
(`markdown_text` / `markdown_code`, as the Markdown report does) and cut to a bound,
and a message lists at most `MAX_CLAIMS` claims, so that neither a page nor a run of
thousands of changes can make a message no service accepts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from urllib.parse import quote

from claimcheck.judge.change import Change, change_of
from claimcheck.models import ClaimResult, Verdict
from claimcheck.notify.plan import Notice, RouteNotices, Transition
from claimcheck.report.formats.common import (
    display_url,
    quote_text,
    safe_url,
    source_link,
    text_now,
)
from claimcheck.report.formats.markdown import inline_diff
from claimcheck.untrusted import clean_text, markdown_code, markdown_text, shorten
from claimcheck.wording import counted

MAX_CLAIMS = 25
"""The most claims one message lists; the rest are counted, the report has them all."""
MAX_TEXT = 300
"""The most characters of one text from a page or a claim file shown in a message."""

_ICON = {Transition.STALE: "❌", Transition.REVIEW: "⚠️", Transition.RECOVERED: "✅"}


@dataclass(frozen=True)
class Links:
    """What a message links to besides the sources: the run's report (None: unknown),
    each claim's issue number (as the issue sync knows it) and the issues' page."""

    report: str | None = None
    issues: Mapping[str, int] = field(default_factory=dict)
    issues_page: str | None = None


@dataclass(frozen=True)
class Message:
    """One route's notification."""

    route: str
    title: str
    body: str
    claims: tuple[str, ...]


def run_links(env: Mapping[str, str], issues: Mapping[str, int] | None = None) -> Links:
    """The links of a run from GitHub Actions' variables (`GITHUB_SERVER_URL`,
    `GITHUB_REPOSITORY`, `GITHUB_RUN_ID`); none of them set: no report link."""
    server = safe_url((env.get("GITHUB_SERVER_URL") or "").rstrip("/") or None)
    repository = env.get("GITHUB_REPOSITORY") or ""
    run = env.get("GITHUB_RUN_ID") or ""
    repo_ok = repository.count("/") == 1 and all(repository.split("/"))
    base = f"{server}/{quote(repository, safe='/')}" if server and repo_ok else None
    report = f"{base}/actions/runs/{quote(run, safe='')}" if base and run.isdigit() else None
    return Links(report=report, issues=dict(issues or {}), issues_page=base and f"{base}/issues")


def title_of(notices: Sequence[Notice]) -> str:
    """`claimcheck: 2 newly stale, 1 recovered`: the counts of each transition."""
    counts = [
        f"{sum(1 for n in notices if n.transition is kind)} {kind.value}"
        for kind in Transition
        if any(n.transition is kind for n in notices)
    ]
    return "claimcheck: " + ", ".join(counts)


def render_message(told: RouteNotices, links: Links) -> Message:
    """The message of one route: its title with the counts, its body grouped by page."""
    notices = told.notices
    shown = notices[:MAX_CLAIMS]
    pages: dict[str, list[Notice]] = {}
    for notice in shown:
        pages.setdefault(notice.result.claim.file, []).append(notice)
    lines: list[str] = []
    for file, grouped in pages.items():
        page = grouped[0].result.claim.page
        lines += [f"### {markdown_code(_cut(file))} ({markdown_text(_cut(page))})", ""]
        for notice in grouped:
            lines += [*_claim_lines(notice, links), ""]
    if len(notices) > len(shown):
        lines += [f"… and {counted(len(notices) - len(shown), 'more claim')}: see the report.", ""]
    if links.report:
        lines.append(f"[The run's report]({links.report})")
    return Message(
        route=told.route.name,
        title=title_of(notices),
        body="\n".join(lines).strip() + "\n",
        claims=tuple(n.result.claim.id for n in notices),
    )


def _claim_lines(notice: Notice, links: Links) -> list[str]:
    result, claim = notice.result, notice.result.claim
    head = (
        f"- {_ICON[notice.transition]} **{notice.transition.value}**: "
        f"{markdown_code(_cut(claim.id))} · {result.verdict.value}"
    )
    lines = [head, f"  - **Why:** {markdown_text(_cut(result.reason))}"]
    lines.append(f"  - **Claim:** {markdown_text(_cut(claim.claim))}")
    quoted = quote_text(claim)
    if quoted:
        lines.append(f"  - **Quote:** “{markdown_text(_cut(quoted))}”")
    if notice.transition is not Transition.RECOVERED:
        now = _now(result)
        if now:
            lines.append(f"  - {now}")
    source = _source(result)
    if source:
        lines.append(f"  - **Source:** {source}")
    number = links.issues.get(claim.id)
    if number is not None:
        issue = f"#{number}"
        shown = f"[{issue}]({links.issues_page}/{number})" if links.issues_page else issue
        lines.append(f"  - **Issue:** {shown}")
    lines.append(f"  - **Where:** {markdown_code(_cut(f'{claim.file}:{claim.line}'))}")
    return lines


def _now(result: ClaimResult) -> str | None:
    """What the source says now, as the Markdown report shows it (bounded)."""
    change = change_of(result)
    if change is not None and change.what == "quote":
        return f"**Now:** {inline_diff(_bounded(change))}"
    if change is not None:
        what = "Its block" if change.what == "block" else "The quote in its context"
        return f"**{what}, then → now:** {inline_diff(_bounded(change))}"
    now = text_now(result)
    if now is not None:
        label = "Says now" if result.verdict is Verdict.CONTRADICTED else "Now"
        return f"**{label}:** “{markdown_text(_cut(now))}”"
    return None


_WORDS = 80
"""The most words of a change a message shows (its context: a few either side)."""


def _bounded(change: Change) -> Change:
    """The change with at most `_WORDS` words, each cut to a bound, and a few words of
    context either side: cut before escaping, so no escape is cut in two."""
    words = change.words
    if len(words) > _WORDS:
        half = _WORDS // 2
        words = (*words[:half], ("same", "…"), *words[-half:])
    return replace(
        change,
        words=tuple((kind, shorten(word, 60)) for kind, word in words),
        lead=tuple(shorten(w, 60) for w in change.lead[-8:]),
        tail=tuple(shorten(w, 60) for w in change.tail[:8]),
    )


def _source(result: ClaimResult) -> str | None:
    claim = result.claim
    if claim.source is None:
        return None
    link = source_link(result)
    moved = safe_url(result.moved_to)
    label = markdown_text(_cut(display_url(moved or claim.source), 120))
    return f"[{label}]({link})" if link and len(link) <= 4000 else label


def _cut(text: str, width: int = MAX_TEXT) -> str:
    return shorten(clean_text(text), width)
