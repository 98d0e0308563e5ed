"""No real page is a wall: the plausibility gate over every page and README the suite ships.

Sign-in, consent and challenge walls are read by their structure and by their fall
against the stored version (`sources.walls`, `sources.plausible`). The guard against
false alarms is measured on real pages: every README version of the history corpus
(each after the one before it, and each as a first fetch), every documentation page of
`tests/data/pages` (one carries a cookie banner, several a search form and login links
in their navigation), the pages a script renders, the articles and the golden cases'
before and after versions.
Each must be a new version, not a wall of any kind.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from claimcheck.judge.answer import Answer, Expect, NewVersion, Previous
from claimcheck.judge.plausible import judge_answer
from claimcheck.judge.verdict import page_text
from claimcheck.judge.walls import find_wall_form
from claimcheck.models import MediaType
from support.paths import CORPUS, DATA, ROOT

# Slow: every README version of the corpus.
pytestmark = pytest.mark.slow

URL = "https://docs.example.org/page.html"
API = "https://api.github.com/repos/acme/widget/readme"
RAW = "application/vnd.github.raw+json; charset=utf-8"
HTML = "text/html; charset=utf-8"


def _judge(body: str, media: MediaType, before: str | None) -> object:
    previous = None if before is None else Previous(before, page_text(before, media))
    if media is MediaType.HTML:
        answer = Answer(200, {"content-type": HTML}, body.encode(), URL, URL)
        return judge_answer(answer, Expect.PAGE, media, previous)
    answer = Answer(200, {"content-type": RAW}, body.encode(), API, API)
    return judge_answer(answer, Expect.GITHUB_RAW, media, previous)


def _readme_steps() -> Iterator[tuple[str, str, str | None]]:
    """(name, body, the version before it) for every README version of the corpus."""
    for index in sorted(CORPUS.glob("*/index.json")):
        entries = json.loads(index.read_text(encoding="utf-8"))
        entries = entries if isinstance(entries, list) else entries.get("versions", entries)
        before: str | None = None
        for entry in entries:
            if not entry.get("file"):
                continue
            body = (index.parent / entry["file"]).read_text(encoding="utf-8")
            yield f"{index.parent.name}@{entry.get('date')}", body, before
            before = body


def _html_pages() -> list[Path]:
    return sorted([*(DATA / "pages").glob("*.html"), *(DATA / "articles").glob("*.html")])


def _markdown_files() -> list[Path]:
    cases = ROOT / "tests" / "cases"
    return sorted(
        [*cases.glob("*/before.md"), *cases.glob("*/after.md"), *(DATA / "articles").glob("*.md")]
    )


def test_no_readme_version_of_the_corpus_is_a_wall() -> None:
    checked = 0
    for name, body, before in _readme_steps():
        for previous in (before, None):
            found = _judge(body, MediaType.MARKDOWN, previous)
            assert isinstance(found, NewVersion), (name, previous is None, found)
        checked += 1
    assert checked > 300


@pytest.mark.parametrize("path", _html_pages(), ids=lambda p: p.name)
def test_no_documentation_page_is_a_wall(path: Path) -> None:
    body = path.read_text(encoding="utf-8")
    form = find_wall_form(body)
    assert form is None or not form.alone, form
    for previous in (None, body):
        found = _judge(body, MediaType.HTML, previous)
        assert isinstance(found, NewVersion), (path.name, found)


def test_every_documentation_page_after_every_other_stays_a_page() -> None:
    """A site's pages swapped for one another (a page moved): none reads as a wall,
    however little it shares with the one before."""
    pages = [p.read_text(encoding="utf-8") for p in _html_pages()]
    assert len(pages) >= 9
    for before in pages:
        for body in pages:
            found = _judge(body, MediaType.HTML, before)
            kind = getattr(found, "kind", None)
            assert kind not in {"login", "consent", "challenge", "login-redirect"}, found


def test_no_golden_case_or_article_in_markdown_is_a_wall() -> None:
    files = _markdown_files()
    assert len(files) > 100
    for path in files:
        body = path.read_text(encoding="utf-8")
        found = _judge(body, MediaType.MARKDOWN, None)
        kind = getattr(found, "kind", None)
        assert kind not in {"login", "consent", "challenge"}, (path, found)
    for after in (ROOT / "tests" / "cases").glob("*/after.md"):
        before = after.with_name("before.md")
        if before.is_file():
            found = _judge(
                after.read_text(encoding="utf-8"),
                MediaType.MARKDOWN,
                before.read_text(encoding="utf-8"),
            )
            kind = getattr(found, "kind", None)
            assert kind not in {"login", "consent", "challenge"}, (after, found)


def test_no_html_file_the_suite_ships_is_a_wall_by_its_structure() -> None:
    """Every HTML file under tests/data, the pages a script renders included."""
    files = sorted(DATA.rglob("*.html"))
    assert len(files) >= 18
    for path in files:
        form = find_wall_form(path.read_text(encoding="utf-8"))
        assert form is None or not form.alone, (path, form)
    for path in sorted((DATA / "rendered").glob("*.html")):
        if path.name == "challenge.html":  # its script writes a bot challenge's words
            continue
        found = _judge(path.read_text(encoding="utf-8"), MediaType.HTML, None)
        assert isinstance(found, NewVersion), (path.name, found)
