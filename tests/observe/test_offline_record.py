"""For the same store, an offline verdict equals the last online verdict whenever the
snapshot did not change: over stores built night after night from a web server on
127.0.0.1 whose pages change, go, move, redirect an alias to another version, answer a
bot challenge or fail; and what `list` / `show` read (state.json) says the same."""

from __future__ import annotations

import datetime as dt
import re
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimcheck.claims.load import load_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.config import Config, FetchConfig, VerdictConfig
from claimcheck.models import ClaimResult, Verdict
from claimcheck.observe.online import ONLINE
from claimcheck.pipeline import run_verify
from claimcheck.store.state import load_state
from support.local_http import send_answer, serving

QUOTE = "The server batches incoming requests continuously."
ABSENT = "now in maintenance mode"
BEHAVIOURS = (
    "page",  # the quote under its heading: verified (expired once the check is old)
    "heading",  # the quote under another heading: context-changed
    "reworded",  # drifted
    "other",  # missing
    "maintenance",  # the absence claim is contradicted
    "gone-404",
    "gone-410",
    "moved",  # a permanent redirect to another path
    "alias-1",  # the docs alias leads to version 1.0
    "alias-2",  # ... to version 2.0: moved for a claim standing on 1.0
    "challenge",  # not the page: unreachable
    "failing",  # 503: unreachable
)
FIRST_NIGHT = dt.datetime(2026, 3, 2, 3, 17, tzinfo=dt.UTC)
NIGHTS_APART = dt.timedelta(days=100)  # the third night's check is older than 180 days


def _page(heading: str, text: str) -> str:
    return f"<html><body><main><h1>{heading}</h1><p>{text}</p></main></body></html>"


Answer = tuple[int, dict[str, str], bytes]
HTML = {"Content-Type": "text/html; charset=utf-8"}
CHALLENGE = (
    "<html><head><title>Just a moment...</title></head><body><h1>example.org</h1>"
    "<h2 id='challenge-running'>Checking if the site connection is secure</h2>"
    "<noscript>Enable JavaScript and cookies to continue</noscript></body></html>"
)


class Nights:
    """A web server on 127.0.0.1 whose answers, path by path, a test sets night by night."""

    def __init__(self) -> None:
        self._answers: dict[str, Answer] = {}
        self._lock = threading.Lock()
        self.base_url = ""

    @contextmanager
    def serving(self) -> Iterator[Nights]:
        nights = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with nights._lock:
                    answer = nights._answers.get(self.path.split("?")[0])
                status, headers, body = answer or (404, {"Content-Type": "text/plain"}, b"nope")
                send_answer(self, status, headers, body)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the test reads the reports and the store."""

        with serving(Handler) as url:
            self.base_url = url
            yield self

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def tonight(self, answers: dict[str, Answer]) -> None:
        """Answer these paths tonight, every other one 404."""
        with self._lock:
            self._answers = dict(answers)


def _answers(source: int, behaviour: str, base_url: str) -> dict[str, Answer]:
    """What the server answers for one source's paths tonight."""
    path = f"/docs/latest/s{source}.html"
    pages = {
        "page": _page("Serving", QUOTE),
        "heading": _page("Legacy serving, unsupported", QUOTE),
        "reworded": _page("Serving", QUOTE.replace("continuously", "in fixed windows")),
        "other": _page("Serving", "Requests are answered one at a time."),
        "maintenance": _page("Serving", f"{QUOTE} The project is {ABSENT}."),
    }
    if behaviour in pages:
        return {path: (200, HTML, pages[behaviour].encode())}
    if behaviour == "gone-404":
        return {}
    if behaviour == "gone-410":
        return {path: (410, {"Content-Type": "text/plain"}, b"Gone")}
    if behaviour == "moved":
        moved = f"/handbook/s{source}.html"
        return {
            path: (301, {"Location": f"{base_url}{moved}"}, b""),
            moved: (200, HTML, pages["page"].encode()),
        }
    if behaviour.startswith("alias-"):
        version = f"/docs/v{behaviour[-1]}.0/s{source}.html"
        return {
            path: (302, {"Location": f"{base_url}{version}"}, b""),
            version: (200, HTML, pages["page"].encode()),
        }
    if behaviour == "challenge":
        return {path: (200, HTML, CHALLENGE.encode())}
    if behaviour == "failing":
        return {path: (503, {"Content-Type": "text/plain"}, b"Service Unavailable")}
    raise AssertionError(behaviour)  # pragma: no cover


def _claims_file(folder: Path, server: Nights, sources: int) -> Path:
    lines = ["page: p", "title: P", f"checked: {FIRST_NIGHT.date()}", "claims:"]
    for source in range(sources):
        url = server.url(f"/docs/latest/s{source}.html")
        lines += [
            f"  - id: quote-{source}",
            f"    claim: the server batches continuously ({source})",
            f'    source: "{url}"',
            f'    quote: "{QUOTE}"',
            f"  - id: absent-{source}",
            f"    claim: the project is maintained ({source})",
            f'    source: "{url}"',
            f'    absent: "{ABSENT}"',
        ]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "p.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def reason_class(reason: str) -> str:
    """A reason without the words that say whether the source was read now or stored."""
    reason = re.sub(
        r"in the source (now|in the snapshot of \d{4}-\d{2}-\d{2})", "in the source", reason
    )
    reason = re.sub(
        r"does not say (.*?) (now|in the snapshot of \d{4}-\d{2}-\d{2})", r"does not say \1", reason
    )
    return re.sub(r" \(snapshot of \d{4}-\d{2}-\d{2}\)", "", reason)


def _as_judged(result: ClaimResult) -> tuple[str, str | None, str]:
    return (result.verdict.value, result.moved_to, reason_class(result.reason))


def run_nights(nights: Sequence[Sequence[str]]) -> set[Verdict]:
    """Run each night online, then offline on the same store at the same moment, and
    hold the offline verdicts (and state.json's) equal to the online ones. Returns the
    verdicts seen."""
    seen: set[Verdict] = set()
    with (
        Nights().serving() as server,
        tempfile.TemporaryDirectory(prefix="claimcheck-offline-") as folder,
    ):
        root = Path(folder)
        config = Config(
            root=root,
            fetch=FetchConfig(per_host_interval=0, retries=0),
            verdict=VerdictConfig(max_age_days=180),
            github_api_url=server.base_url,
            wayback_url=server.base_url,
        )
        claims = load_claims(
            [_claims_file(root / "claims", server, len(nights[0]))], read=read_document
        )
        for number, night in enumerate(nights):
            answers: dict[str, Answer] = {}
            for source, behaviour in enumerate(night):
                answers |= _answers(source, behaviour, server.base_url)
            server.tonight(answers)
            now = FIRST_NIGHT + number * NIGHTS_APART
            online, _ = run_verify(claims, config, online=ONLINE, now=now)
            offline, _ = run_verify(claims, config, online=None, now=now)
            recorded = load_state(config.snapshots_dir).claims
            for on, off in zip(online.results, offline.results, strict=True):
                context = f"night {number} {night}, {on.claim.id}: {on.reason!r} / {off.reason!r}"
                assert _as_judged(off) == _as_judged(on), context
                last = recorded[on.claim.id]
                assert (last.verdict, last.reason) == (on.verdict, on.reason), context
                seen.add(on.verdict)
    return seen


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.integers(min_value=1, max_value=3).flatmap(
        lambda sources: st.lists(
            st.lists(st.sampled_from(BEHAVIOURS), min_size=sources, max_size=sources),
            min_size=1,
            max_size=3,
        )
    )
)
def test_an_offline_verdict_is_the_last_online_verdict(nights: list[list[str]]) -> None:
    run_nights(nights)


def test_the_nights_produce_every_verdict_a_source_can_give() -> None:
    """The property's inputs reach every verdict of a claim with a source; checked on
    fixed nights so that the property above is known to range over all of them."""
    nights = [
        ["page", "page", "alias-1", "page", "page"],
        ["heading", "reworded", "alias-2", "gone-404", "challenge"],
        ["page", "other", "alias-2", "moved", "maintenance"],
        ["failing", "gone-410", "alias-1", "page", "page"],
    ]

    seen = run_nights(nights)

    # `changed` is a claim on a field's (tests/cli/test_cli_fields.py), not a quote's.
    assert seen >= set(Verdict) - {Verdict.UNVERIFIED, Verdict.CHANGED}, sorted(seen)
